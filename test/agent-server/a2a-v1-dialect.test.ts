/**
 * The v1.0 dialect defects of issue 14, through the @a2a-js/sdk 1.x client where it can send the
 * request and raw JSON-RPC where it cannot (snake_case names, bad roles, invalid ListTasks input):
 * push configs on SendMessage / SendStreamingMessage, the proto field names of every method, the
 * message role, ListTasks' filters and validation, and the extended card of an open server.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, type Client } from "@a2a-js/sdk/client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeBackends, eventually, serverForSuite, type TestServer } from "../helpers/server.js";

const message = (text: string, extra: Record<string, unknown> = {}) =>
  ({ messageId: randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: "text", value: text } }], ...extra }) as never;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: any;
}

describeBackends("A2A v1.0 dialect (issue 14)", (backend) => {
  let server: TestServer;
  // the push receiver listens on loopback, which the outbound policy refuses unless allowed
  serverForSuite(backend, (s) => (server = s), { allowPrivateWebhooks: "127.0.0.1" });

  const received: Received[] = [];
  let hook: http.Server;
  let hookUrl: string;
  beforeAll(async () => {
    hook = http.createServer((req, res) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        received.push({ headers: req.headers, body: JSON.parse(data) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", () => r()));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/notify`;
  });
  afterAll(() => new Promise<void>((r) => hook.close(() => r())));

  const clientFor = (assistant: string): Promise<Client> => new ClientFactory().createFromUrl(server.url, `/a2a/${assistant}/.well-known/agent-card.json`);
  const rpc = async (method: string, params: unknown, assistant = "chat") => {
    const res = await fetch(`${server.url}/a2a/${assistant}`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: method, method, params }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { result?: any; error?: { code: number; message: string; data?: { detail?: string } } };
  };
  const notificationsOf = (taskId: string) => received.filter((r) => r.body?.task?.id === taskId);

  it("SendMessage and SendStreamingMessage store configuration.taskPushNotificationConfig and notify it when the task ends", async () => {
    const client = await clientFor("chat");
    const push = (id: string) => ({ id, url: hookUrl, token: `token-${id}`, authentication: { scheme: "Bearer", credentials: `cred-${id}` } });
    const sent = (await client.sendMessage({ message: message("notify me"), configuration: { taskPushNotificationConfig: push("sent") } } as never)) as any;
    expect(sent.status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const events: any[] = [];
    for await (const e of client.sendMessageStream({ message: message("notify the stream"), configuration: { taskPushNotificationConfig: push("streamed") } } as never)) events.push(e);
    const streamedId = events[0].payload.value.id as string;
    expect(events.at(-1).payload.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    // stored: the task's configs list it, in v1 shape
    const listed = (await client.listTaskPushNotificationConfig({ taskId: sent.id } as never)) as any;
    expect(listed.configs.map((c: any) => [c.id, c.url, c.token, c.authentication?.scheme, c.authentication?.credentials])).toEqual([
      ["sent", hookUrl, "token-sent", "Bearer", "cred-sent"],
    ]);

    // delivered: each task POSTed as a v1.0 StreamResponse with its token and credentials
    for (const [taskId, id] of [[sent.id as string, "sent"], [streamedId, "streamed"]] as const) {
      const [first] = await eventually(async () => (notificationsOf(taskId).length > 0 ? notificationsOf(taskId) : undefined));
      expect(first!.body.task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(first!.body.task.kind).toBeUndefined();
      expect(first!.headers["x-a2a-notification-token"]).toBe(`token-${id}`);
      expect(first!.headers.authorization).toBe(`Bearer cred-${id}`);
      expect(first!.headers["content-type"]).toMatch(/^application\/a2a\+json/);
    }
  });

  it("every method takes the proto field names (snake_case) as well as the JSON names", async () => {
    const contextId = randomUUID();
    const sent = await rpc("SendMessage", {
      message: { message_id: randomUUID(), context_id: contextId, role: "ROLE_USER", parts: [{ text: "snake", media_type: "text/plain" }], metadata: { keep_me: 1 } },
      configuration: { history_length: 0, return_immediately: false, task_push_notification_config: { id: "snake-hook", url: hookUrl, token: "snake-token" } },
    });
    expect(sent.error).toBeUndefined();
    const task = sent.result.task;
    expect(task.contextId).toBe(contextId);
    expect(task.history).toEqual([]); // history_length 0 applied
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    await eventually(async () => notificationsOf(task.id).length > 0);

    const created = await rpc("CreateTaskPushNotificationConfig", { task_id: task.id, id: "second", url: hookUrl, token: "t2" });
    expect(created.result).toEqual({ taskId: task.id, id: "second", url: hookUrl, token: "t2" });
    expect((await rpc("GetTaskPushNotificationConfig", { task_id: task.id, id: "second" })).result.token).toBe("t2");
    expect((await rpc("ListTaskPushNotificationConfigs", { task_id: task.id, page_size: 10 })).result.configs.map((c: any) => c.id)).toEqual(["snake-hook", "second"]);
    expect((await rpc("DeleteTaskPushNotificationConfig", { task_id: task.id, id: "second" })).result).toEqual({});
    expect((await rpc("ListTaskPushNotificationConfigs", { task_id: task.id })).result.configs.map((c: any) => c.id)).toEqual(["snake-hook"]);

    expect((await rpc("GetTask", { id: task.id, history_length: 1 })).result.history).toHaveLength(1);
    const listed = (await rpc("ListTasks", { context_id: contextId, page_size: 1, history_length: 0, include_artifacts: true, status_timestamp_after: "2000-01-01T00:00:00Z" })).result;
    expect(listed.tasks.map((t: any) => t.id)).toEqual([task.id]);
    expect(listed.tasks[0].artifacts[0].parts).toEqual([{ text: "You said: snake" }]);

    // a follow-up in the same context by snake_case ids reaches the same thread
    await rpc("SendMessage", { message: { message_id: randomUUID(), context_id: contextId, role: "ROLE_USER", parts: [{ text: "again" }] } });
    const state = await server.client.threads.getState<{ messages: { content: string }[] }>(contextId);
    expect(state.values.messages.map((m) => m.content)).toEqual(["snake", "You said: snake", "again", "You said: again"]);

    // one field under both names is ambiguous
    const twice = await rpc("GetTask", { id: task.id, history_length: 1, historyLength: 2 });
    expect(twice.error?.code).toBe(-32602);
  });

  it("a message without a valid role is -32602 and starts nothing", async () => {
    const contextId = randomUUID();
    for (const role of [undefined, "ROLE_UNSPECIFIED", 0, "user", "ROLE_SYSTEM", 7, null, "constructor"]) {
      const res = await rpc("SendMessage", { message: { messageId: randomUUID(), contextId, ...(role === undefined ? {} : { role }), parts: [{ text: "who am I" }] } });
      expect(res.error?.code, JSON.stringify(role)).toBe(-32602);
      expect(res.error?.data?.detail).toMatch(/role/);
    }
    const streamed = await fetch(`${server.url}/a2a/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message: { messageId: randomUUID(), contextId, parts: [{ text: "x" }] } } }),
    });
    expect(await streamed.text()).toContain('"code":-32602');
    // nothing was created for that context
    expect((await rpc("ListTasks", { contextId })).result.totalSize).toBe(0);
    await expect(server.client.threads.get(contextId)).rejects.toThrow(/404|not found/i);
    // the proto enum number of ROLE_USER is a valid role
    expect((await rpc("SendMessage", { message: { messageId: randomUUID(), contextId, role: 1, parts: [{ text: "numeric role" }] } })).result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("ListTasks applies statusTimestampAfter, status and includeArtifacts, and refuses invalid values", async () => {
    const client = await clientFor("chat");
    const contextId = randomUUID();
    const first = (await client.sendMessage({ message: message("first", { contextId }) } as never)) as any;
    const second = (await client.sendMessage({ message: message("second", { contextId }) } as never)) as any;
    const stamp = async (id: string) => (await rpc("GetTask", { id })).result.status.timestamp as string;
    const [t1, t2] = [await stamp(first.id), await stamp(second.id)];
    // status timestamps are when the state changed, not when they were read
    expect(await stamp(first.id)).toBe(t1);
    expect(Date.parse(t1)).toBeLessThan(Date.parse(t2));

    const ids = async (params: Record<string, unknown>) => ((await rpc("ListTasks", { contextId, ...params })).result.tasks as any[]).map((t) => t.id);
    expect(await ids({})).toEqual([second.id, first.id]);
    expect(await ids({ statusTimestampAfter: t2 })).toEqual([second.id]);
    expect(await ids({ statusTimestampAfter: t1 })).toEqual([second.id, first.id]);
    expect(await ids({ statusTimestampAfter: "2999-01-01T00:00:00Z" })).toEqual([]);
    // through the 1.x client (a Date, serialised as an RFC 3339 string)
    const viaClient = (await client.listTasks({ tenant: "", contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: new Date(t2) } as never)) as any;
    expect(viaClient.tasks.map((t: any) => t.id)).toEqual([second.id]);
    expect(await ids({ status: "TASK_STATE_COMPLETED" })).toEqual([second.id, first.id]);
    expect(await ids({ status: "TASK_STATE_WORKING" })).toEqual([]);

    // artifacts only when asked for (v1.0: includeArtifacts defaults to false)
    const [plain] = (await rpc("ListTasks", { contextId, pageSize: 1 })).result.tasks;
    expect(plain.artifacts).toBeUndefined();
    const [full] = (await rpc("ListTasks", { contextId, pageSize: 1, includeArtifacts: true })).result.tasks;
    expect(full.artifacts[0].parts).toEqual([{ text: "You said: second" }]);

    const invalid: Record<string, unknown>[] = [
      { status: "completed" },
      { status: "TASK_STATE_BOGUS" },
      { status: 42 },
      { status: "constructor" },
      { pageSize: 0 },
      { pageSize: 101 },
      { pageSize: -1 },
      { pageSize: 1.5 },
      { pageSize: "10" },
      { historyLength: -1 },
      { statusTimestampAfter: "yesterday" },
      { statusTimestampAfter: "2025-13-45T99:00:00Z" },
      { statusTimestampAfter: 1700000000 },
      { includeArtifacts: "yes" },
    ];
    for (const params of invalid) {
      const res = await rpc("ListTasks", { contextId, ...params });
      expect(res.error?.code, JSON.stringify(params)).toBe(-32602);
      expect(res.result).toBeUndefined();
    }
    expect((await rpc("ListTasks", { contextId, pageSize: 100, historyLength: 0 })).result.tasks[0].history).toEqual([]);
  });

  it("an open server's card declares no security and no extended card, and the extended card is refused in both dialects", async () => {
    const v1Card = (await (await fetch(`${server.url}/a2a/chat`, { headers: { "A2A-Version": "1.0" } })).json()) as any;
    expect(v1Card.capabilities.extendedAgentCard).toBe(false);
    expect(v1Card.securitySchemes).toBeUndefined();
    expect(v1Card.securityRequirements).toBeUndefined();
    expect(v1Card.protocolVersion).toBeUndefined();
    const v03Card = (await (await fetch(`${server.url}/a2a/chat`)).json()) as any;
    expect(v03Card.supportsAuthenticatedExtendedCard).toBe(false);
    expect(v03Card.security).toBeUndefined();

    // the 1.x client reads the flag and keeps the public card
    const client = await clientFor("chat");
    expect((await client.getAgentCard()).name).toBe(v1Card.name);

    // v0.3: AuthenticatedExtendedCardNotConfigured; v1.0: UnsupportedOperation (the card does not declare it)
    const legacy = await fetch(`${server.url}/a2a/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "agent/getAuthenticatedExtendedCard" }),
    });
    expect(((await legacy.json()) as any).error).toMatchObject({ code: -32007, message: "Authenticated Extended Card not configured" });
    expect((await rpc("GetExtendedAgentCard", {})).error?.code).toBe(-32004);
  });
});

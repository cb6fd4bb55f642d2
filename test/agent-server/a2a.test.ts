/**
 * The A2A endpoint (v0.3 dialect) through the real @a2a-js/sdk 0.3 client, every answer checked
 * against the official v0.3.0 JSON Schema.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { A2AClient } from "a2a-sdk-v03/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { a2aSchemaErrors } from "../helpers/a2a-schema.js";
import { ROOT, describeBackends, eventually, serverForSuite, startTestServer, type TestServer } from "../helpers/server.js";

const text = (t: string, extra: Record<string, unknown> = {}) => ({
  message: { kind: "message" as const, messageId: randomUUID(), role: "user" as const, parts: [{ kind: "text" as const, text: t }], ...extra },
});

async function rpc(url: string, body: unknown, raw = false) {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: raw ? (body as string) : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as { id: unknown; result?: any; error?: { code: number; message: string; data?: { detail?: string } } } };
}

describeBackends("A2A", (backend) => {
  let server: TestServer;
  let client: A2AClient;
  // the webhook receivers listen on loopback, which the outbound policy refuses unless allowed
  serverForSuite(backend, (s) => (server = s), { allowPrivateWebhooks: "127.0.0.1" });
  beforeAll(async () => {
    client = await A2AClient.fromCardUrl(`${server.url}/.well-known/agent-card.json?assistant_id=chat`);
  });
  const endpoint = (assistant = "chat") => `${server.url}/a2a/${assistant}`;

  it("serves a schema-valid agent card at every card URL, with an absolute endpoint URL", async () => {
    for (const p of ["/.well-known/agent-card.json?assistant_id=chat", "/a2a/chat", "/a2a/chat/.well-known/agent-card.json", "/.well-known/agent-card.json"]) {
      const card = (await (await fetch(server.url + p)).json()) as { url: string; name: string };
      expect(a2aSchemaErrors("AgentCard", card), p).toEqual([]);
      expect(card.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a2a\/[0-9a-f-]{36}$/);
    }
    const proxied = (await (await fetch(`${server.url}/a2a/chat`, { headers: { "x-forwarded-proto": "https", "x-forwarded-host": "agents.example.com" } })).json()) as { url: string };
    expect(proxied.url).toMatch(/^https:\/\/agents\.example\.com\/a2a\//);
    expect((await fetch(`${server.url}/a2a/nope`)).status).toBe(404);
  });

  it("message/send answers a completed task: the reply as artifact and status message, ids generated", async () => {
    const res = await client.sendMessage(text("hello"));
    expect("error" in res).toBe(false);
    const task = (res as { result: any }).result;
    expect(a2aSchemaErrors("Task", task)).toEqual([]);
    expect(task.kind).toBe("task");
    expect(task.status.state).toBe("completed");
    expect(task.artifacts[0].parts[0]).toEqual({ kind: "text", text: "You said: hello" });
    expect(task.status.message.parts[0].text).toBe("You said: hello");
    expect(task.history.map((m: any) => m.role)).toEqual(["user", "agent"]);
    expect(task.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(task.contextId).toMatch(/^[0-9a-f-]{36}$/);
    // tasks/get answers the same state, with historyLength respected
    const got = (await client.getTask({ id: task.id, historyLength: 0 })) as { result: any };
    expect(a2aSchemaErrors("Task", got.result)).toEqual([]);
    expect(got.result.status.state).toBe("completed");
    expect(got.result.history).toEqual([]);
  });

  it("a conversation continues in its context: the thread holds every turn in order", async () => {
    const first = ((await client.sendMessage(text("one"))) as { result: any }).result;
    const second = ((await client.sendMessage(text("two", { contextId: first.contextId }))) as { result: any }).result;
    expect(second.contextId).toBe(first.contextId);
    expect(second.id).not.toBe(first.id);
    expect(second.history.map((m: any) => m.parts[0].text)).toEqual(["two", "You said: two"]);
    const state = await server.client.threads.getState<{ messages: { content: string }[] }>(first.contextId);
    expect(state.values.messages.map((m) => m.content)).toEqual(["one", "You said: one", "two", "You said: two"]);
  });

  it("a client-chosen contextId that is not a UUID works, and maps to one thread", async () => {
    const ctxId = `session-${randomUUID().slice(0, 6)}`;
    const a = ((await client.sendMessage(text("a", { contextId: ctxId }))) as { result: any }).result;
    const b = ((await client.sendMessage(text("b", { contextId: ctxId }))) as { result: any }).result;
    expect([a.contextId, b.contextId]).toEqual([ctxId, ctxId]);
    expect(b.history[1].parts[0].text).toBe("You said: b");
  });

  it("messages sent at once on one context are queued and answered in order", async () => {
    const first = ((await client.sendMessage(text("start"))) as { result: any }).result;
    const replies = await Promise.all(["x", "y", "z"].map((t) => client.sendMessage(text(t, { contextId: first.contextId }))));
    expect(replies.map((r) => (r as { result: any }).result.status.state)).toEqual(["completed", "completed", "completed"]);
    const state = await server.client.threads.getState<{ messages: { content: string }[] }>(first.contextId);
    expect(state.values.messages).toHaveLength(8);
  });

  it("interrupt(): the task waits for input, and a reply with its taskId resumes the graph", async () => {
    const approval = await A2AClient.fromCardUrl(`${server.url}/a2a/approval/.well-known/agent-card.json`);
    const waiting = ((await approval.sendMessage(text("ship it?"))) as { result: any }).result;
    expect(a2aSchemaErrors("Task", waiting)).toEqual([]);
    expect(waiting.status.state).toBe("input-required");
    expect(waiting.status.message.parts[0].text).toContain("Send this answer?");
    const done = ((await approval.sendMessage(text("approve", { contextId: waiting.contextId, taskId: waiting.id }))) as { result: any }).result;
    expect(done.id).toBe(waiting.id);
    expect(done.status.state).toBe("completed");
    expect(done.artifacts[0].parts[0].text).toBe("Approved: Draft answer to: ship it?");
    // a finished task takes no more messages
    const again = await rpc(endpoint("approval"), { jsonrpc: "2.0", id: 1, method: "message/send", params: text("more", { taskId: waiting.id }) });
    expect(again.body.error?.code).toBe(-32004);
  });

  it("configuration.blocking=false answers at once; tasks/cancel cancels, and a second cancel is -32002", async () => {
    // an assistant of the slow graph that takes 10 s per turn, so the task is surely still running
    const assistant = await server.client.assistants.create({ graphId: "slow", config: { configurable: { delay_ms: 10_000 } } });
    const slow = await A2AClient.fromCardUrl(`${server.url}/a2a/${assistant.assistant_id}/.well-known/agent-card.json`);
    const started = ((await slow.sendMessage({ ...text("take your time"), configuration: { blocking: false } })) as { result: any }).result;
    expect(a2aSchemaErrors("Task", started)).toEqual([]);
    expect(["submitted", "working"]).toContain(started.status.state);
    const canceled = ((await slow.cancelTask({ id: started.id })) as { result: any }).result;
    expect(a2aSchemaErrors("Task", canceled)).toEqual([]);
    expect(canceled.status.state).toBe("canceled");
    expect(((await slow.getTask({ id: started.id })) as { result: any }).result.status.state).toBe("canceled");
    const second = (await slow.cancelTask({ id: started.id })) as { error?: { code: number } };
    expect(second.error?.code).toBe(-32002);
  });

  it("message/stream: the Task, working updates carrying the reply as it is produced, the artifact, then final", async () => {
    const events: any[] = [];
    for await (const e of client.sendMessageStream(text("stream this please"))) events.push(e);
    const kinds = events.map((e) => e.kind);
    expect(kinds[0]).toBe("task");
    expect(kinds.at(-1)).toBe("status-update");
    expect(kinds.at(-2)).toBe("artifact-update");
    for (const e of events) {
      const def = e.kind === "task" ? "Task" : e.kind === "status-update" ? "TaskStatusUpdateEvent" : "TaskArtifactUpdateEvent";
      expect(a2aSchemaErrors(def, e), JSON.stringify(e)).toEqual([]);
    }
    const working = events.filter((e) => e.kind === "status-update" && e.status.state === "working" && e.status.message);
    expect(working.length).toBeGreaterThan(1); // token by token
    expect(working.map((e) => e.status.message.parts[0].text).join("")).toBe("You said: stream this please");
    const last = events.at(-1);
    expect(last.final).toBe(true);
    expect(last.status.state).toBe("completed");
    expect(events.at(-2).artifact.parts[0].text).toBe("You said: stream this please");
    // what tasks/get says afterwards is the last state streamed
    const got = ((await client.getTask({ id: events[0].id })) as { result: any }).result;
    expect(got.status.state).toBe(last.status.state);
  });

  it("tasks/resubscribe re-attaches to a running task and receives the rest", async () => {
    const assistant = await server.client.assistants.create({ graphId: "steps", config: { configurable: { delay_ms: 400 } } });
    const steps = await A2AClient.fromCardUrl(`${server.url}/a2a/${assistant.assistant_id}/.well-known/agent-card.json`);
    const started = ((await steps.sendMessage({ ...text("go"), configuration: { blocking: false } })) as { result: any }).result;
    const events: any[] = [];
    for await (const e of steps.resubscribeTask({ id: started.id })) events.push(e);
    expect(events[0].kind).toBe("task");
    expect(events[0].id).toBe(started.id);
    expect(events.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
    expect(events.at(-2).artifact.parts[0].text).toBe("step three");
    // resubscribing to a finished task answers it at once, ending with its final state
    const again: any[] = [];
    for await (const e of steps.resubscribeTask({ id: started.id })) again.push(e);
    expect(again.at(-1)).toMatchObject({ kind: "status-update", final: true, status: { state: "completed" } });
  });

  it("push notifications: configs are set, read, listed and deleted; the task is POSTed with its token when it ends", async () => {
    const received: { token?: string; body: any }[] = [];
    const hook = http.createServer((req, res) => {
      let data = "";
      req.on("data", (c) => (data += c));
      req.on("end", () => {
        received.push({ token: req.headers["x-a2a-notification-token"] as string | undefined, body: JSON.parse(data) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => hook.listen(0, "127.0.0.1", () => r()));
    const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/notify`;
    try {
      const assistant = await server.client.assistants.create({ graphId: "slow", config: { configurable: { delay_ms: 5000 } } });
      const slow = await A2AClient.fromCardUrl(`${server.url}/a2a/${assistant.assistant_id}/.well-known/agent-card.json`);
      const started = ((await slow.sendMessage({
        ...text("notify me"),
        configuration: { blocking: false, pushNotificationConfig: { id: "first", url: hookUrl, token: "secret-1" } },
      })) as { result: any }).result;
      const set = (await slow.setTaskPushNotificationConfig({ taskId: started.id, pushNotificationConfig: { id: "second", url: hookUrl, token: "secret-2" } })) as { result: any };
      expect(a2aSchemaErrors("TaskPushNotificationConfig", set.result)).toEqual([]);
      const got = (await slow.getTaskPushNotificationConfig({ id: started.id, pushNotificationConfigId: "second" } as never)) as { result: any };
      expect(got.result.pushNotificationConfig).toMatchObject({ id: "second", url: hookUrl, token: "secret-2" });
      const listed = (await slow.listTaskPushNotificationConfig({ id: started.id })) as { result: any[] };
      expect(listed.result.map((c) => c.pushNotificationConfig.id)).toEqual(["first", "second"]);
      await eventually(async () => received.length >= 2, 60_000);
      expect(received.map((r) => r.token).sort()).toEqual(["secret-1", "secret-2"]);
      for (const r of received) {
        expect(a2aSchemaErrors("Task", r.body)).toEqual([]);
        expect(r.body).toMatchObject({ id: started.id, status: { state: "completed" } });
      }
      const deleted = (await slow.deleteTaskPushNotificationConfig({ id: started.id, pushNotificationConfigId: "first" })) as { result: unknown };
      expect(deleted.result).toBeNull();
      const after = (await slow.listTaskPushNotificationConfig({ id: started.id })) as { result: any[] };
      expect(after.result.map((c) => c.pushNotificationConfig.id)).toEqual(["second"]);
    } finally {
      hook.close();
    }
  });

  it("file and data parts reach the graph as content blocks when the assistant takes their media type", async () => {
    const assistant = await server.client.assistants.create({ graphId: "chat", metadata: { a2a: { input_modes: ["text/plain", "application/json", "image/*"] } } });
    const card = (await (await fetch(`${server.url}/a2a/${assistant.assistant_id}`)).json()) as { defaultInputModes: string[] };
    expect(card.defaultInputModes).toContain("image/*");
    const res = await rpc(endpoint(assistant.assistant_id), {
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: {
          kind: "message",
          messageId: randomUUID(),
          role: "user",
          parts: [
            { kind: "text", text: "describe" },
            { kind: "file", file: { uri: "https://example.com/cat.png", mimeType: "image/png", name: "cat.png" } },
            { kind: "data", data: { size: "small" } },
          ],
        },
      },
    });
    expect(a2aSchemaErrors("Task", res.body.result)).toEqual([]);
    expect(res.body.result.status.state).toBe("completed");
    const state = await server.client.threads.getState<{ messages: { content: unknown }[] }>(res.body.result.contextId);
    expect(state.values.messages[0]!.content).toEqual([
      { type: "text", text: "describe" },
      { type: "image", url: "https://example.com/cat.png", mimeType: "image/png", metadata: { filename: "cat.png" } },
      { type: "text", text: '{"size":"small"}' },
    ]);
    // the same file to an assistant that takes only text and JSON is refused
    const refused = await rpc(endpoint("chat"), {
      jsonrpc: "2.0",
      id: 2,
      method: "message/send",
      params: { message: { messageId: randomUUID(), role: "user", parts: [{ kind: "file", file: { bytes: "aGVsbG8=", mimeType: "image/png" } }] } },
    });
    expect(refused.body.error?.code).toBe(-32005);
    expect(refused.body.error?.data?.detail).toMatch(/image\/png/);
  });

  it("rejects a taskId from another context and unknown part kinds; honours historyLength 2", async () => {
    const first = ((await client.sendMessage(text("first"))) as { result: any }).result;
    const other = ((await client.sendMessage(text("other"))) as { result: any }).result;
    const mismatch = await rpc(endpoint(), { jsonrpc: "2.0", id: 1, method: "message/send", params: text("x", { taskId: first.id, contextId: other.contextId }) });
    expect(mismatch.body.error?.code).toBe(-32602);
    const unknownPart = await rpc(endpoint(), {
      jsonrpc: "2.0",
      id: 2,
      method: "message/send",
      params: { message: { messageId: "m", role: "user", parts: [{ kind: "hologram" }] } },
    });
    expect(unknownPart.body.error?.code).toBe(-32602);
    const two = ((await client.getTask({ id: first.id, historyLength: 2 })) as { result: any }).result;
    expect(two.history).toHaveLength(2);
    const all = ((await client.getTask({ id: first.id })) as { result: any }).result;
    expect(all.history.length).toBeGreaterThanOrEqual(2);
  });

  it("agent/getAuthenticatedExtendedCard is -32007 on a server without authentication (there is no extended card)", async () => {
    const res = await rpc(endpoint(), { jsonrpc: "2.0", id: 3, method: "agent/getAuthenticatedExtendedCard" });
    expect(res.body).toMatchObject({ id: 3, error: { code: -32007, message: "Authenticated Extended Card not configured" } });
    expect(res.body.result).toBeUndefined();
    const card = (await (await fetch(endpoint())).json()) as { supportsAuthenticatedExtendedCard?: boolean };
    expect(card.supportsAuthenticatedExtendedCard).toBe(false);
  });

  it("answers every malformed request with the spec's error, HTTP 200 and the id echoed", async () => {
    const url = endpoint();
    const cases: [unknown, boolean, number, unknown][] = [
      ["{not json", true, -32700, null],
      [{ jsonrpc: "1.0", id: "a", method: "message/send" }, false, -32600, "a"],
      [{ jsonrpc: "2.0", id: "b" }, false, -32600, "b"],
      [{ jsonrpc: "2.0", id: {}, method: "message/send" }, false, -32600, null],
      [{ jsonrpc: "2.0", id: "c", method: "tasks/explode" }, false, -32601, "c"],
      [{ jsonrpc: "2.0", id: "d", method: "message/send", params: {} }, false, -32602, "d"],
      [{ jsonrpc: "2.0", id: "e", method: "message/send", params: { message: { messageId: "m", role: "user", parts: "x" } } }, false, -32602, "e"],
      [{ jsonrpc: "2.0", id: "f", method: "tasks/get", params: { id: randomUUID() } }, false, -32001, "f"],
      [{ jsonrpc: "2.0", id: "g", method: "tasks/get", params: { id: "not-a-task" } }, false, -32001, "g"],
      [{ jsonrpc: "2.0", id: 7, method: "message/send", params: { message: { messageId: "m", role: "user", parts: [{ kind: "file", file: { uri: "http://x/y.png" } }] } } }, false, -32005, 7],
      [{ jsonrpc: "2.0", id: "i", method: "tasks/pushNotificationConfig/set", params: { taskId: randomUUID(), pushNotificationConfig: { url: "http://127.0.0.1:1/x" } } }, false, -32001, "i"],
      [{ jsonrpc: "2.0", id: "j", method: "tasks/pushNotificationConfig/set", params: { taskId: "t", pushNotificationConfig: { url: "not a url" } } }, false, -32602, "j"],
    ];
    for (const [body, raw, code, id] of cases) {
      const r = await rpc(url, body, raw);
      expect(r.status, JSON.stringify(body)).toBe(200);
      expect(r.body.error?.code, JSON.stringify(body)).toBe(code);
      expect(r.body.id).toEqual(id);
      expect(a2aSchemaErrors("JSONRPCErrorResponse", { jsonrpc: "2.0", ...r.body })).toEqual([]);
    }
  });

  it("refuses a graph without messages in its state, naming the problem", async () => {
    const r = await rpc(endpoint("counter"), { jsonrpc: "2.0", id: 1, method: "message/send", params: text("hi") });
    expect(r.body.error?.code).toBe(-32602);
    expect(r.body.error?.data?.detail).toMatch(/no `messages`/);
  });
});

describe("A2A disabled with http.disable_a2a", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { configPath: path.join(ROOT, "test/fixtures/langgraph-no-a2a.json") });
  });
  afterAll(() => server?.close());

  it("answers 404 on every A2A route, and /info says so", async () => {
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/a2a/chat`)).status).toBe(404);
    expect((await fetch(`${server.url}/a2a/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(404);
    expect(((await (await fetch(`${server.url}/info`)).json()) as { flags: { a2a: boolean } }).flags.a2a).toBe(false);
  });
});

/**
 * The endpoint through the @a2a-js/sdk 1.x client in its v0.3 compatibility mode (what a current
 * A2A client uses to talk to a v0.3 agent): card discovery, send, get, cancel, stream.
 */
import { randomUUID } from "node:crypto";
import { Role, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { beforeAll, expect, it } from "vitest";
import { describeBackends, serverForSuite, type TestServer } from "../helpers/server.js";

const message = (text: string, extra: Record<string, unknown> = {}) =>
  ({
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text } }],
    ...extra,
  }) as never;

describeBackends("A2A through the 1.x client (v0.3 compatibility)", (backend) => {
  let server: TestServer;
  let factory: ClientFactory;
  serverForSuite(backend, (s) => (server = s));
  beforeAll(() => {
    factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })],
        // without A2A-Version (as a v0.3-only card endpoint answers): the v0.3 card, so the legacy transport is used
        cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true }, fetchImpl: (url, init) => fetch(url, { ...init, headers: {} }) }),
      }),
    );
  });
  const clientFor = (assistant: string): Promise<Client> => factory.createFromUrl(server.url, `/a2a/${assistant}/.well-known/agent-card.json`);

  it("discovers the card, sends a message and reads the completed task", async () => {
    const client = await clientFor("chat");
    const task = (await client.sendMessage({ message: message("hello v1") } as never)) as any;
    expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const text = task.artifacts[0].parts[0].content;
    expect(text).toEqual({ $case: "text", value: "You said: hello v1" });
    const got = (await client.getTask({ id: task.id } as never)) as any;
    expect(got.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.contextId).toBe(task.contextId);
  });

  it("streams: the task, then updates, ending completed", async () => {
    const client = await clientFor("chat");
    const events: any[] = [];
    for await (const e of client.sendMessageStream({ message: message("stream v1") } as never)) events.push(e);
    expect(events.length).toBeGreaterThan(2);
    // 1.x yields v1.0 stream responses: {payload: {$case: "task" | "statusUpdate" | "artifactUpdate", value}}
    expect(events[0].payload.$case).toBe("task");
    const last = events.at(-1).payload;
    expect(last.$case).toBe("statusUpdate");
    expect(last.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const artifact = events.find((e) => e.payload.$case === "artifactUpdate").payload.value.artifact;
    expect(artifact.parts[0].content).toEqual({ $case: "text", value: "You said: stream v1" });
  });

  it("an interrupt asks for input; the reply with the task id completes it; cancelling a finished task fails", async () => {
    const client = await clientFor("approval");
    const waiting = (await client.sendMessage({ message: message("ship it?") } as never)) as any;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await client.sendMessage({ message: message("approve", { taskId: waiting.id, contextId: waiting.contextId }) } as never)) as any;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    await expect(client.cancelTask({ id: done.id } as never)).rejects.toThrow();
  });
});

describeBackends("A2A through the 1.x client, v1.0 dialect", (backend) => {
  let server: TestServer;
  // the push configs name loopback receivers, which the outbound policy refuses unless allowed
  serverForSuite(backend, (s) => (server = s), { allowPrivateWebhooks: "127.0.0.1" });
  // the default factory speaks v1.0 only: it finds the v1.0 interface in the card's supportedInterfaces
  const clientFor = (assistant: string): Promise<Client> => new ClientFactory().createFromUrl(server.url, `/a2a/${assistant}/.well-known/agent-card.json`);

  it("send, get, stream and resume an interrupt with v1.0 method names and shapes", async () => {
    const client = await clientFor("chat");
    const task = (await client.sendMessage({ message: message("hello native v1") } as never)) as any;
    expect(task.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0].parts[0].content).toEqual({ $case: "text", value: "You said: hello native v1" });
    expect(((await client.getTask({ id: task.id } as never)) as any).status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const events: any[] = [];
    for await (const e of client.sendMessageStream({ message: message("v1 stream") } as never)) events.push(e);
    expect(events[0].payload.$case).toBe("task");
    expect(events.at(-1).payload.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const approval = await clientFor("approval");
    const waiting = (await approval.sendMessage({ message: message("release?") } as never)) as any;
    expect(waiting.status.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const done = (await approval.sendMessage({ message: message("approve", { taskId: waiting.id, contextId: waiting.contextId }) } as never)) as any;
    expect(done.status.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("multi-turn, cancel of a running task, resubscribe and push configs through the 1.x client", async () => {
    const chat = await clientFor("chat");
    const first = (await chat.sendMessage({ message: message("turn one") } as never)) as any;
    const second = (await chat.sendMessage({ message: message("turn two", { contextId: first.contextId }) } as never)) as any;
    expect(second.contextId).toBe(first.contextId);
    const state = await server.client.threads.getState<{ messages: { content: string }[] }>(first.contextId);
    expect(state.values.messages.map((m) => m.content)).toEqual(["turn one", "You said: turn one", "turn two", "You said: turn two"]);

    const assistant = await server.client.assistants.create({ graphId: "steps", config: { configurable: { delay_ms: 1000 } } });
    const steps = await clientFor(assistant.assistant_id);
    const running = (await steps.sendMessage({ message: message("go"), configuration: { returnImmediately: true } } as never)) as any;
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(running.status.state);
    const config = await steps.createTaskPushNotificationConfig({ taskId: running.id, id: "p1", url: "http://127.0.0.1:9/none", token: "tok" } as never);
    expect((config as any).id).toBe("p1");
    const followed: any[] = [];
    for await (const e of steps.resubscribeTask({ id: running.id } as never)) followed.push(e);
    expect(followed.at(-1).payload.value.status.state).toBe(TaskState.TASK_STATE_COMPLETED);

    const slowAssistant = await server.client.assistants.create({ graphId: "slow", config: { configurable: { delay_ms: 10_000 } } });
    const slow = await clientFor(slowAssistant.assistant_id);
    const long = (await slow.sendMessage({ message: message("wait"), configuration: { returnImmediately: true } } as never)) as any;
    const canceled = (await slow.cancelTask({ id: long.id } as never)) as any;
    expect(canceled.status.state).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("answers SendMessage with result.task and TASK_STATE_* enums on the wire", async () => {
    const res = await fetch(`${server.url}/a2a/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "v1", method: "SendMessage", params: { message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "raw" }] } } }),
    });
    const body = (await res.json()) as { id: string; result: { task: any } };
    expect(body.id).toBe("v1");
    expect(body.result.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(body.result.task.kind).toBeUndefined();
    expect(body.result.task.history.map((m: any) => m.role)).toEqual(["ROLE_USER", "ROLE_AGENT"]);
    expect(body.result.task.artifacts[0].parts).toEqual([{ text: "You said: raw" }]);
  });

  const v1 = async (method: string, params: unknown) => {
    const res = await fetch(`${server.url}/a2a/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: method, method, params }),
    });
    return (await res.json()) as { result?: any; error?: { code: number } };
  };

  it("push configs and ListTasks in v1 shapes", async () => {
    const contextId = randomUUID();
    const sent = await v1("SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", contextId, parts: [{ text: "list me" }] } });
    const taskId = sent.result.task.id;
    const created = await v1("CreateTaskPushNotificationConfig", { taskId, id: "hook", url: "http://127.0.0.1:9/never", token: "t" });
    expect(created.result).toEqual({ taskId, id: "hook", url: "http://127.0.0.1:9/never", token: "t" });
    expect((await v1("GetTaskPushNotificationConfig", { taskId, id: "hook" })).result.url).toBe("http://127.0.0.1:9/never");
    expect((await v1("ListTaskPushNotificationConfigs", { taskId })).result.configs.map((c: any) => c.id)).toEqual(["hook"]);
    expect((await v1("DeleteTaskPushNotificationConfig", { taskId, id: "hook" })).result).toEqual({});
    expect((await v1("ListTaskPushNotificationConfigs", { taskId })).result.configs).toEqual([]);

    await v1("SendMessage", { message: { messageId: randomUUID(), role: "ROLE_USER", contextId, parts: [{ text: "second" }] } });
    const listed = (await v1("ListTasks", { contextId, pageSize: 1 })).result;
    expect(listed.totalSize).toBe(2);
    expect(listed.tasks).toHaveLength(1);
    expect(listed.tasks[0].status.state).toBe("TASK_STATE_COMPLETED");
    const next = (await v1("ListTasks", { contextId, pageSize: 1, pageToken: listed.nextPageToken })).result;
    expect(next.tasks[0].id).toBe(taskId); // newest first: the first task comes last
    expect(next.nextPageToken).toBe("");
    expect((await v1("ListTasks", { contextId, status: "TASK_STATE_FAILED" })).result.totalSize).toBe(0);
  });
});

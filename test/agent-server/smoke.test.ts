import { expect, it } from "vitest";
import { describeBackends, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";

describeBackends("agent server basics", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s));

  it("runs a chat graph to completion and exposes the thread state", async () => {
    const thread = await server.client.threads.create();
    const run = await server.client.runs.create(thread.thread_id, "chat", { input: userMessage("hello") });
    expect(run.status).toBe("pending");
    await server.client.runs.join(thread.thread_id, run.run_id);
    const state = await server.client.threads.getState<{ messages: { type: string; content: string }[] }>(thread.thread_id);
    expect(state.values.messages.map((m) => [m.type, m.content])).toEqual([
      ["human", "hello"],
      ["ai", "You said: hello"],
    ]);
    const finished = await server.client.runs.get(thread.thread_id, run.run_id);
    expect(finished.status).toBe("success");
  });
});

describeBackends("graph loading", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s));

  it("runs a graph written in plain JavaScript, and an uncompiled StateGraph default export", async () => {
    const named = (await server.client.runs.wait(null, "plainjs", { input: userMessage("hi") })) as { messages: { content: string }[] };
    expect(named.messages.at(-1)!.content).toBe("js: hi");
    const byDefault = (await server.client.runs.wait(null, "plainjs_default", { input: userMessage("hi") })) as { messages: { content: string }[] };
    expect(byDefault.messages.at(-1)!.content).toBe("from the default export");
  });
});

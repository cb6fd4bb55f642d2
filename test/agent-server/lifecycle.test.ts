/**
 * Run lifecycle details: disconnect handling, what wait answers for an interrupted graph, and
 * checkpoint metadata patches.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { describeBackends, eventually, startTestServer, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";

describeBackends("run lifecycle", (backend) => {
  let server: TestServer;
  let client: Client;
  serverForSuite(backend, (s) => ((server = s), (client = s.client)));

  it("on_disconnect=cancel: a client that drops the stream interrupts the run", async () => {
    const thread = await client.threads.create();
    const abort = new AbortController();
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: userMessage("bye"), on_disconnect: "cancel", config: { configurable: { delay_ms: 10_000 } } }),
      signal: abort.signal,
    });
    const runId = res.headers.get("content-location")!.split("/").at(-1)!;
    await eventually(async () => (await client.runs.get(thread.thread_id, runId)).status === "running");
    abort.abort();
    await eventually(async () => (await client.runs.get(thread.thread_id, runId)).status === "interrupted", 60_000);
  });

  it("on_disconnect=continue (the default): the run goes on without the client", async () => {
    const thread = await client.threads.create();
    const abort = new AbortController();
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: userMessage("stay"), config: { configurable: { delay_ms: 500 } } }),
      signal: abort.signal,
    });
    const runId = res.headers.get("content-location")!.split("/").at(-1)!;
    abort.abort();
    await client.runs.join(thread.thread_id, runId);
    expect((await client.runs.get(thread.thread_id, runId)).status).toBe("success");
  });

  it("cancel_on_disconnect on a join stream interrupts the run when the joiner leaves", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("x"), config: { configurable: { delay_ms: 10_000 } } });
    const abort = new AbortController();
    await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream?cancel_on_disconnect=true`, { signal: abort.signal });
    abort.abort();
    await eventually(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "interrupted", 60_000);
  });

  it("wait on a graph that stops at interrupt() answers its values with __interrupt__", async () => {
    const thread = await client.threads.create();
    const out = (await client.runs.wait(thread.thread_id, "approval", { input: userMessage("question") })) as {
      messages: unknown[];
      __interrupt__?: { value: { question: string } }[];
    };
    expect(out.messages).toHaveLength(2);
    expect(out.__interrupt__?.[0]?.value.question).toBe("Send this answer?");
    // join answers the same, from the thread once the run's message is gone
    const runs = await client.runs.list(thread.thread_id);
    const joined = (await client.runs.join(thread.thread_id, runs[0]!.run_id)) as { __interrupt__?: unknown[] };
    expect(joined.__interrupt__).toHaveLength(1);
    // once resumed, no interrupt remains
    const done = (await client.runs.wait(thread.thread_id, "approval", { command: { resume: "approve" } })) as { __interrupt__?: unknown };
    expect(done.__interrupt__).toBeUndefined();
  });

  it("patchState merges metadata into the latest checkpoint", async () => {
    const thread = await client.threads.create();
    await expect(client.threads.patchState(thread.thread_id, { reviewed: true })).rejects.toThrow(/404/);
    await client.runs.wait(thread.thread_id, "slow", { input: userMessage("hi") });
    await client.threads.patchState(thread.thread_id, { reviewed: true, by: "qa" });
    const state = await client.threads.getState(thread.thread_id);
    expect(state.metadata).toMatchObject({ reviewed: true, by: "qa" });
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/state`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: "nope" }),
    });
    expect(res.status).toBe(422);
  });
});

describeBackends("run time limit", (backend) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(backend, { runTimeoutSeconds: 1 });
  });
  afterAll(() => server?.close());

  it("a run over BG_JOB_TIMEOUT_SECS ends with status timeout and a clear error", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("slow"), config: { configurable: { delay_ms: 10_000 } } });
    const result = (await client.runs.join(thread.thread_id, run.run_id)) as { __error__?: { error: string; message: string } };
    expect(result.__error__).toEqual({ error: "TimeoutError", message: "Run exceeded its time limit of 1 s" });
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("timeout");
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");
    // the thread takes the next run normally
    await client.runs.wait(thread.thread_id, "slow", { input: userMessage("quick") });
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });
});

/**
 * Double-texting: what a run does to the runs already in flight on its thread, for each
 * multitask strategy, and the cancel actions. State is checked afterwards each time.
 */
import { expect, it } from "vitest";
import type { Client } from "@langchain/langgraph-sdk";
import { describeBackends, eventually, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";

type Msg = { type: string; content: string };
const texts = (messages: Msg[]) => messages.map((m) => `${m.type}:${m.content}`);

async function messagesOf(client: Client, threadId: string): Promise<Msg[]> {
  const state = await client.threads.getState<{ messages: Msg[] }>(threadId);
  return state.values.messages ?? [];
}

async function waitForStatus(client: Client, threadId: string, runId: string, status: string) {
  return eventually(async () => (await client.runs.get(threadId, runId)).status === status, 60_000);
}

// Delays: a run that a test interrupts, rolls back or cancels sleeps far longer than any busy machine
// needs to get there (the cancel cuts the sleep short, so it costs nothing); a run that must still be
// busy when the next request arrives, and then finish, sleeps a few seconds.
const UNTIL_STOPPED_MS = 60_000;
const BUSY_MS = 5_000;
/** `steps`: step one at once, then steps two and three sleep until the test stops the run. */
const STOPPED_AFTER_STEP_ONE = { delay_ms: 0, later_delay_ms: UNTIL_STOPPED_MS };

/** Wait until the thread's state shows the first step of the `steps` graph done. */
async function waitForFirstStep(client: Client, threadId: string) {
  await eventually(async () => texts(await messagesOf(client, threadId)).includes("ai:step one"), 60_000);
}

describeBackends("multitask strategies", (backend) => {
  let server: TestServer;
  let client: Client;
  serverForSuite(backend, (s) => ((server = s), (client = s.client)));

  it("enqueue (the default): 10 concurrent runs execute one at a time in the order received", async () => {
    const thread = await client.threads.create();
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.runs.create(thread.thread_id, "slow", { input: userMessage(`m${i}`), config: { configurable: { delay_ms: 30 } } }),
      ),
    );
    expect(runs.every((r) => r.multitask_strategy === "enqueue")).toBe(true);
    for (const r of runs) await client.runs.join(thread.thread_id, r.run_id);

    // The order received is the order the server stored them in (the run list is newest first).
    const listed = await client.runs.list(thread.thread_id, { limit: 100 });
    const received = listed.reverse().map((r) => (r as unknown as { kwargs: { input: { messages: { content: string }[] } } }).kwargs.input.messages[0]!.content);
    expect(listed.every((r) => r.status === "success")).toBe(true);

    const messages = texts(await messagesOf(client, thread.thread_id));
    expect(messages).toHaveLength(20);
    expect(messages).toEqual(received.flatMap((m) => [`human:${m}`, `ai:You said: ${m}`]));
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("reject: a run on a busy thread gets 409 and is not created", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: userMessage("first"), config: { configurable: { delay_ms: BUSY_MS } } });
    await expect(
      client.runs.create(thread.thread_id, "slow", { input: userMessage("second"), multitaskStrategy: "reject" }),
    ).rejects.toThrow(/409/);
    expect(await client.runs.list(thread.thread_id)).toHaveLength(1);
    await client.runs.join(thread.thread_id, first.run_id);
    expect(texts(await messagesOf(client, thread.thread_id))).toEqual(["human:first", "ai:You said: first"]);
  });

  it("interrupt: the active run ends interrupted with its progress kept, then the new run runs", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "steps", { input: userMessage("first"), config: { configurable: STOPPED_AFTER_STEP_ONE } });
    await waitForFirstStep(client, thread.thread_id);
    const second = await client.runs.create(thread.thread_id, "slow", { input: userMessage("second"), multitaskStrategy: "interrupt" });
    await client.runs.join(thread.thread_id, second.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("interrupted");
    expect((await client.runs.get(thread.thread_id, second.run_id)).status).toBe("success");
    const messages = texts(await messagesOf(client, thread.thread_id));
    // progress of the interrupted run (its input and first step) stays, and the new turn follows
    expect(messages.slice(0, 2)).toEqual(["human:first", "ai:step one"]);
    expect(messages).not.toContain("ai:step three");
    expect(messages.slice(-2)).toEqual(["human:second", "ai:You said: second"]);
  });

  it("interrupt also settles pending runs: they end interrupted without running", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: userMessage("a"), config: { configurable: { delay_ms: UNTIL_STOPPED_MS } } });
    const queued = await client.runs.create(thread.thread_id, "slow", { input: userMessage("b") });
    const last = await client.runs.create(thread.thread_id, "slow", { input: userMessage("c"), multitaskStrategy: "interrupt" });
    await client.runs.join(thread.thread_id, last.run_id);
    expect((await client.runs.get(thread.thread_id, queued.run_id)).status).toBe("interrupted");
    expect(["interrupted", "success"]).toContain((await client.runs.get(thread.thread_id, first.run_id)).status);
    expect(texts(await messagesOf(client, thread.thread_id))).not.toContain("human:b");
  });

  it("rollback: the active run is stopped and deleted with its checkpoints", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: userMessage("before") });
    const first = await client.runs.create(thread.thread_id, "steps", { input: userMessage("doomed"), config: { configurable: STOPPED_AFTER_STEP_ONE } });
    await waitForFirstStep(client, thread.thread_id);
    const second = await client.runs.create(thread.thread_id, "slow", { input: userMessage("after"), multitaskStrategy: "rollback" });
    await client.runs.join(thread.thread_id, second.run_id);
    await expect(client.runs.get(thread.thread_id, first.run_id)).rejects.toThrow(/404/);
    expect(texts(await messagesOf(client, thread.thread_id))).toEqual([
      "human:before",
      "ai:You said: before",
      "human:after",
      "ai:You said: after",
    ]);
    // history no longer holds any checkpoint that saw the rolled-back input
    const history = await client.threads.getHistory<{ messages: Msg[] }>(thread.thread_id, { limit: 50 });
    expect(history.some((h) => texts(h.values.messages ?? []).includes("human:doomed"))).toBe(false);
  });

  it("rejects an unknown strategy with 422", async () => {
    const thread = await client.threads.create();
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: userMessage("x"), multitask_strategy: "shuffle" }),
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: string[] }[] };
    expect(body.detail[0]!.loc).toEqual(["body", "multitask_strategy"]);
  });
});

describeBackends("cancel", (backend) => {
  let server: TestServer;
  let client: Client;
  serverForSuite(backend, (s) => ((server = s), (client = s.client)));

  it("action=interrupt stops a running run and keeps its progress", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), config: { configurable: STOPPED_AFTER_STEP_ONE } });
    await waitForFirstStep(client, thread.thread_id);
    await client.runs.cancel(thread.thread_id, run.run_id, true, "interrupt");
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    const messages = texts(await messagesOf(client, thread.thread_id));
    expect(messages.slice(0, 2)).toEqual(["human:go", "ai:step one"]);
    expect(messages).not.toContain("ai:step three");
    expect((await client.threads.get(thread.thread_id)).status).not.toBe("busy");
  });

  it("action=rollback deletes the run and restores the state from before it", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "slow", { input: userMessage("keep me") });
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("undo me"), config: { configurable: STOPPED_AFTER_STEP_ONE } });
    await waitForFirstStep(client, thread.thread_id);
    await client.runs.cancel(thread.thread_id, run.run_id, true, "rollback");
    await expect(client.runs.get(thread.thread_id, run.run_id)).rejects.toThrow(/404/);
    expect(texts(await messagesOf(client, thread.thread_id))).toEqual(["human:keep me", "ai:You said: keep me"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
    // the next turn builds on the restored state, not on anything the rolled-back run wrote
    await client.runs.wait(thread.thread_id, "slow", { input: userMessage("next") });
    expect(texts(await messagesOf(client, thread.thread_id))).toEqual([
      "human:keep me",
      "ai:You said: keep me",
      "human:next",
      "ai:You said: next",
    ]);
  });

  it("cancelling a pending run settles it without running it; the queue moves on", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: userMessage("one"), config: { configurable: { delay_ms: BUSY_MS } } });
    const second = await client.runs.create(thread.thread_id, "slow", { input: userMessage("two") });
    const third = await client.runs.create(thread.thread_id, "slow", { input: userMessage("three") });
    await client.runs.cancel(thread.thread_id, second.run_id, false, "interrupt");
    expect((await client.runs.get(thread.thread_id, second.run_id)).status).toBe("interrupted");
    await client.runs.join(thread.thread_id, third.run_id);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
    expect(texts(await messagesOf(client, thread.thread_id))).toEqual([
      "human:one",
      "ai:You said: one",
      "human:three",
      "ai:You said: three",
    ]);
  });

  it("wait=false answers 202 at once; wait=true answers 204 once the run has stopped", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("x"), config: { configurable: { delay_ms: UNTIL_STOPPED_MS } } });
    await waitForStatus(client, thread.thread_id, run.run_id, "running");
    const noWait = await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/cancel?wait=0`, { method: "POST" });
    expect(noWait.status).toBe(202);
    const waited = await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/cancel?wait=1`, { method: "POST" });
    expect(waited.status).toBe(204);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
  });

  it("cancels many runs at once", async () => {
    const thread = await client.threads.create();
    const runs = [];
    for (let i = 0; i < 3; i++) {
      runs.push(await client.runs.create(thread.thread_id, "slow", { input: userMessage(`r${i}`), config: { configurable: { delay_ms: UNTIL_STOPPED_MS } } }));
    }
    await waitForStatus(client, thread.thread_id, runs[0]!.run_id, "running");
    await client.runs.cancelMany({ threadId: thread.thread_id, runIds: runs.map((r) => r.run_id) });
    await eventually(async () => {
      const listed = await client.runs.list(thread.thread_id);
      return listed.every((r) => r.status === "interrupted");
    });
  });
});

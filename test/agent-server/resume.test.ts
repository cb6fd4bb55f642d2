/**
 * A run picked up again after its worker died must end exactly as an uninterrupted run would:
 * "done" means the run's final checkpoint exists, nothing less and nothing more.
 *
 * Each test finishes a run normally, then puts the database back in the state a worker crash at a
 * precise moment leaves behind — the run still `running` under a lapsed lease of a worker that no
 * longer exists, and, where the crash came earlier, without the checkpoints it had not yet written.
 * The server's own worker then sweeps the lease and takes the run over, as after a real crash
 * (test/agent-server/chaos.test.ts does it with real SIGKILLs, where the moment is left to chance).
 */
import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { describeBackends, eventually, serverForSuite, userMessage, type TestServer } from "../helpers/server.js";

type Msg = { type: string; content: string };
const texts = (messages: Msg[] = []) => messages.map((m) => `${m.type}:${m.content}`);

describeBackends("a run taken over after its worker died", (backend) => {
  let server: TestServer;
  let client: Client;
  serverForSuite(backend, (s) => ((server = s), (client = s.client)), { runLeaseSeconds: 1 });

  const sql = (text: string, values: unknown[]) => server.handle.ctx.pool.query(text, values);

  /** The run is back to `running`, held by a dead worker whose lease has lapsed. */
  async function orphan(runId: string): Promise<void> {
    await sql(
      `UPDATE runs SET status = 'running', lease_owner = 'dead-worker', lease_expires_at = now() - interval '1 second', ended_at = NULL
       WHERE run_id = $1`,
      [runId],
    );
  }

  /** Undo the thread's newest checkpoint: the crash came after the last step's writes were saved, before it. */
  async function dropNewestCheckpoint(threadId: string): Promise<void> {
    await sql(
      `DELETE FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id =
         (SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '')`,
      [threadId],
    );
  }

  async function endedAgain(threadId: string, runId: string, status: string): Promise<void> {
    await eventually(async () => (await client.runs.get(threadId, runId)).status === status, 30_000);
  }

  it("the last step's writes were saved but not the final checkpoint: they are applied, not dropped", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go") });
    await client.runs.join(thread.thread_id, run.run_id);
    await dropNewestCheckpoint(thread.thread_id);
    await orphan(run.run_id);

    await endedAgain(thread.thread_id, run.run_id, "success");
    // The state read applies the pending writes to what it shows, so it looked complete even when
    // they were dropped: the next run, which starts from the newest checkpoint, shows the truth.
    const next = await client.runs.wait(thread.thread_id, "steps", { input: userMessage("again") });
    const steps = ["ai:step one", "ai:step two", "ai:step three"];
    expect(texts((next as { messages: Msg[] }).messages)).toEqual(["human:go", ...steps, "human:again", ...steps]);
  });

  it("the final checkpoint was written: the run is recorded as finished, nothing runs again", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go") });
    await client.runs.join(thread.thread_id, run.run_id);
    const history = await client.threads.getHistory(thread.thread_id, { limit: 20 });
    await orphan(run.run_id);

    await endedAgain(thread.thread_id, run.run_id, "success");
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one", "ai:step two", "ai:step three"]);
    expect((await client.threads.getHistory(thread.thread_id, { limit: 20 })).length).toBe(history.length);
  });

  it("a run stopped at its interrupt_before breakpoint stays stopped there", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), interruptBefore: ["two"] });
    await client.runs.join(thread.thread_id, run.run_id);
    const ended = (await client.runs.get(thread.thread_id, run.run_id)).status;
    await orphan(run.run_id);

    await endedAgain(thread.thread_id, run.run_id, ended);
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one"]);
    expect(state.next).toEqual(["two"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
  });

  it("a run stopped at its interrupt_after breakpoint stays stopped there", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), interruptAfter: ["one"] });
    await client.runs.join(thread.thread_id, run.run_id);
    const ended = (await client.runs.get(thread.thread_id, run.run_id)).status;
    await orphan(run.run_id);

    await endedAgain(thread.thread_id, run.run_id, ended);
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one"]);
    expect(state.next).toEqual(["two"]);
  });

  it("a breakpoint in a later step still stops a run resumed mid-way", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), interruptBefore: ["three"] });
    await client.runs.join(thread.thread_id, run.run_id);
    const ended = (await client.runs.get(thread.thread_id, run.run_id)).status;
    // the crash came after "two" saved its writes, before their checkpoint: the breakpoint before
    // "three" lies ahead of the resumed run
    await dropNewestCheckpoint(thread.thread_id);
    await orphan(run.run_id);

    await endedAgain(thread.thread_id, run.run_id, ended);
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one", "ai:step two"]);
    expect(state.next).toEqual(["three"]);
  });

  it("a run waiting in interrupt() stays waiting, its question unchanged", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "approval", { input: userMessage("hi") });
    await client.runs.join(thread.thread_id, run.run_id);
    const ended = (await client.runs.get(thread.thread_id, run.run_id)).status;
    const before = await client.threads.getState(thread.thread_id);
    await orphan(run.run_id);

    await endedAgain(thread.thread_id, run.run_id, ended);
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:hi", "ai:Draft answer to: hi"]);
    expect(state.tasks.map((t) => t.interrupts.map((i) => i.value))).toEqual(before.tasks.map((t) => t.interrupts.map((i) => i.value)));
    // and the reply still resumes it
    const reply = await client.runs.wait(thread.thread_id, "approval", { command: { resume: "approve" } });
    expect(texts((reply as { messages: Msg[] }).messages).at(-1)).toBe("ai:Approved: Draft answer to: hi");
  });
});

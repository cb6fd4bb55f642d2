/**
 * A run's checkpoint writes are held back briefly and committed together, those still held with
 * the run's end (src/agent-server/checkpoint-write-behind.ts; issue 16: each write was a commit of
 * its own, waiting for its WAL flush, and the run's end one more).
 *
 * Rows record the transaction that wrote them (`xmin`): a short run's checkpoints, channel values
 * and tasks' writes carry the xmin of the run row's final update. What is stored must be what the
 * graph wrote, reads during a run must see each step it has finished, and a run that asks for
 * "sync" durability must get each checkpoint committed before its next step.
 */
import { expect, it } from "vitest";
import { describeBackends, eventually, serverForSuite, userMessage, type TestServer } from "../helpers/server.js";

type MsgState = { messages: { content: string }[] };
const texts = (v: unknown) => ((v as MsgState).messages ?? []).map((m) => m.content);

/** The transactions (xmin) that wrote the thread's checkpoint rows, and the one that ended the run. */
async function writers(server: TestServer, threadId: string, runId: string) {
  const q = async (sql: string, values: unknown[]) => (await server.handle.ctx.pool.query<{ x: string }>(sql, values)).rows.map((r) => r.x);
  const checkpoints = await q(
    `SELECT xmin::text AS x FROM checkpoints WHERE thread_id = $1
     UNION ALL SELECT xmin::text FROM checkpoint_blobs WHERE thread_id = $1
     UNION ALL SELECT xmin::text FROM checkpoint_writes WHERE thread_id = $1`,
    [threadId],
  );
  const [end] = await q("SELECT xmin::text AS x FROM runs WHERE run_id = $1", [runId]);
  return { checkpoints, distinct: new Set(checkpoints), end: end! };
}

describeBackends("checkpoint writes held back and committed with the run's end", (backend) => {
  let server: TestServer;
  // a linger no test outlasts: what is committed early is committed by a read or the run's end
  serverForSuite(backend, (s) => (server = s), { checkpointWriteBehindMs: 60_000 });

  it("a run's checkpoints, channel values and tasks' writes are committed by the transaction that ends it; the state holds input and output once", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("one commit") });
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");

    const { checkpoints, distinct, end } = await writers(server, thread.thread_id, run.run_id);
    // input, after-input and final checkpoints with their values, and two tasks' writes
    expect(checkpoints.length).toBeGreaterThanOrEqual(5);
    expect([...distinct]).toEqual([end]);

    const state = await client.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual(["one commit", "You said: one commit"]);
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.map((h) => h.metadata?.step)).toEqual([1, 0, -1]);
    expect(history.every((h) => h.metadata?.run_id === run.run_id)).toBe(true);
  });

  it("the next run on the thread starts from the checkpoint its predecessor's end committed", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "chat", { input: userMessage("first"), multitaskStrategy: "enqueue" });
    const second = await client.runs.create(thread.thread_id, "chat", { input: userMessage("second"), multitaskStrategy: "enqueue" });
    await client.runs.join(thread.thread_id, second.run_id);
    const state = await client.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual(["first", "You said: first", "second", "You said: second"]);
    for (const run of [first, second]) expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("the thread's state read during a run shows each step it has finished (what is held is committed first)", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    // step one at once, then step two waits (until cancelled)
    const run = await client.runs.create(thread.thread_id, "steps", {
      input: userMessage("go"),
      config: { configurable: { delay_ms: 0, later_delay_ms: 600_000 } },
    });
    // within a bound far below the linger: only the read committing what is held shows it
    const seen = await eventually(async () => {
      const s = await client.threads.getState(thread.thread_id);
      return texts(s.values).includes("step one") && s;
    }, 20_000);
    expect(texts(seen.values)).toEqual(["go", "step one"]);
    expect(seen.next).toEqual(["two"]);
    const history = await client.threads.getHistory(thread.thread_id);
    expect(history.length).toBeGreaterThanOrEqual(2);
    await client.runs.cancel(thread.thread_id, run.run_id, true);
    expect(texts((await client.threads.getState(thread.thread_id)).values)).toEqual(["go", "step one"]);
  });

  it("a run whose lease another worker has taken stores none of the writes it still held (fencing)", async () => {
    const { client, handle } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", {
      input: userMessage("fenced"),
      config: { configurable: { delay_ms: 0, later_delay_ms: 600_000 } },
    });
    // step one has written (its task's writes, then its checkpoint): all held back
    for await (const chunk of client.runs.joinStream(thread.thread_id, run.run_id)) {
      if (chunk.event === "values" && JSON.stringify(chunk.data).includes("step one")) break;
    }
    // another worker takes the run over (as the sweeper hands on a run whose lease lapsed)
    await handle.ctx.pool.query("UPDATE runs SET lease_owner = 'another-worker' WHERE run_id = $1", [run.run_id]);
    // a read commits what is held — which stores nothing now: the run is not this worker's
    const state = await client.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual([]);
    const { checkpoints } = await writers(server, thread.thread_id, run.run_id);
    expect(checkpoints).toEqual([]);
    await handle.ctx.pool.query("UPDATE runs SET status = 'interrupted', lease_owner = NULL WHERE run_id = $1", [run.run_id]);
  });

  it('a run with durability "sync" has each checkpoint committed on its own, before its end', async () => {
    const { client, url } = server;
    const thread = await client.threads.create();
    const res = await fetch(`${url}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "chat", input: userMessage("each at once"), durability: "sync" }),
    });
    expect(res.status).toBe(200);
    const run = (await res.json()) as { run_id: string };
    await client.runs.join(thread.thread_id, run.run_id);
    const { distinct, end } = await writers(server, thread.thread_id, run.run_id);
    expect(distinct.size).toBeGreaterThanOrEqual(3);
    expect(distinct.has(end)).toBe(false);
    expect(texts((await client.threads.getState(thread.thread_id)).values)).toEqual(["each at once", "You said: each at once"]);
  });
});

/**
 * A thread's queue: the worker that finishes a thread's run claims the thread's next run in the
 * same statement (no wake-up, no second claim), and a worker killed right after that hand-over
 * loses nothing — the next run is resumed by another worker and its effects land exactly once.
 *
 * The hand-over is observed through its effect in the database: the finished run's `ended_at` and
 * the next run's `started_at` are both `now()` of one transaction, so they are equal.
 */
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import type { Client } from "@langchain/langgraph-sdk";
import {
  createTestDatabase,
  describeBackends,
  eventually,
  servicesUp,
  startChild,
  startTestServer,
  userMessage,
  type ChildServer,
  type TestDatabase,
  type TestServer,
} from "../helpers/server.js";

type Msg = { type: string; content: string };
const texts = (messages: Msg[] = []) => messages.map((m) => `${m.type}:${m.content}`);

async function messagesOf(client: Client, threadId: string): Promise<string[]> {
  const state = await client.threads.getState<{ messages: Msg[] }>(threadId);
  return texts(state.values.messages);
}

interface RunTimes {
  run_id: string;
  status: string;
  attempt: number;
  started_at: Date | null;
  ended_at: Date | null;
}

async function runTimes(server: TestServer, threadId: string): Promise<RunTimes[]> {
  const { rows } = await server.handle.ctx.pool.query<RunTimes>(
    "SELECT run_id, status, attempt, started_at, ended_at FROM runs WHERE thread_id = $1 ORDER BY seq",
    [threadId],
  );
  return rows;
}

/** Count the server's pool queries whose text matches, until `stop`. */
function countQueries(server: TestServer, matches: (text: string) => boolean): { count: number; stop(): void } {
  const pool = server.handle.ctx.pool as unknown as { query: (...args: unknown[]) => unknown };
  const original = pool.query;
  const counter = { count: 0, stop: () => void (pool.query = original) };
  pool.query = function (this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    const text = typeof config === "string" ? config : (config?.text ?? "");
    if (matches(text)) counter.count++;
    return original.apply(this, args);
  };
  return counter;
}

describeBackends("a thread's queue", (backend) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("20 runs queued on one thread: each starts in the transaction that ends the one before, all succeed in creation order, effects once", async () => {
    // Queue all 20 before any worker runs: an API-only server creates them, then a server with
    // workers opens the same database.
    const db = await createTestDatabase(backend);
    const api = await startTestServer(backend, { jobsPerWorker: 0 }, db);
    const thread = await api.client.threads.create();
    const labels = Array.from({ length: 20 }, (_, i) => `m${i}`);
    const created: string[] = [];
    for (const l of labels) created.push((await api.client.runs.create(thread.thread_id, "slow", { input: userMessage(l) })).run_id);
    await api.close({ keepDatabase: true });

    server = await startTestServer(backend, {}, db);
    const { client } = server;
    for (const id of created) await client.runs.join(thread.thread_id, id);

    const runs = await runTimes(server, thread.thread_id);
    expect(runs.map((r) => r.run_id)).toEqual(created);
    expect(runs.map((r) => r.status)).toEqual(created.map(() => "success"));
    expect(runs.map((r) => r.attempt)).toEqual(created.map(() => 1));
    // each run after the first was claimed as its predecessor finished (one transaction: one now())
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started_at).toEqual(runs[i - 1]!.ended_at);
    // and each started only after the one before had ended
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.started_at!.getTime());

    expect(await messagesOf(client, thread.thread_id)).toEqual(labels.flatMap((l) => [`human:${l}`, `ai:You said: ${l}`]));
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("a run created where a worker slot is free starts in the statement that creates it; runs created at once on an idle thread still run one at a time, in order", async () => {
    server = await startTestServer(backend);
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("now") });
    // answered as created, as when a worker picks it up a moment later
    expect(run.status).toBe("pending");
    await client.runs.join(thread.thread_id, run.run_id);
    const { rows } = await server.handle.ctx.pool.query<{ created_at: Date; started_at: Date; attempt: number; status: string }>(
      "SELECT created_at, started_at, attempt, status FROM runs WHERE run_id = $1",
      [run.run_id],
    );
    // claimed by the insert itself (one transaction: one now()), its attempt counted once
    expect(rows[0]!.started_at).toEqual(rows[0]!.created_at);
    expect(rows[0]!.attempt).toBe(1);
    expect(rows[0]!.status).toBe("success");

    // Created together on an idle thread: each create may see it idle, only one may start.
    const other = await client.threads.create();
    const labels = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const created = await Promise.all(labels.map((l) => client.runs.create(other.thread_id, "chat", { input: userMessage(l), multitaskStrategy: "enqueue" })));
    for (const r of created) await client.runs.join(other.thread_id, r.run_id);
    const runs = await runTimes(server, other.thread_id);
    expect(runs.map((r) => r.status)).toEqual(labels.map(() => "success"));
    expect(runs.map((r) => r.attempt)).toEqual(labels.map(() => 1));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started_at!.getTime()).toBeGreaterThanOrEqual(runs[i - 1]!.ended_at!.getTime());
    // every turn once, in the order the runs were queued (seq)
    const bySeq = runs.map((r) => labels[created.findIndex((c) => c.run_id === r.run_id)]!);
    expect(await messagesOf(client, other.thread_id)).toEqual(bySeq.flatMap((l) => [`human:${l}`, `ai:You said: ${l}`]));
    expect((await client.threads.get(other.thread_id)).status).toBe("idle");
  });

  it("runs handed over on a busy thread start from its latest checkpoint, pending writes included: a step stopped at interrupt() resumes without redoing the node that had finished", async () => {
    // Queued before any worker runs, so each run after the first is handed over by its
    // predecessor's finish and starts from the checkpoint that run left (held in memory by the
    // worker, unless it has pending writes, as a step stopped at interrupt() has).
    const db = await createTestDatabase(backend);
    const api = await startTestServer(backend, { jobsPerWorker: 0 }, db);
    const thread = await api.client.threads.create();
    const created: string[] = [];
    const queue = async (body: Record<string, unknown>) => {
      created.push((await api.client.runs.create(thread.thread_id, "sidecar", { ...body, multitaskStrategy: "enqueue" })).run_id);
    };
    await queue({ input: { input: "a" } });
    await queue({ command: { resume: "yes" } });
    await queue({ input: { input: "b" } });
    await queue({ command: { resume: "no" } });
    await queue({ input: { input: "c" } });
    await api.close({ keepDatabase: true });

    server = await startTestServer(backend, {}, db);
    const { client } = server;
    // the server's reads of the thread's newest checkpoint (the checkpointer's query without a checkpoint id)
    const reads = countQueries(server, (text) => text.includes("as pending_writes") && text.includes("ORDER BY checkpoint_id DESC LIMIT 1"));
    for (const id of created) await client.runs.join(thread.thread_id, id);
    reads.stop();

    const runs = await runTimes(server, thread.thread_id);
    expect(runs.map((r) => r.run_id)).toEqual(created);
    expect(runs.map((r) => r.status)).toEqual(created.map(() => "success"));
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.started_at).toEqual(runs[i - 1]!.ended_at);
    // Run 1 found the thread empty; runs 3 and 5 start from the checkpoint the run before left,
    // from memory. Runs 2 and 4 read theirs from the database: it has pending writes. And the
    // worker reads the state each interrupted run (1, 3, 5) left, to store it with the run's end.
    expect(reads.count).toBe(2 + 3);
    // each input noted once and each decision recorded once, in order; the last input waits for its decision
    const state = await client.threads.getState<{ log: string[] }>(thread.thread_id);
    // (a step's writes are applied together, in LangGraph's task order)
    const log = state.values.log;
    expect([log.slice(0, 2).sort(), log.slice(2, 4).sort(), log.slice(4)]).toEqual([["gate:a:yes", "note:a"], ["gate:b:no", "note:b"], ["note:c"]]);
    expect(state.next).toEqual(["gate"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
  });
});

const postgresOnly = servicesUp() ? describe : describe.skip;

postgresOnly("a thread's queue across a worker crash", () => {
  let db: TestDatabase | undefined;
  let api: TestServer | undefined;
  const children: ChildServer[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop("SIGKILL");
    await api?.close({ keepDatabase: true });
    api = undefined;
    await db?.drop();
    db = undefined;
  });

  it("a worker killed right after finishing run N (having claimed N+1 with it) loses nothing", async () => {
    db = await createTestDatabase("postgres");
    api = await startTestServer("postgres", { jobsPerWorker: 0, runLeaseSeconds: 2 }, db);
    const { client } = api;
    const worker = await startChild("worker", db, { BERTH_RUN_LEASE_SECONDS: "2" });
    children.push(worker);

    const thread = await client.threads.create();
    // N sleeps long enough for N+1 to be queued behind it; N+1 sleeps long enough that the kill
    // lands before it could finish (it lands right after the hand-over, before or just after N+1 began).
    const first = await client.runs.create(thread.thread_id, "slow", { input: userMessage("n"), config: { configurable: { delay_ms: 1500 } } });
    await eventually(async () => (await client.runs.get(thread.thread_id, first.run_id)).status === "running");
    const next = await client.runs.create(thread.thread_id, "slow", { input: userMessage("n+1"), config: { configurable: { delay_ms: 3000 } } });

    // The moment N has ended, N+1 is already this worker's (handed over in the same transaction).
    const handedOver = await eventually(async () => {
      const runs = await runTimes(api!, thread.thread_id);
      return runs[0]!.status === "success" ? runs : undefined;
    }, 60_000, 5);
    expect(handedOver[1]!.status).toBe("running");
    expect(handedOver[1]!.started_at).toEqual(handedOver[0]!.ended_at);
    await worker.stop("SIGKILL");

    // Another worker takes N+1 over once the dead worker's lease lapses, and runs it to its end.
    children.push(await startChild("worker", db, { BERTH_RUN_LEASE_SECONDS: "2" }));
    await client.runs.join(thread.thread_id, next.run_id);

    const runs = await runTimes(api, thread.thread_id);
    expect(runs.map((r) => r.status)).toEqual(["success", "success"]);
    expect(await messagesOf(client, thread.thread_id)).toEqual(["human:n", "ai:You said: n", "human:n+1", "ai:You said: n+1"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  }, 180_000);
});

postgresOnly("a thread's queue when a run is created as the run before it finishes", () => {
  let db: TestDatabase | undefined;
  const servers: TestServer[] = [];
  let locker: pg.Client | undefined;

  afterEach(async () => {
    await locker?.end().catch(() => undefined);
    locker = undefined;
    for (const s of servers.splice(0)) await s.close({ keepDatabase: true });
    await db?.drop();
    db = undefined;
  });

  it("a run created after the finishing statement's snapshot, before it commits, is not left waiting behind an idle thread", async () => {
    db = await createTestDatabase("postgres");
    const worker = await startTestServer("postgres", {}, db);
    servers.push(worker);
    // Creations go through an API-only server on another bus: their wake-ups never reach the
    // worker, so only the finish path can start the run created behind the finishing one (the
    // wake-up of a real creation may come before the finish commits, and find nothing to start).
    const api = await startTestServer("postgres", { jobsPerWorker: 0, redisKeyPrefix: `${db.redisKeyPrefix}-api` }, db);
    servers.push(api);
    const thread = await worker.client.threads.create();
    const first = await worker.client.runs.create(thread.thread_id, "slow", { input: userMessage("a"), config: { configurable: { delay_ms: 1500 } } });

    // Hold the first run's row (as an update would: its events' foreign key still reads it): its
    // finishing statement takes its snapshot, then waits here.
    locker = new pg.Client({ connectionString: db.uri });
    await locker.connect();
    await locker.query("BEGIN");
    const { rows: held } = await locker.query<{ status: string }>("SELECT status FROM runs WHERE run_id = $1 FOR NO KEY UPDATE", [first.run_id]);
    expect(held[0]!.status).toBe("running"); // (the test needs the run still running: delay_ms)
    await eventually(async () => {
      const { rows } = await api.handle.ctx.pool.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%WITH ended AS%'",
      );
      return rows.length > 0;
    });

    // Created now, it sees the first run running and queues behind it; then the finish goes on.
    const second = await api.client.runs.create(thread.thread_id, "chat", { input: userMessage("b"), multitaskStrategy: "enqueue" });
    await locker.query("COMMIT");
    await eventually(async () => (await worker.client.runs.get(thread.thread_id, first.run_id)).status === "success");

    // The moment the first run has ended, its thread is not idle while the second waits.
    const { rows } = await api.handle.ctx.pool.query<{ thread_status: string; run_status: string }>(
      "SELECT t.status AS thread_status, r.status AS run_status FROM threads t JOIN runs r USING (thread_id) WHERE r.run_id = $1",
      [second.run_id],
    );
    expect(rows[0]!.thread_status).toBe(rows[0]!.run_status === "success" ? "idle" : "busy");

    // The worker starts the second run (with no wake-up but the finish's).
    await worker.client.runs.join(thread.thread_id, second.run_id);
    expect((await worker.client.runs.get(thread.thread_id, second.run_id)).status).toBe("success");
    expect(await messagesOf(worker.client, thread.thread_id)).toEqual(["human:a", "ai:You said: a", "human:b", "ai:You said: b"]);
    expect((await worker.client.threads.get(thread.thread_id)).status).toBe("idle");
  }, 120_000);
});

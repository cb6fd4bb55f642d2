/**
 * Berth's checkpointer writes a checkpoint (with its channel values) and a task's writes each in
 * one statement, where the library uses a transaction of several; what is stored must be the same.
 * Checked side by side with the library's PostgresSaver on one real Postgres database.
 */
import { randomUUID } from "node:crypto";
import { Annotation, END, START, StateGraph, interrupt, type BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BerthPostgresSaver } from "../../src/agent-server/checkpointer.js";
import { createScratchDatabase } from "../helpers/postgres.js";
import { POSTGRES_ADMIN_URI } from "../helpers/services.js";
import { servicesUp } from "../helpers/server.js";

const State = Annotation.Root({
  items: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }),
  note: Annotation<string>(),
});

/** Two parallel branches, then a node that stops at interrupt() until resumed. */
function buildGraph(checkpointer: BaseCheckpointSaver) {
  return new StateGraph(State)
    .addNode("left", () => ({ items: ["left"] }))
    .addNode("right", () => ({ items: ["right"] }))
    .addNode("ask", () => ({ note: String(interrupt("approve?")) }))
    .addEdge(START, "left")
    .addEdge(START, "right")
    .addEdge("left", "ask")
    .addEdge("right", "ask")
    .addEdge("ask", END)
    .compile({ checkpointer });
}

/** A pool that counts how it is used. */
function countingPool(uri: string) {
  const pool = new pg.Pool({ connectionString: uri, max: 4 });
  const counts = { connect: 0, query: 0 };
  const connect = pool.connect.bind(pool);
  const query = pool.query.bind(pool);
  (pool as { connect: unknown }).connect = (...args: unknown[]) => {
    counts.connect++;
    return (connect as (...a: unknown[]) => unknown)(...args);
  };
  (pool as { query: unknown }).query = (...args: unknown[]) => {
    counts.query++;
    return (query as (...a: unknown[]) => unknown)(...args);
  };
  return { pool, counts };
}

/**
 * The graph run to its interrupt and resumed, as a client sees it through `saver`. `started` is
 * told the thread and each invocation's run id (in `configurable`, as the server's runs carry it).
 */
async function scenario(saver: BaseCheckpointSaver, started?: (threadId: string, runId: string) => void) {
  const graph = buildGraph(saver);
  const threadId = randomUUID();
  const config = { configurable: { thread_id: threadId } };
  const run = () => {
    const runId = randomUUID();
    started?.(threadId, runId);
    return { configurable: { thread_id: threadId, run_id: runId } };
  };
  await graph.invoke({ items: ["start"] }, run());
  const stopped = await graph.getState(config);
  const { Command } = await import("@langchain/langgraph");
  await graph.invoke(new Command({ resume: "yes" }), run());
  const end = await graph.getState(config);
  const history = [];
  for await (const s of graph.getStateHistory(config)) history.push({ next: s.next, values: s.values, source: s.metadata?.source, step: s.metadata?.step });
  const tuple = await saver.getTuple({ configurable: { thread_id: config.configurable.thread_id, checkpoint_ns: "", checkpoint_id: stopped.config.configurable!.checkpoint_id } });
  return {
    stopped: { next: stopped.next, values: stopped.values, interrupts: stopped.tasks.map((t) => t.interrupts.map((i) => i.value)) },
    end: { next: end.next, values: end.values },
    history,
    // (interrupt ids are random per run)
    pendingWrites: tuple!.pendingWrites!.map(([, channel, value]) => [channel, JSON.parse(JSON.stringify(value, (k, v) => (k === "id" ? undefined : v)))]).sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
  };
}

const run = servicesUp() ? describe : describe.skip;

run("checkpointer: one statement per write", () => {
  let db: { uri: string; drop(): Promise<void> };
  const pools: pg.Pool[] = [];
  beforeAll(async () => {
    db = await createScratchDatabase(POSTGRES_ADMIN_URI, "berth_test");
    const setupPool = new pg.Pool({ connectionString: db.uri });
    await PostgresSaver.prototype.setup.call(new PostgresSaver(setupPool));
    await setupPool.end();
  });
  afterAll(async () => {
    for (const p of pools) await p.end();
    await db?.drop();
  });

  it("stores what the library stores, without a transaction of its own per write", async () => {
    const lib = countingPool(db.uri);
    const berth = countingPool(db.uri);
    pools.push(lib.pool, berth.pool);
    const savers = { lib: new PostgresSaver(lib.pool), berth: new BerthPostgresSaver(berth.pool) };
    const outcome: Record<string, unknown> = {};
    for (const [name, saver] of Object.entries(savers)) outcome[name] = await scenario(saver);
    expect(outcome.berth).toEqual(outcome.lib);
    expect((outcome.berth as { end: { values: unknown } }).end.values).toEqual({ items: ["start", "left", "right"], note: "yes" });
    // (pool.query checks a client out too) the library checks out a client for a transaction per
    // write besides; Berth's every checkout is one statement
    expect(lib.counts.connect).toBeGreaterThan(lib.counts.query);
    expect(berth.counts.connect).toBe(berth.counts.query);
  });

  it("with named statements (the server's setting on Postgres): stores what the library stores, and Postgres prepares each write's shape once per connection", async () => {
    const lib = new pg.Pool({ connectionString: db.uri });
    // one connection, so the session's prepared statements are all the saver's
    const berth = new pg.Pool({ connectionString: db.uri, max: 1 });
    pools.push(lib, berth);
    const saver = new BerthPostgresSaver(berth, undefined, { namedStatements: true });
    const first = await scenario(saver);
    expect(first).toEqual(await scenario(new PostgresSaver(lib)));
    const prepared = async () =>
      (await berth.query<{ name: string; calls: string }>("SELECT name, generic_plans + custom_plans AS calls FROM pg_prepared_statements ORDER BY name")).rows;
    const once = await prepared();
    // checkpoints with 1 to 4 changed channels, writes of 1 or 2 rows: a handful of shapes, each named
    expect(once.length).toBeGreaterThan(2);
    expect(once.every((s) => s.name.startsWith("berth_ckpt_"))).toBe(true);
    // the same writes again (another thread) use the statements already prepared, and store the same
    expect(await scenario(saver)).toEqual(first);
    const twice = await prepared();
    expect(twice.map((s) => s.name)).toEqual(once.map((s) => s.name));
    const calls = (rows: { calls: string }[]) => rows.reduce((a, s) => a + Number(s.calls), 0);
    expect(calls(twice)).toBe(2 * calls(once));
  });

  it("held back for a run (write-behind): its writes go as one statement per read of the thread, and what is stored is what the library stores", async () => {
    const lib = new pg.Pool({ connectionString: db.uri });
    const berth = countingPool(db.uri);
    pools.push(lib, berth.pool);
    // a linger no test outlasts: only reads of the thread commit what is held
    for (const named of [false, true]) {
      const saver = new BerthPostgresSaver(berth.pool, undefined, { namedStatements: named, writeBehindMs: 600_000 });
      const before = berth.counts.query;
      const held = await scenario(saver, (threadId, runId) => expect(saver.holdWrites(threadId, runId)).toBe(true));
      expect(held).toEqual(await scenario(new PostgresSaver(lib)));
      // each invocation's writes (checkpoints and tasks' writes: 10 in all) are committed by the read
      // after it as one statement: 2 batches, besides the scenario's 6 reads
      const statements = berth.counts.query - before;
      expect(statements).toBeLessThanOrEqual(8);
    }
  });

  it("a task's writes to one special channel keep the last, as the library's one-by-one upserts do (also when held back)", async () => {
    const pool = new pg.Pool({ connectionString: db.uri });
    pools.push(pool);
    const heldBack = new BerthPostgresSaver(pool, undefined, { writeBehindMs: 600_000 });
    const savers = { lib: new PostgresSaver(pool), berth: new BerthPostgresSaver(pool), heldBack };
    const seen: Record<string, unknown> = {};
    for (const [name, saver] of Object.entries(savers)) {
      const runId = randomUUID();
      const config = { configurable: { thread_id: randomUUID(), checkpoint_ns: "", run_id: runId } };
      if (saver === heldBack) heldBack.holdWrites(config.configurable.thread_id, runId);
      const graph = buildGraph(saver);
      await graph.invoke({ items: ["x"] }, config);
      const state = await graph.getState(config);
      const at = { configurable: { ...config.configurable, checkpoint_id: state.config.configurable!.checkpoint_id } };
      await saver.putWrites(at, [["__interrupt__", "first"], ["__interrupt__", "second"]], "task-a");
      await saver.putWrites(at, [["items", "one"], ["note", "two"]], "task-b");
      await saver.putWrites(at, [["items", "changed"]], "task-b"); // not special: the first write stays
      const tuple = await saver.getTuple(at);
      seen[name] = tuple!.pendingWrites!.filter(([task]) => task === "task-a" || task === "task-b").map(([task, channel, value]) => [task, channel, value]);
    }
    expect(seen.berth).toEqual(seen.lib);
    expect(seen.heldBack).toEqual(seen.lib);
    expect(seen.berth).toContainEqual(["task-a", "__interrupt__", "second"]);
    expect(seen.berth).toContainEqual(["task-b", "items", "one"]);
  });
});

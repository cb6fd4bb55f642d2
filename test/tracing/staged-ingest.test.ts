/**
 * Staged ingest (issue 16): requests append to a staging table and a merge worker merges it into
 * runs and rollups. Read-your-writes through the real `langsmith` SDK with no background merging at
 * all (reads merge what they need); staged rows that cannot be merged are set aside and reported
 * without blocking the rows behind them; a merger that dies inside its transaction loses nothing
 * and merges nothing twice; several processes ingesting and merging one database agree on every
 * run and every rollup.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { Client, RunTree } from "langsmith";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BERTH_BIN, describeBackends, eventually, servicesUp } from "../helpers/server.js";
import { memoryLogger, startTracingTestServer, TEST_API_KEY, tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";
import { captureOutput } from "../helpers/child-output.js";

const WARN = 40;

/** A trace of a chain root and an LLM child, posted when each starts and patched when it ends. */
async function trace(client: Client, project: string, i: number) {
  const root = new RunTree({ name: "agent", run_type: "chain", project_name: project, client, inputs: { q: i } });
  await root.postRun();
  const llm = root.createChild({ name: "llm", run_type: "llm", inputs: { messages: [{ role: "user", content: `q${i}` }] }, metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" } });
  await llm.postRun();
  await llm.end({ choices: [{ message: { role: "assistant", content: `a${i}` } }], usage_metadata: { input_tokens: 10 + i, output_tokens: 5, total_tokens: 15 + i } });
  await llm.patchRun();
  await root.end({ answer: i });
  await root.patchRun();
  return { root: root.id, llm: llm.id };
}
/** Tokens the traces above record in total. */
const tokensOf = (n: number) => Array.from({ length: n }, (_, i) => 15 + i).reduce((a, b) => a + b, 0);

describeBackends("staged tracing ingest", (backend) => {
  let s: TracingTestServer;
  const { logger, records } = memoryLogger("warn");
  // no background merging: only reads (and the JSON routes) merge, so a read that did not would miss runs
  tracingServerForSuite(backend, (x) => (s = x), { mergeIntervalMs: 0 }, logger);
  const project = (name: string) => `${name}-${backend}-${randomUUID().slice(0, 6)}`;

  it("reads its writes through the SDK: readRun right after the flush sees the patched run, stats count it", async () => {
    const name = project("ryw");
    const client = s.client();
    const ids = await trace(client, name, 3);
    await client.awaitPendingTraceBatches();
    const run = await client.readRun(ids.llm);
    expect(run).toMatchObject({ id: ids.llm, name: "llm", outputs: expect.objectContaining({ usage_metadata: expect.anything() }) });
    expect(run.end_time).toBeTruthy();
    expect(run.total_tokens).toBe(18);
    const root = await client.readRun(ids.root);
    expect(root.outputs).toEqual({ answer: 3 });
    const stats = (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
    expect(stats).toMatchObject({ run_count: 2, trace_count: 1, total_tokens: 18 });
    const listed = [];
    for await (const r of client.listRuns({ projectName: name })) listed.push(r.id);
    expect(listed.sort()).toEqual([ids.root, ids.llm].sort());
  });

  it("sets aside staged rows that cannot be merged, reports them, and merges the rows behind them", async () => {
    const name = project("bad");
    const pool = s.handle.facility.pool;
    const { rows: projects } = await pool.query<{ id: string; tenant_id: string }>("SELECT id, tenant_id FROM tracing_projects LIMIT 1");
    const [tenant, home] = [projects[0]!.tenant_id, projects[0]!.id];
    const [wrongKind, mismatched, badTime] = [randomUUID(), randomUUID(), randomUUID()];
    // rows no request would stage (another version's, or a hand-made row): an unknown kind, a run
    // whose id is not the row's, and a timestamp Postgres refuses
    await pool.query(
      `INSERT INTO tracing_staged_ops (tenant_id, run_id, kind, op) VALUES
       ($1, $2, 'upsert', '{"run": {}}'), ($1, $3, 'post', $5), ($1, $4, 'post', $6)`,
      [tenant, wrongKind, mismatched, badTime, JSON.stringify({ run: { id: randomUUID(), name: "x" } }), JSON.stringify({ run: { id: badTime, name: "t", start_time: "not a time" }, project: home })],
    );
    const client = s.client();
    const ids = await trace(client, name, 1);
    await client.awaitPendingTraceBatches();
    expect((await client.readRun(ids.llm)).total_tokens).toBe(16);
    expect((await s.api(`/runs/${badTime}`)).status).toBe(404);
    const { rows: failed } = await pool.query<{ run_id: string; error: string }>("SELECT run_id, error FROM tracing_staged_failures WHERE run_id = ANY($1::uuid[]) ORDER BY seq", [[wrongKind, mismatched, badTime]]);
    expect(failed.map((f) => f.run_id)).toEqual([wrongKind, mismatched, badTime]);
    expect(failed[0]!.error).toMatch(/unknown staged kind/);
    expect(failed[1]!.error).toMatch(/id does not match/);
    expect(failed[2]!.error).toMatch(/could not be stored/);
    const { rows: left } = await pool.query("SELECT count(*)::int AS n FROM tracing_staged_ops");
    expect(left[0].n).toBe(0);
    for (const id of [wrongKind, mismatched, badTime]) expect(records.some((r) => r.level === WARN && r.runId === id && /not merged/.test(r.msg))).toBe(true);
  });
});

/** `berth tracing` as its own process on a Postgres database. */
function forkTracing(uri: string, env: Record<string, string> = {}): { child: ChildProcess; ready: Promise<string>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; output(): string } {
  const child = fork(BERTH_BIN, ["tracing", "--port", "0"], {
    env: { ...process.env, DATABASE_URI: uri, BERTH_API_KEY: TEST_API_KEY, LOG_LEVEL: "warn", BERTH_FROM_SOURCE: "1", ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const output = captureOutput(child, "berth tracing");
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise<string>((resolve, reject) => {
    child.on("message", (m: { type?: string; url?: string }) => m?.type === "ready" && resolve(m.url!));
    void exited.then(() => reject(new Error(`berth tracing exited before it was ready:\n${output()}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output };
}
const stop = async (p: ReturnType<typeof forkTracing>) => {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
  await p.exited;
};

describe.skipIf(!servicesUp())("staged tracing ingest across processes [postgres]", () => {
  let s: TracingTestServer;
  let sql: pg.Pool;
  beforeAll(async () => {
    // this process only stages (no background merging); the children merge
    s = await startTracingTestServer("postgres", { mergeIntervalMs: 0 });
    sql = new pg.Pool({ connectionString: s.db.uri });
  });
  afterAll(async () => {
    await sql?.end();
    await s?.close();
  });
  const count = async (table: string) => (await sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;

  it("a merger killed inside its transaction loses nothing and merges nothing twice", async () => {
    const name = `crash-${randomUUID().slice(0, 6)}`;
    const client = s.client();
    const traces = 20;
    for (let i = 0; i < traces; i++) await trace(client, name, i);
    await client.awaitPendingTraceBatches();
    const staged = await count("tracing_staged_ops");
    expect(staged).toBeGreaterThanOrEqual(traces * 4);
    expect(await count("tracing_runs")).toBe(0);

    // a merger that dies (SIGKILL) after writing the merge, before its commit
    const crashing = forkTracing(s.db.uri!, { BERTH_TRACING_MERGE_FAULT: "crash-before-commit" });
    expect((await crashing.exited).signal).toBe("SIGKILL");
    expect(await count("tracing_staged_ops")).toBe(staged);
    expect(await count("tracing_runs")).toBe(0);
    expect(await count("tracing_rollups")).toBe(0);

    // a merger started afterwards merges every row once
    const merger = forkTracing(s.db.uri!);
    try {
      await merger.ready;
      await eventually(async () => (await count("tracing_staged_ops")) === 0);
    } finally {
      await stop(merger);
    }
    const runs = (await sql.query("SELECT status, count(*)::int AS n FROM tracing_runs GROUP BY status")).rows;
    expect(runs).toEqual([{ status: "success", n: traces * 2 }]);
    const stats = (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
    expect(stats).toMatchObject({ run_count: traces * 2, trace_count: traces, total_tokens: tokensOf(traces) });
    expect(await count("tracing_staged_failures")).toBe(0);
  });

  it("two processes ingesting and merging one database: each run merged once, posts and patches across processes", async () => {
    const name = `multi-${randomUUID().slice(0, 6)}`;
    const [a, b] = [forkTracing(s.db.uri!, { BERTH_TRACING_MERGE_INTERVAL_MS: "20" }), forkTracing(s.db.uri!, { BERTH_TRACING_MERGE_INTERVAL_MS: "20" })];
    try {
      const [ua, ub] = await Promise.all([a.ready, b.ready]);
      const traces = 30;
      // posts go to one process, patches to the other: the merge pairs them whichever merges
      const posts = new Client({ apiUrl: ua, apiKey: TEST_API_KEY, autoBatchTracing: true });
      const patches = new Client({ apiUrl: ub, apiKey: TEST_API_KEY, autoBatchTracing: true });
      const sdk = async (i: number) => {
        const root = new RunTree({ name: "agent", run_type: "chain", project_name: name, client: posts, inputs: { q: i } });
        await root.postRun();
        const llm = root.createChild({ name: "llm", run_type: "llm", inputs: { q: i }, metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" } });
        await llm.postRun();
        llm.client = patches;
        root.client = patches;
        await llm.end({ usage_metadata: { input_tokens: 10 + i, output_tokens: 5, total_tokens: 15 + i } });
        await llm.patchRun();
        await root.end({ answer: i });
        await root.patchRun();
      };
      await Promise.all(Array.from({ length: traces }, (_, i) => sdk(i)));
      await Promise.all([posts.awaitPendingTraceBatches(), patches.awaitPendingTraceBatches()]);
      await eventually(async () => (await count("tracing_staged_ops")) === 0);
      const runs = (await sql.query("SELECT r.status, count(*)::int AS n FROM tracing_runs r JOIN tracing_projects p ON p.id = r.project_id WHERE p.name = $1 GROUP BY r.status", [name])).rows;
      expect(runs).toEqual([{ status: "success", n: traces * 2 }]);
      const stats = (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
      expect(stats).toMatchObject({ run_count: traces * 2, trace_count: traces, total_tokens: tokensOf(traces) });
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });
});

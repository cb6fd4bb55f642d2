/**
 * Staged ingest (issue 16): requests are staged, answered, and merged by a background worker.
 * Read-your-writes through the real `langsmith` SDK; staged requests that cannot be read are set
 * aside with the reason and never hold up the ones behind them; staged but unmerged requests
 * survive a process kill (and a merger killed inside its transaction) and are merged by the next
 * process exactly once.
 */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { Client, RunTree } from "langsmith";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeBackends, eventually, servicesUp } from "../helpers/server.js";
import { forkTracing, memoryLogger, startTracingTestServer, TEST_API_KEY, tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

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
  // staged rows are taken over at once (the bad rows below are not this process's)
  tracingServerForSuite(backend, (x) => (s = x), { recoverAfterSeconds: 0 }, logger);
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
    expect((await client.readRun(ids.root)).outputs).toEqual({ answer: 3 });
    const stats = (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
    expect(stats).toMatchObject({ run_count: 2, trace_count: 1, total_tokens: 18 });
  });

  it("a merge of more runs than one statement writes stores every run, posted and then patched, with its payloads and rollups", async () => {
    // storage/runs.ts writes a merge's runs in statements of at most 200 rows: 450 runs take three,
    // and 450 patches of stored runs three updates
    const name = project("chunks");
    const ids = Array.from({ length: 450 }, () => randomUUID());
    const start = new Date(Date.now() - 60_000).toISOString();
    const posted = await s.api("/runs/batch", { method: "POST", body: JSON.stringify({ post: ids.map((id, i) => ({ id, trace_id: id, name: `r${i}`, run_type: "chain", session_name: name, start_time: start, inputs: { i } })) }) });
    expect(posted.body.errors ?? []).toEqual([]);
    const end = new Date().toISOString();
    const patched = await s.api("/runs/batch", { method: "POST", body: JSON.stringify({ patch: ids.map((id, i) => ({ id, trace_id: id, end_time: end, outputs: { o: i } })) }) });
    expect(patched.body.errors ?? []).toEqual([]);
    const { rows } = await s.handle.facility.pool.query<{ id: string; name: string; inputs: { i: number }; outputs: { o: number } | null; status: string }>(
      "SELECT id, name, inputs, outputs, status FROM tracing_runs WHERE id = ANY($1::uuid[])",
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(byId.size).toBe(450);
    ids.forEach((id, i) => expect(byId.get(id)).toMatchObject({ name: `r${i}`, inputs: { i }, outputs: { o: i }, status: "success" }));
    const stats = (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
    expect(stats).toMatchObject({ run_count: 450, trace_count: 450 });
  });

  it("sets aside staged requests that cannot be read, with the reason, and merges the ones behind them", async () => {
    const pool = s.handle.facility.pool;
    const { rows: tenants } = await pool.query<{ tenant_id: string }>("SELECT tenant_id FROM tracing_projects LIMIT 1");
    const tenant = tenants[0]!.tenant_id;
    const good = randomUUID();
    const goodBody = Buffer.from(`--b\r\nContent-Disposition: form-data; name="post.${good}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify({ id: good, name: "behind", run_type: "chain", session_name: project("behind") })}\r\n--b--\r\n`);
    // rows no request would stage (another version's, a damaged one): an unknown format, a gzip
    // body that is not gzip, ops that are not a list; and behind them, a good staged request
    const { rows: staged } = await pool.query<{ seq: string }>(
      `INSERT INTO tracing_staged (tenant_id, format, content_type, content_encoding, body, created_at) VALUES
       ($1, 'protobuf', NULL, NULL, '\\x00'::bytea, now() - interval '1 hour'),
       ($1, 'multipart', 'multipart/form-data; boundary=b', 'gzip', 'not gzip'::bytea, now() - interval '1 hour'),
       ($1, 'ops', NULL, NULL, convert_to('{"post": 1}', 'UTF8'), now() - interval '1 hour'),
       ($1, 'multipart', 'multipart/form-data; boundary=b', 'gzip', $2, now() - interval '1 hour')
       RETURNING seq`,
      [tenant, gzipSync(goodBody)],
    );
    const seqs = staged.map((r) => Number(r.seq));
    await eventually(async () => (await s.api(`/runs/${good}`)).status === 200);
    await eventually(async () => (await pool.query("SELECT count(*)::int AS n FROM tracing_staged WHERE seq = ANY($1::bigint[])", [seqs])).rows[0].n === 0);
    const { rows: failed } = await pool.query<{ seq: string; error: string }>("SELECT seq, error FROM tracing_ingest_failures WHERE seq = ANY($1::bigint[]) ORDER BY seq", [seqs]);
    expect(failed.map((f) => Number(f.seq))).toEqual(seqs.slice(0, 3));
    expect(failed[0]!.error).toMatch(/unknown staged format "protobuf"/);
    expect(failed[1]!.error).toMatch(/could not be read: .*(header|gzip)/i);
    expect(failed[2]!.error).toMatch(/not a list/);
    for (const seq of seqs.slice(0, 3)) expect(records.some((r) => r.level === WARN && r.seq === seq && /not merged/.test(r.msg))).toBe(true);
    // and ingest goes on
    const client = s.client();
    const ids = await trace(client, project("after"), 1);
    await client.awaitPendingTraceBatches();
    expect((await client.readRun(ids.llm)).total_tokens).toBe(16);
  });
});

const stop = async (p: ReturnType<typeof forkTracing>) => {
  if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGTERM");
  await p.exited;
};

describe.skipIf(!servicesUp())("staged tracing ingest across a crash [postgres]", () => {
  let s: TracingTestServer;
  let sql: pg.Pool;
  beforeAll(async () => {
    // the database, and a reader; this process never takes over the children's rows
    s = await startTracingTestServer("postgres", { recoverAfterSeconds: 24 * 3600 });
    sql = new pg.Pool({ connectionString: s.db.uri });
  });
  afterAll(async () => {
    await sql?.end();
    await s?.close();
  });
  const count = async (table: string) => (await sql.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
  /** A fresh process that takes over every staged row at once, until none is left. */
  const mergeEverythingStaged = async () => {
    const merger = forkTracing(s.db.uri!, { BERTH_TRACING_RECOVER_AFTER_SECONDS: "0" });
    try {
      await merger.ready;
      await eventually(async () => (await count("tracing_staged")) === 0);
    } finally {
      await stop(merger);
    }
  };

  it("requests staged but not merged survive a kill; a merger killed inside its transaction loses nothing; the next process merges each once", async () => {
    const name = `crash-${randomUUID().slice(0, 6)}`;
    const traces = 20;
    // a process that answers (202) but dies before merging anything
    const ingester = forkTracing(s.db.uri!, { BERTH_TRACING_MERGE_FAULT: "hold" });
    try {
      const client = new Client({ apiUrl: await ingester.ready, apiKey: TEST_API_KEY, autoBatchTracing: true });
      for (let i = 0; i < traces; i++) await trace(client, name, i);
      await client.awaitPendingTraceBatches();
    } finally {
      ingester.child.kill("SIGKILL");
      await ingester.exited;
    }
    const staged = await count("tracing_staged");
    expect(staged).toBeGreaterThan(0);
    expect(await count("tracing_runs")).toBe(0);

    // a merger that dies (SIGKILL) after writing its merge, before its commit
    const crashing = forkTracing(s.db.uri!, { BERTH_TRACING_MERGE_FAULT: "crash-before-commit", BERTH_TRACING_RECOVER_AFTER_SECONDS: "0" });
    expect((await crashing.exited).signal).toBe("SIGKILL");
    expect(await count("tracing_staged")).toBe(staged);
    expect(await count("tracing_runs")).toBe(0);
    expect(await count("tracing_rollups")).toBe(0);

    // the next process merges every staged request once
    await mergeEverythingStaged();
    const runs = (await sql.query("SELECT status, count(*)::int AS n FROM tracing_runs GROUP BY status")).rows;
    expect(runs).toEqual([{ status: "success", n: traces * 2 }]);
    const stats = (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
    expect(stats).toMatchObject({ run_count: traces * 2, trace_count: traces, total_tokens: tokensOf(traces) });
    expect(await count("tracing_ingest_failures")).toBe(0);
  });

  it("requests staged together (one multi-row insert) each keep their own bytes and headers, and are merged from them after a kill", async () => {
    const name = `together-${randomUUID().slice(0, 6)}`;
    const ids = Array.from({ length: 12 }, () => randomUUID());
    // every byte value in the gzip bodies; text past ASCII in the plain ones
    const sent = ids.map((id, i) => {
      const part = JSON.stringify({ id, trace_id: id, name: `r${i} é✓`, run_type: "chain", session_name: name, inputs: { i, s: "ü".repeat(i) } });
      const plain = Buffer.from(`--b${i}\r\nContent-Disposition: form-data; name="post.${id}"\r\nContent-Type: application/json\r\n\r\n${part}\r\n--b${i}--\r\n`);
      return { id, contentType: `multipart/form-data; boundary=b${i}`, encoding: i % 2 ? "gzip" : null, body: i % 2 ? gzipSync(plain) : plain };
    });
    const from = (await sql.query("SELECT coalesce(max(seq), 0)::bigint AS s FROM tracing_staged")).rows[0].s as string;
    const ingester = forkTracing(s.db.uri!, { BERTH_TRACING_MERGE_FAULT: "hold" });
    try {
      const url = await ingester.ready;
      const statuses = await Promise.all(
        sent.map(async (r) => {
          const headers: Record<string, string> = { "x-api-key": TEST_API_KEY, "content-type": r.contentType, ...(r.encoding ? { "content-encoding": r.encoding } : {}) };
          return (await fetch(`${url}/runs/multipart`, { method: "POST", headers, body: r.body })).status;
        }),
      );
      expect(statuses.every((st) => st < 300)).toBe(true);
    } finally {
      ingester.child.kill("SIGKILL");
      await ingester.exited;
    }
    const { rows } = await sql.query<{ content_type: string; content_encoding: string | null; body: Buffer; format: string }>("SELECT format, content_type, content_encoding, body FROM tracing_staged WHERE seq > $1", [from]);
    const key = (x: { contentType: string; encoding: string | null; body: Buffer }) => `${x.contentType}|${x.encoding}|${x.body.toString("hex")}`;
    expect(rows.map((r) => key({ contentType: r.content_type, encoding: r.content_encoding, body: r.body })).sort()).toEqual(sent.map(key).sort());
    expect(new Set(rows.map((r) => r.format))).toEqual(new Set(["multipart"]));
    await mergeEverythingStaged();
    const stored = (await sql.query<{ id: string; name: string; inputs: { i: number; s: string } }>("SELECT id, name, inputs FROM tracing_runs WHERE id = ANY($1::uuid[])", [ids])).rows;
    expect(new Map(stored.map((r) => [r.id, [r.name, r.inputs]]))).toEqual(new Map(ids.map((id, i) => [id, [`r${i} é✓`, { i, s: "ü".repeat(i) }]])));
  });
});

describe.skipIf(!servicesUp())("staged tracing ingest, two live processes on one database [postgres]", () => {
  let s: TracingTestServer;
  let sql: pg.Pool;
  beforeAll(async () => {
    // the database, and a reader; this process never takes over the children's rows
    s = await startTracingTestServer("postgres", { recoverAfterSeconds: 24 * 3600 });
    sql = new pg.Pool({ connectionString: s.db.uri });
  });
  afterAll(async () => {
    await sql?.end();
    await s?.close();
  });

  it("each run is merged once and the rollups are exact when a run's post and patch go to different processes, each taking over the other's staged rows", async () => {
    const name = `two-${randomUUID().slice(0, 6)}`;
    const traces = 30;
    // recovery at once: each process also merges what the other has staged (the race to claim a row)
    const env = { BERTH_TRACING_RECOVER_AFTER_SECONDS: "0" };
    const [a, b] = [forkTracing(s.db.uri!, env), forkTracing(s.db.uri!, env)];
    try {
      const [clientA, clientB] = [new Client({ apiUrl: await a.ready, apiKey: TEST_API_KEY, autoBatchTracing: true }), new Client({ apiUrl: await b.ready, apiKey: TEST_API_KEY, autoBatchTracing: true })];
      const ids: string[] = [];
      await Promise.all(
        Array.from({ length: traces }, async (_, i) => {
          // posted through one process, patched through the other (alternating which)
          const [first, second] = i % 2 ? [clientA, clientB] : [clientB, clientA];
          const root = new RunTree({ name: "agent", run_type: "chain", project_name: name, client: first, inputs: { q: i } });
          await root.postRun();
          const llm = root.createChild({ name: "llm", run_type: "llm", inputs: { q: i }, metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" } });
          await llm.postRun();
          await first.awaitPendingTraceBatches(); // the posts are out before the patches
          llm.client = second;
          root.client = second;
          await llm.end({ choices: [{ message: { role: "assistant", content: `a${i}` } }], usage_metadata: { input_tokens: 10 + i, output_tokens: 5, total_tokens: 15 + i } });
          await llm.patchRun();
          await root.end({ answer: i });
          await root.patchRun();
          ids.push(root.id, llm.id);
        }),
      );
      await Promise.all([clientA.awaitPendingTraceBatches(), clientB.awaitPendingTraceBatches()]);
      await eventually(async () => (await sql.query("SELECT count(*)::int AS n FROM tracing_staged")).rows[0].n === 0);
      // what both processes read is the same, complete, merged state
      for (const url of [await a.ready, await b.ready]) {
        const res = await fetch(`${url}/projects?name=${name}`, { headers: { "x-api-key": TEST_API_KEY } });
        const stats = ((await res.json()) as { projects: { stats: Record<string, unknown> }[] }).projects[0]!.stats;
        expect(stats).toMatchObject({ run_count: traces * 2, trace_count: traces, total_tokens: tokensOf(traces) });
      }
      const runs = (await sql.query("SELECT id::text, status, total_tokens::int AS tokens FROM tracing_runs ORDER BY id")).rows;
      expect(runs.map((r) => r.id)).toEqual([...ids].sort());
      expect(runs.every((r) => r.status === "success")).toBe(true);
      // the rollups equal a recount of the stored runs, row by row
      const rollups = (await sql.query("SELECT model, sum(run_count)::int AS runs, sum(trace_count)::int AS traces, sum(llm_count)::int AS llm, sum(total_tokens)::int AS tokens FROM tracing_rollups GROUP BY model ORDER BY model")).rows;
      expect(rollups).toEqual([
        { model: "", runs: traces * 2, traces, llm: 0, tokens: 0 },
        { model: "gpt-4o-mini", runs: 0, traces: 0, llm: traces, tokens: tokensOf(traces) },
      ]);
      expect((await sql.query("SELECT count(*)::int AS n FROM tracing_ingest_failures")).rows[0].n).toBe(0);
    } finally {
      await Promise.all([stop(a), stop(b)]);
    }
  });
});

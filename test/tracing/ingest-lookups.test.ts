/**
 * The merge looks up the runs it merges by key, whatever Postgres' statistics say: on a runs
 * table never analyzed (a new deployment under load, a restored dump) the lookup of a batch's run
 * ids read every run of the tenant (a plan through the (tenant_id, trace_id) index, filtered by
 * id), so each merge cost grew with the table. Measured by the rows the ingest's statements read
 * from tracing_runs (pg_stat_user_tables), through the real SDK. Postgres only (PGlite has no
 * autovacuum and its statistics are not the question).
 */
import { RunTree } from "langsmith";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, servicesUp } from "../helpers/server.js";
import { startTracingTestServer, type TracingTestServer } from "../helpers/tracing.js";

const STORED = 40_000;
const TRACES = 100;

describe.skipIf(!servicesUp())("merge lookups on a table never analyzed [postgres]", () => {
  let s: TracingTestServer;
  let sql: pg.Pool;
  beforeAll(async () => {
    s = await startTracingTestServer("postgres");
    sql = new pg.Pool({ connectionString: s.db.uri, max: 2 });
  });
  afterAll(async () => {
    await sql?.end();
    await s?.close();
  });

  const counters = async () =>
    (
      await sql.query<{ ins: string; read: string }>(
        "SELECT n_tup_ins AS ins, coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS read FROM pg_stat_user_tables WHERE relname = 'tracing_runs'",
      )
    ).rows.map((r) => ({ ins: Number(r.ins), read: Number(r.read) }))[0]!;

  it("merging a batch reads about the runs it merges, not every run of the tenant", async () => {
    // never analyzed, and kept that way for the test
    await sql.query("ALTER TABLE tracing_runs SET (autovacuum_enabled = false)");
    expect((await sql.query("SELECT reltuples FROM pg_class WHERE relname = 'tracing_runs'")).rows[0].reltuples).toBe(-1);
    // a tenant with many stored runs
    const tenant = (await sql.query<{ id: string }>("SELECT id FROM tenants ORDER BY created_at LIMIT 1")).rows[0]!.id;
    const project = (await sql.query<{ id: string }>("INSERT INTO tracing_projects (id, tenant_id, name) VALUES (gen_random_uuid(), $1, 'stored') RETURNING id", [tenant])).rows[0]!.id;
    await sql.query(
      `INSERT INTO tracing_runs (tenant_id, id, project_id, trace_id, name, run_type, status, start_time, end_time, inputs)
       SELECT $1, g.id, $2, g.id, 'old', 'chain', 'success', now(), now(), jsonb_build_object('i', g.i) FROM (SELECT i, gen_random_uuid() AS id FROM generate_series(1, $3) AS i) AS g`,
      [tenant, project, STORED],
    );
    const before = await eventually(async () => {
      const c = await counters();
      return c.ins >= STORED && c;
    });

    // a batch through the SDK: each trace a root and a child, posted and patched
    const client = s.client();
    const ids: string[] = [];
    for (let i = 0; i < TRACES; i++) {
      const root = new RunTree({ name: "agent", run_type: "chain", project_name: "lookups", client, inputs: { q: i } });
      await root.postRun();
      const tool = root.createChild({ name: "tool", run_type: "tool", inputs: { q: i } });
      await tool.postRun();
      await tool.end({ a: i });
      await tool.patchRun();
      await root.end({ a: i });
      await root.patchRun();
      ids.push(root.id, tool.id);
    }
    await client.awaitPendingTraceBatches();
    expect((await s.api(`/runs/${ids[0]}`)).body).toMatchObject({ outputs: { a: 0 } });

    // the server's statistics arrive when its backends report (at most seconds later)
    const after = await eventually(async () => {
      const c = await counters();
      return c.ins >= before.ins + 2 * TRACES && c;
    });
    // what the merge read from tracing_runs: a few rows per run at most, not the tenant's 40,000
    // (plus the read above: one row)
    expect(after.read - before.read, `rows read from tracing_runs: ${after.read - before.read}`).toBeLessThan(10 * 2 * TRACES);
    // and every run was merged (read after the counters: this count reads the table too)
    const merged = (await sql.query("SELECT count(*)::int AS n FROM tracing_runs WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND status = 'success'", [tenant, ids])).rows[0].n;
    expect(merged).toBe(2 * TRACES);
  });
});

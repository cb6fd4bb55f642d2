/**
 * Read-your-writes is per tenant: a read waits for what was accepted for the caller's tenant,
 * never for another tenant's pending ingest; and it holds across processes (replicas on one
 * database): a read on one waits for what another accepted. Postgres only: merges are held on
 * their run locks from a second session (PGlite is one session, where the lock would not block).
 */
import { randomUUID } from "node:crypto";
import { Client } from "langsmith";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, servicesUp } from "../helpers/server.js";
import { forkTracing, startTracingTestServer, type TracingTestServer } from "../helpers/tracing.js";

describe.skipIf(!servicesUp())("read-your-writes per tenant [postgres]", () => {
  let s: TracingTestServer;
  let holder: pg.Client;
  beforeAll(async () => {
    // a read would wait an hour for a merge it waited for: the test fails by timing out, not by luck
    s = await startTracingTestServer("postgres", { readWaitSeconds: 3600 });
    holder = new pg.Client({ connectionString: s.db.uri });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await s?.close();
  });

  it("a tenant's read is not held up by another tenant's merge stuck on a lock; the other tenant's run is merged once the lock goes", async () => {
    const project = `ryw-${randomUUID().slice(0, 6)}`;
    // tenant A writes a run and reads it back
    const mine = randomUUID();
    const a = s.client({ autoBatchTracing: false });
    await a.createRun({ id: mine, name: "mine", run_type: "chain", inputs: { q: 1 }, project_name: project });
    expect((await s.api(`/runs/${mine}`)).body).toMatchObject({ id: mine, name: "mine" });

    // tenant B's run: its merge will wait for the lock this test holds on (B, run id)
    const tenant = await s.handle.facility.auth.createTenant(`other-${randomUUID().slice(0, 6)}`);
    const { key } = await s.handle.facility.auth.createKey([tenant.id], "other");
    const b = new Client({ apiUrl: s.url, apiKey: key, autoBatchTracing: false });
    const theirs = randomUUID();
    await holder.query("SELECT pg_advisory_lock(hashtextextended($1 || $2, 0))", [tenant.id, theirs]);
    const posted = b.createRun({ id: theirs, name: "theirs", run_type: "chain", inputs: { q: 2 }, project_name: project });
    posted.catch(() => undefined);
    // B's merge is under way and waiting for the lock
    await eventually(async () => (await holder.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n > 0);

    // A reads while B's request is still pending: answered, with A's run
    const read = await s.api(`/runs/${mine}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: mine, inputs: { q: 1 } });
    const stillPending = await s.handle.facility.pool.query("SELECT count(*)::int AS n FROM tracing_runs WHERE id = $1", [theirs]);
    expect(stillPending.rows[0].n).toBe(0);

    // the lock goes: B's run is merged, and B reads it (its own read waited for it)
    await holder.query("SELECT pg_advisory_unlock_all()");
    await posted;
    const run = await b.readRun(theirs);
    expect(run).toMatchObject({ id: theirs, name: "theirs", inputs: { q: 2 } });
  });
});

describe.skipIf(!servicesUp())("read-your-writes across processes [postgres]", () => {
  let s: TracingTestServer;
  let holder: pg.Client;
  beforeAll(async () => {
    // the reader; it never takes over the other process's rows (they are young)
    s = await startTracingTestServer("postgres", { readWaitSeconds: 3600, recoverAfterSeconds: 3600 });
    holder = new pg.Client({ connectionString: s.db.uri });
    await holder.connect();
  });
  afterAll(async () => {
    await holder?.end();
    await s?.close();
  });

  it("a read on one process waits for a run another process accepted and is still merging, then returns it", async () => {
    const other = forkTracing(s.db.uri!, { BERTH_TRACING_RECOVER_AFTER_SECONDS: "3600" });
    try {
      const tenant = await s.handle.facility.auth.createTenant(`replicas-${randomUUID().slice(0, 6)}`);
      const { key } = await s.handle.facility.auth.createKey([tenant.id], "replicas");
      const id = randomUUID();
      // the other process's merge of this run waits for the lock this test holds
      await holder.query("SELECT pg_advisory_lock(hashtextextended($1 || $2, 0))", [tenant.id, id]);
      const writer = new Client({ apiUrl: await other.ready, apiKey: key, autoBatchTracing: false });
      // multipart: answered once staged (202), before the merge
      await writer.multipartIngestRuns({ runCreates: [{ id, trace_id: id, dotted_order: `20260101T000000000000Z${id}`, name: "elsewhere", run_type: "chain", inputs: { q: 7 }, session_name: "replicas", start_time: Date.now() }] });
      await eventually(async () => (await holder.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n > 0);

      // this process never saw the request: its read looks for the tenant's staged rows, and waits
      const read = fetch(`${s.url}/runs/${id}`, { headers: { "x-api-key": key } });
      read.catch(() => undefined);
      await eventually(async () => (await holder.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%FROM tracing_staged WHERE tenant_id = $1 AND seq <= $2%'")).rows[0].n > 0);
      await holder.query("SELECT pg_advisory_unlock_all()");
      const res = await read;
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id, name: "elsewhere", inputs: { q: 7 } });
    } finally {
      await holder.query("SELECT pg_advisory_unlock_all()");
      if (other.child.exitCode === null && other.child.signalCode === null) other.child.kill("SIGTERM");
      await other.exited;
    }
  });
});

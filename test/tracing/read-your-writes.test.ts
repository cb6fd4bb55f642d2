/**
 * Read-your-writes is per tenant: a read waits for what this process accepted for the caller's
 * tenant, never for another tenant's pending ingest. Postgres only: the other tenant's merge is
 * held on its run lock from a second session (PGlite is one session, where the lock would not block).
 */
import { randomUUID } from "node:crypto";
import { Client } from "langsmith";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, servicesUp } from "../helpers/server.js";
import { startTracingTestServer, type TracingTestServer } from "../helpers/tracing.js";

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

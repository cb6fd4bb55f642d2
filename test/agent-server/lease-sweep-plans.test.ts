/**
 * The lease sweep (and the heartbeat) read the running runs, not every run that ever ran, while
 * Postgres has no statistics for the runs table (a new deployment's first minutes under load, an
 * autovacuum that is behind). They used to go through runs_running_lease, an index on running
 * runs' leases that kept an entry for every run that ever ran until VACUUM (its only readers were
 * bitmap scans, which never mark dead entries): each sweep, every half lease on every worker, read
 * them all. The index they use now, one_running_run_per_thread, also keeps an entry for each run
 * that ran until VACUUM or until a plain index scan finds the run gone and marks the entry; when
 * nothing had marked them (chance, on a loaded machine), the bitmap sweep read all of them at
 * every sweep again (CI: 11,955 reads for 1,500 runs). The worst case is made here on purpose: a
 * snapshot held open while the runs run (a long report, a pg_dump) keeps any scan from marking
 * them then. Measured by the index entries and rows read from runs (pg_stat_user_indexes/tables)
 * while a second server takes over a run a dead worker left. Postgres only (PGlite has no
 * autovacuum and its statistics are not the question).
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { tableReads, otherSessionsGone } from "../helpers/pg-reads.js";
import { eventually, servicesUp, startTestServer, userMessage, type TestDatabase, type TestServer } from "../helpers/server.js";

const HISTORY = 1500;
const CONCURRENCY = 10;

describe.skipIf(!servicesUp())("lease sweep on a runs table never analyzed [postgres]", () => {
  let server: TestServer | undefined;
  let db: TestDatabase | undefined;
  let sql: pg.Pool | undefined;
  let holder: pg.Client | undefined;
  afterAll(async () => {
    await holder?.end().catch(() => undefined);
    await server?.close({ keepDatabase: true });
    await sql?.end();
    await db?.drop();
  });

  const reads = () => tableReads(sql!, "runs");
  const serverGone = () => otherSessionsGone(sql!);

  it("taking over a dead worker's run reads each ended run's index entry about once, not at every sweep", async () => {
    server = await startTestServer("postgres", { runLeaseSeconds: 1 });
    db = server.db;
    sql = new pg.Pool({ connectionString: db.uri, max: 1 });
    // never analyzed, and kept that way for the test
    await sql.query("ALTER TABLE runs SET (autovacuum_enabled = false)");
    expect((await sql.query("SELECT reltuples FROM pg_class WHERE relname = 'runs'")).rows[0].reltuples).toBe(-1);

    // a snapshot held while the runs run: their ended versions stay visible to it, so no scan
    // may mark their index entries dead meanwhile
    holder = new pg.Client({ connectionString: db.uri });
    holder.on("error", () => undefined); // dropped with the database if the test fails before its end
    await holder.connect();
    await holder.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
    await holder.query("SELECT count(*) FROM runs");

    // runs that ran and ended, through the API
    const client = server.client;
    const done: { thread: string; run: string }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < HISTORY) {
          next++;
          const thread = await client.threads.create();
          const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("hi") });
          await client.runs.join(thread.thread_id, run.run_id);
          done.push({ thread: thread.thread_id, run: run.run_id });
        }
      }),
    );
    await server.close({ keepDatabase: true });
    server = undefined;
    await holder.query("COMMIT");
    await holder.end();
    holder = undefined;
    await serverGone();

    // a run left running by a worker that died: its lease lapses in a few seconds (the next
    // server sweeps every half second meanwhile)
    const orphan = done[0]!;
    await sql.query(
      `UPDATE runs SET status = 'running', lease_owner = 'dead-worker', lease_expires_at = now() + interval '3 seconds', ended_at = NULL WHERE run_id = $1`,
      [orphan.run],
    );
    expect((await sql.query("SELECT reltuples FROM pg_class WHERE relname = 'runs'")).rows[0].reltuples).toBe(-1);
    const before = await reads();

    // another server's worker sweeps leases (at its start, then every half lease), takes the run
    // over once its lease has lapsed and runs it again
    server = await startTestServer("postgres", { runLeaseSeconds: 1 }, db);
    await eventually(async () => (await server!.client.runs.get(orphan.thread, orphan.run)).status === "success", 30_000);
    await server.close({ keepDatabase: true });
    server = undefined;
    await serverGone();

    // The first sweep reads the entries the runs left and marks them; the later ones (about six
    // in the lease's three seconds), the heartbeats and the run read a few entries each. Without
    // the marking, every sweep read them all again: about 8 × HISTORY.
    const read = (await reads()) - before;
    expect(read, `index entries and rows read from runs: ${read}`).toBeLessThan(2 * HISTORY);
  });
});

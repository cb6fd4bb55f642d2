/**
 * Reading a thread's checkpoint looks its channel values up by key: the checkpointer's read joined
 * the checkpoint's channel versions to every value the thread ever stored (Postgres cannot tell
 * how many a thread has, with or without statistics), so each state read, and each run starting
 * on a thread not held in memory, read the thread's whole history. Measured by the index entries
 * read from checkpoint_blobs (pg_stat_user_indexes) while a server reads a long thread's state
 * through the SDK. Postgres only (the statistics views).
 */
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { tableReads, otherSessionsGone } from "../helpers/pg-reads.js";
import { servicesUp, startTestServer, userMessage, type TestDatabase, type TestServer } from "../helpers/server.js";

const RUNS = 100;
const READS = 10;

describe.skipIf(!servicesUp())("checkpoint reads on a long thread [postgres]", () => {
  let server: TestServer | undefined;
  let db: TestDatabase | undefined;
  let sql: pg.Pool | undefined;
  afterAll(async () => {
    await server?.close({ keepDatabase: true });
    await sql?.end();
    await db?.drop();
  });

  const reads = () => tableReads(sql!, "checkpoint_blobs");
  const serverGone = () => otherSessionsGone(sql!);

  it("a state read reads the values of the checkpoint it shows, not every value the thread stored", async () => {
    server = await startTestServer("postgres");
    db = server.db;
    sql = new pg.Pool({ connectionString: db.uri, max: 1 });
    const thread = await server.client.threads.create();
    for (let i = 0; i < RUNS; i++) await server.client.runs.wait(thread.thread_id, "chat", { input: userMessage(`turn ${i}`) });
    await server.close({ keepDatabase: true });
    server = undefined;
    await serverGone();
    const before = await reads();

    // a server that holds nothing of the thread in memory reads its state
    server = await startTestServer("postgres", {}, db);
    for (let i = 0; i < READS; i++) {
      const state = await server.client.threads.getState<{ messages: unknown[] }>(thread.thread_id);
      expect(state.values.messages).toHaveLength(2 * RUNS);
    }
    await server.close({ keepDatabase: true });
    server = undefined;
    await serverGone();

    // a few values per read (one per channel), not every value the thread stored (counted after
    // the measure: this count reads them all)
    const read = (await reads()) - before;
    const stored = Number((await sql.query("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = $1", [thread.thread_id])).rows[0].n);
    expect(stored).toBeGreaterThan(2 * RUNS);
    expect(read, `index entries and rows read from checkpoint_blobs: ${read} (the thread stored ${stored} values)`).toBeLessThan(READS * 20);
  });
});

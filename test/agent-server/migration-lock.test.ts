/**
 * The start-up migration lock on a direct connection. It is a transaction's advisory lock, held by
 * a transaction that stays open, idle, while the migrations run on other connections: the agent
 * server's connections end a session idle in a transaction after a timeout
 * (`idle_in_transaction_session_timeout`, from the run lease), which must not end the lock's
 * transaction, and the lock with it, during a long migration.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createTestDatabase, eventually, servicesUp, startTestServer, type TestDatabase, type TestServer } from "../helpers/server.js";

const d = servicesUp() ? describe : describe.skip;

async function connect(uri: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: uri });
  c.on("error", () => undefined);
  await c.connect();
  return c;
}

const THIS_DATABASE = "(SELECT oid FROM pg_database WHERE datname = current_database())";

d("the start-up migration lock [postgres]", () => {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;
  /** A start the test did not see through (it failed first): finished and stopped after it. */
  let starting: Promise<TestServer> | undefined;
  const clients: pg.Client[] = [];

  afterEach(async () => {
    // (ending the clients ends the transaction a start may be waiting for)
    await Promise.all(clients.splice(0).map((c) => c.end().catch(() => undefined)));
    server ??= await starting?.catch(() => undefined);
    starting = undefined;
    await server?.close({ keepDatabase: true });
    server = undefined;
    await db?.drop();
    db = undefined;
  });

  it("stays held through migrations that outlast the idle-in-transaction timeout", async () => {
    db = await createTestDatabase("postgres");
    const test = db;
    // a run lease of 1 s: the server's connections are ended after 2 s idle in a transaction
    const idleTimeoutSeconds = 2;
    // A slow migration: the migrations table exists and this transaction holds it, so the
    // server's migrations wait (active, on their own connection) until it ends.
    const holder = await connect(test.uri!);
    clients.push(holder);
    await holder.query(`CREATE TABLE berth_migrations (
      component text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version)
    )`);
    await holder.query("BEGIN; LOCK TABLE berth_migrations IN ACCESS EXCLUSIVE MODE");
    starting = startTestServer("postgres", { runLeaseSeconds: 1 }, test);
    starting.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    const observer = await connect(test.uri!);
    clients.push(observer);
    // The lock's session, idle in its transaction for twice the timeout and still holding it.
    await eventually(async () => {
      const { rows } = await observer.query(
        `SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.granted AND l.database = ${THIS_DATABASE}
           AND a.state = 'idle in transaction' AND a.state_change < now() - make_interval(secs => $1)`,
        [2 * idleTimeoutSeconds],
      );
      return rows.length > 0;
    });
    await holder.query("COMMIT");
    server = await starting;
    const { rows } = await observer.query(`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = ${THIS_DATABASE}`);
    expect(Number(rows[0].n)).toBe(0);
    const thread = await server.client.threads.create();
    expect(thread.thread_id).toBeTruthy();
  });
});

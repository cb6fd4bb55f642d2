/**
 * The start-up migration lock behind PgBouncer in transaction mode. There each statement outside a
 * transaction may run on another server connection: a session advisory lock taken by one
 * statement and released by the next stays held on a server connection PgBouncer keeps open, and
 * the next process to start behind it waits for it forever; two processes starting together are
 * not serialised. The lock is a transaction's (`pg_advisory_xact_lock` in a transaction held open
 * while the migrations run), and an open transaction keeps its server connection.
 *
 * Agent servers are `berth serve` children configured as a deployment would be, through a private
 * PgBouncer; what they leave is checked on a direct connection to the database.
 */
import { Client } from "@langchain/langgraph-sdk";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { agentServerMigrations } from "../../src/agent-server/storage/migrations.js";
import { inCI } from "../helpers/services.js";
import { pgbouncerInstalled, PGBOUNCER_BIN, startPgBouncer, type PgBouncer } from "../helpers/pgbouncer.js";
import { createTestDatabase, servicesUp, startChild, userMessage, type ChildServer, type TestDatabase } from "../helpers/server.js";

const runnable = servicesUp() && (pgbouncerInstalled() || inCI);
const d = runnable ? describe : describe.skip;

/** Advisory locks held in `uri`'s database, seen on a direct connection (not through the pooler). */
async function advisoryLocks(uri: string): Promise<number> {
  const c = new pg.Client({ connectionString: uri });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
    );
    return Number(rows[0]!.n);
  } finally {
    await c.end();
  }
}

async function query<T extends pg.QueryResultRow>(uri: string, sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: uri });
  await c.connect();
  try {
    return (await c.query<T>(sql)).rows;
  } finally {
    await c.end();
  }
}

/**
 * Other clients busy on the pooler (another replica's traffic, another application's): each of
 * `clients` runs short transactions back to back, so PgBouncer keeps its server connections in use
 * and hands each statement of a starting server whichever one came free last.
 */
function neighbours(uri: string, clients: number): { stop(): Promise<number> } {
  let stopped = false;
  let done = 0;
  const loops = Array.from({ length: clients }, async () => {
    const c = new pg.Client({ connectionString: uri });
    c.on("error", () => undefined);
    await c.connect();
    try {
      while (!stopped) {
        await c.query("SELECT pg_sleep(0.002)");
        done++;
      }
    } finally {
      await c.end();
    }
  });
  return {
    async stop() {
      stopped = true;
      await Promise.all(loops);
      return done;
    },
  };
}

d(`the start-up migration lock through PgBouncer in transaction mode (${PGBOUNCER_BIN}) [postgres]`, () => {
  let bouncer: PgBouncer;
  let db: TestDatabase | undefined;
  let servers: ChildServer[] = [];
  const env = { BERTH_PG_NAMED_STATEMENTS: "false" };

  beforeAll(async () => {
    if (!pgbouncerInstalled()) throw new Error(`CI needs PgBouncer at ${PGBOUNCER_BIN} (apt-get install pgbouncer; .ci/run does)`);
    // enough server connections that a statement rarely lands on the one the previous used
    bouncer = await startPgBouncer({ poolSize: 10 });
  });
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    servers = [];
    await db?.drop();
    db = undefined;
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  const start = async (test: TestDatabase) => {
    const s = await startChild("serve", { ...test, uri: bouncer.through(test.uri!) }, env);
    servers.push(s);
    return s;
  };

  it("a server started while the pooler is busy leaves no advisory lock held, and the next start through it comes up", async () => {
    db = await createTestDatabase("postgres");
    const traffic = neighbours(bouncer.through(db.uri!), 8);
    let second: ChildServer;
    try {
      const first = await start(db);
      expect(await advisoryLocks(db.uri!)).toBe(0);
      await first.stop();
      // a restart (or another replica) through the same pooler, whose server connections stay open
      second = await start(db);
      expect(await advisoryLocks(db.uri!)).toBe(0);
    } finally {
      expect(await traffic.stop()).toBeGreaterThan(0);
    }
    const client = new Client({ apiUrl: second.url!, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const out = (await client.runs.wait(thread.thread_id, "chat", { input: userMessage("hi") })) as { messages: { content: string }[] };
    expect(out.messages.at(-1)?.content).toBe("You said: hi");
  });

  it("a start whose migrations fail leaves no advisory lock held, and the next start through the pooler comes up", async () => {
    db = await createTestDatabase("postgres");
    const test = db;
    // a table in the way of the first migration (which creates it)
    await query(test.uri!, "CREATE TABLE assistants (x int)");
    const traffic = neighbours(bouncer.through(test.uri!), 8);
    try {
      await expect(start(test)).rejects.toThrow(/migration agent-server#1 .* failed: relation "assistants" already exists/);
      expect(await advisoryLocks(test.uri!)).toBe(0);
      await query(test.uri!, "DROP TABLE assistants");
      const server = await start(test);
      expect(await advisoryLocks(test.uri!)).toBe(0);
      const client = new Client({ apiUrl: server.url!, callerOptions: { maxRetries: 0 } });
      expect((await client.threads.create()).thread_id).toBeTruthy();
    } finally {
      expect(await traffic.stop()).toBeGreaterThan(0);
    }
  });

  it("two servers starting at once on a fresh database both come up, each migration applied once", async () => {
    db = await createTestDatabase("postgres");
    const test = db;
    const started = await Promise.allSettled([start(test), start(test)]);
    const failures = started.flatMap((r) => (r.status === "rejected" ? [(r.reason as Error).message] : []));
    expect(failures).toEqual([]);
    const versions = await query<{ version: number }>(test.uri!, "SELECT version FROM berth_migrations WHERE component = 'agent-server' ORDER BY version");
    expect(versions.map((r) => r.version)).toEqual(agentServerMigrations.map((_, i) => i + 1));
    expect(await advisoryLocks(test.uri!)).toBe(0);
    for (const s of servers) {
      const client = new Client({ apiUrl: s.url!, callerOptions: { maxRetries: 0 } });
      expect((await client.threads.create()).thread_id).toBeTruthy();
    }
  });
});

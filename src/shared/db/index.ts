/**
 * The database layer every component uses: a `pg` pool on either a real Postgres (`DATABASE_URI`)
 * or the embedded PGlite. Same SQL and migrations on both.
 */
import pg from "pg";
import { startEmbeddedPostgres } from "./embedded.js";

export { containsPattern, likeEscape } from "./like.js";
export { migrate, migrateComponents, withMigrationLock, type Migration } from "./migrate.js";

// Return bigint/int8 as JS numbers (counts, sequence numbers): ours never exceed 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

export interface Database {
  pool: pg.Pool;
  /** The connection string of the pool, for libraries that open their own connections. */
  connectionString: string;
  embedded: boolean;
  /**
   * Whether hot statements go as named (server-side prepared) statements, parsed and planned once
   * per connection (see `prepared`). False on PGlite (its bridge keeps plans itself, and its
   * connections share one session, where names would clash) and when `BERTH_PG_NAMED_STATEMENTS`
   * is off: a transaction-mode pooler (PgBouncer before 1.21, or without `max_prepared_statements`)
   * hands each transaction a different server connection, where the name was never prepared.
   */
  namedStatements: boolean;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A real Postgres. When absent, PGlite in `dataDir` is used. */
  uri?: string;
  dataDir: string;
  poolMax?: number;
  /**
   * Postgres ends a session left idle inside a transaction this long (ms). A process that froze
   * (or lost its network) mid-transaction would otherwise hold its row locks forever and block
   * whoever takes over its work.
   */
  idleInTransactionTimeoutMs?: number;
  /** Named statements on Postgres (`Database.namedStatements`); default: `BERTH_PG_NAMED_STATEMENTS`, else on. */
  namedStatements?: boolean;
}

/** `BERTH_PG_NAMED_STATEMENTS`: on unless set to false/0; anything else is a mistake worth stopping for. */
export function namedStatementsFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.BERTH_PG_NAMED_STATEMENTS?.trim().toLowerCase();
  if (v === undefined || v === "" || v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  throw new Error(`BERTH_PG_NAMED_STATEMENTS must be true or false, not ${JSON.stringify(env.BERTH_PG_NAMED_STATEMENTS)}`);
}

/** Connections to the embedded database: enough to keep its queue full under load. */
const EMBEDDED_POOL_MAX = 8;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.uri) {
    const namedStatements = options.namedStatements ?? namedStatementsFromEnv();
    const pool = new pg.Pool({
      connectionString: options.uri,
      max: options.poolMax ?? 20,
      ...(options.idleInTransactionTimeoutMs
        ? { options: `-c idle_in_transaction_session_timeout=${Math.round(options.idleInTransactionTimeoutMs)}` }
        : {}),
    });
    survivesServerRestarts(pool);
    try {
      await pool.query("SELECT 1");
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new Error(`cannot connect to the database at ${redactUri(options.uri)}: ${(err as Error).message}`);
    }
    return {
      pool,
      connectionString: options.uri,
      embedded: false,
      namedStatements,
      close: () => pool.end(),
    };
  }
  const embedded = await startEmbeddedPostgres(options.dataDir);
  // Several connections, though PGlite is one session: the socket's front runs each connection's
  // statements whole and one transaction at a time (embedded-thread.ts), and statements waiting on
  // other connections run back to back in the database's thread instead of each waiting for the
  // previous answer to reach this thread first.
  const pool = new pg.Pool({ connectionString: embedded.connectionString, max: options.poolMax ?? EMBEDDED_POOL_MAX });
  survivesServerRestarts(pool);
  return {
    pool,
    connectionString: embedded.connectionString,
    embedded: true,
    namedStatements: false,
    async close() {
      await pool.end();
      await embedded.close();
    },
  };
}

/**
 * Make a pool outlive its server going away (a restart, a failover, a dropped network).
 *
 * pg emits 'error' on a client whose connection dies: on the pool for an idle client (pg-pool
 * then discards it), and on the client itself while it is checked out (pool.connect(): a
 * transaction, the checkpointer, a migration lock). An 'error' event nobody listens to crashes
 * the process, so every client gets a listener when the pool creates it. Nothing else is needed
 * to recover: the query in flight rejects with the error, release() discards the broken client,
 * and the next query opens a fresh connection once the server is back.
 */
export function survivesServerRestarts(pool: pg.Pool): pg.Pool {
  pool.on("error", ignoreConnectionError);
  pool.on("connect", (client) => client.on("error", ignoreConnectionError));
  return pool;
}

/** The error already reached whoever was using the connection (their query rejected). */
function ignoreConnectionError(): void {}

/** A URI with its password replaced, for messages and logs. */
export function redactUri(uri: string): string {
  try {
    const u = new URL(uri);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "<invalid URI>";
  }
}

/** Run `fn` in a transaction on one client of the pool. */
export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    return await inTransaction(client, () => fn(client));
  } finally {
    client.release();
  }
}

const inOpenTransaction = new WeakSet<pg.PoolClient>();

/**
 * Run `work` in a transaction on this client, or in the one already open on it. Transactions
 * compose this way: e.g. the store's TTL rule and its semantic index each make a put atomic, and
 * the indexed put calls the TTL put inside its own transaction. A second BEGIN on the same
 * connection would only warn, and its COMMIT would end the outer transaction early.
 */
export async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  if (inOpenTransaction.has(client)) return work();
  await client.query("BEGIN");
  inOpenTransaction.add(client);
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    inOpenTransaction.delete(client);
  }
}

export type Queryable = Pick<pg.Pool, "query"> | pg.PoolClient;

/**
 * A query config that is a named (server-side prepared) statement where that is safe: parsing and
 * planning the queue's larger statements on every call costs more than running them. Not on
 * PGlite: all connections share its one session, so two connections preparing the same name clash.
 */
export function prepared(usePrepared: boolean, name: string, text: string, values: unknown[]): pg.QueryConfig {
  return usePrepared ? { name, text, values } : { text, values };
}

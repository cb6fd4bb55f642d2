/**
 * Versioned migrations, one list per component. The position of a migration in its list is its
 * version: append new ones, never edit or reorder old ones. Applied versions are recorded in
 * `berth_migrations`; a transaction's advisory lock serialises processes that start at the same time.
 */
import type pg from "pg";

export interface Migration {
  /** A short name saying what the migration does; kept in the table for humans. */
  name: string;
  sql: string;
}

const LOCK_KEY = 0x6265_7274; // "bert"

/**
 * Run `fn` while holding the migration lock, so schema changes of processes starting at the same
 * time (ours, and libraries' `setup()` with CREATE TABLE IF NOT EXISTS, which races) never overlap.
 *
 * The lock is a transaction's (`pg_advisory_xact_lock`), held by a transaction left open on one
 * client while `fn` works on others, and released by ending it. Not a session's: behind a pooler
 * in transaction mode (PgBouncer) each statement outside a transaction may run on another server
 * connection, so a session lock is taken on one and its unlock sent to another, and it stays held
 * on a connection the pooler keeps open, blocking every later start. An open transaction keeps its
 * server connection, through a pooler or not, and its end always releases the lock.
 */
export async function withMigrationLock<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let done = false;
  try {
    // The transaction sits idle while `fn` runs: a migration longer than the pool's
    // idle_in_transaction_session_timeout (set on connections, the role or the server) would have
    // the server end the session, and the lock with it, halfway. One round trip.
    await client.query(`BEGIN; SET LOCAL idle_in_transaction_session_timeout = 0; SELECT pg_advisory_xact_lock(${LOCK_KEY})`);
    const result = await fn();
    done = true;
    return result;
  } finally {
    // Ending the transaction releases the lock. A client whose transaction could not be ended
    // (its connection broke) is destroyed, never handed back to the pool still inside it; closing
    // it ends the transaction on the server (PgBouncer drops a server connection left in one).
    // That failure is not `fn`'s: what `fn` did was committed on its own connections.
    let endError: Error | undefined;
    await client.query(done ? "COMMIT" : "ROLLBACK").catch((err: Error) => {
      endError = err;
    });
    client.release(endError);
  }
}

/** Apply the migrations of `component` not yet applied. Call inside `withMigrationLock`. */
export async function migrate(pool: pg.Pool, component: string, migrations: Migration[]): Promise<number> {
  const client = await pool.connect();
  // set when a failed migration's transaction could not be rolled back: the client is destroyed
  let broken: Error | undefined;
  try {
    await client.query(`CREATE TABLE IF NOT EXISTS berth_migrations (
      component text NOT NULL,
      version integer NOT NULL,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (component, version)
    )`);
    const { rows } = await client.query<{ version: number }>(
      "SELECT coalesce(max(version), 0) AS version FROM berth_migrations WHERE component = $1",
      [component],
    );
    const current = Number(rows[0]?.version ?? 0);
    let applied = 0;
    for (let i = current; i < migrations.length; i++) {
      const m = migrations[i]!;
      await client.query("BEGIN");
      try {
        await client.query(m.sql);
        await client.query("INSERT INTO berth_migrations (component, version, name) VALUES ($1, $2, $3)", [
          component,
          i + 1,
          m.name,
        ]);
        await client.query("COMMIT");
        applied++;
      } catch (err) {
        // (the migration's error is the one worth reporting, not the rollback's)
        await client.query("ROLLBACK").catch((e: Error) => {
          broken = e;
        });
        throw new Error(`migration ${component}#${i + 1} (${m.name}) failed: ${(err as Error).message}`);
      }
    }
    return applied;
  } finally {
    client.release(broken);
  }
}

/**
 * Apply several components' migrations at start-up: under the advisory lock on a server (processes
 * starting together), directly on the embedded database (one connection, which the lock would hold).
 */
export async function migrateComponents(pool: pg.Pool, embedded: boolean, components: [component: string, migrations: Migration[]][]): Promise<void> {
  const run = async () => {
    for (const [component, migrations] of components) await migrate(pool, component, migrations);
  };
  if (embedded) await run();
  else await withMigrationLock(pool, run);
}

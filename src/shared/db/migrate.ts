/**
 * Versioned migrations, one list per component. The position of a migration in its list is its
 * version: append new ones, never edit or reorder old ones. Applied versions are recorded in
 * `berth_migrations`; a session advisory lock serialises processes that start at the same time.
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
 */
export async function withMigrationLock<T>(pool: pg.Pool, fn: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [LOCK_KEY]);
    return await fn();
  } finally {
    // The lock belongs to the session: release it before the connection goes back to the pool,
    // or it stays held (blocking every other process's start-up) until the connection closes.
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    client.release();
  }
}

/** Apply the migrations of `component` not yet applied. Call inside `withMigrationLock`. */
export async function migrate(pool: pg.Pool, component: string, migrations: Migration[]): Promise<number> {
  const client = await pool.connect();
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
        await client.query("ROLLBACK");
        throw new Error(`migration ${component}#${i + 1} (${m.name}) failed: ${(err as Error).message}`);
      }
    }
    return applied;
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [LOCK_KEY]).catch(() => undefined);
    client.release();
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

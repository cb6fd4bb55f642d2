/** A throwaway Postgres database (tests and benchmarks): created on the server, dropped with its connections. */
import { randomUUID } from "node:crypto";
import pg from "pg";

export async function createScratchDatabase(adminUri: string, prefix: string): Promise<{ uri: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const run = async (sql: string) => {
    const admin = new pg.Client({ connectionString: adminUri });
    await admin.connect();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  };
  await run(`CREATE DATABASE ${name}`);
  const uri = new URL(adminUri);
  uri.pathname = `/${name}`;
  // `pool.end()` resolves before its backends have gone. FORCE would terminate those still saying
  // goodbye, and a client that is ending has no error listener left: its FATAL 57P01 becomes an
  // uncaught exception in the test process (seen in CI). So wait, bounded, for the connections to
  // leave on their own; FORCE is only for what a test leaked.
  const waitForDisconnects = `DO $$ BEGIN FOR i IN 1..60 LOOP EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = '${name}'); PERFORM pg_sleep(0.05); END LOOP; END $$`;
  return {
    uri: uri.toString(),
    drop: async () => {
      await run(waitForDisconnects);
      await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

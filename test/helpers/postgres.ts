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
  return { uri: uri.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

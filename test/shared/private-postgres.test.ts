/** The private Postgres helper itself: restart keeps the port and data, kill is a crash, stop cleans up. */
import { existsSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";

async function query(uri: string, sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: uri });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

describe("private Postgres cluster (test helper)", () => {
  let db: PrivatePostgres | undefined;
  afterAll(() => db?.stop());

  it("restarts and recovers from a kill on the same port, keeping data; stop removes it", async () => {
    db = await startPrivatePostgres();
    await query(db.uri, "CREATE TABLE t (v int); INSERT INTO t VALUES (1)");

    // A connected client is cut off by the restart.
    const held = new pg.Client({ connectionString: db.uri });
    const lost = new Promise<Error>((resolve) => held.on("error", resolve));
    await held.connect();
    await db.restart();
    expect((await lost).message).toMatch(/terminat/i);
    expect((await query(db.uri, "SELECT v FROM t")).rows).toEqual([{ v: 1 }]);

    await query(db.uri, "INSERT INTO t VALUES (2)");
    await db.kill();
    await expect(query(db.uri, "SELECT 1")).rejects.toThrow();
    await db.start();
    expect((await query(db.uri, "SELECT v FROM t ORDER BY v")).rows).toEqual([{ v: 1 }, { v: 2 }]);

    await db.restart({ mode: "immediate", whileDown: () => expect(query(db!.uri, "SELECT 1")).rejects.toThrow() });
    expect((await query(db.uri, "SELECT count(*)::int AS n FROM t")).rows).toEqual([{ n: 2 }]);

    const dir = path.dirname(db.dataDir);
    await db.stop();
    expect(existsSync(dir)).toBe(false);
    await db.stop();
  });
});

/**
 * The embedded database's socket (PGlite behind a Postgres wire-protocol front): several
 * connections share PGlite's one session, so the front must keep each connection's statements
 * whole and each transaction to itself. Driven with real `pg` clients, and with a raw protocol
 * client where a statement has to arrive in pieces.
 */
import net from "node:net";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../src/shared/db/index.js";
import { startEmbeddedPostgres } from "../../src/shared/db/embedded.js";

/** The Unix socket path of the embedded database, from its connection string. */
function socketPath(connectionString: string): string {
  const u = new URL(connectionString);
  return path.join(u.searchParams.get("host")!, `.s.PGSQL.${u.searchParams.get("port")}`);
}

const message = (type: string, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.write(type, 0, "latin1");
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
};
const cstr = (s: string) => Buffer.from(`${s}\0`);
const int16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeInt16BE(n);
  return b;
};
const parse = (sql: string) => message("P", Buffer.concat([cstr(""), cstr(sql), int16(0)]));
const bind = () => message("B", Buffer.concat([cstr(""), cstr(""), int16(0), int16(0), int16(0)]));
const execute = () => message("E", Buffer.concat([cstr(""), Buffer.alloc(4)]));
const sync = () => message("S", Buffer.alloc(0));

/** A bare protocol client: writes what it is told, collects text values of DataRows until ReadyForQuery. */
class RawClient {
  private buf = Buffer.alloc(0);
  private waiting?: { resolve: (rows: string[]) => void; rows: string[] };
  private constructor(private readonly socket: net.Socket) {
    socket.on("data", (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 5) {
        const len = 1 + this.buf.readInt32BE(1);
        if (this.buf.length < len) break;
        const type = String.fromCharCode(this.buf[0]!);
        const body = this.buf.subarray(5, len);
        this.buf = this.buf.subarray(len);
        if (type === "D" && this.waiting) this.waiting.rows.push(body.subarray(6, 6 + body.readInt32BE(2)).toString());
        if (type === "E" && this.waiting) this.waiting.rows.push(`error: ${body.toString("latin1")}`);
        if (type === "Z" && this.waiting) {
          this.waiting.resolve(this.waiting.rows);
          this.waiting = undefined;
        }
      }
    });
  }

  static async connect(socketFile: string): Promise<RawClient> {
    const socket = net.connect(socketFile);
    await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
    const client = new RawClient(socket);
    const params = Buffer.concat([cstr("user"), cstr("postgres"), cstr("database"), cstr("postgres"), Buffer.from([0])]);
    const startup = Buffer.alloc(8);
    startup.writeInt32BE(8 + params.length);
    startup.writeInt32BE(196608, 4);
    await client.send(Buffer.concat([startup, params]));
    return client;
  }

  /** Write bytes; with `answer`, resolve with the rows up to the next ReadyForQuery. */
  send(bytes: Buffer, answer = true): Promise<string[]> {
    const done = answer ? new Promise<string[]>((resolve) => (this.waiting = { resolve, rows: [] })) : Promise.resolve([]);
    this.socket.write(bytes);
    return done;
  }

  close(): void {
    this.socket.destroy();
  }
}

describe("embedded database: several connections on PGlite's one session", () => {
  let dir: string;
  let db: Database;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "berth-embedded-"));
    db = await openDatabase({ dataDir: dir });
    await db.pool.query("CREATE TABLE counters (k int PRIMARY KEY, v int NOT NULL)");
    await db.pool.query("INSERT INTO counters SELECT g, 0 FROM generate_series(0, 4) g");
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("a statement that arrives in pieces runs whole, whatever other connections run meanwhile", async () => {
    const a = await RawClient.connect(socketPath(db.connectionString));
    const b = await RawClient.connect(socketPath(db.connectionString));
    try {
      // A's Parse and Bind arrive, then B's whole query, then A's Execute and Sync
      await a.send(Buffer.concat([parse("SELECT 'from a' AS who"), bind()]), false);
      expect(await b.send(Buffer.concat([parse("SELECT 'from b' AS who"), bind(), execute(), sync()]))).toEqual(["from b"]);
      expect(await a.send(Buffer.concat([execute(), sync()]))).toEqual(["from a"]);
    } finally {
      a.close();
      b.close();
    }
  });

  it("the pool's connections run concurrent parameterised queries and transactions correctly", async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => db.pool.query<{ n: number; s: string }>("SELECT $1::int + 1 AS n, $2::text AS s", [i, `x${i}`])));
    expect(answers.map((r) => [r.rows[0]!.n, r.rows[0]!.s])).toEqual(answers.map((_, i) => [i + 1, `x${i}`]));
    expect(db.pool.totalCount).toBeGreaterThan(1);

    // read-modify-write transactions: each sees the others' committed writes only, none is lost;
    // every seventh rolls back, and one fails midway
    const increments = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        const c = await db.pool.connect();
        try {
          await c.query("BEGIN");
          const { rows } = await c.query<{ v: number }>("SELECT v FROM counters WHERE k = $1", [i % 5]);
          await c.query("UPDATE counters SET v = $2 WHERE k = $1", [i % 5, rows[0]!.v + 1]);
          if (i === 30) await c.query("SELECT 1 / 0");
          await c.query(i % 7 === 0 ? "ROLLBACK" : "COMMIT");
          return i % 7 === 0 ? 0 : 1;
        } catch {
          await c.query("ROLLBACK");
          return 0;
        } finally {
          c.release();
        }
      }),
    );
    const { rows } = await db.pool.query<{ total: number }>("SELECT sum(v)::int AS total FROM counters");
    expect(rows[0]!.total).toBe(increments.reduce<number>((x, y) => x + y, 0));
  });

  it("a connection that goes away inside a transaction leaves nothing behind and holds up no one", async () => {
    const client = new pg.Client({ connectionString: db.connectionString });
    client.on("error", () => undefined);
    await client.connect();
    await client.query("BEGIN");
    await client.query("UPDATE counters SET v = -1 WHERE k = 0");
    (client as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
    const { rows } = await db.pool.query<{ v: number }>("SELECT v FROM counters WHERE k = 0");
    expect(rows[0]!.v).not.toBe(-1);
  });

  describe("kept plans: the session prepares a parameterised statement once, for every connection", () => {
    const kept = async (text: string) =>
      (
        await db.pool.query<{ statements: number; runs: number }>(
          "SELECT count(*)::int AS statements, coalesce(sum(generic_plans + custom_plans), 0)::int AS runs FROM pg_prepared_statements WHERE statement = $1",
          [text],
        )
      ).rows[0]!;

    it("the same text from any connection runs one prepared statement of the session", async () => {
      const text = "SELECT v FROM counters WHERE k = $1 /* kept */";
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => db.pool.query<{ v: number }>(text, [i % 5])));
      expect(answers.every((a) => a.rows.length === 1)).toBe(true);
      expect(db.pool.totalCount).toBeGreaterThan(1);
      // parsed once, executed 30 times; without kept plans each call is an unnamed statement
      expect(await kept(text)).toEqual({ statements: 1, runs: 30 });
    });

    it("a schema change is seen by a kept statement (no stale result type)", async () => {
      await db.pool.query("CREATE TABLE shapes (k int PRIMARY KEY, a text)");
      await db.pool.query("INSERT INTO shapes VALUES (1, 'x')");
      const text = "SELECT * FROM shapes WHERE k = $1";
      expect((await db.pool.query(text, [1])).rows).toEqual([{ k: 1, a: "x" }]);
      expect((await db.pool.query(text, [1])).rows).toEqual([{ k: 1, a: "x" }]);
      await db.pool.query("ALTER TABLE shapes ADD COLUMN b int NOT NULL DEFAULT 7");
      expect((await db.pool.query(text, [1])).rows).toEqual([{ k: 1, a: "x", b: 7 }]);
      // the same inside a transaction that changes the schema itself
      const c = await db.pool.connect();
      try {
        await c.query("BEGIN");
        expect((await c.query(text, [1])).rows).toEqual([{ k: 1, a: "x", b: 7 }]);
        await c.query("ALTER TABLE shapes DROP COLUMN a");
        expect((await c.query(text, [1])).rows).toEqual([{ k: 1, b: 7 }]);
        await c.query("COMMIT");
      } finally {
        c.release();
      }
      expect((await db.pool.query(text, [1])).rows).toEqual([{ k: 1, b: 7 }]);
    });

    it("failed statements are not kept, and the same text runs once it is valid", async () => {
      const bad = "SELECT 10 / $1::int AS q";
      await expect(db.pool.query(bad, [0])).rejects.toThrow(/division by zero/);
      expect((await db.pool.query(bad, [5])).rows).toEqual([{ q: 2 }]);
      expect((await db.pool.query(bad, [2])).rows).toEqual([{ q: 5 }]);
      await expect(db.pool.query("SELEC $1::int", [1])).rejects.toThrow(/syntax error/);
      await expect(db.pool.query("SELECT missing_column FROM counters WHERE k = $1", [1])).rejects.toThrow(/does not exist/);
      // an error inside a transaction leaves the others' kept statements working
      const c = await db.pool.connect();
      try {
        await c.query("BEGIN");
        await expect(c.query(bad, [0])).rejects.toThrow(/division by zero/);
        await c.query("ROLLBACK");
      } finally {
        c.release();
      }
      expect((await db.pool.query(bad, [1])).rows).toEqual([{ q: 10 }]);
    });

    it("more distinct statements than are kept still answer correctly, and the session keeps a bounded number", async () => {
      for (let round = 0; round < 2; round++) {
        const answers = await Promise.all(Array.from({ length: 260 }, (_, i) => db.pool.query<{ n: number }>(`SELECT $1::int + ${i} AS n`, [round])));
        expect(answers.map((a) => a.rows[0]!.n)).toEqual(answers.map((_, i) => round + i));
      }
      const { rows } = await db.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_prepared_statements");
      expect(rows[0]!.n).toBeLessThanOrEqual(200);
    });
  });
});

describe("embedded database: memory of a first start", () => {
  const EMBEDDED = fileURLToPath(new URL("../../src/shared/db/embedded.ts", import.meta.url));
  let dir: string;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A process that opens the database in `dataDir` and says its resident memory (MB) once it is open. */
  async function rssOnceOpen(dataDir: string): Promise<number> {
    const script = path.join(dir, "open.mts");
    await writeFile(
      script,
      `import { readFileSync } from "node:fs";
       import { startEmbeddedPostgres } from ${JSON.stringify(EMBEDDED)};
       const db = await startEmbeddedPostgres(process.argv[2]);
       const rss = Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
       await db.close();
       console.log(JSON.stringify({ rss }));`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script, dataDir], { timeout: 240_000 });
    return (JSON.parse(stdout.trim().split("\n").pop()!) as { rss: number }).rss;
  }

  // initdb grows PGlite's WASM memory to ~600 MB; opened by the thread that then served it, a first
  // start held ~500 MB more than any later one, for as long as the process lived
  it.skipIf(process.platform !== "linux")("a new data directory is served with the memory of an existing one", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "berth-embedded-rss-"));
    const data = path.join(dir, "data");
    const first = await rssOnceOpen(data);
    const again = await rssOnceOpen(data);
    expect(first, `resident MB: first start ${first}, reopen ${again}`).toBeLessThan(again + 100);
  }, 300_000);

  // PGlite's file system throws errors without a message: they used to reach the user as "[object Object]"
  it("a data directory that cannot become a database is refused with words naming it", async () => {
    const bad = await mkdtemp(path.join(os.tmpdir(), "berth-embedded-bad-"));
    try {
      await writeFile(path.join(bad, "base"), "a file where initdb makes a directory");
      const refused = await startEmbeddedPostgres(bad).then(
        async (db) => (await db.close(), undefined),
        (err: Error) => err,
      );
      expect(refused?.message).toMatch(/^could not create the embedded database in .+: a file system error in the data directory \(PGlite errno \d+\)\. Give it an empty directory/);
      expect(refused?.message).not.toContain("[object Object]");
    } finally {
      await rm(bad, { recursive: true, force: true });
    }
  }, 120_000);
});

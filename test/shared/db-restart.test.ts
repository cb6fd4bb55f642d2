/**
 * The shared database pieces outlive a Postgres restart: the pool (with clients checked out and
 * queries in flight) and the LISTEN/NOTIFY bus, which must LISTEN every channel again. Against a
 * private cluster: the shared Postgres is never restarted.
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresBus } from "../../src/shared/bus/index.js";
import { backoffDelay } from "../../src/shared/bus/pg-listener.js";
import { openDatabase, type Database } from "../../src/shared/db/index.js";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";
import { eventually } from "../helpers/server.js";

describe("a Postgres restart under the shared database pieces", () => {
  let pg: PrivatePostgres;
  let db: Database;
  let dataDir: string;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-test-"));
    db = await openDatabase({ uri: pg.uri, dataDir });
  });
  afterAll(async () => {
    await db?.close();
    await pg?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("the pool survives clients checked out and queries in flight, and works again afterwards", async () => {
    const held = await db.pool.connect(); // checked out, idle: pg emits 'error' on it
    const busy = await db.pool.connect();
    const inFlight = busy.query("SELECT pg_sleep(60)");
    inFlight.catch(() => undefined);
    await eventually(async () => (await db.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' AND state = 'active'")).rows[0].n === 1);

    await pg.restart();

    await expect(inFlight).rejects.toThrow(/terminat/i);
    await expect(held.query("SELECT 1")).rejects.toThrow();
    held.release();
    busy.release();
    expect((await db.pool.query("SELECT 41 + 1 AS v")).rows).toEqual([{ v: 42 }]);

    // A crash (no goodbye from the server) too.
    const again = await db.pool.connect();
    await pg.kill();
    await pg.start();
    await expect(again.query("SELECT 1")).rejects.toThrow();
    again.release();
    expect((await db.pool.query("SELECT 1 AS v")).rows).toEqual([{ v: 1 }]);
  });

  it("the LISTEN bus listens to every channel again after a restart or a crash", async () => {
    const listening = await PostgresBus.connect(db.pool, pg.uri);
    const received: string[] = [];
    await listening.subscribe("alpha", (m) => received.push(`alpha:${m}`));
    await listening.subscribe("beta", (m) => received.push(`beta:${m}`));
    const off = await listening.subscribe("gone", (m) => received.push(`gone:${m}`));
    await off();
    let n = 0;
    /** Publish (again and again: the listener reconnects on its own schedule) until one arrives. */
    const delivered = async (channel: string) => {
      const sent = new Set<string>();
      await eventually(async () => {
        if (received.some((r) => sent.has(r))) return true;
        const m = `m${n++}`;
        sent.add(`${channel}:${m}`);
        await listening.publish(channel, m);
        return false;
      }, 60_000, 100);
    };

    try {
      await delivered("alpha");
      await pg.restart();
      await delivered("alpha");
      await delivered("beta");

      await pg.kill();
      // Subscribing while the database is down waits for nothing; the LISTEN follows the reconnect.
      await listening.subscribe("gamma", (m) => received.push(`gamma:${m}`));
      await pg.start();
      await delivered("gamma");
      await delivered("beta");

      await listening.publish("gone", "never");
      await delivered("alpha"); // sent after "never": had "gone" been listened again, it would be here by now
      expect(received.filter((r) => r.startsWith("gone:"))).toEqual([]);
    } finally {
      await listening.close();
    }
  }, 150_000);
});

describe("reconnect backoff", () => {
  it("doubles from the first delay up to the cap, with bounded jitter", () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 10, 100].map((a) => backoffDelay(a, 100, 5000, mid))).toEqual([100, 200, 400, 800, 5000, 5000]);
    expect(backoffDelay(0, 100, 5000, () => 0)).toBe(80);
    expect(backoffDelay(0, 100, 5000, () => 0.999999)).toBe(120);
  });
});

/**
 * `store.ttl` and `checkpointer.ttl` of langgraph.json, through the SDK: expiries of store items
 * and threads, per-put and per-thread TTLs, refresh on read, the sweep (periodic, on demand, and
 * from two processes at once), busy threads, and bad TTL config. Time passing is simulated by
 * moving expiries (or a thread's last update) into the past in the database; sweeps are triggered
 * through `handle.sweepExpired()` or happen on their own (the fixture sweeps every 0.005 minutes).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/shared/logging.js";
import { startAgentServer } from "../../src/agent-server/server.js";
import { jsonFetch, statusOf } from "../helpers/http.js";
import {
  ROOT,
  createTestDatabase,
  describeBackends,
  eventually,
  serverForSuite,
  servicesUp,
  startTestServer,
  testSettings,
  userMessage,
  type TestServer,
} from "../helpers/server.js";

const TTL_CONFIG = path.join(ROOT, "test/fixtures/ttl/langgraph.json");
const STEPS_GRAPH = path.join(ROOT, "test/fixtures/graphs.ts:steps");

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "berth-ttl-"));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));
/** A langgraph.json with the `steps` graph and the given extra keys. */
async function configWith(extra: Record<string, unknown>): Promise<string> {
  const file = path.join(tmp, `${randomUUID()}.json`);
  await writeFile(file, JSON.stringify({ graphs: { steps: STEPS_GRAPH }, ...extra }));
  return file;
}

const queries = (server: () => TestServer) => {
  const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await server().handle.ctx.pool.query(text, params)).rows as T[];
  return {
    sql,
    /** The stored row of an item: its TTL, and the minutes left until it expires. */
    item: async (ns: string[], key: string) =>
      (
        await sql<{ ttl_minutes: number | null; expires_at: Date | null; left: number | null; updated_at: Date }>(
          "SELECT ttl_minutes, expires_at, extract(epoch FROM expires_at - now()) / 60 AS left, updated_at FROM store WHERE namespace_path = $1 AND key = $2",
          [ns.join(":"), key],
        )
      )[0],
    expireItem: (ns: string[], key: string) =>
      sql("UPDATE store SET expires_at = now() - interval '1 second' WHERE namespace_path = $1 AND key = $2", [ns.join(":"), key]),
    thread: async (id: string) =>
      (
        await sql<{ ttl_minutes: number | null; lifetime: number | null }>(
          "SELECT ttl_minutes, extract(epoch FROM expires_at - updated_at) / 60 AS lifetime FROM threads WHERE thread_id = $1",
          [id],
        )
      )[0],
    /** As if the thread's last update (and its runs') were a day ago. */
    ageThread: async (id: string) => {
      await sql("UPDATE runs SET updated_at = updated_at - interval '1 day' WHERE thread_id = $1", [id]);
      await sql("UPDATE threads SET updated_at = now() - interval '1 day' WHERE thread_id = $1", [id]);
    },
    countOf: async (table: string, threadId: string) =>
      Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE thread_id::text = $1`, [threadId]))[0]!.n),
  };
};

describeBackends("TTL", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s), { configPath: TTL_CONFIG });
  const q = queries(() => server);
  const root = () => `t${randomUUID().slice(0, 8)}`;

  describe("store items", () => {
    it("a put without ttl gets store.ttl.default_ttl; a put's ttl overrides it; ttl null never expires", async () => {
      const ns = [root()];
      await server.client.store.putItem(ns, "default", { v: 1 });
      await server.client.store.putItem(ns, "short", { v: 2 }, { ttl: 2 });
      await server.client.store.putItem(ns, "never", { v: 3 }, { ttl: null });
      const d = await q.item(ns, "default");
      expect(Number(d!.ttl_minutes)).toBe(10);
      expect(Number(d!.left)).toBeGreaterThan(9);
      expect(Number(d!.left)).toBeLessThanOrEqual(10);
      const s = await q.item(ns, "short");
      expect(Number(s!.ttl_minutes)).toBe(2);
      expect(Number(s!.left)).toBeLessThanOrEqual(2);
      expect(await q.item(ns, "never")).toMatchObject({ ttl_minutes: null, expires_at: null });
      // an overwrite without ttl goes back to the default
      await server.client.store.putItem(ns, "never", { v: 4 });
      expect(Number((await q.item(ns, "never"))!.ttl_minutes)).toBe(10);
    });

    it("an expired item is gone from get and search, and the sweep deletes it from the table", async () => {
      const ns = [root()];
      await server.client.store.putItem(ns, "old", { v: "old" });
      await server.client.store.putItem(ns, "kept", { v: "kept" }, { ttl: null });
      await q.expireItem(ns, "old");
      expect(await server.client.store.getItem(ns, "old")).toBeNull();
      expect((await server.client.store.searchItems(ns)).items.map((i) => i.key)).toEqual(["kept"]);
      await server.handle.sweepExpired();
      expect(await q.item(ns, "old")).toBeUndefined();
      expect((await server.client.store.getItem(ns, "kept"))?.value).toEqual({ v: "kept" });
    });

    it("the worker's periodic sweep deletes expired items without being asked", async () => {
      const ns = [root()];
      await server.client.store.putItem(ns, "k", { v: 1 });
      await q.expireItem(ns, "k");
      await eventually(async () => (await q.item(ns, "k")) === undefined, 30_000);
    });

    it("get and search refresh an item by its own TTL (refresh_on_read); refresh_ttl=false does not; updated_at stays", async () => {
      const ns = [root()];
      await server.client.store.putItem(ns, "k", { v: 1 }, { ttl: 5 });
      const shorten = () => q.sql("UPDATE store SET expires_at = now() + interval '1 minute' WHERE namespace_path = $1", [ns.join(":")]);
      const before = (await q.item(ns, "k"))!.updated_at;

      await shorten();
      await server.client.store.getItem(ns, "k", { refreshTtl: false });
      expect(Number((await q.item(ns, "k"))!.left)).toBeLessThanOrEqual(1);
      await server.client.store.getItem(ns, "k");
      expect(Number((await q.item(ns, "k"))!.left)).toBeGreaterThan(4);

      await shorten();
      await server.client.store.searchItems(ns, { refreshTtl: false });
      expect(Number((await q.item(ns, "k"))!.left)).toBeLessThanOrEqual(1);
      await server.client.store.searchItems(ns);
      const after = await q.item(ns, "k");
      expect(Number(after!.left)).toBeGreaterThan(4);
      expect(Number(after!.left)).toBeLessThanOrEqual(5); // its own 5 minutes, not the default 10
      expect(after!.updated_at.getTime()).toBe(before.getTime());
    });

    it("a graph's own store.put gets the default TTL", async () => {
      const said = root();
      await server.client.runs.wait(null, "remember", { input: userMessage(said) });
      const row = await q.item(["remembered"], said);
      expect(Number(row!.ttl_minutes)).toBe(10);
      expect(Number(row!.left)).toBeGreaterThan(9);
    });

    it("a graph's own store.get refreshes the item by its own TTL", async () => {
      const key = root();
      await server.client.store.putItem(["remembered"], key, { v: 1 }, { ttl: 5 });
      await q.sql("UPDATE store SET expires_at = now() + interval '1 minute' WHERE namespace_path = 'remembered' AND key = $1", [key]);
      const out = await server.client.runs.wait(null, "recall", { input: userMessage(key) });
      expect(JSON.stringify(out)).toContain('recalled: {\\"v\\":1}');
      const row = await q.item(["remembered"], key);
      expect(Number(row!.left)).toBeGreaterThan(4);
      expect(Number(row!.left)).toBeLessThanOrEqual(5);
    });

    it("refuses a negative or non-numeric ttl with 422 and stores nothing", async () => {
      const ns = [root()];
      expect(await statusOf(server.client.store.putItem(ns, "k", { v: 1 }, { ttl: -1 }))).toBe(422);
      const res = await jsonFetch(server.url, "/store/items", { method: "PUT", body: JSON.stringify({ namespace: ns, key: "k", value: {}, ttl: "soon" }) });
      expect(res.status).toBe(422);
      expect(await q.item(ns, "k")).toBeUndefined();
    });
  });

  describe("threads", () => {
    it("threads get checkpointer.ttl.default_ttl, counted from their last update; threads.create/update ttl override it", async () => {
      const t = await server.client.threads.create();
      expect(await q.thread(t.thread_id)).toMatchObject({ ttl_minutes: 20 });
      expect(Number((await q.thread(t.thread_id))!.lifetime)).toBeCloseTo(20, 5);

      const own = await server.client.threads.create({ ttl: 5 });
      expect(Number((await q.thread(own.thread_id))!.ttl_minutes)).toBe(5);
      const obj = await server.client.threads.create({ ttl: { ttl: 7, strategy: "delete" } });
      expect(Number((await q.thread(obj.thread_id))!.ttl_minutes)).toBe(7);

      await server.client.threads.update(own.thread_id, { ttl: 3 });
      const updated = await q.thread(own.thread_id);
      expect(Number(updated!.ttl_minutes)).toBe(3);
      expect(Number(updated!.lifetime)).toBeCloseTo(3, 5);
      // counted from the update
      const left = await q.sql<{ left: number }>("SELECT extract(epoch FROM expires_at - now()) / 60 AS left FROM threads WHERE thread_id = $1", [own.thread_id]);
      expect(Number(left[0]!.left)).toBeGreaterThan(2);

      // a thread a run creates gets the default too
      const byRun = randomUUID();
      await server.client.runs.wait(byRun, "steps", { input: userMessage("hi"), ifNotExists: "create" });
      expect(Number((await q.thread(byRun))!.ttl_minutes)).toBe(20);
    });

    it("a thread past its TTL is deleted with its runs and checkpoints; a fresh one stays", async () => {
      const old = await server.client.threads.create();
      const fresh = await server.client.threads.create();
      for (const t of [old, fresh]) await server.client.runs.wait(t.thread_id, "steps", { input: userMessage("hello") });
      expect(await q.countOf("checkpoints", old.thread_id)).toBeGreaterThan(0);
      expect(await q.countOf("runs", old.thread_id)).toBe(1);

      await q.ageThread(old.thread_id);
      await server.handle.sweepExpired();
      expect(await statusOf(server.client.threads.get(old.thread_id))).toBe(404);
      for (const table of ["checkpoints", "checkpoint_blobs", "checkpoint_writes", "runs"]) expect(await q.countOf(table, old.thread_id)).toBe(0);
      expect((await server.client.threads.getState(fresh.thread_id)).values).toMatchObject({ messages: expect.any(Array) });
    });

    // Postgres only: it holds a row lock from a second connection, which PGlite (one connection) has not.
    if (backend === "postgres") {
      it("an on-demand sweep is a fresh one: a periodic sweep under way when it is asked for is waited out, and what expired since is swept too", async () => {
        const first = await server.client.threads.create();
        const second = await server.client.threads.create();
        for (const t of [first, second]) await server.client.runs.wait(t.thread_id, "steps", { input: userMessage("hello") });
        // Hold one of the first thread's checkpoints: the periodic sweep that deletes that thread
        // waits on it, in flight, having read the expired threads before the second one expired.
        const holder = await server.handle.ctx.pool.connect();
        let swept: Promise<unknown>;
        try {
          await holder.query("BEGIN");
          await holder.query("SELECT 1 FROM checkpoints WHERE thread_id = $1 LIMIT 1 FOR UPDATE", [first.thread_id]);
          await q.ageThread(first.thread_id);
          await eventually(
            async () =>
              (
                await q.sql(
                  "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'DELETE FROM checkpoints%'",
                )
              ).length > 0,
            60_000,
          );
          await q.ageThread(second.thread_id);
          swept = server.handle.sweepExpired();
          await holder.query("COMMIT");
        } finally {
          holder.release();
        }
        await swept;
        for (const t of [first, second]) expect(await statusOf(server.client.threads.get(t.thread_id))).toBe(404);
        expect(await q.countOf("checkpoints", second.thread_id)).toBe(0);
      });
    }

    it("a busy thread is never deleted, however old; once its run is gone it expires like any other", async () => {
      const t = await server.client.threads.create();
      await server.client.runs.wait(t.thread_id, "steps", { input: userMessage("first") });
      // a run waiting in the queue for an hour keeps the thread busy
      const pending = await server.client.runs.create(t.thread_id, "steps", { input: userMessage("later"), afterSeconds: 3600 });
      await q.ageThread(t.thread_id);
      await server.handle.sweepExpired();
      expect((await server.client.threads.get(t.thread_id)).status).toBe("busy");
      expect(await q.countOf("checkpoints", t.thread_id)).toBeGreaterThan(0);

      await server.client.runs.cancel(t.thread_id, pending.run_id);
      await eventually(async () => (await server.client.threads.get(t.thread_id)).status !== "busy", 30_000);
      await q.ageThread(t.thread_id);
      await eventually(async () => (await statusOf(server.client.threads.get(t.thread_id))) === 404, 30_000);
      expect(await q.countOf("checkpoints", t.thread_id)).toBe(0);
    });

    it("a thread whose run is running is not deleted mid-run", async () => {
      const t = await server.client.threads.create();
      const run = await server.client.runs.create(t.thread_id, "steps", {
        input: userMessage("long"),
        config: { configurable: { delay_ms: 0, later_delay_ms: 60_000 } },
      });
      await eventually(async () => (await server.client.runs.get(t.thread_id, run.run_id)).status === "running", 30_000);
      // The first step's checkpoints are held back briefly (checkpoint write-behind) before they are stored; wait
      // until they are, so the count after the sweep says whether the sweep deleted them.
      await eventually(async () => (await q.countOf("checkpoints", t.thread_id)) > 0, 30_000);
      await q.ageThread(t.thread_id);
      await server.handle.sweepExpired();
      expect((await server.client.threads.get(t.thread_id)).status).toBe("busy");
      expect((await server.client.runs.get(t.thread_id, run.run_id)).status).toBe("running");
      expect(await q.countOf("checkpoints", t.thread_id)).toBeGreaterThan(0);
      await server.client.runs.cancel(t.thread_id, run.run_id, true);
    });

    it("refuses bad thread TTLs with 422 (negative, not a number, another strategy) and creates nothing", async () => {
      const before = await server.client.threads.count();
      expect(await statusOf(server.client.threads.create({ ttl: -5 }))).toBe(422);
      for (const ttl of [{ ttl: 5, strategy: "keep_latest" }, { ttl: "soon" }, "5", { strategy: "delete" }]) {
        const res = await jsonFetch(server.url, "/threads", { method: "POST", body: JSON.stringify({ ttl }) });
        expect(res.status, JSON.stringify(ttl)).toBe(422);
      }
      const t = await server.client.threads.create();
      const res = await jsonFetch(server.url, `/threads/${t.thread_id}`, { method: "PATCH", body: JSON.stringify({ ttl: { ttl: 0 } }) });
      expect(res.status).toBe(422);
      expect(await server.client.threads.count()).toBe(before + 1);
    });
  });
});

describe("TTL config", () => {
  it("refresh_on_read false: reads refresh only when asked; without sweep_interval_minutes expired items stay in the table (invisible) until a sweep", async () => {
    const configPath = await configWith({ store: { ttl: { default_ttl: 5, refresh_on_read: false } } });
    const server = await startTestServer("pglite", { configPath });
    try {
      const q = queries(() => server);
      await server.client.store.putItem(["a"], "k", { v: 1 });
      await q.sql("UPDATE store SET expires_at = now() + interval '1 minute'");
      await server.client.store.getItem(["a"], "k");
      await server.client.store.searchItems(["a"]);
      expect(Number((await q.item(["a"], "k"))!.left)).toBeLessThanOrEqual(1);
      await server.client.store.getItem(["a"], "k", { refreshTtl: true });
      expect(Number((await q.item(["a"], "k"))!.left)).toBeGreaterThan(4);

      await q.expireItem(["a"], "k");
      expect(await server.client.store.getItem(["a"], "k")).toBeNull();
      expect((await server.client.store.searchItems(["a"])).items).toEqual([]);
      expect((await server.client.store.listNamespaces()).namespaces).toEqual([]);
      expect(await q.item(["a"], "k")).toBeDefined();
      expect((await server.handle.sweepExpired()).storeItems).toBe(1);
      expect(await q.item(["a"], "k")).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it.each([
    [{ store: { ttl: { default_ttl: -1 } } }, "store.ttl.default_ttl"],
    [{ store: { ttl: { sweep_interval_minutes: 0 } } }, "store.ttl.sweep_interval_minutes"],
    [{ store: { ttl: { refresh_on_read: "yes" } } }, "store.ttl.refresh_on_read"],
    [{ checkpointer: { ttl: { strategy: "archive", default_ttl: 10 } } }, "checkpointer.ttl.strategy"],
    [{ checkpointer: { ttl: { strategy: "keep_latest" } } }, "checkpointer.ttl.strategy"],
    [{ checkpointer: { ttl: { default_ttl: "a day" } } }, "checkpointer.ttl.default_ttl"],
    [{ checkpointer: { ttl: { default_tll: 10 } } }, "default_tll"],
  ])("bad TTL config %j fails start naming %s", async (extra, key) => {
    const db = await createTestDatabase("pglite");
    try {
      const configPath = await configWith(extra);
      await expect(startAgentServer(testSettings(db, { configPath }), silentLogger)).rejects.toThrow(key);
    } finally {
      await db.drop();
    }
  });
});

(servicesUp() ? describe : describe.skip)("TTL sweeps from several processes [postgres]", () => {
  it("two processes sweeping at once delete every expired item and thread exactly once", async () => {
    const configPath = await configWith({ store: { ttl: { default_ttl: 5 } }, checkpointer: { ttl: { default_ttl: 5 } } });
    const a = await startTestServer("postgres", { configPath });
    const b = await startTestServer("postgres", { configPath }, a.db);
    try {
      const q = queries(() => a);
      await q.sql(
        `INSERT INTO store (namespace_path, key, value, ttl_minutes, expires_at)
         SELECT 'bulk', i::text, '{}', 1, now() - interval '1 minute' FROM generate_series(1, 1234) i`,
      );
      await q.sql("INSERT INTO store (namespace_path, key, value) VALUES ('bulk', 'live', '{}')");
      await q.sql("INSERT INTO threads (thread_id, ttl_minutes, updated_at) SELECT gen_random_uuid(), 1, now() - interval '1 hour' FROM generate_series(1, 600)");
      const live = await a.client.threads.create();

      const [ra, rb] = await Promise.all([a.handle.sweepExpired(), b.handle.sweepExpired()]);
      expect(ra.storeItems + rb.storeItems).toBe(1234);
      expect(ra.threads + rb.threads).toBe(600);
      expect(await q.sql("SELECT key FROM store")).toEqual([{ key: "live" }]);
      expect((await q.sql("SELECT thread_id FROM threads")).map((r) => r.thread_id)).toEqual([live.thread_id]);
    } finally {
      await b.close({ keepDatabase: true });
      await a.close();
    }
  });
});

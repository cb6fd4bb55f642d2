/**
 * Custom auth from langgraph.json `auth.path` (test/fixtures/custom-auth): the project's LangGraph
 * `Auth` object, driven through the real SDK client with different users' bearer tokens.
 * - authentication: no/invalid credential → the HTTPException's status, message and headers;
 *   a crashing handler → 500 without its internals; probes stay open;
 * - isolation: alice's threads, runs, crons, assistants and store items are invisible to bob
 *   (get, search, counts, X-Pagination-Total, state, history, join, streams) and unmodifiable
 *   by him (patch, delete, state updates, cancel, new runs) — checked by what alice still has;
 * - a handler returning false → 403 with nothing changed; metadata stamped on create;
 * - graphs see the user (`langgraph_auth_user`…), which a client cannot forge.
 */
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { describeBackends, ROOT, serverForSuite, type TestServer } from "../helpers/server.js";
import { jsonFetch, statusOf } from "../helpers/http.js";

const CONFIG = path.join(ROOT, "test/fixtures/custom-auth/langgraph.json");

describeBackends("custom auth", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s), { configPath: CONFIG });

  const as = (token: string) =>
    new Client({ apiUrl: server.url, apiKey: null as unknown as undefined, defaultHeaders: { authorization: `Bearer ${token}` }, callerOptions: { maxRetries: 0 } });
  const alice = () => as("token-alice");
  const bob = () => as("token-bob");
  const carol = () => as("token-carol");
  const raw = (p: string, token: string | undefined, init: RequestInit = {}) =>
    jsonFetch(server.url, p, { ...init, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(init.headers ?? {}) } });

  describe("authentication", () => {
    it("answers the handler's HTTPException: status, message and headers; creates nothing", async () => {
      const none = await raw("/threads", undefined, { method: "POST", body: JSON.stringify({ metadata: { probe: "anon" } }) });
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toBe("Bearer");
      expect(await none.json()).toEqual({ detail: "Missing bearer token" });

      const bad = await raw("/threads/search", "token-nobody", { method: "POST", body: "{}" });
      expect(bad.status).toBe(401);
      expect(await bad.json()).toEqual({ detail: "Invalid token" });

      // the SDK sees the same status (and would not retry it)
      expect(await statusOf(as("token-nobody").threads.search())).toBe(401);
      expect(await statusOf(as("token-nobody").store.putItem(["x"], "k", { v: 1 }))).toBe(401);
      expect(await statusOf(as("token-nobody").runs.wait(null, "whoami", { input: {} }))).toBe(401);

      // the refused create left no thread behind (not even one nobody owns)
      const resp = await raw("/threads/search", "token-alice", { method: "POST", body: JSON.stringify({ metadata: { probe: "anon" } }) });
      expect(await resp.json()).toEqual([]);
    });

    it("a crashing authenticate handler is a 500 that does not leak its message", async () => {
      const r = await raw("/threads/search", "token-alice", { method: "POST", body: "{}", headers: { "x-auth-boom": "1" } });
      expect(r.status).toBe(500);
      expect(JSON.stringify(await r.json())).not.toContain("identity provider");
    });

    it("never lets x-auth-scheme: langsmith skip the handler (no studio bypass)", async () => {
      const r = await raw("/threads/search", undefined, { method: "POST", body: "{}", headers: { "x-auth-scheme": "langsmith" } });
      expect(r.status).toBe(401);
    });

    it("keeps /ok and /info open, and /info says custom auth is on", async () => {
      expect((await raw("/ok", undefined)).status).toBe(200);
      const info = (await (await raw("/info", undefined)).json()) as { auth: { mode: string } };
      expect(info.auth.mode).toBe("custom");
    });
  });

  describe("threads", () => {
    it("stamps the owner on create, over what the client sent", async () => {
      const t = await alice().threads.create({ metadata: { owner: "bob", topic: "stamp" } });
      expect(t.metadata).toMatchObject({ owner: "alice", topic: "stamp" });
      expect((await alice().threads.get(t.thread_id)).metadata).toMatchObject({ owner: "alice" });
    });

    it("bob never sees alice's threads: get, search, ids, counts and the pagination total", async () => {
      const tag = `iso-${Date.now()}`;
      const a1 = await alice().threads.create({ metadata: { tag } });
      const a2 = await alice().threads.create({ metadata: { tag } });
      const b1 = await bob().threads.create({ metadata: { tag } });

      expect((await alice().threads.search({ metadata: { tag } })).map((t) => t.thread_id).sort()).toEqual([a1.thread_id, a2.thread_id].sort());
      expect((await bob().threads.search({ metadata: { tag } })).map((t) => t.thread_id)).toEqual([b1.thread_id]);
      expect(await bob().threads.search({ ids: [a1.thread_id, a2.thread_id] })).toEqual([]);
      expect(await bob().threads.count({ metadata: { tag } })).toBe(1);
      expect(await alice().threads.count({ metadata: { tag } })).toBe(2);
      // bob asking for alice's owner tag directly still gets none of hers
      const spoofed = await bob().threads.search({ metadata: { owner: "alice" }, limit: 100 });
      expect(spoofed.every((t) => t.metadata?.owner === "bob")).toBe(true);

      const page = await raw("/threads/search", "token-bob", { method: "POST", body: JSON.stringify({ metadata: { tag }, limit: 1 }) });
      expect(page.headers.get("x-pagination-total")).toBe("1");
      const alicePage = await raw("/threads/search", "token-alice", { method: "POST", body: JSON.stringify({ metadata: { tag }, limit: 1 }) });
      expect(alicePage.headers.get("x-pagination-total")).toBe("2");

      expect(await statusOf(bob().threads.get(a1.thread_id))).toBe(404);
      const asMissing = await raw(`/threads/${a1.thread_id}`, "token-bob");
      const reallyMissing = await raw(`/threads/00000000-0000-4000-8000-000000000000`, "token-bob");
      // another user's thread reads exactly like one that does not exist
      expect((await asMissing.json()) as { detail: string }).toEqual({ detail: `Thread with ID ${a1.thread_id} not found` });
      expect(reallyMissing.status).toBe(404);
    });

    it("bob cannot modify alice's thread: patch, delete, copy, state updates, prune, create over it", async () => {
      const a = await alice().threads.create({ metadata: { keep: "yes" } });
      await alice().runs.wait(a.thread_id, "whoami", { input: { text: "hi" } });
      const before = await alice().threads.getState(a.thread_id);

      expect(await statusOf(bob().threads.update(a.thread_id, { metadata: { keep: "no" } }))).toBe(404);
      expect(await statusOf(bob().threads.delete(a.thread_id))).toBe(404);
      expect(await statusOf(bob().threads.copy(a.thread_id))).toBe(404);
      expect(await statusOf(bob().threads.updateState(a.thread_id, { values: { text: "hacked" } }))).toBe(404);
      expect(await statusOf(bob().threads.patchState(a.thread_id, { hacked: true }))).toBe(404);
      expect(await statusOf(bob().threads.create({ threadId: a.thread_id, ifExists: "do_nothing" }))).toBe(409);
      expect((await bob().threads.prune([a.thread_id])).pruned_count).toBe(0);

      const after = await alice().threads.get(a.thread_id);
      expect(after.metadata).toMatchObject({ keep: "yes", owner: "alice" });
      const state = await alice().threads.getState(a.thread_id);
      expect(state.values).toEqual(before.values);
      expect((state.values as { text: string }).text).toBe("hi");
      expect(state.checkpoint.checkpoint_id).toBe(before.checkpoint.checkpoint_id);
    });

    it("bob cannot read alice's state or history", async () => {
      const a = await alice().threads.create();
      await alice().runs.wait(a.thread_id, "whoami", { input: { text: "secret" } });
      const st = await alice().threads.getState(a.thread_id);
      expect(await statusOf(bob().threads.getState(a.thread_id))).toBe(404);
      expect(await statusOf(bob().threads.getState(a.thread_id, st.checkpoint.checkpoint_id!))).toBe(404);
      expect(await statusOf(bob().threads.getState(a.thread_id, st.checkpoint))).toBe(404);
      expect(await statusOf(bob().threads.getHistory(a.thread_id))).toBe(404);
      expect((await raw(`/threads/${a.thread_id}/history`, "token-bob")).status).toBe(404);
      expect((await alice().threads.getHistory(a.thread_id)).length).toBeGreaterThan(0);
    });

    it("a handler returning false forbids (403) and nothing changes", async () => {
      const t = await carol().threads.create();
      expect(t.metadata).toMatchObject({ owner: "carol" });
      const r = await raw(`/threads/${t.thread_id}`, "token-carol", { method: "DELETE" });
      expect(r.status).toBe(403);
      expect(await r.json()).toEqual({ detail: "Forbidden" });
      expect((await carol().threads.get(t.thread_id)).thread_id).toBe(t.thread_id);
    });

    it("a copy belongs to whoever copied it", async () => {
      const a = await alice().threads.create({ metadata: { src: "copy" } });
      const c = await alice().threads.copy(a.thread_id);
      expect(c.metadata).toMatchObject({ owner: "alice", src: "copy" });
      expect(await statusOf(bob().threads.get(c.thread_id))).toBe(404);
    });
  });

  describe("runs", () => {
    it("the graph sees the authenticated user, which the client cannot forge", async () => {
      const t = await alice().threads.create();
      const out = (await alice().runs.wait(t.thread_id, "whoami", {
        input: { text: "who am i" },
        config: { configurable: { langgraph_auth_user: { identity: "root" }, langgraph_auth_user_id: "root", langgraph_auth_permissions: ["admin"] } },
      })) as Record<string, unknown>;
      expect(out).toMatchObject({ identity: "alice", user_id: "alice", permissions: ["threads:write"], display_name: "Alice" });

      const stateless = (await carol().runs.wait(null, "whoami", { input: { text: "x" } })) as Record<string, unknown>;
      expect(stateless).toMatchObject({ identity: "carol", user_id: "carol", permissions: [], display_name: "carol" });

      const run = (await alice().runs.list(t.thread_id))[0]!;
      expect(run.metadata).toMatchObject({ owner: "alice" });
    });

    it("bob cannot create, read, list, join, stream, cancel or delete runs on alice's thread", async () => {
      const t = await alice().threads.create();
      const done = await alice().runs.create(t.thread_id, "whoami", { input: { text: "one" } });
      await alice().runs.join(t.thread_id, done.run_id);
      const running = await alice().runs.create(t.thread_id, "whoami", { input: { text: "two" }, config: { configurable: { delay_ms: 1500 } } });

      expect(await statusOf(bob().runs.create(t.thread_id, "whoami", { input: { text: "bob" } }))).toBe(404);
      expect(await statusOf(bob().runs.wait(t.thread_id, "whoami", { input: { text: "bob" } }))).toBe(404);
      expect(await statusOf(bob().runs.get(t.thread_id, done.run_id))).toBe(404);
      expect(await statusOf(bob().runs.list(t.thread_id))).toBe(404);
      expect(await statusOf(bob().runs.join(t.thread_id, done.run_id))).toBe(404);
      expect(await statusOf(bob().runs.cancel(t.thread_id, running.run_id))).toBe(404);
      expect(await statusOf(bob().runs.delete(t.thread_id, done.run_id))).toBe(404);
      expect((await raw(`/threads/${t.thread_id}/runs/${running.run_id}/stream`, "token-bob")).status).toBe(404);
      expect((await raw(`/runs/${running.run_id}/stream`, "token-bob")).status).toBe(404);
      // bulk cancel by id and by status skips alice's runs
      expect((await raw("/runs/cancel", "token-bob", { method: "POST", body: JSON.stringify({ run_ids: [running.run_id] }) })).status).toBe(204);
      expect((await raw("/runs/cancel", "token-bob", { method: "POST", body: JSON.stringify({ status: "all" }) })).status).toBe(204);
      await expect(async () => {
        const events: string[] = [];
        for await (const e of bob().runs.joinStream(t.thread_id, running.run_id)) events.push(e.event);
        return events;
      }).rejects.toMatchObject({ status: 404 });

      // alice's runs are untouched: the running one completes as hers, the done one still exists
      const result = (await alice().runs.join(t.thread_id, running.run_id)) as Record<string, unknown>;
      expect(result).toMatchObject({ text: "two", identity: "alice" });
      expect((await alice().runs.get(t.thread_id, running.run_id)).status).toBe("success");
      expect((await alice().runs.list(t.thread_id)).map((r) => r.run_id).sort()).toEqual([done.run_id, running.run_id].sort());
      expect((await alice().threads.getState(t.thread_id)).values).toMatchObject({ text: "two" });
    });

    it("a stateless run is its creator's: bob cannot join its stream", async () => {
      const run = await alice().runs.create(null, "whoami", { input: { text: "s" }, onCompletion: "keep" as never });
      expect((await raw(`/runs/${run.run_id}/stream`, "token-bob")).status).toBe(404);
      const own = await raw(`/runs/${run.run_id}/stream`, "token-alice");
      expect(own.status).toBe(200);
      await own.body?.cancel();
    });
  });

  describe("crons", () => {
    it("bob never sees or changes alice's crons", async () => {
      const t = await alice().threads.create();
      const onThread = await alice().crons.createForThread(t.thread_id, "whoami", { schedule: "0 0 1 1 *", input: { text: "c" }, metadata: { kind: "thread" } });
      const stateless = await alice().crons.create("whoami", { schedule: "0 0 1 1 *", input: { text: "c" } });
      expect(onThread.metadata).toMatchObject({ owner: "alice", kind: "thread" });

      expect((await alice().crons.search()).map((c) => c.cron_id).sort()).toEqual([onThread.cron_id, stateless.cron_id].sort());
      expect(await alice().crons.count()).toBe(2);
      expect(await bob().crons.search()).toEqual([]);
      expect(await bob().crons.count()).toBe(0);
      const page = await raw("/runs/crons/search", "token-bob", { method: "POST", body: "{}" });
      expect(page.headers.get("x-pagination-total") ?? "0").toBe("0");

      expect((await raw(`/runs/crons/${stateless.cron_id}`, "token-bob")).status).toBe(404);
      expect(await statusOf(bob().crons.update(stateless.cron_id, { schedule: "* * * * *" }))).toBe(404);
      expect(await statusOf(bob().crons.delete(stateless.cron_id))).toBe(404);
      expect(await statusOf(bob().crons.createForThread(t.thread_id, "whoami", { schedule: "* * * * *" }))).toBe(404);

      const after = (await (await raw(`/runs/crons/${stateless.cron_id}`, "token-alice")).json()) as { schedule: string };
      expect(after.schedule).toBe("0 0 1 1 *");
      expect(await alice().crons.count()).toBe(2);
      expect(await bob().crons.count()).toBe(0);
    });
  });

  describe("assistants", () => {
    it("bob never sees or changes alice's assistants", async () => {
      const a = await alice().assistants.create({ graphId: "whoami", name: "alice's" });
      expect(a.metadata).toMatchObject({ owner: "alice" });
      expect((await alice().assistants.search({ graphId: "whoami" })).map((x) => x.assistant_id)).toContain(a.assistant_id);
      expect((await bob().assistants.search({ graphId: "whoami" })).map((x) => x.assistant_id)).not.toContain(a.assistant_id);
      expect(await bob().assistants.count({ graphId: "whoami" })).toBe(0);
      expect(await statusOf(bob().assistants.get(a.assistant_id))).toBe(404);
      expect(await statusOf(bob().assistants.update(a.assistant_id, { name: "bob's now" }))).toBe(404);
      expect(await statusOf(bob().assistants.delete(a.assistant_id))).toBe(404);
      expect((await alice().assistants.get(a.assistant_id)).name).toBe("alice's");
    });
  });

  describe("A2A", () => {
    const rpc = async (token: string, method: string, params: unknown) =>
      (await (await raw("/a2a/chat", token, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })).json()) as {
        result?: any;
        error?: { code: number };
      };
    const msg = (text: string, extra: Record<string, unknown> = {}) => ({ message: { messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...extra } });

    it("tasks and contexts are their creator's: bob cannot read, list, cancel or continue alice's", async () => {
      const sent = await rpc("token-alice", "message/send", msg("hi"));
      const task = sent.result;
      expect(task.status.state).toBe("completed");
      expect(JSON.stringify(task)).toContain("hello alice");

      expect((await rpc("token-bob", "tasks/get", { id: task.id })).error?.code).toBe(-32001);
      expect((await rpc("token-bob", "tasks/cancel", { id: task.id })).error?.code).toBe(-32001);
      expect((await rpc("token-bob", "message/send", msg("sneak", { contextId: task.contextId }))).error?.code).toBe(-32602);
      const bobList = (await rpc("token-bob", "ListTasks", {})).result;
      expect(bobList.tasks.map((t: { id: string }) => t.id)).not.toContain(task.id);
      expect((await rpc("token-alice", "ListTasks", { contextId: task.contextId })).result.totalSize).toBe(1);

      // alice's conversation holds only her turn
      expect((await alice().runs.list(task.contextId)).length).toBe(1);
      expect((await rpc("token-alice", "tasks/get", { id: task.id })).result.id).toBe(task.id);
    });
  });

  describe("store", () => {
    it("each user's namespaces are their own: reads, writes, deletes, search and listing", async () => {
      await alice().store.putItem(["prefs"], "theme", { color: "dark" });
      expect(await bob().store.getItem(["prefs"], "theme")).toBeNull();

      await bob().store.putItem(["prefs"], "theme", { color: "pink" });
      await bob().store.deleteItem(["prefs"], "theme");
      expect((await alice().store.getItem(["prefs"], "theme"))?.value).toEqual({ color: "dark" });

      const bobSearch = await bob().store.searchItems([]);
      expect(bobSearch.items.every((i) => i.namespace[0] === "bob")).toBe(true);
      expect(JSON.stringify(bobSearch)).not.toContain("dark");
      const aliceSearch = await alice().store.searchItems(["prefs"]);
      expect(aliceSearch.items.map((i) => i.value)).toEqual([{ color: "dark" }]);

      const bobNs = await bob().store.listNamespaces();
      expect(bobNs.namespaces.every((ns) => ns[0] === "bob")).toBe(true);
      expect((await alice().store.listNamespaces()).namespaces).toContainEqual(["alice", "prefs"]);
    });
  });
});

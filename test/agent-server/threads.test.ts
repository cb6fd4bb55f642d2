/**
 * The threads API through the SDK's `client.threads` (and fetch for headers and raw bodies):
 * create/get/patch/delete, search/count with pagination, copy, prune, and thread state — get
 * (latest, by checkpoint id, by checkpoint object), update (409 while busy), history, supersteps.
 */
import { randomUUID } from "node:crypto";
import type { ThreadState } from "@langchain/langgraph-sdk";
import { describe, expect, it } from "vitest";
import { describeBackends, eventually, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";
import { jsonFetch, statusOf } from "../helpers/http.js";

type Msg = { type: string; content: string; id?: string };
type Values = { messages: Msg[] };

const pairs = (s: ThreadState<Values>) => (s.values.messages ?? []).map((m) => [m.type, m.content]);

describeBackends("threads API", (backend) => {
  let server: TestServer;
  const api = (path: string, init: RequestInit = {}) => jsonFetch(server.url, path, init);
  const tag = () => randomUUID().slice(0, 8);

  /** A thread with one finished chat turn. */
  async function chatThread(text = "hello", metadata: Record<string, unknown> = {}) {
    const thread = await server.client.threads.create({ metadata });
    await server.client.runs.wait(thread.thread_id, "chat", { input: userMessage(text) });
    return thread.thread_id;
  }

  serverForSuite(backend, (s) => (server = s));

  describe("create, get, patch, delete", () => {
    it("creates a thread with defaults and gets it back", async () => {
      const t = await server.client.threads.create();
      expect(t.thread_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(t.status).toBe("idle");
      expect(t.metadata).toEqual({});
      expect(Date.parse(t.created_at)).not.toBeNaN();
      expect(Date.parse(t.updated_at)).not.toBeNaN();
      const got = await server.client.threads.get(t.thread_id);
      expect(got.thread_id).toBe(t.thread_id);
      expect(got.status).toBe("idle");
      expect(got.created_at).toBe(t.created_at);
    });

    it("creates with a given id, metadata and graph id; if_exists raise → 409, do_nothing → the existing thread", async () => {
      const id = randomUUID();
      const t = await server.client.threads.create({ threadId: id, metadata: { owner: "ann" }, graphId: "chat" });
      expect(t.thread_id).toBe(id);
      expect(t.metadata).toEqual({ owner: "ann", graph_id: "chat" });
      expect(await statusOf(server.client.threads.create({ threadId: id }))).toBe(409);
      expect(await statusOf(server.client.threads.create({ threadId: id, ifExists: "raise" }))).toBe(409);
      const again = await server.client.threads.create({ threadId: id, ifExists: "do_nothing", metadata: { owner: "bob" } });
      expect(again.thread_id).toBe(id);
      expect(again.metadata).toEqual({ owner: "ann", graph_id: "chat" });
    });

    it("rejects a non-UUID id (body and path) with 422", async () => {
      const res = await api("/threads", { method: "POST", body: JSON.stringify({ thread_id: "abc" }) });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toContain("thread_id");
      expect((await api("/threads/abc")).status).toBe(422);
      expect((await api("/threads/abc/state")).status).toBe(422);
    });

    it("404s an unknown thread in every route", async () => {
      const id = randomUUID();
      expect(await statusOf(server.client.threads.get(id))).toBe(404);
      expect(await statusOf(server.client.threads.update(id, { metadata: { a: 1 } }))).toBe(404);
      expect(await statusOf(server.client.threads.delete(id))).toBe(404);
      expect(await statusOf(server.client.threads.copy(id))).toBe(404);
      expect(await statusOf(server.client.threads.getState(id))).toBe(404);
      expect(await statusOf(server.client.threads.getHistory(id))).toBe(404);
      expect(await statusOf(server.client.threads.updateState(id, { values: {} }))).toBe(404);
      const res = await api(`/threads/${id}`);
      expect(((await res.json()) as { detail: string }).detail).toContain(id);
    });

    it("patch merges metadata and bumps updated_at", async () => {
      const t = await server.client.threads.create({ metadata: { a: 1, b: "x" } });
      await new Promise((r) => setTimeout(r, 10));
      const u = await server.client.threads.update(t.thread_id, { metadata: { b: "y", c: true } });
      expect(u.metadata).toEqual({ a: 1, b: "y", c: true });
      expect(Date.parse(u.updated_at)).toBeGreaterThan(Date.parse(t.updated_at));
      expect((await server.client.threads.get(t.thread_id)).metadata).toEqual({ a: 1, b: "y", c: true });
    });

    it("delete removes the thread, its runs and its state (404 afterwards)", async () => {
      const thread = await server.client.threads.create();
      const run = await server.client.runs.create(thread.thread_id, "chat", { input: userMessage("bye") });
      await server.client.runs.join(thread.thread_id, run.run_id);
      const res = await api(`/threads/${thread.thread_id}`, { method: "DELETE" });
      expect(res.status).toBe(204);
      expect(await statusOf(server.client.threads.get(thread.thread_id))).toBe(404);
      expect(await statusOf(server.client.runs.get(thread.thread_id, run.run_id))).toBe(404);
      expect(await statusOf(server.client.threads.getState(thread.thread_id))).toBe(404);
      expect(await statusOf(server.client.threads.delete(thread.thread_id))).toBe(404);
      // Re-creating the same id starts from an empty state: the checkpoints went too.
      await server.client.threads.create({ threadId: thread.thread_id, graphId: "chat" });
      const state = await server.client.threads.getState<Values>(thread.thread_id);
      expect(state.values).toEqual({});
      expect(state.checkpoint).toBeNull();
    });
  });

  describe("search and count", () => {
    it("filters by metadata, ids and status, and counts the same", async () => {
      const t = tag();
      const a = await chatThread("a", { t, kind: "x" });
      const b = await server.client.threads.create({ metadata: { t, kind: "y" } });
      const c = await server.client.threads.create({ metadata: { t, kind: "x" } });
      const failed = await server.client.threads.create({ metadata: { t, kind: "z" } });
      await server.client.runs.wait(failed.thread_id, "failing", { input: userMessage("x"), raiseError: false });
      const interrupted = await server.client.threads.create({ metadata: { t, kind: "z" } });
      await server.client.runs.wait(interrupted.thread_id, "approval", { input: userMessage("x") });

      const ids = async (q: Parameters<TestServer["client"]["threads"]["search"]>[0]) =>
        (await server.client.threads.search({ limit: 100, ...q })).map((x) => x.thread_id).sort();
      expect(await ids({ metadata: { t } })).toEqual([a, b.thread_id, c.thread_id, failed.thread_id, interrupted.thread_id].sort());
      expect(await ids({ metadata: { t, kind: "x" } })).toEqual([a, c.thread_id].sort());
      expect(await ids({ metadata: { t }, status: "error" })).toEqual([failed.thread_id]);
      expect(await ids({ metadata: { t }, status: "interrupted" })).toEqual([interrupted.thread_id]);
      expect(await ids({ metadata: { t }, status: "idle" })).toEqual([a, b.thread_id, c.thread_id].sort());
      expect(await ids({ ids: [b.thread_id, c.thread_id, randomUUID()] })).toEqual([b.thread_id, c.thread_id].sort());
      // A run records the graph and assistant on the thread's metadata.
      expect(await ids({ metadata: { t, graph_id: "chat" } })).toEqual([a]);

      expect(await server.client.threads.count({ metadata: { t } })).toBe(5);
      expect(await server.client.threads.count({ metadata: { t }, status: "interrupted" })).toBe(1);
      expect(await server.client.threads.count({ metadata: { t, kind: "x" } })).toBe(2);
    });

    it("filters by values", async () => {
      const t = tag();
      const a = await chatThread(`needle-${t}`, { t });
      await chatThread("haystack", { t });
      const found = await server.client.threads.search({ metadata: { t }, values: { messages: [{ content: `needle-${t}` }] } });
      expect(found.map((x) => x.thread_id)).toEqual([a]);
      const got = found[0]!.values as Values;
      expect(got.messages.map((m) => m.content)).toEqual([`needle-${t}`, `You said: needle-${t}`]);
    });

    it("pages with limit/offset and pagination headers; sorts both ways", async () => {
      const t = tag();
      const created: string[] = [];
      for (let i = 0; i < 5; i++) created.push((await server.client.threads.create({ metadata: { t, i } })).thread_id);
      const newestFirst = [...created].reverse();

      const page = async (limit: number, offset: number) => {
        const res = await api("/threads/search", { method: "POST", body: JSON.stringify({ metadata: { t }, limit, offset }) });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { thread_id: string }[];
        return { ids: body.map((x) => x.thread_id), total: res.headers.get("x-pagination-total"), next: res.headers.get("x-pagination-next") };
      };
      expect(await page(2, 0)).toEqual({ ids: newestFirst.slice(0, 2), total: "5", next: "2" });
      expect(await page(2, 2)).toEqual({ ids: newestFirst.slice(2, 4), total: "5", next: "4" });
      expect(await page(2, 4)).toEqual({ ids: newestFirst.slice(4), total: "5", next: null });
      expect(await page(5, 0)).toEqual({ ids: newestFirst, total: "5", next: null });

      const asc = await server.client.threads.search({ metadata: { t }, sortBy: "created_at", sortOrder: "asc" });
      expect(asc.map((x) => x.thread_id)).toEqual(created);
      const byId = await server.client.threads.search({ metadata: { t }, sortBy: "thread_id", sortOrder: "asc" });
      expect(byId.map((x) => x.thread_id)).toEqual([...created].sort());
      // updated_at: touching the oldest thread moves it to the front.
      await server.client.threads.update(created[0]!, { metadata: { touched: true } });
      const byUpdate = await server.client.threads.search({ metadata: { t }, sortBy: "updated_at", sortOrder: "desc" });
      expect(byUpdate[0]!.thread_id).toBe(created[0]);
      // The SDK's default page size is 10.
      for (let i = 0; i < 7; i++) await server.client.threads.create({ metadata: { t } });
      expect(await server.client.threads.search({ metadata: { t } })).toHaveLength(10);
    });

    it("selects fields", async () => {
      const t = tag();
      await server.client.threads.create({ metadata: { t } });
      const [one] = await server.client.threads.search({ metadata: { t }, select: ["thread_id", "status"] });
      expect(Object.keys(one!).sort()).toEqual(["status", "thread_id"]);
    });

    it("validates the search body (422)", async () => {
      for (const body of [{ limit: 0 }, { status: "sleeping" }, { ids: ["x"] }, { sort_by: "nope" }]) {
        const res = await api("/threads/search", { method: "POST", body: JSON.stringify(body) });
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
    });
  });

  describe("copy and prune", () => {
    it("copy makes a new thread with the same metadata and state, independent of the original", async () => {
      const t = tag();
      const source = await chatThread("original", { t });
      const copy = await server.client.threads.copy(source);
      expect(copy.thread_id).not.toBe(source);
      expect(copy.metadata).toMatchObject({ t, graph_id: "chat" });
      const copied = await server.client.threads.getState<Values>(copy.thread_id);
      const original = await server.client.threads.getState<Values>(source);
      expect(pairs(copied)).toEqual([
        ["human", "original"],
        ["ai", "You said: original"],
      ]);
      expect(copied.checkpoint!.checkpoint_id).toBe(original.checkpoint!.checkpoint_id);
      expect(copied.checkpoint!.thread_id).toBe(copy.thread_id);
      expect((await server.client.threads.getHistory(copy.thread_id)).length).toBe((await server.client.threads.getHistory(source)).length);

      await server.client.runs.wait(copy.thread_id, "chat", { input: userMessage("more") });
      expect(pairs(await server.client.threads.getState<Values>(copy.thread_id))).toHaveLength(4);
      expect(pairs(await server.client.threads.getState<Values>(source))).toHaveLength(2);
      // Runs are not copied.
      expect(await server.client.runs.list(copy.thread_id)).toHaveLength(1);
    });

    it("prune with delete removes the threads; keep_latest keeps only the newest checkpoint", async () => {
      const gone1 = await chatThread("x");
      const gone2 = await server.client.threads.create();
      const kept = await chatThread("y");
      await server.client.runs.wait(kept, "chat", { input: userMessage("z") });

      expect(await server.client.threads.prune([gone1, gone2.thread_id])).toEqual({ pruned_count: 2 });
      expect(await statusOf(server.client.threads.get(gone1))).toBe(404);
      expect(await statusOf(server.client.threads.get(gone2.thread_id))).toBe(404);

      const before = await server.client.threads.getState<Values>(kept);
      expect((await server.client.threads.getHistory(kept, { limit: 100 })).length).toBeGreaterThan(2);
      expect(await server.client.threads.prune([kept], { strategy: "keep_latest" })).toEqual({ pruned_count: 1 });
      const history = await server.client.threads.getHistory<Values>(kept, { limit: 100 });
      expect(history).toHaveLength(1);
      const after = await server.client.threads.getState<Values>(kept);
      expect(after.checkpoint!.checkpoint_id).toBe(before.checkpoint!.checkpoint_id);
      expect(pairs(after)).toEqual(pairs(before));
      // The pruned thread keeps working.
      await server.client.runs.wait(kept, "chat", { input: userMessage("again") });
      expect(pairs(await server.client.threads.getState<Values>(kept))).toHaveLength(6);
    });

    it("prune validates its body (422)", async () => {
      for (const body of [{ thread_ids: [] }, { thread_ids: ["x"] }, { thread_ids: [randomUUID()], strategy: "burn" }]) {
        const res = await api("/threads/prune", { method: "POST", body: JSON.stringify(body) });
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
    });
  });

  describe("state", () => {
    it("a thread that never ran has an empty state and no history", async () => {
      const t = await server.client.threads.create();
      const state = await server.client.threads.getState(t.thread_id);
      expect(state).toMatchObject({ values: {}, next: [], tasks: [], checkpoint: null, parent_checkpoint: null, created_at: null });
      expect(await server.client.threads.getHistory(t.thread_id)).toEqual([]);
      const withGraph = await server.client.threads.create({ graphId: "chat" });
      expect(await server.client.threads.getState(withGraph.thread_id)).toMatchObject({ values: {}, next: [], checkpoint: null });
    });

    it("after a run: the messages, a checkpoint with a parent, nothing next; the thread's values match", async () => {
      const id = await chatThread("hello");
      const state = await server.client.threads.getState<Values>(id);
      expect(pairs(state)).toEqual([
        ["human", "hello"],
        ["ai", "You said: hello"],
      ]);
      expect(state.next).toEqual([]);
      expect(state.tasks).toEqual([]);
      expect(state.checkpoint).toMatchObject({ thread_id: id, checkpoint_ns: "" });
      expect(typeof state.checkpoint!.checkpoint_id).toBe("string");
      expect(state.parent_checkpoint!.checkpoint_id).not.toBe(state.checkpoint!.checkpoint_id);
      expect(Date.parse(state.created_at!)).not.toBeNaN();
      expect(state.metadata).toMatchObject({ source: "loop" });
      const thread = await server.client.threads.get<Values>(id);
      expect(thread.values.messages.map((m) => m.content)).toEqual(["hello", "You said: hello"]);
    });

    it("an interrupted thread shows the pending task, its interrupt and what runs next", async () => {
      const thread = await server.client.threads.create();
      await server.client.runs.wait(thread.thread_id, "approval", { input: userMessage("q") });
      const state = await server.client.threads.getState<Values>(thread.thread_id);
      expect(state.next).toEqual(["review"]);
      expect(state.tasks).toHaveLength(1);
      expect(state.tasks[0]!.name).toBe("review");
      expect(state.tasks[0]!.interrupts[0]!.value).toEqual({ question: "Send this answer?", draft: "Draft answer to: q" });
      expect((await server.client.threads.get(thread.thread_id)).status).toBe("interrupted");
    });

    it("gets the state at an older checkpoint by id and by checkpoint object", async () => {
      const id = await chatThread("first");
      await server.client.runs.wait(id, "chat", { input: userMessage("second") });
      const history = await server.client.threads.getHistory<Values>(id, { limit: 100 });
      const old = history.find((s) => s.values.messages?.length === 2 && s.next.length === 0)!;
      expect(old).toBeDefined();

      const byId = await server.client.threads.getState<Values>(id, old.checkpoint!.checkpoint_id!);
      expect(pairs(byId)).toEqual([
        ["human", "first"],
        ["ai", "You said: first"],
      ]);
      expect(byId.checkpoint!.checkpoint_id).toBe(old.checkpoint!.checkpoint_id);

      const byObject = await server.client.threads.getState<Values>(id, old.checkpoint!);
      expect(pairs(byObject)).toEqual(pairs(byId));
      expect(byObject.checkpoint!.checkpoint_id).toBe(old.checkpoint!.checkpoint_id);
      // Only the id, as a partial object, works too.
      const partial = await server.client.threads.getState<Values>(id, { checkpoint_id: old.checkpoint!.checkpoint_id } as never);
      expect(pairs(partial)).toEqual(pairs(byId));

      expect(await statusOf(server.client.threads.getState(id, randomUUID()))).toBe(404);
      // The latest state is still the latest.
      expect(pairs(await server.client.threads.getState<Values>(id))).toHaveLength(4);
    });

    it("history: newest first, limit, before (a config or a checkpoint id), metadata filter", async () => {
      const id = await chatThread("one");
      await server.client.runs.wait(id, "chat", { input: userMessage("two") });
      const all = await server.client.threads.getHistory<Values>(id, { limit: 100 });
      // Each chat turn writes three checkpoints (input, start, agent).
      expect(all.length).toBeGreaterThanOrEqual(6);
      const steps = all.map((s) => Number((s.metadata as { step: number }).step));
      expect(steps).toEqual([...steps].sort((a, b) => b - a));
      expect(all[0]!.checkpoint!.checkpoint_id).toBe((await server.client.threads.getState(id)).checkpoint!.checkpoint_id);
      for (let i = 0; i < all.length - 1; i++) expect(all[i]!.parent_checkpoint!.checkpoint_id).toBe(all[i + 1]!.checkpoint!.checkpoint_id);
      expect(all.at(-1)!.parent_checkpoint).toBeNull();

      expect((await server.client.threads.getHistory(id, { limit: 2 })).map((s) => s.checkpoint!.checkpoint_id)).toEqual(
        all.slice(0, 2).map((s) => s.checkpoint!.checkpoint_id),
      );
      expect(await server.client.threads.getHistory(id)).toHaveLength(Math.min(10, all.length));

      const pivot = all[2]!.checkpoint!.checkpoint_id!;
      const before = await server.client.threads.getHistory(id, { limit: 2, before: { configurable: { checkpoint_id: pivot } } });
      expect(before.map((s) => s.checkpoint!.checkpoint_id)).toEqual(all.slice(3, 5).map((s) => s.checkpoint!.checkpoint_id));
      const res = await api(`/threads/${id}/history?limit=2&before=${pivot}`);
      expect(res.status).toBe(200);
      const viaGet = (await res.json()) as ThreadState[];
      expect(viaGet.map((s) => s.checkpoint!.checkpoint_id)).toEqual(all.slice(3, 5).map((s) => s.checkpoint!.checkpoint_id));
      const viaPost = await api(`/threads/${id}/history`, { method: "POST", body: JSON.stringify({ limit: 2, before: pivot }) });
      expect(((await viaPost.json()) as ThreadState[]).map((s) => s.checkpoint!.checkpoint_id)).toEqual(
        all.slice(3, 5).map((s) => s.checkpoint!.checkpoint_id),
      );

      const inputs = await server.client.threads.getHistory(id, { limit: 100, metadata: { source: "input" } });
      expect(inputs).toHaveLength(2);
      for (const s of inputs) expect((s.metadata as { source: string }).source).toBe("input");
    });

    it("history validates limit (422)", async () => {
      const id = await chatThread("x");
      expect((await api(`/threads/${id}/history?limit=0`)).status).toBe(422);
      expect((await api(`/threads/${id}/history`, { method: "POST", body: JSON.stringify({ limit: "many" }) })).status).toBe(422);
    });

    it("updateState writes values as a node; the state, history and thread values follow", async () => {
      const id = await chatThread("hi");
      const before = await server.client.threads.getState<Values>(id);
      const result = await server.client.threads.updateState(id, {
        values: { messages: [{ type: "ai", content: "injected" }] },
        asNode: "agent",
      });
      expect(result.configurable).toMatchObject({ thread_id: id, checkpoint_ns: "" });
      const newId = (result.configurable as { checkpoint_id: string }).checkpoint_id;
      expect(typeof newId).toBe("string");
      // The LangGraph servers' shape: {checkpoint: {...}} — sent too.
      expect((result as unknown as { checkpoint: { checkpoint_id: string } }).checkpoint.checkpoint_id).toBe(newId);

      const after = await server.client.threads.getState<Values>(id);
      expect(after.checkpoint!.checkpoint_id).toBe(newId);
      expect(after.parent_checkpoint!.checkpoint_id).toBe(before.checkpoint!.checkpoint_id);
      expect(pairs(after)).toEqual([
        ["human", "hi"],
        ["ai", "You said: hi"],
        ["ai", "injected"],
      ]);
      expect(after.metadata).toMatchObject({ source: "update" });
      expect(after.next).toEqual([]);
      const thread = await server.client.threads.get<Values>(id);
      expect(thread.values.messages.map((m) => m.content)).toEqual(["hi", "You said: hi", "injected"]);
      expect(thread.status).toBe("idle");

      // The next run continues from the updated state.
      await server.client.runs.wait(id, "chat", { input: userMessage("again") });
      expect(pairs(await server.client.threads.getState<Values>(id)).map((p) => p[1])).toEqual([
        "hi",
        "You said: hi",
        "injected",
        "again",
        "You said: again",
      ]);
    });

    it("updateState from an older checkpoint forks the history", async () => {
      const id = await chatThread("one");
      await server.client.runs.wait(id, "chat", { input: userMessage("two") });
      const history = await server.client.threads.getHistory<Values>(id, { limit: 100 });
      const old = history.find((s) => s.values.messages?.length === 2 && s.next.length === 0)!;
      await server.client.threads.updateState(id, {
        values: { messages: [{ type: "ai", content: "fork" }] },
        asNode: "agent",
        checkpointId: old.checkpoint!.checkpoint_id!,
      });
      const state = await server.client.threads.getState<Values>(id);
      expect(state.values.messages.map((m) => m.content)).toEqual(["one", "You said: one", "fork"]);
      expect(state.parent_checkpoint!.checkpoint_id).toBe(old.checkpoint!.checkpoint_id);
    });

    it("updateState on a thread created with a graph id but never run", async () => {
      const t = await server.client.threads.create({ graphId: "chat" });
      await server.client.threads.updateState(t.thread_id, { values: { messages: [{ type: "human", content: "seeded" }] }, asNode: "agent" });
      const state = await server.client.threads.getState<Values>(t.thread_id);
      expect(pairs(state)).toEqual([["human", "seeded"]]);
      const out = (await server.client.runs.wait(t.thread_id, "chat", { input: userMessage("next") })) as Values;
      expect(out.messages.map((m) => m.content)).toEqual(["seeded", "next", "You said: next"]);
    });

    it("updateState on a thread without a graph is a 4xx naming the problem", async () => {
      const t = await server.client.threads.create();
      const res = await api(`/threads/${t.thread_id}/state`, { method: "POST", body: JSON.stringify({ values: { messages: [] } }) });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toMatch(/graph/);
    });

    it("updateState with a resume-able interrupt: values as a node, then the run continues", async () => {
      const thread = await server.client.threads.create();
      await server.client.runs.wait(thread.thread_id, "approval", { input: userMessage("q") });
      await server.client.threads.updateState(thread.thread_id, { values: { messages: [{ type: "ai", content: "reviewed by hand" }] }, asNode: "review" });
      const state = await server.client.threads.getState<Values>(thread.thread_id);
      expect(state.next).toEqual([]);
      expect(state.values.messages.at(-1)!.content).toBe("reviewed by hand");
      expect((await server.client.threads.get(thread.thread_id)).status).toBe("idle");
    });

    it("updateState is refused with 409 while a run is pending or running, and works after", async () => {
      const id = await chatThread("start");
      const slowConfig = { configurable: { delay_ms: 3000 } };
      const running = await server.client.runs.create(id, "slow", { input: userMessage("slow one"), config: slowConfig });
      const queued = await server.client.runs.create(id, "slow", { input: userMessage("slow two"), config: slowConfig, multitaskStrategy: "enqueue" });
      expect(queued.status).toBe("pending");
      const update = () => server.client.threads.updateState(id, { values: { messages: [{ type: "ai", content: "x" }] }, asNode: "agent" });
      expect(await statusOf(update())).toBe(409);
      await eventually(async () => (await server.client.runs.get(id, running.run_id)).status === "running");
      const res = await api(`/threads/${id}/state`, { method: "POST", body: JSON.stringify({ values: { messages: [] }, as_node: "agent" }) });
      expect(res.status).toBe(409);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/busy/);
      expect((await server.client.threads.get(id)).status).toBe("busy");

      await server.client.runs.join(id, queued.run_id);
      expect(await statusOf(update())).toBe(200);
      expect(pairs(await server.client.threads.getState<Values>(id)).map((p) => p[1])).toEqual([
        "start",
        "You said: start",
        "slow one",
        "You said: slow one",
        "slow two",
        "You said: slow two",
        "x",
      ]);
    });
  });

  describe("supersteps on create", () => {
    it("applies each superstep's updates as the named node, in order", async () => {
      const t = await server.client.threads.create({
        graphId: "chat",
        supersteps: [
          // LangGraph's convention: the input, then the start node passing it on, then the node's answer.
          { updates: [{ values: { messages: [{ type: "human", content: "q1", id: "q1" }] }, asNode: "__input__" }] },
          { updates: [{ values: { messages: [{ type: "human", content: "q1", id: "q1" }] }, asNode: "__start__" }] },
          { updates: [{ values: { messages: [{ type: "ai", content: "a1", id: "a1" }] }, asNode: "agent" }] },
        ],
      });
      expect(t.metadata).toMatchObject({ graph_id: "chat" });
      const state = await server.client.threads.getState<Values>(t.thread_id);
      expect(pairs(state)).toEqual([
        ["human", "q1"],
        ["ai", "a1"],
      ]);
      expect((t.values as Values | null)?.messages?.map((m) => m.content)).toEqual(["q1", "a1"]);
      const history = await server.client.threads.getHistory(t.thread_id, { limit: 100 });
      expect(history.map((s) => (s.metadata as { source: string }).source)).toEqual(["update", "update", "input"]);
      const out = (await server.client.runs.wait(t.thread_id, "chat", { input: userMessage("q2") })) as Values;
      expect(out.messages.map((m) => m.content)).toEqual(["q1", "a1", "q2", "You said: q2"]);
    });

    it("a superstep naming an unknown node is a 422 and leaves no thread", async () => {
      const id = randomUUID();
      const res = await api("/threads", {
        method: "POST",
        body: JSON.stringify({ thread_id: id, graph_id: "chat", supersteps: [{ updates: [{ values: { messages: [] }, as_node: "nope" }] }] }),
      });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toContain("nope");
      expect(await statusOf(server.client.threads.get(id))).toBe(404);
    });

    it("updateState as an unknown node is a 422", async () => {
      const id = await chatThread("x");
      const res = await api(`/threads/${id}/state`, { method: "POST", body: JSON.stringify({ values: { messages: [] }, as_node: "nope" }) });
      expect(res.status).toBe(422);
    });

    it("supersteps without a graph id are refused before a thread is created", async () => {
      const id = randomUUID();
      const res = await api("/threads", {
        method: "POST",
        body: JSON.stringify({ thread_id: id, supersteps: [{ updates: [{ values: {}, as_node: "agent" }] }] }),
      });
      expect(res.status).toBe(422);
      expect(await statusOf(server.client.threads.get(id))).toBe(404);
    });
  });
});

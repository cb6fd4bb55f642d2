/**
 * The assistants API through the SDK's `client.assistants` (and fetch for headers and raw bodies):
 * system assistants, create/get/patch/delete, versions, search/count with pagination, and the
 * graph, schemas and subgraphs of an assistant's graph.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { v5 as uuidv5 } from "uuid";
import { describe, expect, it } from "vitest";
import { FIXTURE_CONFIG, describeBackends, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";
import { jsonFetch, statusOf } from "../helpers/http.js";

const NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";
/** The graph ids of the fixture config (other tests add graphs to it). */
const FIXTURE_GRAPHS = Object.keys((JSON.parse(readFileSync(FIXTURE_CONFIG, "utf8")) as { graphs: Record<string, unknown> }).graphs);

describeBackends("assistants API", (backend) => {
  let server: TestServer;
  const api = (path: string, init: RequestInit = {}) => jsonFetch(server.url, path, init);
  const tag = () => randomUUID().slice(0, 8);

  serverForSuite(backend, (s) => (server = s));

  describe("system assistants", () => {
    it("exist for every graph, with id uuid5(graph id), name = graph id and created_by=system", async () => {
      const system = await server.client.assistants.search({ metadata: { created_by: "system" }, limit: 100 });
      expect(system.map((a) => a.graph_id).sort()).toEqual([...FIXTURE_GRAPHS].sort());
      for (const a of system) {
        expect(a.assistant_id).toBe(uuidv5(a.graph_id, NAMESPACE));
        expect(a.name).toBe(a.graph_id);
        expect(a.metadata).toEqual({ created_by: "system" });
        expect(a.version).toBe(1);
        expect(a.config).toEqual({});
      }
      // A known value, so the namespace itself is checked (not just self-consistency).
      expect(uuidv5("agent", NAMESPACE)).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca");
    });

    it("accepts the graph id wherever an assistant id is expected", async () => {
      const byGraph = await server.client.assistants.get("chat");
      const byId = await server.client.assistants.get(uuidv5("chat", NAMESPACE));
      expect(byGraph).toEqual(byId);
      expect(byGraph.graph_id).toBe("chat");
      const versions = await server.client.assistants.getVersions("chat");
      expect(versions.map((v) => v.version)).toEqual([1]);
      const graph = await server.client.assistants.getGraph("chat");
      expect(graph.nodes.map((n) => n.id)).toContain("agent");
      const schemas = await server.client.assistants.getSchemas("chat");
      expect(schemas.graph_id).toBe("chat");
    });

    it("runs a graph addressed by its graph id", async () => {
      const thread = await server.client.threads.create();
      const out = (await server.client.runs.wait(thread.thread_id, "chat", { input: userMessage("hi") })) as {
        messages: { content: string }[];
      };
      expect(out.messages.at(-1)!.content).toBe("You said: hi");
    });

    it("404s an unknown graph name, an unknown uuid and an unknown id in every route", async () => {
      expect(await statusOf(server.client.assistants.get("no-such-graph"))).toBe(404);
      const missing = randomUUID();
      expect(await statusOf(server.client.assistants.get(missing))).toBe(404);
      expect(await statusOf(server.client.assistants.update(missing, { name: "x" }))).toBe(404);
      expect(await statusOf(server.client.assistants.delete(missing))).toBe(404);
      expect(await statusOf(server.client.assistants.getVersions(missing))).toBe(404);
      expect(await statusOf(server.client.assistants.setLatest(missing, 1))).toBe(404);
      expect(await statusOf(server.client.assistants.getGraph(missing))).toBe(404);
      expect(await statusOf(server.client.assistants.getSchemas(missing))).toBe(404);
      expect(await statusOf(server.client.assistants.getSubgraphs(missing))).toBe(404);
      const res = await api(`/assistants/${missing}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toContain(missing);
    });
  });

  describe("create, get, patch, delete", () => {
    it("creates an assistant with all fields and gets it back", async () => {
      const created = await server.client.assistants.create({
        graphId: "chat",
        name: "Helper",
        description: "helps",
        metadata: { team: "a", n: 1 },
        config: { configurable: { temperature: 0.5 }, tags: ["x"] },
        context: { user: "u1" },
      });
      expect(created).toMatchObject({
        graph_id: "chat",
        name: "Helper",
        description: "helps",
        metadata: { team: "a", n: 1 },
        config: { configurable: { temperature: 0.5 }, tags: ["x"] },
        context: { user: "u1" },
        version: 1,
      });
      expect(created.assistant_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Date.parse(created.created_at)).not.toBeNaN();
      expect(Date.parse(created.updated_at)).not.toBeNaN();
      expect(await server.client.assistants.get(created.assistant_id)).toEqual(created);
    });

    it("defaults the name to Untitled and the rest to empty", async () => {
      const a = await server.client.assistants.create({ graphId: "slow" });
      expect(a.name).toBe("Untitled");
      expect(a.metadata).toEqual({});
      expect(a.config).toEqual({});
    });

    it("with a given id: if_exists raise → 409, do_nothing → the existing assistant unchanged", async () => {
      const id = randomUUID();
      const first = await server.client.assistants.create({ assistantId: id, graphId: "chat", name: "first" });
      expect(first.assistant_id).toBe(id);
      expect(await statusOf(server.client.assistants.create({ assistantId: id, graphId: "chat", name: "second" }))).toBe(409);
      expect(await statusOf(server.client.assistants.create({ assistantId: id, graphId: "chat", name: "second", ifExists: "raise" }))).toBe(409);
      const again = await server.client.assistants.create({ assistantId: id, graphId: "steps", name: "second", ifExists: "do_nothing" });
      expect(again).toEqual(first);
      expect((await server.client.assistants.get(id)).name).toBe("first");
    });

    it("rejects an unknown graph, a bad id and a bad if_exists with 422 naming the field", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ graph_id: "nope" }, "graph_id"],
        [{ graph_id: "chat", assistant_id: "not-a-uuid" }, "assistant_id"],
        [{ graph_id: "chat", if_exists: "overwrite" }, "if_exists"],
        [{}, "graph_id"],
      ];
      for (const [body, field] of cases) {
        const res = await api("/assistants", { method: "POST", body: JSON.stringify(body) });
        expect(res.status, JSON.stringify(body)).toBe(422);
        expect(JSON.stringify(await res.json())).toContain(field);
      }
    });

    it("patch makes a new version: metadata merged, other given fields replaced, the rest kept", async () => {
      const a = await server.client.assistants.create({
        graphId: "chat",
        name: "v1",
        description: "first",
        metadata: { keep: 1, change: "old" },
        config: { configurable: { x: 1 } },
      });
      await new Promise((r) => setTimeout(r, 10));
      const b = await server.client.assistants.update(a.assistant_id, { name: "v2", metadata: { change: "new", added: true } });
      expect(b.version).toBe(2);
      expect(b.name).toBe("v2");
      expect(b.description).toBe("first");
      expect(b.metadata).toEqual({ keep: 1, change: "new", added: true });
      expect(b.config).toEqual({ configurable: { x: 1 } });
      expect(b.created_at).toBe(a.created_at);
      expect(Date.parse(b.updated_at)).toBeGreaterThan(Date.parse(a.updated_at));
      const c = await server.client.assistants.update(a.assistant_id, { config: { configurable: { x: 2 } }, graphId: "slow" });
      expect(c.version).toBe(3);
      expect(c.graph_id).toBe("slow");
      expect(c.config).toEqual({ configurable: { x: 2 } });
      expect(c.name).toBe("v2");
      expect(await server.client.assistants.get(a.assistant_id)).toEqual(c);
    });

    it("patch with an unknown graph is a 422 and changes nothing", async () => {
      const a = await server.client.assistants.create({ graphId: "chat" });
      const res = await api(`/assistants/${a.assistant_id}`, { method: "PATCH", body: JSON.stringify({ graph_id: "nope" }) });
      expect(res.status).toBe(422);
      expect(await server.client.assistants.get(a.assistant_id)).toEqual(a);
      expect((await server.client.assistants.getVersions(a.assistant_id)).length).toBe(1);
    });

    it("delete removes it (404 afterwards), and the raw response lists the id", async () => {
      const a = await server.client.assistants.create({ graphId: "chat" });
      const res = await api(`/assistants/${a.assistant_id}`, { method: "DELETE" });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([a.assistant_id]);
      expect(await statusOf(server.client.assistants.get(a.assistant_id))).toBe(404);
      expect(await statusOf(server.client.assistants.delete(a.assistant_id))).toBe(404);
      expect(await statusOf(server.client.assistants.getVersions(a.assistant_id))).toBe(404);
    });

    it("delete with delete_threads also deletes the threads it ran on, and only those", async () => {
      const a = await server.client.assistants.create({ graphId: "chat" });
      const mine = await server.client.threads.create();
      const other = await server.client.threads.create();
      await server.client.runs.wait(mine.thread_id, a.assistant_id, { input: userMessage("x") });
      await server.client.runs.wait(other.thread_id, "chat", { input: userMessage("y") });
      expect((await server.client.threads.get(mine.thread_id)).metadata).toMatchObject({ assistant_id: a.assistant_id });
      await server.client.assistants.delete(a.assistant_id, { deleteThreads: true });
      expect(await statusOf(server.client.threads.get(mine.thread_id))).toBe(404);
      expect((await server.client.threads.get(other.thread_id)).thread_id).toBe(other.thread_id);
    });

    it("delete without delete_threads keeps the threads", async () => {
      const a = await server.client.assistants.create({ graphId: "chat" });
      const t = await server.client.threads.create();
      await server.client.runs.wait(t.thread_id, a.assistant_id, { input: userMessage("x") });
      await server.client.assistants.delete(a.assistant_id);
      expect((await server.client.threads.get(t.thread_id)).thread_id).toBe(t.thread_id);
    });
  });

  describe("versions and set latest", () => {
    it("lists versions newest first, filters by metadata, pages, and sets an older one as latest", async () => {
      const a = await server.client.assistants.create({ graphId: "chat", name: "one", metadata: { stage: "a" } });
      await server.client.assistants.update(a.assistant_id, { name: "two", metadata: { stage: "b" } });
      await server.client.assistants.update(a.assistant_id, { name: "three", metadata: { stage: "c" } });

      const versions = await server.client.assistants.getVersions(a.assistant_id);
      expect(versions.map((v) => [v.version, v.name, v.metadata?.stage])).toEqual([
        [3, "three", "c"],
        [2, "two", "b"],
        [1, "one", "a"],
      ]);
      for (const v of versions) {
        expect(v.assistant_id).toBe(a.assistant_id);
        expect(v.graph_id).toBe("chat");
      }
      expect((await server.client.assistants.getVersions(a.assistant_id, { metadata: { stage: "b" } })).map((v) => v.version)).toEqual([2]);
      expect((await server.client.assistants.getVersions(a.assistant_id, { limit: 1, offset: 1 })).map((v) => v.version)).toEqual([2]);

      const latest = await server.client.assistants.setLatest(a.assistant_id, 1);
      expect(latest).toMatchObject({ version: 1, name: "one", metadata: { stage: "a" } });
      expect(await server.client.assistants.get(a.assistant_id)).toMatchObject({ version: 1, name: "one" });
      // Setting an older version does not delete the newer ones; a patch after it gets a fresh number.
      expect((await server.client.assistants.getVersions(a.assistant_id)).length).toBe(3);
      const next = await server.client.assistants.update(a.assistant_id, { name: "four" });
      expect(next.version).toBe(4);
      expect(next.metadata).toEqual({ stage: "a" });
    });

    it("set latest to a version that does not exist → 404; a bad version → 422", async () => {
      const a = await server.client.assistants.create({ graphId: "chat" });
      expect(await statusOf(server.client.assistants.setLatest(a.assistant_id, 7))).toBe(404);
      const res = await api(`/assistants/${a.assistant_id}/latest`, { method: "POST", body: JSON.stringify({ version: "x" }) });
      expect(res.status).toBe(422);
      expect((await server.client.assistants.get(a.assistant_id)).version).toBe(1);
    });

    it("a run uses the assistant's current version's config", async () => {
      const a = await server.client.assistants.create({ graphId: "factory", config: { configurable: { greeting: "hola" } } });
      await server.client.assistants.update(a.assistant_id, { config: { configurable: { greeting: "salut" } } });
      const t1 = await server.client.threads.create();
      const out1 = (await server.client.runs.wait(t1.thread_id, a.assistant_id, { input: userMessage("x") })) as { messages: { content: string }[] };
      expect(out1.messages.at(-1)!.content).toBe("salut");
      await server.client.assistants.setLatest(a.assistant_id, 1);
      const t2 = await server.client.threads.create();
      const out2 = (await server.client.runs.wait(t2.thread_id, a.assistant_id, { input: userMessage("x") })) as { messages: { content: string }[] };
      expect(out2.messages.at(-1)!.content).toBe("hola");
    });

    // Run creation keeps assistants in memory (runs/assistant-cache.ts): a run made after an update
    // or a delete must see it, though the assistant was already kept from an earlier run.
    it("a run after an update uses the new config; after a delete, creating a run is a 404", async () => {
      const a = await server.client.assistants.create({ graphId: "factory", config: { configurable: { greeting: "hola" } } });
      const reply = async () => {
        const t = await server.client.threads.create();
        const out = (await server.client.runs.wait(t.thread_id, a.assistant_id, { input: userMessage("x") })) as { messages: { content: string }[] };
        return out.messages.at(-1)!.content;
      };
      expect(await reply()).toBe("hola");
      await server.client.assistants.update(a.assistant_id, { config: { configurable: { greeting: "salut" } } });
      expect(await reply()).toBe("salut");
      await server.client.assistants.setLatest(a.assistant_id, 1);
      expect(await reply()).toBe("hola");

      await server.client.assistants.delete(a.assistant_id);
      const t = await server.client.threads.create();
      const res = await api(`/threads/${t.thread_id}/runs`, { method: "POST", body: JSON.stringify({ assistant_id: a.assistant_id, input: userMessage("x") }) });
      expect(res.status).toBe(404);
      expect(((await res.json()) as { detail: string }).detail).toContain(a.assistant_id);
      // nothing was queued on the thread
      expect(await server.client.runs.list(t.thread_id)).toEqual([]);
    });
  });

  describe("search and count", () => {
    it("filters by graph_id, name (substring, any case) and metadata, and counts the same", async () => {
      const t = tag();
      await server.client.assistants.create({ graphId: "chat", name: `Alpha ${t}`, metadata: { t, kind: "x" } });
      await server.client.assistants.create({ graphId: "chat", name: `Beta ${t}`, metadata: { t, kind: "y" } });
      await server.client.assistants.create({ graphId: "steps", name: `alphabet ${t}`, metadata: { t, kind: "x" } });

      const names = async (q: Parameters<TestServer["client"]["assistants"]["search"]>[0]) =>
        (await server.client.assistants.search(q)).map((a) => a.name).sort();
      expect(await names({ metadata: { t } })).toEqual([`Alpha ${t}`, `Beta ${t}`, `alphabet ${t}`].sort());
      expect(await names({ metadata: { t }, graphId: "chat" })).toEqual([`Alpha ${t}`, `Beta ${t}`]);
      expect(await names({ metadata: { t, kind: "x" } })).toEqual([`Alpha ${t}`, `alphabet ${t}`].sort());
      expect(await names({ name: `ALPHA` , metadata: { t } })).toEqual([`Alpha ${t}`, `alphabet ${t}`].sort());
      expect(await names({ name: t })).toHaveLength(3);
      expect(await names({ metadata: { t: "other" } })).toEqual([]);

      expect(await server.client.assistants.count({ metadata: { t } })).toBe(3);
      expect(await server.client.assistants.count({ metadata: { t }, graphId: "steps" })).toBe(1);
      expect(await server.client.assistants.count({ name: `beta ${t}` })).toBe(1);
      expect(await server.client.assistants.count({ graphId: "chat", metadata: { created_by: "system" } })).toBe(1);
    });

    it("treats % and _ in a name filter literally", async () => {
      const t = tag();
      await server.client.assistants.create({ graphId: "chat", name: `50% off ${t}` });
      await server.client.assistants.create({ graphId: "chat", name: `500 off ${t}` });
      expect((await server.client.assistants.search({ name: `0% off ${t}` })).map((a) => a.name)).toEqual([`50% off ${t}`]);
      expect(await server.client.assistants.count({ name: `5_0 off ${t}` })).toBe(0);
    });

    it("pages with limit/offset, newest first, with X-Pagination-Total and X-Pagination-Next", async () => {
      const t = tag();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await server.client.assistants.create({ graphId: "chat", name: `p${i}`, metadata: { t } })).assistant_id);
      const newestFirst = [...ids].reverse();

      const page = async (limit: number, offset: number) => {
        const res = await api("/assistants/search", { method: "POST", body: JSON.stringify({ metadata: { t }, limit, offset }) });
        expect(res.status).toBe(200);
        const body = (await res.json()) as { assistant_id: string }[];
        return { ids: body.map((a) => a.assistant_id), total: res.headers.get("x-pagination-total"), next: res.headers.get("x-pagination-next") };
      };
      expect(await page(2, 0)).toEqual({ ids: newestFirst.slice(0, 2), total: "5", next: "2" });
      expect(await page(2, 2)).toEqual({ ids: newestFirst.slice(2, 4), total: "5", next: "4" });
      expect(await page(2, 4)).toEqual({ ids: newestFirst.slice(4), total: "5", next: null });
      expect(await page(10, 0)).toEqual({ ids: newestFirst, total: "5", next: null });
      expect(await page(10, 7)).toEqual({ ids: [], total: "5", next: null });

      const withPages = await server.client.assistants.search({ metadata: { t }, limit: 3, includePagination: true });
      expect(withPages.assistants.map((a) => a.assistant_id)).toEqual(newestFirst.slice(0, 3));
      expect(withPages.next).toBe("3");
      const last = await server.client.assistants.search({ metadata: { t }, limit: 3, offset: 3, includePagination: true });
      expect(last.assistants.map((a) => a.assistant_id)).toEqual(newestFirst.slice(3));
      expect(last.next).toBeNull();
    });

    it("sorts by name either way, and selects fields", async () => {
      const t = tag();
      for (const n of ["b", "c", "a"]) await server.client.assistants.create({ graphId: "chat", name: `${n}-${t}`, metadata: { t } });
      const asc = await server.client.assistants.search({ metadata: { t }, sortBy: "name", sortOrder: "asc" });
      expect(asc.map((a) => a.name)).toEqual([`a-${t}`, `b-${t}`, `c-${t}`]);
      const desc = await server.client.assistants.search({ metadata: { t }, sortBy: "name", sortOrder: "desc" });
      expect(desc.map((a) => a.name)).toEqual([`c-${t}`, `b-${t}`, `a-${t}`]);
      const selected = await server.client.assistants.search({ metadata: { t }, select: ["assistant_id", "name"] });
      expect(selected).toHaveLength(3);
      for (const a of selected) expect(Object.keys(a).sort()).toEqual(["assistant_id", "name"]);
    });

    it("validates limit and offset (422)", async () => {
      for (const body of [{ limit: 0 }, { limit: 1001 }, { offset: -1 }, { sort_by: "nope" }]) {
        const res = await api("/assistants/search", { method: "POST", body: JSON.stringify(body) });
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
    });

    it("search and count work without a body", async () => {
      const res = await fetch(`${server.url}/assistants/search`, { method: "POST" });
      expect(res.status).toBe(200);
      expect(Number(res.headers.get("x-pagination-total"))).toBeGreaterThanOrEqual(FIXTURE_GRAPHS.length);
      const count = await fetch(`${server.url}/assistants/count`, { method: "POST" });
      expect(count.status).toBe(200);
      expect(await count.json()).toBe(Number(res.headers.get("x-pagination-total")));
    });
  });

  describe("graph, schemas and subgraphs", () => {
    it("returns the graph's nodes and edges", async () => {
      const graph = await server.client.assistants.getGraph("steps");
      expect(graph.nodes.map((n) => n.id).sort()).toEqual(["__end__", "__start__", "one", "three", "two"]);
      const edges = graph.edges.map((e) => `${e.source}->${e.target}`).sort();
      expect(edges).toEqual(["__start__->one", "one->two", "three->__end__", "two->three"]);
    });

    it("expands subgraphs with xray (true or a depth)", async () => {
      const flat = await server.client.assistants.getGraph("nested");
      expect(flat.nodes.map((n) => String(n.id)).sort()).toEqual(["__end__", "__start__", "inner_graph"]);
      for (const xray of [true, 1] as const) {
        const expanded = await server.client.assistants.getGraph("nested", { xray });
        const ids = expanded.nodes.map((n) => String(n.id));
        expect(ids, String(xray)).toEqual(expect.arrayContaining(["inner_graph:first", "inner_graph:second"]));
        expect(ids).not.toContain("inner_graph");
        expect(expanded.edges.map((e) => `${e.source}->${e.target}`)).toContain("inner_graph:first->inner_graph:second");
      }
      // The query string form the SDK sends, and xray=false.
      const res = await fetch(`${server.url}/assistants/nested/graph?xray=false`);
      expect(((await res.json()) as { nodes: { id: string }[] }).nodes.map((n) => n.id)).toContain("inner_graph");
    });

    it("returns input/output/state/config schemas naming the state keys", async () => {
      const schemas = await server.client.assistants.getSchemas("chat");
      expect(schemas.graph_id).toBe("chat");
      for (const key of ["input_schema", "output_schema", "state_schema"] as const) {
        const s = schemas[key] as { type?: string; properties?: Record<string, unknown> } | null;
        expect(s, key).toBeTruthy();
        expect(Object.keys(s!.properties ?? {}), key).toContain("messages");
      }
      expect(schemas).toHaveProperty("config_schema");
      expect(schemas).toHaveProperty("context_schema");
      const created = await server.client.assistants.create({ graphId: "steps" });
      expect((await server.client.assistants.getSchemas(created.assistant_id)).graph_id).toBe("steps");
    });

    it("lists the subgraphs of the parent graph, one by namespace, none for a flat graph", async () => {
      const subs = await server.client.assistants.getSubgraphs("parent");
      expect(Object.keys(subs)).toEqual(["child"]);
      const child = subs.child as { state_schema?: { properties?: Record<string, unknown> } };
      expect(Object.keys(child.state_schema?.properties ?? {})).toContain("messages");
      const one = await server.client.assistants.getSubgraphs("parent", { namespace: "child" });
      expect(Object.keys(one)).toEqual(["child"]);
      const recursive = await server.client.assistants.getSubgraphs("parent", { recurse: true });
      expect(Object.keys(recursive)).toEqual(["child"]);
      expect(await server.client.assistants.getSubgraphs("chat")).toEqual({});
      expect(await statusOf(server.client.assistants.getSubgraphs("parent", { namespace: "nope" }))).toBe(404);
    });
  });
});

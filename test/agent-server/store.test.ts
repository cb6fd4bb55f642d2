/**
 * The key-value store over HTTP (`/store/*`), through the SDK's `client.store` and plain fetch:
 * put/get/delete, search (prefix, filter, query, paging) and namespace listing, plus bad labels.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackages, tempProject, type TempProject } from "../helpers/projects.js";
import { describeBackends, type TestServer, serverForSuite, startTestServer } from "../helpers/server.js";
import { jsonFetch, statusOf } from "../helpers/http.js";

describeBackends("store API", (backend) => {
  let server: TestServer;
  // Every test works under its own root label so the tests do not see each other's items.
  const root = () => `t${randomUUID().slice(0, 8)}`;
  const api = (path: string, init: RequestInit = {}) => jsonFetch(server.url, path, init);

  serverForSuite(backend, (s) => (server = s));

  describe("items", () => {
    it("puts, gets, overwrites and deletes an item", async () => {
      const ns = [root(), "prefs"];
      await server.client.store.putItem(ns, "theme", { color: "dark", size: 12 });
      const item = await server.client.store.getItem(ns, "theme");
      expect(item).not.toBeNull();
      expect(item!.namespace).toEqual(ns);
      expect(item!.key).toBe("theme");
      expect(item!.value).toEqual({ color: "dark", size: 12 });
      expect(Date.parse(String(item!.createdAt))).not.toBeNaN();
      const created = Date.parse(String(item!.createdAt));

      await new Promise((r) => setTimeout(r, 20));
      await server.client.store.putItem(ns, "theme", { color: "light" });
      const updated = await server.client.store.getItem(ns, "theme");
      expect(updated!.value).toEqual({ color: "light" });
      expect(Date.parse(String(updated!.createdAt))).toBe(created);
      expect(Date.parse(String(updated!.updatedAt))).toBeGreaterThan(created);

      await server.client.store.deleteItem(ns, "theme");
      expect(await server.client.store.getItem(ns, "theme")).toBeNull();
    });

    it("answers a missing item with null (what the SDK's getItem expects)", async () => {
      expect(await server.client.store.getItem([root()], "nope")).toBeNull();
      const res = await api(`/store/items?namespace=${root()}.x&key=nope`);
      expect(res.status).toBe(200);
      expect(await res.json()).toBeNull();
    });

    it("returns the item's JSON shape over HTTP", async () => {
      const r = root();
      await server.client.store.putItem([r, "a"], "k", { n: 1 });
      const res = await api(`/store/items?namespace=${r}.a&key=k`);
      expect(res.status).toBe(200);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(["created_at", "key", "namespace", "updated_at", "value"]);
      expect(body).toMatchObject({ namespace: [r, "a"], key: "k", value: { n: 1 } });
    });

    it("keeps items in different namespaces apart", async () => {
      const r = root();
      await server.client.store.putItem([r, "a"], "k", { which: "a" });
      await server.client.store.putItem([r, "b"], "k", { which: "b" });
      expect((await server.client.store.getItem([r, "a"], "k"))!.value).toEqual({ which: "a" });
      expect((await server.client.store.getItem([r, "b"], "k"))!.value).toEqual({ which: "b" });
      await server.client.store.deleteItem([r, "a"], "k");
      expect(await server.client.store.getItem([r, "a"], "k")).toBeNull();
      expect((await server.client.store.getItem([r, "b"], "k"))!.value).toEqual({ which: "b" });
    });

    it("accepts labels with dashes, spaces and unicode and gives them back intact", async () => {
      const ns = [root(), "a-b", "two words", "ünï"];
      await server.client.store.putItem(ns, "k-1", { ok: true });
      const item = await server.client.store.getItem(ns, "k-1");
      expect(item?.namespace).toEqual(ns);
      const found = await server.client.store.searchItems([ns[0]!]);
      expect(found.items.map((i) => i.namespace)).toEqual([ns]);
      const listed = await server.client.store.listNamespaces({ prefix: [ns[0]!] });
      expect(listed.namespaces).toEqual([ns]);
    });
  });

  describe("bad namespaces and bodies", () => {
    it("rejects a label containing '.' with 422", async () => {
      const res = await api("/store/items", { method: "PUT", body: JSON.stringify({ namespace: ["a.b"], key: "k", value: {} }) });
      expect(res.status).toBe(422);
      expect(JSON.stringify(await res.json())).toContain("namespace");
    });

    it("rejects an empty label with 422 (put, delete and get)", async () => {
      const put = await api("/store/items", { method: "PUT", body: JSON.stringify({ namespace: ["a", ""], key: "k", value: {} }) });
      expect(put.status).toBe(422);
      const del = await api("/store/items", { method: "DELETE", body: JSON.stringify({ namespace: [""], key: "k" }) });
      expect(del.status).toBe(422);
      const get = await api("/store/items?namespace=a..b&key=k");
      expect(get.status).toBe(422);
    });

    it("rejects an empty namespace, a missing key and a non-object value with 422", async () => {
      for (const body of [
        { namespace: [], key: "k", value: {} },
        { namespace: ["a"], value: {} },
        { namespace: ["a"], key: "k", value: "a string" },
      ]) {
        const res = await api("/store/items", { method: "PUT", body: JSON.stringify(body) });
        expect(res.status, JSON.stringify(body)).toBe(422);
      }
    });

    it("answers labels the store cannot keep (reserved root, ':', LIKE wildcards) with 422 naming the label, never 500", async () => {
      for (const namespace of [["langgraph", "x"], ["a:b"], ["a%"], ["user_1"], ["a\\b"]]) {
        const res = await api("/store/items", { method: "PUT", body: JSON.stringify({ namespace, key: "k", value: {} }) });
        expect(res.status, JSON.stringify(namespace)).toBe(422);
        const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
        expect(body.detail[0]!.loc.slice(0, 2)).toEqual(["body", "namespace"]);
        expect(body.detail[0]!.msg).toContain(JSON.stringify(namespace[0]));
      }
      const get = await api("/store/items?namespace=user_1&key=k");
      expect(get.status).toBe(422);
    });

    it("a wildcard in a search prefix matches literally, not every namespace", async () => {
      const r = root();
      await server.client.store.putItem([r], "k", { v: 1 });
      for (const prefix of [["%"], ["_"], [`${r.slice(0, 3)}%`]]) {
        const res = await api("/store/items/search", { method: "POST", body: JSON.stringify({ namespace_prefix: prefix }) });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { items: unknown[] }).items).toEqual([]);
      }
    });

    it("the SDK refuses a '.' label before sending a get", async () => {
      await expect(server.client.store.getItem(["a.b"], "k")).rejects.toThrow(/period/);
    });
  });

  describe("search", () => {
    it("finds items under a namespace prefix, newest first, not under a sibling that shares the text prefix", async () => {
      const r = root();
      await server.client.store.putItem([r, "user"], "one", { n: 1 });
      await server.client.store.putItem([r, "user", "deep"], "two", { n: 2 });
      await server.client.store.putItem([r, "users"], "other", { n: 3 });
      const { items } = await server.client.store.searchItems([r, "user"]);
      expect(items.map((i) => i.key).sort()).toEqual(["one", "two"]);
      const all = await server.client.store.searchItems([r]);
      expect(all.items).toHaveLength(3);
      for (const i of all.items) {
        expect(i.namespace[0]).toBe(r);
        expect(typeof i.value).toBe("object");
      }
    });

    it("searches the whole store with an empty prefix", async () => {
      const r = root();
      await server.client.store.putItem([r], "k", { marker: r });
      const { items } = await server.client.store.searchItems([], { filter: { marker: r } });
      expect(items.map((i) => [i.namespace, i.key])).toEqual([[[r], "k"]]);
      const res = await api("/store/items/search", { method: "POST", body: JSON.stringify({ filter: { marker: r } }) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { items: unknown[] }).items).toHaveLength(1);
    });

    it("filters on value fields, with equality and operators", async () => {
      const r = root();
      await server.client.store.putItem([r], "a", { kind: "fruit", price: 1, tags: { fresh: true } });
      await server.client.store.putItem([r], "b", { kind: "fruit", price: 5 });
      await server.client.store.putItem([r], "c", { kind: "veg", price: 3 });
      const keys = async (filter: Record<string, unknown>) =>
        (await server.client.store.searchItems([r], { filter })).items.map((i) => i.key).sort();
      expect(await keys({ kind: "fruit" })).toEqual(["a", "b"]);
      expect(await keys({ kind: "veg" })).toEqual(["c"]);
      expect(await keys({ kind: "meat" })).toEqual([]);
      expect(await keys({ price: { $gt: 2 } })).toEqual(["b", "c"]);
      expect(await keys({ kind: "fruit", price: { $lte: 1 } })).toEqual(["a"]);
      expect(await keys({ tags: { fresh: true } })).toEqual(["a"]);
    });

    it("matches a text query against the values", async () => {
      const r = root();
      await server.client.store.putItem([r], "pasta", { text: "I like spaghetti carbonara" });
      await server.client.store.putItem([r], "fish", { text: "grilled salmon with lemon" });
      const { items } = await server.client.store.searchItems([r], { query: "salmon" });
      expect(items.map((i) => i.key)).toEqual(["fish"]);
      const none = await server.client.store.searchItems([r], { query: "pizza" });
      expect(none.items).toEqual([]);
    });

    it("pages with limit and offset", async () => {
      const r = root();
      for (let i = 0; i < 5; i++) await server.client.store.putItem([r], `k${i}`, { i });
      const page = async (limit: number, offset: number) =>
        (await server.client.store.searchItems([r], { limit, offset })).items.map((i) => i.key);
      const first = await page(2, 0);
      const second = await page(2, 2);
      const third = await page(2, 4);
      expect(first).toHaveLength(2);
      expect(second).toHaveLength(2);
      expect(third).toHaveLength(1);
      expect(new Set([...first, ...second, ...third])).toEqual(new Set(["k0", "k1", "k2", "k3", "k4"]));
      expect(await page(10, 5)).toEqual([]);
      // The default limit is 10.
      for (let i = 5; i < 12; i++) await server.client.store.putItem([r], `k${i}`, { i });
      expect((await server.client.store.searchItems([r])).items).toHaveLength(10);
    });

    it("rejects a bad limit with 422", async () => {
      const res = await api("/store/items/search", { method: "POST", body: JSON.stringify({ namespace_prefix: ["a"], limit: 0 }) });
      expect(res.status).toBe(422);
    });
  });

  describe("namespaces", () => {
    it("lists namespaces by prefix, suffix and max depth", async () => {
      const r = root();
      const spaces = [
        [r, "users", "alice", "prefs"],
        [r, "users", "bob", "prefs"],
        [r, "users", "bob", "memories"],
        [r, "docs"],
      ];
      for (const ns of spaces) await server.client.store.putItem(ns, "k", { v: 1 });
      const sorted = (xs: string[][]) => xs.map((x) => x.join("/")).sort();

      const all = await server.client.store.listNamespaces({ prefix: [r] });
      expect(sorted(all.namespaces)).toEqual(sorted(spaces));

      const users = await server.client.store.listNamespaces({ prefix: [r, "users"] });
      expect(sorted(users.namespaces)).toEqual(sorted(spaces.slice(0, 3)));

      const prefs = await server.client.store.listNamespaces({ prefix: [r], suffix: ["prefs"] });
      expect(sorted(prefs.namespaces)).toEqual(sorted([spaces[0]!, spaces[1]!]));

      const depth2 = await server.client.store.listNamespaces({ prefix: [r], maxDepth: 2 });
      expect(sorted(depth2.namespaces)).toEqual(sorted([[r, "users"], [r, "docs"]]));

      const depth3 = await server.client.store.listNamespaces({ prefix: [r, "users"], maxDepth: 3 });
      expect(sorted(depth3.namespaces)).toEqual(sorted([[r, "users", "alice"], [r, "users", "bob"]]));
    });

    it("pages namespaces with limit and offset", async () => {
      const r = root();
      for (let i = 0; i < 4; i++) await server.client.store.putItem([r, `n${i}`], "k", { i });
      const a = await server.client.store.listNamespaces({ prefix: [r], limit: 2, offset: 0 });
      const b = await server.client.store.listNamespaces({ prefix: [r], limit: 2, offset: 2 });
      expect(a.namespaces).toHaveLength(2);
      expect(b.namespaces).toHaveLength(2);
      expect(new Set([...a.namespaces, ...b.namespaces].map((n) => n.join("/")))).toEqual(
        new Set([0, 1, 2, 3].map((i) => `${r}/n${i}`)),
      );
    });

    it("a deleted item's namespace disappears from the listing", async () => {
      const r = root();
      await server.client.store.putItem([r, "gone"], "k", { v: 1 });
      expect((await server.client.store.listNamespaces({ prefix: [r] })).namespaces).toEqual([[r, "gone"]]);
      await server.client.store.deleteItem([r, "gone"], "k");
      expect((await server.client.store.listNamespaces({ prefix: [r] })).namespaces).toEqual([]);
    });

    it("rejects max_depth 0 with 422", async () => {
      const res = await api("/store/namespaces", { method: "POST", body: JSON.stringify({ max_depth: 0 }) });
      expect(res.status).toBe(422);
    });
  });

  it("deleting a missing item is not an error", async () => {
    expect(await statusOf(server.client.store.deleteItem([root()], "never-there"))).toBe(200);
  });
  it("ttl (minutes) sets the item's expiry; expired items are not returned", async () => {
    await server.client.store.putItem(["ttl"], "k", { v: 1 }, { ttl: 5 });
    const { rows } = await server.handle.ctx.pool.query<{ minutes: number }>(
      "SELECT extract(epoch FROM expires_at - now()) / 60 AS minutes FROM store WHERE namespace_path = 'ttl' AND key = 'k'",
    );
    expect(Number(rows[0]!.minutes)).toBeGreaterThan(4);
    expect(Number(rows[0]!.minutes)).toBeLessThanOrEqual(5);
    await server.handle.ctx.pool.query("UPDATE store SET expires_at = now() - interval '1 second' WHERE namespace_path = 'ttl'");
    expect(await server.client.store.getItem(["ttl"], "k")).toBeNull();
    expect((await server.client.store.searchItems(["ttl"])).items).toEqual([]);
  });
});

/** A graph whose node searches the store with a text query, as a retriever over the store does. */
const SEARCH_GRAPH = `
import { Annotation, StateGraph } from "@langchain/langgraph";
const State = Annotation.Root({ prefix: Annotation<string[]>, query: Annotation<string>, found: Annotation<string[]> });
export const graph = new StateGraph(State)
  .addNode("search", async (s, config) => ({ found: (await config.store!.search(s.prefix, { query: s.query })).map((i) => String(i.value.text)) }))
  .addEdge("__start__", "search")
  .compile();
`;

describeBackends("graphs' store search with a text query (no index configured)", (backend) => {
  let project: TempProject;
  let server: TestServer;
  beforeAll(async () => {
    project = await tempProject({ "package.json": JSON.stringify({ type: "module" }), "graph.ts": SEARCH_GRAPH }, { search: "./graph.ts:graph" });
    await installPackages(project, [], ["@langchain/langgraph", "@langchain/core", "@langchain/langgraph-checkpoint"]);
    server = await startTestServer(backend, { configPath: project.config });
  });
  afterAll(async () => {
    await server?.close();
    await project?.remove();
  });

  it("answers inside runs, several at once, with the matching items only (it used to wait forever for a second pool connection)", async () => {
    const r = `t${randomUUID().slice(0, 8)}`;
    await server.client.store.putItem([r, "notes"], "a", { text: "green tea in the morning" });
    await server.client.store.putItem([r, "notes"], "b", { text: "black coffee at noon" });
    await server.client.store.putItem([`${r}x`, "notes"], "c", { text: "more tea, in a sibling namespace" });
    const runs = Array.from({ length: 6 }, () => server.client.runs.wait(null, "search", { input: { prefix: [r], query: "tea" } }) as Promise<{ found: string[] }>);
    for (const out of await Promise.all(runs)) expect(out.found).toEqual(["green tea in the morning"]);
  });
});

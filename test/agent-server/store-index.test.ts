/**
 * Semantic search in the store (`store.index` of langgraph.json), through the SDK's `client.store`
 * and plain HTTP: ranking by cosine similarity with scores, `fields` and per-put `index`, filter and
 * paging, a graph node searching its own store, embedding failures that write nothing, start-up
 * failures of a bad `embed`, and `"openai:<model>"` against a local fake embeddings endpoint.
 * The fixture's embedding counts words of a small vocabulary, so expected scores are exact.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { copyFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IndexedPostgresStore } from "../../src/agent-server/storage/store-index/indexed-store.js";
import { cosine, vocabVector } from "../fixtures/store-index/vocab.js";
import { jsonFetch } from "../helpers/http.js";
import { tempProject, type TempProject } from "../helpers/projects.js";
import { BACKENDS, ROOT, createTestDatabase, describeBackends, servicesUp, startTestServer, type TestServer } from "../helpers/server.js";

const FIXTURE = path.join(ROOT, "test/fixtures/store-index");
const CONFIG = path.join(FIXTURE, "langgraph.json");
const expected = (query: string, text: string) => cosine(vocabVector(query), vocabVector(text));

describeBackends("store.index semantic search", (backend) => {
  let server: TestServer;
  const root = () => `t${randomUUID().slice(0, 8)}`;
  const api = (p: string, init: RequestInit = {}) => jsonFetch(server.url, p, init);

  beforeAll(async () => {
    server = await startTestServer(backend, { configPath: CONFIG });
  });
  afterAll(() => server?.close());

  it("ranks items by cosine similarity to the query and returns the scores", async () => {
    const r = root();
    const docs: Record<string, string> = {
      pets: "my cat, my dog, my pet",
      food: "pizza and pasta are food",
      mixed: "a dog eats pizza",
      travel: "car or train",
    };
    for (const [key, text] of Object.entries(docs)) await server.client.store.putItem([r, "docs"], key, { text });
    const query = "dog pet";
    const { items } = await server.client.store.searchItems([r], { query });
    // items with no word in common score 0 and still come (they have vectors), last
    const want = Object.entries(docs)
      .map(([key, text]) => ({ key, score: expected(query, text) }))
      .sort((a, b) => b.score - a.score || 0);
    expect(items.map((i) => i.key).slice(0, 2)).toEqual(["pets", "mixed"]);
    expect(items).toHaveLength(4);
    for (const item of items) {
      expect(item.score).toBeCloseTo(want.find((w) => w.key === item.key)!.score, 5);
      expect(item.value).toEqual({ text: docs[item.key] });
      expect(item.namespace).toEqual([r, "docs"]);
    }
    expect(items[0]!.score).toBeGreaterThan(items[1]!.score!);
    // the raw HTTP shape: score beside the usual fields
    const res = await api("/store/items/search", { method: "POST", body: JSON.stringify({ namespace_prefix: [r], query: "pasta food", limit: 1 }) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { items: Record<string, unknown>[] };
    expect(body.items).toHaveLength(1);
    expect(body.items[0]).toMatchObject({ key: "food", namespace: [r, "docs"] });
    expect(body.items[0]!.score).toBeCloseTo(expected("pasta food", docs.food!), 5);
  });

  it("uses pgvector where it can (always on the embedded database)", () => {
    const store = server.handle.ctx.store;
    expect(store).toBeInstanceOf(IndexedPostgresStore);
    if (backend === "pglite") expect((store as IndexedPostgresStore).vectorMode).toBe("pgvector");
  });

  it("embeds the configured fields (nested ones too), and a put's own index overrides them", async () => {
    const r = root();
    // fields: ["text", "meta.title"] — words elsewhere in the value are not embedded
    await server.client.store.putItem([r], "titled", { text: "car", meta: { title: "cat cat cat" }, other: "pizza" });
    await server.client.store.putItem([r], "other-only", { text: "train", other: "pizza pizza" });
    let { items } = await server.client.store.searchItems([r], { query: "cat" });
    expect(items[0]!.key).toBe("titled");
    expect(items[0]!.score).toBeCloseTo(1, 5); // its best field (meta.title) is all "cat"
    ({ items } = await server.client.store.searchItems([r], { query: "pizza" }));
    expect(items.every((i) => i.score === 0)).toBe(true); // "other" was not embedded

    // index: ["other"] for this put only
    await server.client.store.putItem([r], "other-only", { text: "train", other: "pizza pizza" }, { index: ["other"] });
    ({ items } = await server.client.store.searchItems([r], { query: "pizza" }));
    expect(items[0]!.key).toBe("other-only");
    expect(items[0]!.score).toBeCloseTo(1, 5);
  });

  it("leaves an item put with index: false out of query results, not out of the store", async () => {
    const r = root();
    await server.client.store.putItem([r], "indexed", { text: "dog" });
    await server.client.store.putItem([r], "hidden", { text: "dog dog" }, { index: false });
    const { items } = await server.client.store.searchItems([r], { query: "dog" });
    expect(items.map((i) => i.key)).toEqual(["indexed"]);
    expect((await server.client.store.getItem([r], "hidden"))!.value).toEqual({ text: "dog dog" });
    const plain = await server.client.store.searchItems([r]);
    expect(plain.items.map((i) => i.key).sort()).toEqual(["hidden", "indexed"]);
    // overwriting an indexed item with index: false drops its old vectors
    await server.client.store.putItem([r], "indexed", { text: "dog" }, { index: false });
    expect((await server.client.store.searchItems([r], { query: "dog" })).items).toEqual([]);
  });

  it("applies the namespace prefix, filter, limit and offset to a query", async () => {
    const r = root();
    await server.client.store.putItem([r, "a"], "a1", { text: "cat", kind: "x" });
    await server.client.store.putItem([r, "a"], "a2", { text: "cat dog", kind: "y" });
    await server.client.store.putItem([r, "a"], "a3", { text: "cat dog dog car", kind: "x" });
    await server.client.store.putItem([r, "ab"], "b1", { text: "cat", kind: "x" }); // not under [r, "a"]
    const byScore = (await server.client.store.searchItems([r, "a"], { query: "cat" })).items.map((i) => i.key);
    expect(byScore).toEqual(["a1", "a2", "a3"]);
    const filtered = await server.client.store.searchItems([r, "a"], { query: "cat", filter: { kind: "x" } });
    expect(filtered.items.map((i) => i.key)).toEqual(["a1", "a3"]);
    const paged = await server.client.store.searchItems([r, "a"], { query: "cat", limit: 1, offset: 1 });
    expect(paged.items.map((i) => i.key)).toEqual(["a2"]);
  });

  it("gives graphs the same ranking in their own store.search, and embeds their puts", async () => {
    const r = root();
    await server.client.store.putItem([r], "pets", { text: "cat and dog" });
    await server.client.store.putItem([r], "food", { text: "pizza" });
    await server.client.store.putItem([r], "dogs", { text: "dog dog dog" });
    const viaHttp = (await server.client.store.searchItems([r], { query: "dog" })).items;
    const thread = await server.client.threads.create();
    const state = (await server.client.runs.wait(thread.thread_id, "searcher", { input: { query: "dog", prefix: [r] } })) as {
      hits: { key: string; score: number }[];
    };
    expect(state.hits.map((h) => h.key)).toEqual(viaHttp.map((i) => i.key));
    state.hits.forEach((h, i) => expect(h.score).toBeCloseTo(viaHttp[i]!.score!, 6));
    expect(state.hits[0]!.key).toBe("dogs");
    // the node's put went through the index: "remembered dog" is found by meaning
    const after = await server.client.store.searchItems([r], { query: "dog", limit: 10 });
    const fromGraph = after.items.find((i) => i.key === "from-graph");
    expect(fromGraph?.score).toBeCloseTo(expected("dog", "remembered dog"), 5);
  });

  it("refuses a put whose embedding fails or has the wrong size, leaving the previous item as it was", async () => {
    const r = root();
    await server.client.store.putItem([r], "k", { text: "cat" });
    for (const text of ["explode now", "shortvec"]) {
      const res = await api("/store/items", { method: "PUT", body: JSON.stringify({ namespace: [r], key: "k", value: { text } }) });
      expect(res.status).toBe(502);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).toMatch(text === "shortvec" ? /3 dimensions, but store\.index\.dims is 8/ : /embedding failed: the embedding service is down/);
      expect((await server.client.store.getItem([r], "k"))!.value).toEqual({ text: "cat" });
      const { items } = await server.client.store.searchItems([r], { query: "cat" });
      expect(items.map((i) => [i.key, i.score])).toEqual([["k", expect.closeTo(1, 5)]]);
    }
    // a new key whose embedding fails is not created at all
    const res = await api("/store/items", { method: "PUT", body: JSON.stringify({ namespace: [r], key: "new", value: { text: "explode" } }) });
    expect(res.status).toBe(502);
    expect(await server.client.store.getItem([r], "new")).toBeNull();
    // a failing query embedding is a 502 too, not a 500
    const search = await api("/store/items/search", { method: "POST", body: JSON.stringify({ namespace_prefix: [r], query: "explode" }) });
    expect(search.status).toBe(502);
  });

  it("answers a malformed per-put index path with a 422 naming it", async () => {
    const r = root();
    const res = await api("/store/items", { method: "PUT", body: JSON.stringify({ namespace: [r], key: "k", value: { text: "cat" }, index: ["text", "a[x]"] }) });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
    expect(body.detail[0]!.loc).toEqual(["body", "index", 1]);
    expect(body.detail[0]!.msg).toMatch(/a\[x\]/);
    expect(await server.client.store.getItem([r], "k")).toBeNull();
  });
});

describe("store.index start-up and providers", () => {
  let project: TempProject;
  beforeAll(async () => {
    project = await tempProject({}, {});
    for (const f of ["embed.ts", "vocab.ts"]) await copyFile(path.join(FIXTURE, f), path.join(project.dir, f));
  });
  afterAll(() => project?.remove());

  const withIndex = async (index: Record<string, unknown>) => {
    const config = path.join(project.dir, `langgraph-${randomUUID().slice(0, 6)}.json`);
    // the graph from the fixture (its imports resolve there); the embed module copied beside the config
    await writeFile(config, JSON.stringify({ graphs: { searcher: `${FIXTURE}/graph.ts:searcher` }, store: { index } }));
    return config;
  };

  it.each([
    [{ embed: "./missing.ts:embed", dims: 8 }, /store\.index\.embed: .*missing\.ts does not exist/],
    [{ embed: "./embed.ts:nope", dims: 8 }, /store\.index\.embed: \.\/embed\.ts has no export "nope"/],
    [{ embed: "./embed.ts:notAFunction", dims: 8 }, /store\.index\.embed: .*neither a function/],
    [{ embed: "nosuch:model", dims: 8 }, /store\.index\.embed: unknown embedding provider "nosuch"/],
    [{ embed: "cohere:embed-english-v3.0", dims: 8 }, /store\.index\.embed: .*needs the package @langchain\/cohere/],
    [{ embed: "just-a-name", dims: 8 }, /store\.index\.embed: "just-a-name" is neither "provider:model"/],
    [{ embed: "./embed.ts:embed", dims: 8, fields: ["a[oops"] }, /store\.index\.fields: invalid field path "a\[oops"/],
    [{ embed: "./embed.ts:embed", dims: 0 }, /store\.index\.dims/],
  ])("fails start-up on a bad index %j with a clear message", async (index, message) => {
    const config = await withIndex(index);
    const db = await createTestDatabase("pglite");
    try {
      const started = await startTestServer("pglite", { configPath: config }, db).then(
        async (server) => {
          await server.close({ keepDatabase: true });
          return "started";
        },
        (err: Error) => err.message,
      );
      expect(started).toMatch(message);
    } finally {
      await db.drop();
    }
  });

  it.each(BACKENDS.filter((b) => b === "pglite" || servicesUp()))(
    "turns on over an existing store [%s]: old items stay, new puts are searchable by meaning",
    async (backend) => {
      const db = await createTestDatabase(backend);
      try {
        const before = await startTestServer(backend, {}, db); // the plain fixture: no store.index
        await before.client.store.putItem(["m"], "old", { text: "dog" });
        await before.close({ keepDatabase: true });
        const after = await startTestServer(backend, { configPath: CONFIG }, db);
        try {
          expect((await after.client.store.getItem(["m"], "old"))!.value).toEqual({ text: "dog" });
          await after.client.store.putItem(["m"], "new", { text: "dog cat" });
          const { items } = await after.client.store.searchItems(["m"], { query: "dog" });
          // the old item has no vectors until it is put again
          expect(items.map((i) => i.key)).toEqual(["new"]);
          await after.client.store.putItem(["m"], "old", { text: "dog" });
          expect((await after.client.store.searchItems(["m"], { query: "dog" })).items.map((i) => i.key)).toEqual(["old", "new"]);
          await after.client.store.deleteItem(["m"], "old"); // the vectors go with the item
          expect((await after.client.store.searchItems(["m"], { query: "dog" })).items.map((i) => i.key)).toEqual(["new"]);
        } finally {
          await after.close({ keepDatabase: true });
        }
      } finally {
        await db.drop();
      }
    },
  );

  it("without store.index, a graph's store.search with a query works on the embedded database (it used to wait forever)", async () => {
    const config = path.join(project.dir, "langgraph-plain.json");
    await writeFile(config, JSON.stringify({ graphs: { searcher: `${FIXTURE}/graph.ts:searcher` } }));
    const server = await startTestServer("pglite", { configPath: config });
    try {
      await server.client.store.putItem(["p"], "k", { text: "a dog" });
      const thread = await server.client.threads.create();
      const state = (await server.client.runs.wait(thread.thread_id, "searcher", { input: { query: "dog", prefix: ["p"] } })) as { hits: { key: string }[] };
      expect(state.hits.map((h) => h.key)).toEqual(["k"]);
      expect((await server.client.store.getItem(["p"], "from-graph"))!.value).toEqual({ text: "remembered dog" });
    } finally {
      await server.close();
    }
  });

  it("accepts an Embeddings object exported by the project", async () => {
    const server = await startTestServer("pglite", { configPath: await withIndex({ embed: "./embed.ts:embeddings", dims: 8, fields: ["text"] }) });
    try {
      await server.client.store.putItem(["e"], "k", { text: "train" });
      const { items } = await server.client.store.searchItems(["e"], { query: "train car" });
      expect(items[0]!.score).toBeCloseTo(expected("train car", "train"), 5);
    } finally {
      await server.close();
    }
  });

  describe('"openai:<model>" through @langchain/openai, against a local OpenAI-compatible endpoint', () => {
    let fake: Server;
    const requests: { model: string; input: string[] }[] = [];
    const saved = { base: process.env.OPENAI_BASE_URL, key: process.env.OPENAI_API_KEY };
    beforeAll(async () => {
      fake = createServer(async (req, res) => {
        let raw = "";
        for await (const c of req) raw += c;
        const body = JSON.parse(raw) as { model: string; input: string[] | string; encoding_format?: string };
        const input = Array.isArray(body.input) ? body.input : [body.input];
        requests.push({ model: body.model, input });
        // the OpenAI SDK asks for base64 (little-endian float32) unless told otherwise
        const encode = (v: number[]) => (body.encoding_format === "base64" ? Buffer.from(new Float32Array(v).buffer).toString("base64") : v);
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ object: "list", model: body.model, data: input.map((t, index) => ({ object: "embedding", index, embedding: encode(vocabVector(t)) })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
      });
      await new Promise<void>((r) => fake.listen(0, "127.0.0.1", r));
      process.env.OPENAI_BASE_URL = `http://127.0.0.1:${(fake.address() as AddressInfo).port}/v1`;
      process.env.OPENAI_API_KEY = "sk-test-not-a-real-key";
    });
    afterAll(async () => {
      for (const [k, v] of [["OPENAI_BASE_URL", saved.base], ["OPENAI_API_KEY", saved.key]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      await new Promise<void>((r) => fake.close(() => r()));
    });

    it("embeds puts and queries with the named model", async () => {
      const server = await startTestServer("pglite", { configPath: await withIndex({ embed: "openai:text-embedding-3-small", dims: 8, fields: ["text"] }) });
      try {
        await server.client.store.putItem(["o"], "pets", { text: "cat dog" });
        await server.client.store.putItem(["o"], "food", { text: "pizza" });
        const { items } = await server.client.store.searchItems(["o"], { query: "pizza pasta" });
        expect(items.map((i) => i.key)).toEqual(["food", "pets"]);
        expect(items[0]!.score).toBeCloseTo(expected("pizza pasta", "pizza"), 5);
        expect(requests.map((r) => r.model)).toEqual(["text-embedding-3-small", "text-embedding-3-small", "text-embedding-3-small"]);
        expect(requests.flatMap((r) => r.input)).toEqual(["cat dog", "pizza", "pizza pasta"]);
      } finally {
        await server.close();
      }
    });
  });
});

describeBackends("store.index with store.ttl", (backend) => {
  let project: TempProject;
  let server: TestServer;
  const sql = async <T = Record<string, unknown>>(text: string, params: unknown[] = []) => (await server.handle.ctx.pool.query(text, params)).rows as T[];

  beforeAll(async () => {
    project = await tempProject({}, {});
    for (const f of ["embed.ts", "vocab.ts"]) await copyFile(path.join(FIXTURE, f), path.join(project.dir, f));
    const config = path.join(project.dir, "langgraph.json");
    await writeFile(
      config,
      JSON.stringify({
        graphs: { searcher: `${FIXTURE}/graph.ts:searcher` },
        store: { index: { embed: "./embed.ts:embed", dims: 8, fields: ["text"] }, ttl: { default_ttl: 60, refresh_on_read: true } },
      }),
    );
    server = await startTestServer(backend, { configPath: config });
  });
  afterAll(async () => {
    await server?.close();
    await project?.remove();
  });

  it("gives indexed puts their TTL, hides and refreshes by query search, and sweeps an expired item's vectors", async () => {
    const ns = [`t${randomUUID().slice(0, 8)}`, "docs"];
    const path_ = ns.join(":");
    await server.client.store.putItem(ns, "cat", { text: "my cat" });
    await server.client.store.putItem(ns, "dog", { text: "my dog" }, { ttl: 5 });
    const ttls = await sql<{ key: string; ttl_minutes: number }>("SELECT key, ttl_minutes FROM store WHERE namespace_path = $1 ORDER BY key", [path_]);
    expect(ttls.map((r) => [r.key, Number(r.ttl_minutes)])).toEqual([["cat", 60], ["dog", 5]]);
    const vectors = async () =>
      (await sql<{ key: string }>("SELECT key FROM store_item_vectors WHERE namespace_path = $1 ORDER BY key", [path_])).map((r) => r.key);
    expect(await vectors()).toEqual(["cat", "dog"]);

    // a query search refreshes what it finds by the item's own TTL
    await sql("UPDATE store SET expires_at = now() + interval '1 minute' WHERE namespace_path = $1 AND key = 'cat'", [path_]);
    const found = await server.client.store.searchItems([ns[0]!], { query: "cat" });
    expect(found.items.map((i) => i.key)).toContain("cat");
    const [left] = await sql<{ left: number }>("SELECT extract(epoch FROM expires_at - now()) / 60 AS left FROM store WHERE namespace_path = $1 AND key = 'cat'", [path_]);
    expect(Number(left!.left)).toBeGreaterThan(30);

    // an expired item is gone from query results at once, and the sweep takes its vectors with it
    await sql("UPDATE store SET expires_at = now() - interval '1 second' WHERE namespace_path = $1 AND key = 'dog'", [path_]);
    const after = await server.client.store.searchItems([ns[0]!], { query: "dog" });
    expect(after.items.map((i) => i.key)).not.toContain("dog");
    await server.handle.sweepExpired();
    expect(await vectors()).toEqual(["cat"]);
  });
});

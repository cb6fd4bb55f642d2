/**
 * `/assistants/{id}/schemas` for graphs declared with TypeScript types and Annotations (no zod):
 * the schemas come from the types (derived in a worker thread after start-up, cached on disk), a
 * graph file with a type error still serves and runs, and a graph whose types say nothing keeps
 * the run-time schemas. Through the SDK's `client.assistants.getSchemas`.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, createTestDatabase, eventually, startTestServer, type TestServer } from "../helpers/server.js";

const CONFIG = path.join(ROOT, "test/fixtures/type-schemas/langgraph.json");

type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: unknown[]; format?: string; description?: string; $ref?: string; anyOf?: Schema[]; additionalProperties?: unknown; definitions?: Record<string, Schema> };
type Schemas = { graph_id: string; input_schema: Schema | null; output_schema: Schema | null; state_schema: Schema | null; config_schema: Schema | null; context_schema: Schema | null };

async function startWith(dataDir: string): Promise<TestServer> {
  const db = await createTestDatabase("pglite");
  return startTestServer("pglite", { configPath: CONFIG, schemaCacheDir: path.join(dataDir, "schema-cache") }, db);
}

/** The schemas once they come from the types: the state schema then describes `answeredAt` (run time knows only keys). */
async function typedSchemas(server: TestServer, graphId: string, ready: (s: Schemas) => boolean): Promise<Schemas> {
  return eventually(async () => {
    const s = (await server.client.assistants.getSchemas(graphId)) as unknown as Schemas;
    return ready(s) ? s : undefined;
  }, 120_000);
}
const hasTypes = (s: Schemas) => Object.values(s.state_schema?.properties ?? {}).some((p) => p.type !== undefined || p.$ref !== undefined);

describe("schemas from TypeScript types", () => {
  let server: TestServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), "berth-ts-schemas-"));
    server = await startWith(dataDir);
  });
  afterAll(async () => {
    await server?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("derives state, input, output and config schemas of an Annotation graph", async () => {
    const s = await typedSchemas(server, "ask", hasTypes);
    expect(s.graph_id).toBe("ask");
    const state = s.state_schema!;
    expect(state.type).toBe("object");
    expect(state.properties!.messages).toEqual({ type: "array", items: { $ref: "#/definitions/BaseMessage" } });
    expect(state.definitions!.BaseMessage!.properties).toMatchObject({ type: { type: "string" }, id: { type: "string" } });
    expect(state.properties!.question).toEqual({ type: "string" });
    expect(state.properties!.tone).toEqual({ type: "string", enum: ["formal", "casual"] });
    expect(state.properties!.tags).toEqual({ type: "array", items: { type: "string" } });
    expect(state.properties!.answeredAt).toEqual({ type: "string", format: "date-time" });
    expect(state.properties!.scores).toMatchObject({ type: "object", additionalProperties: { type: "number" } });
    expect(state.properties!.done).toEqual({ type: "boolean" });
    expect(state.properties!.sources!.items).toEqual({ type: "object", properties: { url: { type: "string" }, title: { type: "string" } }, required: ["url"] });
    // A recursive type is expanded a bounded number of times, then left open.
    const outline = state.properties!.outline!.anyOf!;
    expect(outline).toContainEqual({ type: "null" });
    let tree = outline.find((o) => o.type === "object")!;
    for (let depth = 0; tree.properties?.children?.items?.type === "object"; depth++) {
      expect(depth).toBeLessThan(10);
      tree = tree.properties.children.items;
    }
    expect(tree.properties?.children?.items ?? {}).toEqual({});
    expect(state.properties!.pair).toEqual({ type: "array", items: [{ type: "string" }, { type: "number" }], minItems: 2, maxItems: 2 });
    expect(state.properties!.meta).toEqual({
      type: "object",
      properties: { id: { type: "string" }, at: { type: "string", format: "date-time" }, level: { type: "number", enum: [1, 2, 3] } },
      required: ["id", "level"],
    });
    // A recursive union (JSON values) is finite: a few levels, then any value.
    const payload = state.properties!.payload!;
    expect(payload.anyOf!.map((p) => p.type).sort()).toEqual(["array", "boolean", "null", "number", "object", "string"]);
    expect(JSON.stringify(payload).length).toBeLessThan(50_000);
    // Updates: every key optional.
    expect(state.required).toBeUndefined();

    // Input and output are their own Annotations (the interfaces' members), not the whole state.
    expect(Object.keys(s.input_schema!.properties!).sort()).toEqual(["question", "tags", "tone"]);
    expect(s.input_schema!.properties!.question).toEqual({ type: "string" });
    expect(Object.keys(s.output_schema!.properties!).sort()).toEqual(["answer", "answeredAt", "confidence", "sources"]);
    expect(s.output_schema!.required!.sort()).toEqual(["answer", "answeredAt", "confidence", "sources"]);

    // Config (and context, the same in JS) from the config Annotation, JSDoc as description.
    expect(s.config_schema!.properties).toEqual({
      model: { type: "string", enum: ["small", "large"], description: "Which model answers." },
      temperature: { type: "number" },
    });
    expect(s.context_schema).toEqual(s.config_schema);
  });

  it("derives the schemas of a factory from what it returns (MessagesAnnotation)", async () => {
    const s = await typedSchemas(server, "chat_factory", hasTypes);
    for (const key of ["state_schema", "input_schema", "output_schema"] as const) {
      expect(s[key]!.properties, key).toEqual({ messages: { type: "array", items: { $ref: "#/definitions/BaseMessage" } } });
      expect(s[key]!.definitions!.BaseMessage, key).toBeDefined();
    }
  });

  it("serves and runs a graph whose file has a type error, with schemas from its types", async () => {
    const s = await typedSchemas(server, "broken", hasTypes);
    expect(s.state_schema!.properties).toEqual({ count: { type: "number" }, note: { type: "string" } });
    const thread = await server.client.threads.create();
    const out = (await server.client.runs.wait(thread.thread_id, "broken", { input: { count: 2 } })) as { count: number; note: string };
    expect(out).toEqual({ count: 3, note: "bumped not a number" });
  });

  it("keeps the run-time schemas of a graph whose type says nothing (any)", async () => {
    const typeSchemas = server.handle.ctx.typeSchemas!;
    await eventually(async () => !typeSchemas.isPending("opaque"), 120_000);
    const s = (await server.client.assistants.getSchemas("opaque")) as unknown as Schemas;
    expect(s.state_schema).toEqual({ type: "object", properties: { count: {}, note: {} } });
    expect(s.config_schema).toBeNull();
    const thread = await server.client.threads.create();
    expect(await server.client.runs.wait(thread.thread_id, "opaque", { input: { count: 1 } })).toMatchObject({ count: 2 });
  });

  it("answers later starts from the disk cache, and ignores entries whose files changed", async () => {
    await typedSchemas(server, "ask", hasTypes);
    const cacheDir = path.join(dataDir, "schema-cache");
    await eventually(async () => (await readdir(cacheDir).catch(() => [])).filter((f) => f.endsWith(".json")).length >= 3, 60_000);
    // Mark every cached entry: a second server that serves the mark read the cache.
    const entries = (await readdir(cacheDir)).filter((f) => f.endsWith(".json"));
    for (const f of entries) {
      const entry = JSON.parse(await readFile(path.join(cacheDir, f), "utf8")) as { files: Record<string, string>; schemas: Schemas };
      if (entry.schemas.state_schema) entry.schemas.state_schema.description = "from the cache";
      await writeFile(path.join(cacheDir, f), JSON.stringify(entry));
    }
    const again = await startWith(dataDir);
    try {
      const s = await typedSchemas(again, "ask", hasTypes);
      expect(s.state_schema!.description).toBe("from the cache");
      expect(s.state_schema!.properties!.answeredAt).toEqual({ type: "string", format: "date-time" });
    } finally {
      await again.close();
    }
    // An entry whose recorded file hashes no longer match is extracted afresh (and garbage is ignored).
    for (const f of entries) {
      const file = path.join(cacheDir, f);
      const entry = JSON.parse(await readFile(file, "utf8")) as { files: Record<string, string>; schemas: Schemas };
      const text = JSON.stringify({ ...entry, files: Object.fromEntries(Object.keys(entry.files).map((k) => [k, "0".repeat(64)])) });
      await writeFile(file, f === entries[0] ? "{not json" : text);
    }
    const third = await startWith(dataDir);
    try {
      const s = await typedSchemas(third, "ask", hasTypes);
      expect(s.state_schema!.description).toBeUndefined();
      expect(s.state_schema!.properties!.tone).toEqual({ type: "string", enum: ["formal", "casual"] });
    } finally {
      await third.close();
    }
  });
});

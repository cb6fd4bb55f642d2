/**
 * JSON schemas of a graph, for `/assistants/{id}/schemas`. Graphs whose state is a zod schema get
 * exact schemas from LangGraph; Annotation-based graphs get the schemas derived from their
 * TypeScript types once the background extraction has them (type-schemas/), and until then (or
 * if it fails) an object schema listing their state keys.
 *
 * The zod metadata users attach (`withLangGraph`, `jsonSchemaExtra`, `langgraph_type: "messages"`)
 * lives in a registry private to each copy of `@langchain/langgraph`. A project normally brings its
 * own copy, so its graphs are read with the schema helpers of that copy — resolved from the graph's
 * module as Node resolves its imports — never with ours, which cannot see the project's registry.
 */
import { pathToFileURL } from "node:url";
import { resolve as resolveImport } from "import-meta-resolve";
import * as ownHelpers from "@langchain/langgraph/zod/schema";
import type { CompiledGraph } from "./registry.js";
import type { TypeSchemas } from "./type-schemas/service.js";

const SCHEMA_MODULE = "@langchain/langgraph/zod/schema";

export interface SchemaHelpers {
  getStateTypeSchema(graph: unknown): unknown;
  getInputTypeSchema(graph: unknown): unknown;
  getOutputTypeSchema(graph: unknown): unknown;
  getConfigTypeSchema(graph: unknown): unknown;
}

/**
 * The schema helpers of the `@langchain/langgraph` copy a graph file imports, when that is not
 * Berth's own copy (undefined then, or when the project has none: our helpers apply).
 */
export async function projectSchemaHelpers(graphFile: string): Promise<SchemaHelpers | undefined> {
  let theirs: string;
  try {
    theirs = resolveImport(SCHEMA_MODULE, pathToFileURL(graphFile).href);
  } catch {
    return undefined;
  }
  if (theirs === resolveImport(SCHEMA_MODULE, import.meta.url)) return undefined;
  try {
    const mod = (await import(theirs)) as Partial<SchemaHelpers>;
    return typeof mod.getStateTypeSchema === "function" ? (mod as SchemaHelpers) : undefined;
  } catch {
    return undefined; // an old copy without zod schema support: fall back to ours
  }
}

/**
 * Graph classes (prototypes) of other `@langchain/langgraph` copies → their helpers. Keyed by the
 * prototype, so a graph's subgraphs (built with the same copy) are read with the same helpers.
 */
const helpersByPrototype = new WeakMap<object, SchemaHelpers>();

export function useSchemaHelpers(graph: CompiledGraph, helpers: SchemaHelpers): void {
  const proto = Object.getPrototypeOf(graph) as object | null;
  if (proto) helpersByPrototype.set(proto, helpers);
}

function helpersFor(graph: CompiledGraph): SchemaHelpers {
  for (let p = Object.getPrototypeOf(graph) as object | null; p; p = Object.getPrototypeOf(p) as object | null) {
    const h = helpersByPrototype.get(p);
    if (h) return h;
  }
  return ownHelpers;
}

function channelKeys(graph: CompiledGraph): string[] {
  const channels = (graph as { channels?: Record<string, unknown> }).channels ?? {};
  return Object.keys(channels).filter((k) => !k.startsWith("__") && !k.startsWith("branch:") && !k.includes(":"));
}

function looseObject(keys: string[]): Record<string, unknown> {
  return { type: "object", properties: Object.fromEntries(keys.map((k) => [k, {}])) };
}

function safe<T>(fn: () => T): T | undefined {
  try {
    return fn();
  } catch {
    return undefined;
  }
}

/** The schemas zod gives at run time (undefined members: none), without fallbacks. */
function zodSchemas(graph: CompiledGraph) {
  const h = helpersFor(graph);
  return {
    input_schema: safe(() => h.getInputTypeSchema(graph)) ?? undefined,
    output_schema: safe(() => h.getOutputTypeSchema(graph)) ?? undefined,
    state_schema: safe(() => h.getStateTypeSchema(graph)) ?? undefined,
    config_schema: safe(() => h.getConfigTypeSchema(graph)) ?? undefined,
  };
}

/** Whether zod describes the graph's state (then its TypeScript types need not be read). */
export function hasZodState(graph: CompiledGraph): boolean {
  return zodSchemas(graph).state_schema !== undefined;
}

/**
 * Each schema from zod when the graph has one, else from its TypeScript types when known, else
 * the state keys (input/output/state) or null (config). Config and context are one schema in JS.
 */
export function graphSchemas(graph: CompiledGraph, fromTypes?: TypeSchemas) {
  const zod = zodSchemas(graph);
  const fallback = looseObject(channelKeys(graph));
  const config = zod.config_schema ?? fromTypes?.config_schema ?? null;
  return {
    input_schema: zod.input_schema ?? fromTypes?.input_schema ?? fallback,
    output_schema: zod.output_schema ?? fromTypes?.output_schema ?? fallback,
    state_schema: zod.state_schema ?? fromTypes?.state_schema ?? fallback,
    config_schema: config,
    context_schema: config,
  };
}

/** Whether a graph's state has a `messages` key (what A2A and chat UIs need). */
export function hasMessagesKey(graph: CompiledGraph): boolean {
  return channelKeys(graph).includes("messages");
}

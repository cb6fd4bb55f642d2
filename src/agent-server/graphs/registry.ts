/**
 * Loads the graphs named in the config and hands out ready-to-run compiled graphs wired to our
 * checkpointer and store. Accepted exports (what LangGraph.js users write): a compiled graph, an
 * uncompiled StateGraph, a `createAgent` result (its `.graph`), a Promise of any of these, or a
 * factory `(config) => graph` called per run.
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph-checkpoint";
import type { RunnableConfig } from "@langchain/core/runnables";
import { v5 as uuidv5 } from "uuid";
import type { GraphSpec } from "../config/langgraph-config.js";
import { importUserModule } from "./user-module.js";
import { projectSchemaHelpers, useSchemaHelpers, type SchemaHelpers } from "./schemas.js";

/** The namespace the LangGraph servers use for system assistant ids (not the RFC URL namespace). */
export const ASSISTANT_NAMESPACE = "6ba7b821-9dad-11d1-80b4-00c04fd430c8";

/** Graph id → its system assistant id: a SHA-1 per run creation by graph id otherwise. */
const systemIds = new Map<string, string>();

export function systemAssistantId(graphId: string): string {
  let id = systemIds.get(graphId);
  if (id === undefined) {
    id = uuidv5(graphId, ASSISTANT_NAMESPACE);
    // callers pass graph ids of the deployment's config, a handful; the bound is only a guard
    if (systemIds.size >= 1000) systemIds.clear();
    systemIds.set(graphId, id);
  }
  return id;
}

/** The subset of a compiled LangGraph (Pregel) we use. */
export interface CompiledGraph {
  checkpointer?: BaseCheckpointSaver | boolean;
  store?: BaseStore;
  stream(input: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  streamEvents(input: unknown, options: Record<string, unknown>): AsyncIterable<Record<string, any>>;
  invoke(input: unknown, options?: Record<string, unknown>): Promise<unknown>;
  /** A copy with more config (a Runnable's): how we wire runs without touching the project's export. */
  withConfig(config: Record<string, unknown>): unknown;
  getState(config: RunnableConfig, options?: Record<string, unknown>): Promise<any>;
  getStateHistory(config: RunnableConfig, options?: Record<string, unknown>): AsyncIterable<any>;
  updateState(config: RunnableConfig, values: unknown, asNode?: string): Promise<RunnableConfig>;
  getGraphAsync(config?: RunnableConfig): Promise<{ toJSON(): unknown }>;
  getSubgraphsAsync(namespace?: string, recurse?: boolean): AsyncIterable<[string, CompiledGraph]>;
  builder?: unknown;
  streamChannels?: unknown;
  channels?: Record<string, unknown>;
}

type Loaded = ({ kind: "graph"; graph: CompiledGraph } | { kind: "factory"; factory: (config: RunnableConfig) => unknown }) & {
  /** The schema helpers of the graph's own `@langchain/langgraph` copy, when it is not ours. */
  schemas?: SchemaHelpers;
};

export class GraphLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GraphLoadError";
  }
}

export { ensureTypeScriptLoader } from "./user-module.js";

function isCompiledGraph(value: unknown): value is CompiledGraph {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as CompiledGraph).stream === "function" &&
    typeof (value as CompiledGraph).getState === "function"
  );
}

/** Turn whatever a module exported into a compiled graph, compiling a StateGraph if needed. */
async function toCompiled(value: unknown, what: string): Promise<CompiledGraph> {
  let v = await value;
  if (isCompiledGraph(v)) return v;
  if (typeof v === "object" && v !== null && isCompiledGraph((v as { graph?: unknown }).graph)) {
    return (v as { graph: CompiledGraph }).graph;
  }
  if (typeof v === "object" && v !== null && typeof (v as { compile?: unknown }).compile === "function") {
    v = (v as { compile(): unknown }).compile();
    if (isCompiledGraph(v)) return v;
  }
  throw new GraphLoadError(`${what} is not a LangGraph graph (expected a compiled graph, a StateGraph or a factory)`);
}

export class GraphRegistry {
  private readonly loaded = new Map<string, Loaded>();
  readonly specs: Map<string, GraphSpec>;

  private checkpointer?: BaseCheckpointSaver;
  private store?: BaseStore;

  private constructor(specs: GraphSpec[]) {
    this.specs = new Map(specs.map((s) => [s.graphId, s]));
  }

  /** Import every graph module. Done before anything else at start-up, so a bad graph fails fast. */
  static async load(specs: GraphSpec[]): Promise<GraphRegistry> {
    const registry = new GraphRegistry(specs);
    for (const spec of specs) await registry.loadOne(spec);
    return registry;
  }

  /** Wire the graphs to the deployment's checkpointer and store (once the database is ready). */
  attach(checkpointer: BaseCheckpointSaver, store: BaseStore): void {
    this.checkpointer = checkpointer;
    this.store = store;
    for (const entry of this.loaded.values()) if (entry.kind === "graph") entry.graph = this.wire(entry.graph);
  }

  private async loadOne(spec: GraphSpec): Promise<void> {
    const what = `graph "${spec.graphId}" (${spec.file}:${spec.exportName})`;
    const mod = await importUserModule(spec.file, (f) =>
      new GraphLoadError(
        f.kind === "not-found" ? `${what}: file not found` : f.kind === "unresolved" ? `${what}: cannot import it: ${f.detail}` : `${what}: failed to import: ${f.error.stack ?? f.error.message}`,
      ),
    );
    if (!(spec.exportName in mod)) {
      const exports = Object.keys(mod).filter((k) => k !== "__esModule");
      throw new GraphLoadError(`${what}: the module has no export "${spec.exportName}" (exports: ${exports.join(", ") || "none"})`);
    }
    const exported = mod[spec.exportName];
    const schemas = await projectSchemaHelpers(spec.file);
    if (typeof exported === "function" && !isCompiledGraph(exported)) {
      this.loaded.set(spec.graphId, { kind: "factory", factory: exported as (c: RunnableConfig) => unknown, schemas });
      return;
    }
    const graph = await toCompiled(exported, what);
    if (schemas) useSchemaHelpers(graph, schemas);
    this.loaded.set(spec.graphId, { kind: "graph", graph, schemas });
  }

  private wire(graph: CompiledGraph): CompiledGraph {
    if (!this.checkpointer || !this.store) throw new GraphLoadError("graphs are not attached to a database yet");
    // Runs must checkpoint into our database: that is what makes state, history, resumption after
    // a crash and rollback work. A checkpointer the graph brought along is replaced — on a copy:
    // the module's export stays as the project built it, so the project's own code calling
    // `graph.invoke()` (a custom route of http.app) runs it as it would anywhere, not into our
    // checkpointer, which needs a thread such a call does not have.
    const wired = graph.withConfig({}) as CompiledGraph;
    wired.checkpointer = this.checkpointer;
    wired.store = this.store;
    return wired;
  }

  has(graphId: string): boolean {
    return this.specs.has(graphId);
  }

  graphIds(): string[] {
    return [...this.specs.keys()];
  }

  /** The graph a module exported, when it is one (undefined for factories: they make one per run). */
  loadedGraph(graphId: string): CompiledGraph | undefined {
    const entry = this.loaded.get(graphId);
    return entry?.kind === "graph" ? entry.graph : undefined;
  }

  /** A compiled graph for a run; factories are called with the run's config. */
  async get(graphId: string, config: RunnableConfig = {}): Promise<CompiledGraph> {
    const entry = this.loaded.get(graphId);
    if (!entry) throw new GraphLoadError(`graph "${graphId}" is not loaded`);
    if (entry.kind === "graph") return entry.graph;
    const graph = this.wire(await toCompiled(entry.factory(config), `factory of graph "${graphId}"`));
    if (entry.schemas) useSchemaHelpers(graph, entry.schemas);
    return graph;
  }
}

/**
 * Schemas of graphs derived from their TypeScript types, for graphs whose state, input, output or
 * config are TypeScript types and Annotations rather than zod (what graph UIs build forms from).
 *
 * Once the server listens, the disk cache (cache.ts, no compiler needed) answers what it can and a
 * worker thread runs the compiler for the rest (worker.ts, which fills the cache); results are
 * kept here, in memory. Nothing waits for them: until a graph's
 * schemas are known — or when its types cannot be read — `/assistants/{id}/schemas` answers what
 * the graph tells at run time (zod schemas, else its state keys). (The JS platform instead holds
 * the request until its parser is done, up to 30 s, and fails it when the parser fails.)
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { resolve as resolveImport } from "import-meta-resolve";
import type { Logger } from "../../../shared/logging.js";
import type { TypeSchemas } from "./extract.js";
import { readCached, type GraphRef } from "./cache.js";
import type { WorkerInput, WorkerMessage } from "./worker.js";

export type { TypeSchemas } from "./extract.js";

/** Without a word from the worker for this long, it is stopped and the graphs left are given up. */
const STALL_MS = 120_000;

export class TypeSchemaService {
  private readonly ready = new Map<string, TypeSchemas>();
  private readonly pending = new Set<string>();
  private worker?: Worker;
  private stall?: NodeJS.Timeout;
  private started = false;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly cacheDir: string,
  ) {}

  /** The graph's schemas from its types, once known (undefined while pending or after a failure). */
  get(graphId: string): TypeSchemas | undefined {
    return this.ready.get(graphId);
  }

  isPending(graphId: string): boolean {
    return this.pending.has(graphId);
  }

  /**
   * Start deriving the graphs' schemas in the background (once): the cache answers first (no
   * compiler needed), the worker takes the rest.
   */
  start(graphs: GraphRef[]): void {
    if (this.started || graphs.length === 0) return;
    this.started = true;
    for (const g of graphs) this.pending.add(g.graphId);
    void this.fromCacheThenWorker(graphs).catch((err: Error) => this.giveUp(err.message));
  }

  private async fromCacheThenWorker(graphs: GraphRef[]): Promise<void> {
    const misses: GraphRef[] = [];
    for (const g of graphs) {
      const started = performance.now();
      const cached = await readCached(this.cacheDir, g);
      if (this.closed) return;
      if (cached) this.settle({ graphId: g.graphId, ok: true, schemas: cached, source: "cache", ms: Math.round(performance.now() - started) });
      else misses.push(g);
    }
    if (misses.length > 0) this.spawn(misses);
  }

  private settle(m: WorkerMessage): void {
    if (!this.pending.delete(m.graphId)) return;
    if (m.ok) {
      this.ready.set(m.graphId, m.schemas);
      this.logger.debug({ graph_id: m.graphId, source: m.source, ms: m.ms }, "schemas derived from TypeScript types");
    } else {
      this.logger.warn({ graph_id: m.graphId, error: m.error }, "cannot derive schemas from the graph's TypeScript types; serving run-time schemas");
    }
  }

  private spawn(graphs: GraphRef[]): void {
    const input: WorkerInput = { graphs, cacheDir: this.cacheDir };
    const worker = spawnWorker(input);
    this.worker = worker;
    worker.unref(); // never keeps the process alive
    this.armStall();
    worker.on("message", (m: WorkerMessage) => {
      this.settle(m);
      if (this.pending.size === 0) void this.close();
      else this.armStall();
    });
    worker.on("error", (err) => this.giveUp(err.message));
    worker.on("exit", () => {
      if (this.pending.size > 0) this.giveUp("the schema worker stopped");
    });
  }

  private armStall(): void {
    clearTimeout(this.stall);
    this.stall = setTimeout(() => {
      this.giveUp(`no result within ${STALL_MS / 1000} s`);
      void this.worker?.terminate();
    }, STALL_MS);
    this.stall.unref();
  }

  /** Log once for each graph still pending, and stop waiting for them. */
  private giveUp(reason: string): void {
    for (const graphId of this.pending) this.logger.warn({ graph_id: graphId, error: reason }, "cannot derive schemas from the graph's TypeScript types; serving run-time schemas");
    this.pending.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.stall);
    this.pending.clear();
    await this.worker?.terminate().catch(() => undefined);
  }
}

/**
 * The worker runs this module's sibling: compiled JavaScript in a build; from the TypeScript
 * sources (dev, tests) it needs tsx's loader registered inside the worker first.
 */
function spawnWorker(input: WorkerInput): Worker {
  // A project whose types blow up the compiler's memory stops the worker, not the server.
  const resourceLimits = { maxOldGenerationSizeMb: 2048 };
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here);
  const entry = pathToFileURL(path.join(path.dirname(here), `worker${ext}`)).href;
  if (ext === ".js") return new Worker(new URL(entry), { workerData: input, resourceLimits });
  const tsx = resolveImport("tsx/esm/api", import.meta.url);
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, workerData: input, resourceLimits });
}

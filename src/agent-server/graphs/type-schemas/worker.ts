/**
 * The worker thread that derives graphs' schemas from their TypeScript types (see service.ts): the
 * compiler takes seconds and a lot of CPU, so it runs here, never on the thread that serves
 * requests. It gets the graphs the disk cache had nothing valid for; each result is cached and
 * sent back as soon as it is known.
 */
import { readFile } from "node:fs/promises";
import { parentPort, workerData } from "node:worker_threads";
import { writeCached, type GraphRef } from "./cache.js";
import { TypeSchemaExtractor, type TypeSchemas } from "./extract.js";

export interface WorkerInput {
  graphs: GraphRef[];
  cacheDir: string;
}
export type WorkerMessage =
  | { graphId: string; ok: true; schemas: TypeSchemas; source: "cache" | "extracted"; ms: number }
  | { graphId: string; ok: false; error: string; ms: number };

async function run({ graphs, cacheDir }: WorkerInput): Promise<void> {
  // One program for all graphs: building it is most of the cost.
  const extractor = new TypeSchemaExtractor(graphs.map((g) => g.file));
  for (const graph of graphs) {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const contents = await readFile(graph.file);
      const { schemas, projectFiles } = extractor.extract(graph);
      await writeCached(cacheDir, graph, contents, projectFiles, schemas);
      parentPort!.postMessage({ graphId: graph.graphId, ok: true, schemas, source: "extracted", ms: ms() } satisfies WorkerMessage);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      parentPort!.postMessage({ graphId: graph.graphId, ok: false, error, ms: ms() } satisfies WorkerMessage);
    }
  }
}

if (parentPort) await run(workerData as WorkerInput);

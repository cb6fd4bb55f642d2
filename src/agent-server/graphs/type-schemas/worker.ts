/**
 * The worker thread that derives graphs' schemas from their TypeScript types (see service.ts): the
 * compiler takes seconds and a lot of CPU, so it runs here, never on the thread that serves
 * requests. Each graph is answered from the disk cache when the files its types come from are
 * unchanged, else extracted and cached. One message per graph as soon as it is known.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { parentPort, workerData } from "node:worker_threads";
import ts from "typescript";
import { TypeSchemaExtractor, type TypeSchemas } from "./extract.js";

export interface WorkerGraph {
  graphId: string;
  file: string;
  exportName: string;
}
export interface WorkerInput {
  graphs: WorkerGraph[];
  cacheDir: string;
}
export type WorkerMessage =
  | { graphId: string; ok: true; schemas: TypeSchemas; source: "cache" | "extracted"; ms: number }
  | { graphId: string; ok: false; error: string; ms: number };

/** Bumped when the schemas we derive change shape, so old cache entries are not served. */
const EXTRACTOR_VERSION = 1;

interface CacheEntry {
  /** sha256 of every project file the types were read from, by path. */
  files: Record<string, string>;
  schemas: TypeSchemas;
}

const sha256 = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");

async function fileHash(file: string): Promise<string | undefined> {
  return readFile(file).then(sha256, () => undefined);
}

function cachePath(cacheDir: string, graph: WorkerGraph, contents: Buffer): string {
  const key = sha256(JSON.stringify([EXTRACTOR_VERSION, ts.version, graph.file, graph.exportName, sha256(contents)]));
  return path.join(cacheDir, `${key}.json`);
}

async function fromCache(file: string): Promise<TypeSchemas | undefined> {
  let entry: CacheEntry;
  try {
    entry = JSON.parse(await readFile(file, "utf8")) as CacheEntry;
  } catch {
    return undefined;
  }
  for (const [f, hash] of Object.entries(entry.files ?? {})) if ((await fileHash(f)) !== hash) return undefined;
  return entry.schemas;
}

async function toCache(file: string, entry: CacheEntry): Promise<void> {
  // Written aside and renamed, so a reader never sees half an entry; a read-only disk only costs
  // the next start an extraction.
  try {
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(entry));
    await rename(tmp, file);
  } catch {
    /* not cached */
  }
}

async function run({ graphs, cacheDir }: WorkerInput): Promise<void> {
  const extractor = new TypeSchemaExtractor(graphs.map((g) => g.file));
  for (const graph of graphs) {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      const contents = await readFile(graph.file);
      const entryPath = cachePath(cacheDir, graph, contents);
      const cached = await fromCache(entryPath);
      if (cached) {
        parentPort!.postMessage({ graphId: graph.graphId, ok: true, schemas: cached, source: "cache", ms: ms() } satisfies WorkerMessage);
        continue;
      }
      const { schemas, projectFiles } = extractor.extract(graph);
      const files: Record<string, string> = {};
      for (const f of new Set([graph.file, ...projectFiles])) {
        const hash = await fileHash(f);
        if (hash) files[f] = hash;
      }
      // Re-check the graph file: if it changed while we read it, the entry would lie.
      if (files[graph.file] === sha256(contents)) await toCache(entryPath, { files, schemas });
      parentPort!.postMessage({ graphId: graph.graphId, ok: true, schemas, source: "extracted", ms: ms() } satisfies WorkerMessage);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      parentPort!.postMessage({ graphId: graph.graphId, ok: false, error, ms: ms() } satisfies WorkerMessage);
    }
  }
}

if (parentPort) await run(workerData as WorkerInput);

/**
 * Schema extraction from TypeScript types: what a graph's schemas cost cold and from the cache.
 *
 * - worker, cold: a TypeSchemaService (the server's own path: worker thread, tsx in dev) over the
 *   fixture graphs with an empty cache dir — time until every graph is answered, and each graph's
 *   time as the worker measured it (the first graph pays for building the compiler program);
 * - cached: the same with the cache filled by the cold run (file hashes checked on the main
 *   thread; no worker, no compiler);
 * - floor: the same service over no graph that TypeScript can read — spawning the worker, loading
 *   the compiler and failing fast (the fixed cost every start pays);
 * - in-process: TypeSchemaExtractor on this thread, a fresh program per graph vs one shared program.
 * Usage: node --import tsx bench/type-schemas.ts
 */
import { mkdtemp, rm } from "node:fs/promises";
import { execSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Logger } from "../src/shared/logging.js";
import { TypeSchemaService } from "../src/agent-server/graphs/type-schemas/service.js";
import { TypeSchemaExtractor } from "../src/agent-server/graphs/type-schemas/extract.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const GRAPHS = [
  { graphId: "ask", file: path.join(ROOT, "test/fixtures/type-schemas/graphs.ts"), exportName: "ask" },
  { graphId: "chat_factory", file: path.join(ROOT, "test/fixtures/type-schemas/graphs.ts"), exportName: "chatFactory" },
  { graphId: "broken", file: path.join(ROOT, "test/fixtures/type-schemas/broken.ts"), exportName: "graph" },
  { graphId: "steps", file: path.join(ROOT, "test/fixtures/graphs.ts"), exportName: "steps" },
  { graphId: "chat", file: path.join(ROOT, "examples/chat/agent.ts"), exportName: "graph" },
];

/** Runs a service over `graphs` to the end; per-graph times from its debug log lines. */
async function service(graphs: typeof GRAPHS, cacheDir: string): Promise<{ totalMs: number; perGraph: Record<string, string> }> {
  const perGraph: Record<string, string> = {};
  let settle!: () => void;
  const done = new Promise<void>((r) => (settle = r));
  let left = graphs.length;
  const note = (o: { graph_id: string; ms?: number; source?: string; error?: string }) => {
    perGraph[o.graph_id] = o.error ? `failed (${o.error.slice(0, 40)})` : `${o.ms} ms (${o.source})`;
    if (--left === 0) settle();
  };
  const logger = { debug: note, warn: note, info: () => undefined, error: () => undefined } as unknown as Logger;
  const started = performance.now();
  const s = new TypeSchemaService(logger, cacheDir);
  s.start(graphs);
  await done;
  const totalMs = Math.round(performance.now() - started);
  await s.close();
  return { totalMs, perGraph };
}

const cacheDir = await mkdtemp(path.join(tmpdir(), "berth-bench-schemas-"));
try {
  console.log(`load: ${execSync("uptime").toString().trim()}`);
  const floor = await service([{ graphId: "missing", file: path.join(cacheDir, "none.ts"), exportName: "graph" }], cacheDir);
  console.log(`floor (spawn worker, load compiler, nothing to read): ${floor.totalMs} ms`);
  const cold = await service(GRAPHS, cacheDir);
  console.log(`worker, cold: all ${GRAPHS.length} graphs in ${cold.totalMs} ms (${(cold.totalMs / floor.totalMs).toFixed(1)}× floor)`);
  for (const [g, t] of Object.entries(cold.perGraph)) console.log(`  ${g.padEnd(14)} ${t}`);
  const cached = await service(GRAPHS, cacheDir);
  console.log(`cached (no worker): all ${GRAPHS.length} graphs in ${cached.totalMs} ms (${(cached.totalMs / floor.totalMs).toFixed(1)}× floor, ${(cold.totalMs / cached.totalMs).toFixed(1)}× faster than cold)`);
  for (const [g, t] of Object.entries(cached.perGraph)) console.log(`  ${g.padEnd(14)} ${t}`);

  let t = performance.now();
  for (const g of GRAPHS) new TypeSchemaExtractor([g.file]).extract(g);
  const fresh = Math.round(performance.now() - t);
  t = performance.now();
  const shared = new TypeSchemaExtractor(GRAPHS.map((g) => g.file));
  for (const g of GRAPHS) shared.extract(g);
  const sharedMs = Math.round(performance.now() - t);
  console.log(`in-process: a program per graph ${fresh} ms, one shared program ${sharedMs} ms (${(fresh / sharedMs).toFixed(1)}×)`);
  console.log(`load: ${execSync("uptime").toString().trim()}`);
} finally {
  await rm(cacheDir, { recursive: true, force: true });
}

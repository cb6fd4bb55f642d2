/**
 * Semantic store search benchmark (store.index). Per backend, on the store class the server uses
 * (in-process, no HTTP): N items of one 256-dimension vector each, then query searches.
 * - floor: the same cosine ranking in plain JS over the N vectors held in memory;
 * - put p50 (embed + item + vectors in one transaction), query search p50/p99 over the whole store
 *   and under a namespace holding 1/10 of it; the ratio of the whole-store search to the floor.
 * The embedder is a deterministic pseudo-random one (no network): the figures are Berth's own cost.
 * Usage: node --import tsx bench/store-index.ts   (BENCH_BACKENDS=pglite,postgres  BENCH_N=2000)
 */
import os from "node:os";
import { BACKENDS, createDb, summary } from "./lib.js";
import { openDatabase } from "../src/shared/db/index.js";
import { IndexedPostgresStore } from "../src/agent-server/storage/store-index/indexed-store.js";

const N = Number(process.env.BENCH_N ?? 2000);
const DIMS = 256;
const QUERIES = 50;

/** A vector from a text's hash: same text, same vector. */
function fakeVector(text: string): number[] {
  let h = 2166136261;
  for (const c of text) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return Array.from({ length: DIMS }, () => {
    h = Math.imul(h ^ (h >>> 15), 2246822507) ^ Math.imul(h ^ (h >>> 13), 3266489909);
    return ((h >>> 0) / 2 ** 32) * 2 - 1;
  });
}
const embedder = { embedDocuments: async (t: string[]) => t.map(fakeVector), embedQuery: async (t: string) => fakeVector(t) };

function floor(): number[] {
  const docs = Array.from({ length: N }, (_, i) => fakeVector(`doc ${i}`));
  const lat: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const t0 = performance.now();
    const qv = fakeVector(`query ${q}`);
    const qn = Math.hypot(...qv);
    docs.map((d, i) => ({ i, s: d.reduce((s, x, k) => s + x * qv[k]!, 0) / (Math.hypot(...d) * qn) })).sort((a, b) => b.s - a.s).slice(0, 10);
    lat.push(performance.now() - t0);
  }
  return lat;
}

async function run(backend: "pglite" | "postgres") {
  const db = await createDb(backend);
  const database = await openDatabase({ uri: db.uri, dataDir: db.dataDir });
  const store = new IndexedPostgresStore({ connectionOptions: { connectionString: database.connectionString, max: database.embedded ? 1 : 4 } }, { embedder, dims: DIMS, fields: ["text"] });
  try {
    await store.setup();
    const puts: number[] = [];
    for (let i = 0; i < N; i++) {
      const t0 = performance.now();
      await store.put(["bench", `ns${i % 10}`], `k${i}`, { text: `doc ${i}` });
      puts.push(performance.now() - t0);
    }
    const search = async (prefix: string[]) => {
      const lat: number[] = [];
      for (let q = 0; q < QUERIES; q++) {
        const t0 = performance.now();
        await store.search(prefix, { query: `query ${q}`, limit: 10 });
        lat.push(performance.now() - t0);
      }
      return lat;
    };
    return { mode: store.vectorMode, puts, all: await search(["bench"]), tenth: await search(["bench", "ns3"]) };
  } finally {
    await store.stop();
    await database.close();
    await db.drop();
  }
}

const f = summary(floor());
console.log(`store.index search, N=${N} items × ${DIMS} dims, ${QUERIES} queries; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
console.log(`floor (JS cosine over in-memory vectors): p50 ${f.p50.toFixed(2)} ms`);
for (const backend of BACKENDS) {
  const r = await run(backend);
  const [p, a, t] = [summary(r.puts), summary(r.all), summary(r.tenth)];
  console.log(
    `${backend} (${r.mode}): put p50 ${p.p50.toFixed(2)} ms | search all p50 ${a.p50.toFixed(1)} ms p99 ${a.p99.toFixed(1)} ms (${(a.p50 / f.p50).toFixed(1)}× floor) | search 1/10 p50 ${t.p50.toFixed(1)} ms`,
  );
}

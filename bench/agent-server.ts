/**
 * Agent server benchmark. Prints a table per backend (PGlite, Postgres):
 *
 * - floor: the chat example graph with the same checkpointer, invoked in-process, no server;
 * - create→join latency p50/p99 at concurrency 1 (POST /threads/{t}/runs then GET …/join);
 * - throughput (runs/s) at concurrency 10 and 50, one thread per run;
 * - 200 runs enqueued on one thread, created at once, until the last has been joined;
 * - RSS of an idle server (restarted, so not counting first-time database creation) and with
 *   1,000 queued runs (an API-only server, so they stay queued).
 *
 * The server runs as its own process (`berth serve` from a fresh dist/ build), as in production;
 * the client uses fetch.
 * Usage: node --import tsx bench/agent-server.ts   (BENCH_BACKENDS=pglite,postgres  BENCH_N=200)
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { BACKENDS, N, buildDist, createDb, input, pool, post, rssMb, startServer, summary } from "./lib.js";
import { BerthPostgresSaver } from "../src/agent-server/checkpointer.js";
import { openDatabase } from "../src/shared/db/index.js";

// The benchmark measures Berth, not a model provider: the example agent uses its offline model.
process.env.BERTH_CHAT_MODEL = "echo";
const { graph: chatGraph } = await import("../examples/chat/agent.js");

// ---- the floor: in-process graph + checkpointer ------------------------------------------------
async function floor(backend: "pglite" | "postgres") {
  const db = await createDb(backend);
  const database = await openDatabase({ uri: db.uri, dataDir: db.dataDir });
  const saver = new BerthPostgresSaver(database.pool);
  await saver.setup();
  const graph = chatGraph as unknown as { checkpointer: unknown; invoke(i: unknown, c: unknown): Promise<unknown> };
  graph.checkpointer = saver;
  const once = (i: number) => graph.invoke(input(i), { configurable: { thread_id: randomUUID() } });
  for (let i = 0; i < 20; i++) await once(i); // warm-up
  const lat: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await once(i);
    lat.push(performance.now() - t0);
  }
  const c10 = await pool(N, 10, once);
  const c50 = await pool(N, 50, once);
  const oneThread = randomUUID();
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) await graph.invoke(input(i), { configurable: { thread_id: oneThread } });
  const sequential200 = 200 / ((performance.now() - t0) / 1000);
  await database.close();
  await db.drop();
  return { latency: summary(lat), c10, c50, oneThread: sequential200 };
}

async function createThread(url: string): Promise<string> {
  return (await post<{ thread_id: string }>(`${url}/threads`, {})).thread_id;
}
async function createAndJoin(url: string, threadId: string, i: number): Promise<void> {
  const run = await post<{ run_id: string }>(`${url}/threads/${threadId}/runs`, { assistant_id: "chat", input: input(i) });
  const res = await fetch(`${url}/threads/${threadId}/runs/${run.run_id}/join`);
  if (!res.ok) throw new Error(`join: ${res.status}`);
  await res.text();
}

async function serverBench(backend: "pglite" | "postgres") {
  const db = await createDb(backend);
  // Idle RSS of a server that has run before: the very first start also creates the database
  // (PGlite runs initdb in-process), which is not the steady state.
  const first = await startServer(db);
  for (let i = 0; i < 5; i++) await createAndJoin(first.url, await createThread(first.url), i);
  await first.stop();
  const server = await startServer(db);
  const { url } = server;
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = await rssMb(server.child.pid!);
  for (let i = 0; i < 20; i++) await createAndJoin(url, await createThread(url), i); // warm-up

  const threads = await Promise.all(Array.from({ length: N }, () => createThread(url)));
  const lat: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await createAndJoin(url, threads[i]!, i);
    lat.push(performance.now() - t0);
  }
  const threads10 = await Promise.all(Array.from({ length: N }, () => createThread(url)));
  const c10 = await pool(N, 10, (i) => createAndJoin(url, threads10[i]!, i));
  const threads50 = await Promise.all(Array.from({ length: N }, () => createThread(url)));
  const c50 = await pool(N, 50, (i) => createAndJoin(url, threads50[i]!, i));

  const one = await createThread(url);
  const t0 = performance.now();
  const runs = await Promise.all(
    Array.from({ length: 200 }, (_, i) => post<{ run_id: string }>(`${url}/threads/${one}/runs`, { assistant_id: "chat", input: input(i) })),
  );
  for (const r of runs) await (await fetch(`${url}/threads/${one}/runs/${r.run_id}/join`)).text();
  const oneThread = 200 / ((performance.now() - t0) / 1000);
  await server.stop();

  // RSS with 1,000 queued runs: an API-only server, so nothing drains the queue.
  const apiOnly = await startServer(db, { N_JOBS_PER_WORKER: "0" });
  const queueThreads = await Promise.all(Array.from({ length: 100 }, () => createThread(apiOnly.url)));
  await pool(1000, 20, (i) => post(`${apiOnly.url}/threads/${queueThreads[i % 100]}/runs`, { assistant_id: "chat", input: input(i) }));
  await new Promise((r) => setTimeout(r, 500));
  const queuedRss = await rssMb(apiOnly.child.pid!);
  await apiOnly.stop();
  await db.drop();
  return { latency: summary(lat), c10, c50, oneThread, idleRss, queuedRss };
}

// ---- report ----------------------------------------------------------------------------------
// The server runs from a fresh build of dist/, as in production (bin/berth.js prefers it).
buildDist();
const f = (n: number, d = 1) => n.toFixed(d);
console.log(`Berth agent server benchmark — N=${N} runs per figure, ${os.cpus().length} cores, node ${process.version}`);
console.log("(figures depend on machine load; the server is a separate process, the client uses fetch)\n");
for (const backend of BACKENDS) {
  const fl = await floor(backend);
  const sv = await serverBench(backend);
  const overhead = sv.latency.p50 - fl.latency.p50;
  const rows: [string, string, string, string][] = [
    ["latency c=1 p50 (ms)", f(fl.latency.p50, 2), f(sv.latency.p50, 2), `overhead ${f(overhead, 2)} ms${backend === "postgres" ? (overhead <= 5 ? "  ✓ ≤ 5" : "  ✗ > 5") : ""}`],
    ["latency c=1 p99 (ms)", f(fl.latency.p99, 2), f(sv.latency.p99, 2), ""],
    ["throughput c=10 (runs/s)", f(fl.c10), f(sv.c10), `${f((100 * sv.c10) / fl.c10, 0)}% of floor`],
    ["throughput c=50 (runs/s)", f(fl.c50), f(sv.c50), `${f((100 * sv.c50) / fl.c50, 0)}% of floor${backend === "postgres" ? (sv.c50 >= fl.c50 / 2 ? "  ✓ ≥ 50%" : "  ✗ < 50%") : ""}`],
    ["200 runs on one thread (runs/s)", f(fl.oneThread), f(sv.oneThread), "floor: sequential invokes"],
    ["RSS idle (MB)", "", f(sv.idleRss, 0), sv.idleRss < 150 ? "✓ < 150" : "✗ ≥ 150"],
    ["RSS 1,000 queued runs (MB)", "", f(sv.queuedRss, 0), sv.queuedRss < 300 ? "✓ < 300" : "✗ ≥ 300"],
  ];
  console.log(`## ${backend}`);
  console.log(`| ${"metric".padEnd(32)} | ${"floor".padStart(9)} | ${"server".padStart(9)} | note`);
  console.log(`|${"-".repeat(34)}|${"-".repeat(11)}|${"-".repeat(11)}|------`);
  for (const [m, a, b, note] of rows) console.log(`| ${m.padEnd(32)} | ${a.padStart(9)} | ${b.padStart(9)} | ${note}`);
  console.log("");
}
process.exit(0);

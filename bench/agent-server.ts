/**
 * Agent server benchmark. Prints a table per backend (PGlite, Postgres):
 *
 * - floor: the chat example graph with the same checkpointer, invoked in-process, no server;
 * - create→join latency p50/p99 at concurrency 1 (POST /threads/{t}/runs then GET …/join);
 * - throughput (runs/s) at concurrency 10 and 50, one thread per run;
 * - 100 runs enqueued on one thread, created at once, until the last has been joined (the floor:
 *   100 invokes on one thread, one after another);
 * - RSS of the first start after 5 runs (database creation and the schema worker included), of an idle server (restarted once the first start settled),
 *   1 s after it is ready and again 30 s later (settled), and with
 *   1,000 queued runs (an API-only server, so they stay queued); BENCH_RSS=0 skips these.
 *
 * With BENCH_PEER_URL (a LangGraph.js dev server serving the same `chat` graph), the same client
 * measures the peer too, and Berth's ratios to it are printed.
 *
 * The server runs as its own process (`berth serve` from a fresh dist/ build), as in production;
 * the client is bench/lib.ts's (node:http with keep-alive; BENCH_CLIENT=fetch for fetch), for Berth and the peer alike.
 * Usage: node --import tsx bench/agent-server.ts   (BENCH_BACKENDS=pglite,postgres  BENCH_N=200
 * BENCH_ROUNDS=5: rounds of the alternating floor/Berth comparison that judges the c=1 overhead, the c=50 share
 * (BENCH_C50_N=800 runs in each c=50 slice) and one thread's queue, and, with BENCH_PEER_URL, PGlite c=50 against the peer's c=50 (as many slices of as many runs, measured alone first, medians); BENCH_C50_ROUNDS is its older name. They come after the one-shot rows, when
 * server and floor have each run ~700 runs: both are warm.
 * BENCH_WARMUP=20: runs before the one-shot c=1 latency, floor and server alike. After 20 the server is
 * still compiling its hot code: in bench/agent-server-roundtrips.ts its threads other than the
 * main one use 2.4-3.6 ms of CPU per run over the next 300 runs and 0.5 once 1,500 have run, on a
 * 2-core machine where the client and Postgres need the cores too. BENCH_WARMUP=600 measures a
 * warm server, as one that has been up a while is.)
 */
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { BACKENDS, N, buildDist, createDb, floorChat, getOnce, input, median, pool, post, printTable, rssMb, sequential, startServer, summary } from "./lib.js";

/** Runs enqueued on one thread (issue 16: within 1.2× of the same runs invoked one after another). */
const ONE_THREAD_RUNS = 100;
/** Runs before the c=1 latency is measured, for the floor and the server (see the header). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);

// ---- the floor: in-process graph + checkpointer ------------------------------------------------
async function floor(backend: "pglite" | "postgres") {
  // (the example agent on its offline model: the benchmark measures Berth, not a model provider)
  const { once, close } = await floorChat(backend);
  for (let i = 0; i < WARMUP; i++) await once(i); // warm-up
  const lat = await sequential(N, once);
  const c10 = await pool(N, 10, once);
  const c50 = await pool(N, 50, once);
  const oneThreadMs = await floorOneThreadMs(once);
  return { latency: summary(lat), c10, c50, oneThreadMs, once, close };
}

/** The floor's one thread: the same runs invoked on one thread, one after another. */
async function floorOneThreadMs(once: (i: number, threadId: string) => Promise<unknown>): Promise<number> {
  const thread = randomUUID();
  const t0 = performance.now();
  for (let i = 0; i < ONE_THREAD_RUNS; i++) await once(i, thread);
  return performance.now() - t0;
}

async function createThread(url: string): Promise<string> {
  return (await post<{ thread_id: string }>(`${url}/threads`, {})).thread_id;
}
async function createAndJoin(url: string, threadId: string, i: number): Promise<void> {
  const run = await post<{ run_id: string }>(`${url}/threads/${threadId}/runs`, { assistant_id: "chat", input: input(i) });
  const res = await getOnce(`${url}/threads/${threadId}/runs/${run.run_id}/join`);
  if (!res.ok) throw new Error(`join: ${res.status}`);
  await res.text();
}

/** What the client sees of a server: latency at c=1, throughput at c=10 and c=50, one thread's queue. */
async function measure(url: string) {
  for (let i = 0; i < WARMUP; i++) await createAndJoin(url, await createThread(url), i); // warm-up
  const threads = await Promise.all(Array.from({ length: N }, () => createThread(url)));
  const lat = await sequential(N, (i) => createAndJoin(url, threads[i]!, i));
  const threads10 = await Promise.all(Array.from({ length: N }, () => createThread(url)));
  const c10 = await pool(N, 10, (i) => createAndJoin(url, threads10[i]!, i));
  const threads50 = await Promise.all(Array.from({ length: N }, () => createThread(url)));
  const c50 = await pool(N, 50, (i) => createAndJoin(url, threads50[i]!, i));

  const oneMs = await oneThreadMs(url);
  return { latency: summary(lat), c10, c50, oneThreadMs: oneMs };
}

/** Rounds of the alternating floor/Berth comparison that judges issue 16's targets (see `interleaved`). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? process.env.BENCH_C50_ROUNDS ?? 5);
/**
 * Runs per c=50 slice of the alternating rounds. At 200 (BENCH_N) a slice lasted under a second,
 * and its ramp (50 runs starting at once, then a tail with fewer than 50 in flight) was a large
 * part of it: five rounds' shares spread 44–78% on one quiet machine (medians 56–71% between bench
 * runs). At 800 they spread 61–81%, with medians of 71–72%.
 */
const C50_N = Number(process.env.BENCH_C50_N ?? 800);

/**
 * The peer's c=50 as Berth's is judged: ROUNDS slices of C50_N runs (threads made first), taken one
 * after another with the peer alone (before any Berth server runs), their median. Its one-shot
 * figure (N runs, with the ramp) read 38–56 runs/s across five bench runs on one machine, which
 * alone moved Berth's ratio between 2.3× and 3.7×. The peer slows as its in-memory store fills, so
 * its slices decline within a run (55 → 36 runs/s, starting empty): the median is not its best.
 */
async function peerC50Slices(url: string): Promise<{ c50s: number[]; c50: number }> {
  const c50s: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const threads = await Promise.all(Array.from({ length: C50_N }, () => createThread(url)));
    c50s.push(await pool(C50_N, 50, (i) => createAndJoin(url, threads[i]!, i)));
  }
  return { c50s, c50: median(c50s) };
}

/** 100 runs on one thread at Berth: created at once (enqueue), then joined in order. */
async function oneThreadMs(url: string): Promise<number> {
  const one = await createThread(url);
  const t0 = performance.now();
  const runs = await Promise.all(
    // enqueue said explicitly: the LangGraph.js server's default strategy is reject
    Array.from({ length: ONE_THREAD_RUNS }, (_, i) =>
      post<{ run_id: string }>(`${url}/threads/${one}/runs`, { assistant_id: "chat", input: input(i), multitask_strategy: "enqueue" }),
    ),
  );
  for (const r of runs) await (await getOnce(`${url}/threads/${one}/runs/${r.run_id}/join`)).text();
  return performance.now() - t0;
}

/**
 * Issue 16's three ratios — c=1 p50 overhead, c=50 share, one thread's queue against the sequential
 * floor — each measured in alternating slices (floor, Berth, floor, Berth…) after both are warm.
 * The one-shot figures of the table are taken minutes apart, and the floor alone swung 180–282
 * runs/s at c=50 and 1.3–1.6 s for one thread's 100 runs between runs on one quiet machine, which
 * made their ratios mostly noise. Each round's ratio compares two slices taken seconds apart; the
 * median of the rounds is the verdict.
 */
async function interleaved(url: string, floorOnce: (i: number, threadId?: string) => Promise<unknown>) {
  const overheads: number[] = [];
  const shares: number[] = [];
  const oneRatios: number[] = [];
  const c50s: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const fl1 = await sequential(N, (i) => floorOnce(i));
    const threads1 = await Promise.all(Array.from({ length: N }, () => createThread(url)));
    const sv1 = await sequential(N, (i) => createAndJoin(url, threads1[i]!, i));
    overheads.push(median(sv1) - median(fl1));

    const fl = await pool(C50_N, 50, (i) => floorOnce(i));
    const threads = await Promise.all(Array.from({ length: C50_N }, () => createThread(url)));
    const sv = await pool(C50_N, 50, (i) => createAndJoin(url, threads[i]!, i));
    shares.push(sv / fl);
    c50s.push(sv);

    const flOne = await floorOneThreadMs(floorOnce);
    oneRatios.push((await oneThreadMs(url)) / flOne);
  }
  return {
    overheads, overhead: median(overheads),
    shares, share: median(shares),
    oneRatios, oneRatio: median(oneRatios),
    c50s, c50: median(c50s),
  };
}

/** Wait until the server has cached the graphs' schemas (derived in the background at first start), at most 3 min. */
async function schemaCacheWritten(dataDir: string): Promise<void> {
  const dir = process.env.BERTH_SCHEMA_CACHE_DIR ?? path.join(dataDir, "schema-cache");
  const deadline = Date.now() + 180_000;
  let seen = -1;
  while (Date.now() < deadline) {
    const files = (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith(".json")).length;
    // (settled: some written, and no more for a second)
    if (files > 0 && files === seen) return;
    seen = files;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function serverBench(backend: "pglite" | "postgres", floorOnce: (i: number, threadId?: string) => Promise<unknown>) {
  const db = await createDb(backend);
  // Idle RSS of a server that has run before: the very first start also creates the database
  // (PGlite runs initdb in-process), which is not the steady state.
  // The first start also derives the graphs' schemas from their TypeScript types in a worker
  // thread (~100 MB while it runs, gone when it ends) and caches them; give it time to finish so
  // the restart reads the cache, as every later start of a deployment does.
  const first = await startServer(db);
  for (let i = 0; i < 5; i++) await createAndJoin(first.url, await createThread(first.url), i);
  const firstRss = await rssMb(first.child.pid!);
  // (a fixed wait was too short on a loaded machine: every later start derived the schemas again,
  // and the idle reading caught that worker thread at ~280–300 MB)
  await schemaCacheWritten(db.dataDir);
  await first.stop();
  const server = await startServer(db);
  await new Promise((r) => setTimeout(r, 1000));
  const idleRss = await rssMb(server.child.pid!);
  // A second reading once V8's memory reducer has run (it shrinks the young generation that
  // startup grew, after some seconds without allocation): what a long-idle pod shows.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const settledRss = await rssMb(server.child.pid!);
  const figures = await measure(server.url);
  const rounds = await interleaved(server.url, floorOnce);
  await server.stop();

  let queuedRss = NaN;
  if (WITH_RSS) {
    // RSS with 1,000 queued runs: an API-only server, so nothing drains the queue.
    const apiOnly = await startServer(db, { N_JOBS_PER_WORKER: "0" });
    const queueThreads = await Promise.all(Array.from({ length: 100 }, () => createThread(apiOnly.url)));
    await pool(1000, 20, (i) => post(`${apiOnly.url}/threads/${queueThreads[i % 100]}/runs`, { assistant_id: "chat", input: input(i) }));
    await new Promise((r) => setTimeout(r, 500));
    queuedRss = await rssMb(apiOnly.child.pid!);
    await apiOnly.stop();
  }
  await db.drop();
  return { ...figures, rounds, firstRss, idleRss, settledRss, queuedRss };
}

// ---- report ----------------------------------------------------------------------------------
const WITH_RSS = process.env.BENCH_RSS !== "0";
/** How long the idle server is left alone before the settled RSS reading. */
const SETTLE_MS = 30_000;
const PEER_URL = process.env.BENCH_PEER_URL;
// The server runs from a fresh build of dist/, as in production (bin/berth.js prefers it); with
// BENCH_BERTH_BIN it is that other build, built by whoever made it (A/B runs: no rebuild per run).
if (!process.env.BENCH_BERTH_BIN) buildDist();
const f = (n: number, d = 1) => n.toFixed(d);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(", ");
console.log(`Berth agent server benchmark — N=${N} runs per figure, ${os.cpus().length} cores, node ${process.version}, load ${load()}`);
console.log(`(figures depend on machine load; the server is a separate process, the client uses ${process.env.BENCH_CLIENT ?? "http"})\n`);
const peer = PEER_URL ? await measure(PEER_URL) : undefined;
const peerSlices = PEER_URL ? await peerC50Slices(PEER_URL) : undefined;
const peerCell = (v: number | undefined, d = 1) => (peer && v !== undefined ? f(v, d) : "");
const vsPeer = (mine: number, theirs: number | undefined, higherIsBetter: boolean) =>
  peer && theirs ? `  ${f(higherIsBetter ? mine / theirs : theirs / mine, 1)}× the peer` : "";
for (const backend of BACKENDS) {
  const fl = await floor(backend);
  const sv = await serverBench(backend, fl.once);
  await fl.close();
  const overhead = sv.latency.p50 - fl.latency.p50;
  const oneRatio = sv.oneThreadMs / fl.oneThreadMs;
  const c50Share = sv.c50 / fl.c50;
  const rd = sv.rounds;
  const list = (xs: number[], show: (x: number) => string) => xs.map(show).join(", ");
  const pct = (x: number) => f(100 * x, 0) + "%";
  const rows: string[][] = [
    ["create→join c=1 p50 (ms)", f(fl.latency.p50, 2), f(sv.latency.p50, 2), peerCell(peer?.latency.p50, 2),
      `overhead ${f(overhead, 2)} ms (one shot: the alternating rounds below judge)${vsPeer(sv.latency.p50, peer?.latency.p50, false)}`],
    ["create→join c=1 p99 (ms)", f(fl.latency.p99, 2), f(sv.latency.p99, 2), peerCell(peer?.latency.p99, 2), ""],
    ["throughput c=10 (runs/s)", f(fl.c10), f(sv.c10), peerCell(peer?.c10), `${f(100 * (sv.c10 / fl.c10), 0)}% of floor${vsPeer(sv.c10, peer?.c10, true)}`],
    ["throughput c=50 (runs/s)", f(fl.c50), f(sv.c50), peerCell(peer?.c50),
      `${f(100 * c50Share, 0)}% of floor (one shot: the alternating rounds below judge)${vsPeer(sv.c50, peer?.c50, true)}`],
    [`${ONE_THREAD_RUNS} runs on one thread (s)`, f(fl.oneThreadMs / 1000, 2), f(sv.oneThreadMs / 1000, 2), peerCell(peer && peer.oneThreadMs / 1000, 2),
      `${f(oneRatio, 2)}× the sequential floor (one shot)${vsPeer(sv.oneThreadMs, peer?.oneThreadMs, false)}`],
    [`c=1 p50 overhead, ${ROUNDS} alternating rounds (ms)`, "", f(rd.overhead, 2), "",
      `median of ${list(rd.overheads, (x) => f(x, 2))}${backend === "postgres" ? (rd.overhead <= 3 ? "  ✓ ≤ 3" : "  ✗ > 3") : ""}`],
    [`c=50 share, ${ROUNDS} alternating rounds of ${C50_N} runs`, "", pct(rd.share), "",
      `median of ${list(rd.shares, pct)}${backend === "postgres" ? (rd.share >= 0.6 ? "  ✓ ≥ 60%" : "  ✗ < 60%") : ""}`],
    // Berth warm against the peer measured alone, before any Berth server ran: peer slices taken
    // within the rounds, right after Berth's, ran slower than alone and flattered Berth (4.3–5.2×
    // against 2.7–3.3× for the one-shot rows, PGlite). Slices of the same size on both sides, medians.
    ...(peerSlices ? [[`c=50 runs/s, ${ROUNDS} alternating rounds, ÷ the peer's ${ROUNDS} slices alone`, "", f(rd.c50), f(peerSlices.c50),
      `medians of ${list(rd.c50s, (x) => f(x, 0))} and ${list(peerSlices.c50s, (x) => f(x, 0))}: ${f(rd.c50 / peerSlices.c50, 1)}× the peer${backend === "pglite" ? (rd.c50 >= 3 * peerSlices.c50 ? "  ✓ ≥ 3×" : "  ✗ < 3×") : ""}`]] : []),
    [`one thread ÷ sequential floor, ${ROUNDS} alternating rounds`, "", f(rd.oneRatio, 2) + "×", "",
      `median of ${list(rd.oneRatios, (x) => f(x, 2))}${rd.oneRatio <= 1.2 ? "  ✓ ≤ 1.2×" : "  ✗ > 1.2×"}`],
    ["RSS first start, after 5 runs (MB)", "", f(sv.firstRss, 0), "", "database creation and schema extraction included"],
    ["RSS idle, 1 s after start (MB)", "", f(sv.idleRss, 0), "", sv.idleRss < 150 ? "✓ < 150" : "✗ ≥ 150"],
    [`RSS idle, settled (${SETTLE_MS / 1000} s more) (MB)`, "", f(sv.settledRss, 0), "", sv.settledRss < 150 ? "✓ < 150" : "✗ ≥ 150"],
  ];
  if (WITH_RSS) rows.push(["RSS 1,000 queued runs (MB)", "", f(sv.queuedRss, 0), "", sv.queuedRss < 300 ? "✓ < 300" : "✗ ≥ 300"]);
  console.log(`## ${backend}`);
  printTable(["metric", "floor", "berth", peer ? "peer" : "", "note"], rows);
  console.log("");
}
console.log(`load at the end: ${load()}`);
process.exit(0);

/**
 * Tracing benchmark. Prints, per workload, an ingest table, then a stats table:
 *
 * - ingest: N runs (N/4 traces of a chain root with a retriever, an LLM and a tool child) sent by
 *   the real `langsmith` SDK (RunTree on an auto-batching Client: gzip multipart, as `/info`
 *   advertises) to `berth tracing` on Postgres. Two workloads (`--workload`):
 *     posted-patched: each run posted when it starts, patched when it ends (2 operations per run);
 *     merged:         each run built whole (end() before postRun()): one post with outputs and
 *                     end_time per run, as for calls that finish within the SDK's batching window.
 *   Three measurements per workload, each on its own empty scratch database and server:
 *     live:   the SDK end to end. Runs/s from the first run to `awaitPendingTraceBatches()`; the
 *             latency of each `POST /runs/multipart` (the SDK's `fetchImplementation` hook). The
 *             SDK's own CPU (serialising, gzip) bounds this figure on a small machine.
 *     replay: every `POST /runs/multipart` the SDK sent in the live run, captured byte for byte
 *             (gzip body, content-type, content-encoding), resent with plain fetch to a fresh
 *             server at the SDK's peak concurrency and at --replay-concurrency (10): the server's
 *             capacity on the SDK's own bytes, with a client that costs next to nothing.
 *     floor:  the same rows (read back from tracing_runs after the live run) inserted with `pg`
 *             alone into an identical empty table, as many rows per statement as the SDK's
 *             requests stored on average, at the same concurrency as the replay it is compared to
 *             (the median of 3 trials: each takes about a second).
 *   Ingest is staged (merged in the background), so live and replay count until every run is merged
 *   (a read of the query API, which merges what is still staged), not to the last 202.
 *   Headline: replay runs/s ÷ floor rows/s at the SDK's concurrency; target ≥ 50%. Also the CPU
 *   seconds the client, the server and the database's Postgres backends used (/proc), since all
 *   three share the machine's cores.
 * - stats: M runs spread over 30 days inserted directly with SQL into one project, with the hourly
 *   rollups built from them the way ingest keeps them; then the latency of
 *   `GET /projects/{id}/stats` over 30 days (bucket=day and bucket=hour) and `GET /projects?name=`.
 *
 * The server runs as its own process (`berth tracing` from a fresh dist/ build), as in production.
 * Usage: node --import tsx bench/tracing.ts [--runs 20000] [--stats-runs 1000000] [--queries 20]
 *        [--workload posted-patched|merged|both] [--replay-concurrency 10] [--skip-stats]
 *        [--cpu-prof DIR]   (writes a CPU profile of each server to DIR when it exits)
 */
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { buildDist, printTable, seedProjectRuns, summary } from "./lib.js";
import { api, countOperations, cpuUsed, floor, freshState, INGEST_PROJECT, merged, RUNS_PER_TRACE, sdkIngest, sendAll, storedRuns, type Captured, type Workload } from "./tracing-workload.js";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "20000" },
    "stats-runs": { type: "string", default: "1000000" },
    queries: { type: "string", default: "20" },
    workload: { type: "string", default: "both" },
    "replay-concurrency": { type: "string", default: "10" },
    "skip-stats": { type: "boolean", default: false },
    "cpu-prof": { type: "string" },
  },
});
const WORKLOADS: Workload[] =
  args.workload === "both" ? ["posted-patched", "merged"] : args.workload === "posted-patched" || args.workload === "merged" ? [args.workload] : [];
if (!WORKLOADS.length) throw new Error(`--workload must be posted-patched, merged or both, not ${args.workload}`);
const TRACES = Math.ceil(Number(args.runs) / RUNS_PER_TRACE);
const RUNS = TRACES * RUNS_PER_TRACE;
const STATS_RUNS = Math.ceil(Number(args["stats-runs"]) / RUNS_PER_TRACE) * RUNS_PER_TRACE;
const QUERIES = Number(args.queries);
const REPLAY_CONCURRENCY = Number(args["replay-concurrency"]);
const FLOOR_REPEATS = 3;
const STATS_PROJECT = "bench-stats";
const serverArgv = () => (args["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(args["cpu-prof"])] : []);

/** On a fresh, empty database and server: the warm-up requests (not counted), then the measured ones. */
async function replay(warmup: Captured[], measured: Captured[], concurrency: number) {
  const state = await freshState(serverArgv());
  try {
    await sendAll(state.server.url, warmup, concurrency);
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const before = await state.cpu();
    const t0 = performance.now();
    await sendAll(state.server.url, measured, concurrency, latencies, statuses);
    const acceptedSeconds = (performance.now() - t0) / 1000;
    // ingest is staged: counted until the runs are merged (a read merges what is still staged)
    await merged(state.server.url);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuUsed(before, await state.cpu());
    const stored = await storedRuns(state.sql, INGEST_PROJECT);
    return { concurrency, seconds, acceptedSeconds, latency: summary(latencies), statuses, cpu, stored };
  } finally {
    await state.close();
  }
}


async function timeQuery(url: string, n: number): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < 3; i++) await api(url); // warm-up
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await api(url);
    lat.push(performance.now() - t0);
  }
  return summary(lat);
}

// ---- report ----------------------------------------------------------------------------------
const f = (n: number, d = 1) => n.toFixed(d);
const int = (n: number) => Math.round(n).toLocaleString("en-US");
const pc = (r: number) => `${f(100 * r, 0)}%`;
const verdict = (r: number) => (r >= 0.5 ? "✓ ≥ 50%" : "✗ < 50%");
const statusText = (s: Map<number, number>) => [...s].map(([code, n]) => `${n}×${code}`).join(", ");
const table = printTable;

const WORKLOAD_TEXT: Record<Workload, string> = {
  "posted-patched": "each run posted when it starts, patched when it ends: 2 operations per run",
  merged: "each run one post with outputs and end_time (finished within the batching window): 1 operation per run",
};

async function ingest(workload: Workload) {
  // ---- live: the SDK end to end, capturing its requests; then the floor on the stored rows
  const live = await freshState(serverArgv());
  let sdk: Awaited<ReturnType<typeof sdkIngest>>;
  let stored: Awaited<ReturnType<typeof storedRuns>>;
  let apiRuns = 0;
  let rowsPerBatch: number;
  const concurrencies: number[] = [];
  const floors = new Map<number, Awaited<ReturnType<typeof floor>>>();
  try {
    sdk = await sdkIngest(live.server.url, live.cpu, workload, TRACES);
    stored = await storedRuns(live.sql, INGEST_PROJECT);
    if (!stored.projectId) throw new Error(`project ${INGEST_PROJECT} not found`);
    const listed = await api<{ projects: { stats?: { run_count: number } }[] }>(`${live.server.url}/projects?name=${encodeURIComponent(INGEST_PROJECT)}`);
    apiRuns = listed.projects[0]?.stats?.run_count ?? 0;
    // the floor: as many rows per statement as the SDK's requests stored, at the replays' concurrencies
    rowsPerBatch = Math.max(1, Math.round(stored.n / Math.max(1, sdk.measured.length)));
    concurrencies.push(Math.max(1, sdk.peak));
    if (REPLAY_CONCURRENCY !== concurrencies[0]) concurrencies.push(REPLAY_CONCURRENCY);
    for (const c of concurrencies) floors.set(c, await floor(live.sql, stored.projectId, rowsPerBatch, c, live.cpu, FLOOR_REPEATS));
  } finally {
    await live.close();
  }
  // ---- replay: the captured requests, on fresh empty states
  const replays = new Map<number, Awaited<ReturnType<typeof replay>>>();
  for (const c of concurrencies) replays.set(c, await replay(sdk.warmup, sdk.measured, c));

  const ops = countOperations(sdk.measured);
  const opCount = ops.post + ops.patch;
  const liveRunsPerSecond = RUNS / sdk.seconds;
  const requests = sdk.measured.length;
  const sdkLatency = summary(sdk.latencies);
  const liveComplete = stored.n === RUNS && apiRuns === RUNS && stored.pending === 0;
  const [c1] = concurrencies as [number];
  const floorRate = (c: number) => floors.get(c)!.rows / floors.get(c)!.seconds;
  const replayRate = (c: number) => RUNS / replays.get(c)!.seconds;

  console.log(`## Ingest, workload ${workload} (${WORKLOAD_TEXT[workload]})`);
  console.log("   langsmith SDK (RunTree, auto-batching, gzip multipart) → berth tracing → Postgres; each column on its own empty database");
  const head = ["metric"];
  for (const c of concurrencies) head.push(`floor c=${c}`, `replay c=${c}`);
  head.push("live SDK", "note");
  const row = (metric: string, fl: (c: number) => string, rp: (c: number) => string, lv: string, note = "") => {
    const r = [metric];
    for (const c of concurrencies) r.push(fl(c), rp(c));
    r.push(lv, note);
    return r;
  };
  const fc = (c: number) => floors.get(c)!;
  const rc = (c: number) => replays.get(c)!;
  const replayNote = concurrencies.map((c) => `replay c=${c}: ${statusText(rc(c).statuses)}`).join("; ");
  const stores = concurrencies.map((c) => rc(c).stored);
  const replayComplete = stores.every((s) => s.n === RUNS && s.pending === 0);
  table(head, [
    row("throughput (runs/s)", (c) => f(floorRate(c), 0), (c) => f(replayRate(c), 0), f(liveRunsPerSecond, 0), `floor: rows/s, median of ${FLOOR_REPEATS} trials`),
    row("% of floor (same concurrency)", () => "", (c) => `${pc(replayRate(c) / floorRate(c))} ${replayRate(c) / floorRate(c) >= 0.5 ? "✓" : "✗"}`, pc(liveRunsPerSecond / floorRate(c1)), `target ≥ 50%; live vs the floor at c=${c1}`),
    row("wall time (s)", (c) => f(fc(c).seconds, 2), (c) => f(rc(c).seconds, 2), f(sdk.seconds, 2), `live: runs queued by the app after ${f(sdk.queuedMs / 1000, 2)} s`),
    row("replay: all accepted after (s)", () => "", (c) => f(rc(c).acceptedSeconds, 2), "", "the last 202; wall time runs until every run is merged"),
    row("request latency p50 (ms)", (c) => f(fc(c).latency.p50, 1), (c) => f(rc(c).latency.p50, 1), f(sdkLatency.p50, 1), "floor: one INSERT statement"),
    row("request latency p99 (ms)", (c) => f(fc(c).latency.p99, 1), (c) => f(rc(c).latency.p99, 1), f(sdkLatency.p99, 1), ""),
    row("requests / statements", (c) => String(fc(c).batches), () => String(requests), String(requests), `live: ${statusText(sdk.statuses)}; ${replayNote}`),
    row(
      "operations per request",
      () => "",
      () => f(opCount / Math.max(1, requests), 1),
      f(opCount / Math.max(1, requests), 1),
      `read from the captured bodies: ${int(ops.post)} posts (${int(ops.postFinished)} with outputs or error), ${int(ops.patch)} patches` +
        (ops.unread ? `; ${ops.unread} requests not gzip, not read` : ""),
    ),
    row("rows per request", () => String(rowsPerBatch), () => f(RUNS / Math.max(1, requests), 1), f(stored.n / Math.max(1, requests), 1), "floor batches = the SDK's rows per request"),
    row("body bytes per request (gzip)", () => "", () => int(sdk.bytes / Math.max(1, requests)), int(sdk.bytes / Math.max(1, requests)), "replay: the live run's bytes"),
    row("CPU s: client process", (c) => f(fc(c).cpu.client, 2), (c) => f(rc(c).cpu.client, 2), f(sdk.cpu.client, 2), "floor: the pg script; replay: plain fetch; live: the langsmith SDK"),
    row("CPU s: berth tracing server", () => "", (c) => f(rc(c).cpu.server, 2), f(sdk.cpu.server, 2), ""),
    row("CPU s: Postgres backends", (c) => f(fc(c).cpu.postgres, 2), (c) => f(rc(c).cpu.postgres, 2), f(sdk.cpu.postgres, 2), ""),
    row(
      "CPU µs per run: server + Postgres",
      (c) => f((1e6 * fc(c).cpu.postgres) / fc(c).rows, 0),
      (c) => f((1e6 * (rc(c).cpu.server + rc(c).cpu.postgres)) / RUNS, 0),
      f((1e6 * (sdk.cpu.server + sdk.cpu.postgres)) / RUNS, 0),
      concurrencies.map((c) => `replay c=${c}: server ${f((1e6 * rc(c).cpu.server) / RUNS, 0)} + Postgres ${f((1e6 * rc(c).cpu.postgres) / RUNS, 0)}`).join("; "),
    ),
    row(
      "cores busy (all CPU s ÷ wall s)",
      (c) => f((fc(c).cpu.client + fc(c).cpu.postgres) / fc(c).seconds, 2),
      (c) => f((rc(c).cpu.client + rc(c).cpu.server + rc(c).cpu.postgres) / rc(c).seconds, 2),
      f((sdk.cpu.client + sdk.cpu.server + sdk.cpu.postgres) / sdk.seconds, 2),
      `of ${os.cpus().length}`,
    ),
    row(
      "runs stored",
      (c) => int(fc(c).rows),
      (c) => int(rc(c).stored.n),
      int(stored.n),
      `live: query API run_count ${int(apiRuns)}${liveComplete ? " ✓" : " ✗ missing or pending runs"}; ` +
        `replay: ${replayComplete ? "all stored, none pending ✓" : `✗ pending ${stores.map((s) => s.pending).join("/")}`}`,
    ),
  ]);
  const r1 = replayRate(c1) / floorRate(c1);
  const clientBound = RUNS / sdk.cpu.client;
  console.log(
    `(${stored.llmPriced} of ${int(TRACES)} LLM runs priced; live runs/s counts from the first run to awaitPendingTraceBatches() and the merge, ` +
      `replay runs/s from the first request sent until every run is merged (a read of the query API after the last response).)`,
  );
  console.log(
    `HEADLINE ${workload}: replay of the SDK's requests at its concurrency (c=${c1}) ${int(replayRate(c1))} runs/s = ${pc(r1)} of the floor's ` +
      `${int(floorRate(c1))} rows/s  ${verdict(r1)}` +
      concurrencies
        .slice(1)
        .map((c) => `; at c=${c}: ${int(replayRate(c))} runs/s = ${pc(replayRate(c) / floorRate(c))} of ${int(floorRate(c))}`)
        .join("") +
      `. Live SDK end to end: ${int(liveRunsPerSecond)} runs/s = ${pc(liveRunsPerSecond / floorRate(c1))}.`,
  );
  console.log(
    `  Why live < replay: the SDK client itself used ${f(sdk.cpu.client, 1)} CPU-s for ${int(RUNS)} runs (at most ${int(clientBound)} runs/s even on a core ` +
      `of its own, and it shares ${os.cpus().length} cores with the server and Postgres); the replay resends its exact bytes with plain fetch ` +
      `(${f(rc(c1).cpu.client, 1)} CPU-s), so it measures the server.\n`,
  );
  const c2 = concurrencies[1] ?? c1; // = REPLAY_CONCURRENCY
  return { workload, c1, floor1: floorRate(c1), replay1: replayRate(c1), floor2: floorRate(c2), replay2: replayRate(c2), live: liveRunsPerSecond };
}

async function statsBench() {
  const state = await freshState(serverArgv());
  const { server, sql } = state;
  try {
    const statsProject = await api<{ id: string }>(`${server.url}/projects`, { method: "POST", body: JSON.stringify({ name: STATS_PROJECT }) });
    const seeded = await seedProjectRuns(sql, { id: statsProject.id, name: STATS_PROJECT }, STATS_RUNS);
    const start = new Date(Date.now() - 30 * 86_400_000).toISOString();
    const statsUrl = (bucket: string) => `${server.url}/projects/${statsProject.id}/stats?start_time=${encodeURIComponent(start)}&bucket=${bucket}`;
    const check = await api<{ totals: { run_count: number }; buckets: unknown[]; by_model: unknown[] }>(statsUrl("day"));
    const day = await timeQuery(statsUrl("day"), QUERIES);
    const hour = await timeQuery(statsUrl("hour"), QUERIES);
    const hourly = await api<{ buckets: unknown[] }>(statsUrl("hour"));
    const list = await timeQuery(`${server.url}/projects?name=${encodeURIComponent(STATS_PROJECT)}`, QUERIES);
    const one = await timeQuery(`${server.url}/projects/${statsProject.id}`, QUERIES);
    const runsPage = await timeQuery(`${server.url}/runs?project_id=${statsProject.id}&is_root=true&limit=50`, QUERIES);

    console.log(
      `## Stats over ${int(STATS_RUNS)} stored runs (30 days; ${int(seeded.rollupRows)} hourly rollup rows; seeded with SQL in ` +
        `${f(seeded.insertSeconds, 1)} s + rollups ${f(seeded.rollupSeconds, 1)} s; N=${QUERIES} per query)`,
    );
    const q: [string, { p50: number; p99: number }, string][] = [
      ["GET /projects/{id}/stats 30 d, bucket=day", day, `${check.buckets.length} buckets, ${check.by_model.length} models, run_count ${int(check.totals.run_count)}`],
      ["GET /projects/{id}/stats 30 d, bucket=hour", hour, `${hourly.buckets.length} buckets`],
      ["GET /projects?name=… (with stats)", list, "all-time stats"],
      ["GET /projects/{id} (with stats)", one, ""],
      ["GET /runs?project_id&is_root&limit=50", runsPage, "newest root runs (reads tracing_runs)"],
    ];
    table(
      ["query", "p50 (ms)", "p99 (ms)", "note"],
      q.map(([m, s, note]) => [m, f(s.p50, 1), f(s.p99, 1), note]),
    );
    console.log(`(p99 of ${QUERIES} samples is their maximum.)`);
  } finally {
    await state.close();
  }
}

buildDist();
const began = performance.now();
console.log(
  `Berth tracing benchmark — ${int(RUNS)} runs ingested (${int(TRACES)} traces × ${RUNS_PER_TRACE}) per workload (${WORKLOADS.join(", ")}), ` +
    `${args["skip-stats"] ? "stats skipped" : `stats over ${int(STATS_RUNS)} stored runs`}, ${os.cpus().length} cores, node ${process.version}`,
);
console.log(
  `(a shared machine: the client, the server and Postgres compete for the same ${os.cpus().length} cores, so figures vary with load;\n` +
    ` the server is a separate process from a fresh dist/ build, on a scratch Postgres database)\n`,
);

const results = [];
for (const w of WORKLOADS) results.push(await ingest(w));
if (results.length > 1) {
  console.log("## Ingest summary: replay (the server on the SDK's own bytes) vs the pg-only floor; live SDK end to end beside it");
  const c2 = REPLAY_CONCURRENCY;
  table(
    ["workload", "floor rows/s", "replay runs/s", "% of floor", `floor c=${c2}`, `replay c=${c2}`, "% of floor", "live runs/s", "live %", "note"],
    results.map((r) => [
      r.workload,
      int(r.floor1),
      int(r.replay1),
      `${pc(r.replay1 / r.floor1)} ${r.replay1 / r.floor1 >= 0.5 ? "✓" : "✗"}`,
      int(r.floor2),
      int(r.replay2),
      pc(r.replay2 / r.floor2),
      int(r.live),
      pc(r.live / r.floor1),
      `first three at c=${r.c1}, the SDK's peak in flight`,
    ]),
  );
  console.log("(live is bounded by the SDK client's own CPU; replay resends its exact requests with plain fetch. Target: replay ≥ 50% of floor.)\n");
}
if (!args["skip-stats"]) await statsBench();
console.log(`\n(total ${f((performance.now() - began) / 1000, 0)} s)`);
process.exit(0);

/**
 * Tracing ingest, replayed on one warm server: the tool for profiling and for comparing changes,
 * where bench/tracing.ts is the full benchmark (a fresh server per measurement, the live SDK, stats).
 *
 * The langsmith SDK's `POST /runs/multipart` requests for N runs are captured once (or loaded from
 * --load, saved with --save), then sent R times to one server at --concurrency, each round with its
 * run ids rewritten (the same bytes otherwise, gzip again before the clock starts), so every round
 * inserts new runs as the SDK would. Per round: runs/s until every run is merged, the CPU µs per run
 * of the server (and of its main thread alone: the share of the time it ran, and waited for a core),
 * of the database's Postgres backends and of this client, and how busy the machine was. Then the pg-only floor
 * on the rows the rounds stored (as bench/tracing.ts measures it), at the same concurrency and batch
 * size: one floor trial right after each round, on the rows that round stored, so each round's share
 * of the floor is taken under the same load (the machine is shared); the headline is the median
 * round's share. The last line says what reaching half the floor's rate would leave the server (see
 * budget below), next to what it spent.
 *
 * Each round, the same requests also go to a server that only reads and parses them
 * (bench/tracing-parse-ceiling.ts): its share of the floor is the ceiling of any ingest that parses
 * the SDK's requests in one Node.js thread, whatever it does after.
 *
 * With --cpu-prof DIR the server writes a CPU profile when it exits, and DIR/window.json says when
 * the measured rounds ran, for a summary of them alone:
 *   node --import tsx bench/cpuprofile-top.ts DIR/<file>.cpuprofile --window DIR/window.json
 *
 * Usage: node --import tsx bench/tracing-replay.ts [--runs 2000] [--workload posted-patched|merged]
 *        [--concurrency 5] [--rounds 3] [--save FILE | --load FILE] [--cpu-prof DIR] [--from-source]
 * (--from-source runs the server from src/ through tsx; otherwise build dist/ first: npx tsc -p tsconfig.build.json)
 * BENCH_SERVER_NODE_ARGS="--trace-gc --max-semi-space-size=64": node flags for the server, space-separated.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { execSync, fork } from "node:child_process";
import { printTable, summary } from "./lib.js";
import {
  cpuUsed, floorTrials, freshState, idPrefix, INGEST_PROJECT, loadCapture, merged, rewriteIds, RUNS_PER_TRACE, saveCapture, sdkIngest, sendAll, storedRuns, type SavedCapture, type Workload,
} from "./tracing-workload.js";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "2000" },
    workload: { type: "string", default: "posted-patched" },
    concurrency: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    save: { type: "string" },
    load: { type: "string" },
    "cpu-prof": { type: "string" },
    "from-source": { type: "boolean", default: false },
  },
});
const workload = args.workload as Workload;
if (workload !== "posted-patched" && workload !== "merged") throw new Error(`--workload must be posted-patched or merged, not ${args.workload}`);
const TRACES = Math.ceil(Number(args.runs) / RUNS_PER_TRACE);
const RUNS = TRACES * RUNS_PER_TRACE;
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);
const env = args["from-source"] ? { BERTH_FROM_SOURCE: "1" } : {};
const uptime = () => execSync("uptime").toString().trim().replace(/^.*load average/, "load average");

async function capture(): Promise<SavedCapture> {
  if (args.load) return loadCapture(args.load);
  const state = await freshState([], env);
  try {
    const sdk = await sdkIngest(state.server.url, state.cpu, workload, TRACES);
    const saved = { workload, runs: RUNS, warmup: sdk.warmup, measured: sdk.measured };
    if (args.save) saveCapture(args.save, saved);
    return saved;
  } finally {
    await state.close();
  }
}

const saved = await capture();
if (saved.workload !== workload) throw new Error(`${args.load} holds workload ${saved.workload}, not ${workload}`);
const runs = saved.runs;
const execArgv = [
  ...(args["cpu-prof"] ? ["--cpu-prof", "--cpu-prof-dir", path.resolve(args["cpu-prof"])] : []),
  ...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []),
];
// (node creates the directory only when the server exits, after the window is written)
if (args["cpu-prof"]) mkdirSync(args["cpu-prof"], { recursive: true });
const state = await freshState(execArgv, env);
const ceiling = await parseCeiling();
const rows: string[][] = [];
const f = (n: number, d = 0) => n.toFixed(d);
const pct = (x: number) => (Number.isFinite(x) ? `${f(100 * x)}%` : "n/a");
try {
  const url = state.server.url;
  const rounds = Array.from({ length: ROUNDS }, (_, i) => rewriteIds(saved.measured, i + 1));
  await sendAll(url, rewriteIds(saved.warmup, 0xffff), CONCURRENCY);
  await sendAll(url, rewriteIds(saved.measured, 0xfffe), CONCURRENCY);
  await merged(url);
  await sendAll(ceiling.url, rounds[0]!, CONCURRENCY); // warm-up
  const projectId = (await storedRuns(state.sql, INGEST_PROJECT)).projectId!;
  const rowsPerBatch = Math.max(1, Math.round(runs / saved.measured.length));
  const floors = await floorTrials(state.sql, projectId, state.cpu);
  await floors.trial(idPrefix(0xfffe), rowsPerBatch, CONCURRENCY); // warm-up
  await floors.copyTrial(idPrefix(0xfffe), rowsPerBatch, CONCURRENCY);
  const totals = { seconds: 0, server: 0, serverMain: 0, serverMainWait: 0, postgres: 0, client: 0, busy: 0, floorSeconds: 0, floorRows: 0, floorPg: 0, floorClient: 0, floorBusy: 0, copySeconds: 0, copyRows: 0, ceilingSeconds: 0 };
  const shares: number[] = [];
  const ceilingShares: number[] = [];
  const copyShares: number[] = [];
  const from = process.hrtime.bigint() / 1000n; // the monotonic clock, as the profile's timestamps
  for (let round = 1; round <= ROUNDS; round++) {
    const requests = rounds[round - 1]!;
    const latencies: number[] = [];
    const before = await state.cpu();
    const t0 = performance.now();
    await sendAll(url, requests, CONCURRENCY, latencies);
    const accepted = (performance.now() - t0) / 1000;
    await merged(url);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuUsed(before, await state.cpu());
    totals.seconds += seconds;
    totals.server += cpu.server;
    totals.serverMain += cpu.serverMain;
    totals.serverMainWait += cpu.serverMainWait;
    totals.busy += cpu.busy * seconds;
    totals.postgres += cpu.postgres;
    totals.client += cpu.client;
    const lat = summary(latencies);
    const load = uptime();
    // the floor on this round's rows, right after it
    const fl = await floors.trial(idPrefix(round), rowsPerBatch, CONCURRENCY);
    if (fl.rows !== runs) throw new Error(`the floor stored ${fl.rows} rows of round ${round}, expected ${runs}`);
    totals.floorSeconds += fl.seconds;
    totals.floorRows += fl.rows;
    totals.floorPg += fl.cpu.postgres;
    totals.floorClient += fl.cpu.client;
    totals.floorBusy += fl.cpu.busy * fl.seconds;
    const share = runs / seconds / (fl.rows / fl.seconds);
    shares.push(share);
    const cp = await floors.copyTrial(idPrefix(round), rowsPerBatch, CONCURRENCY);
    if (cp.rows !== runs) throw new Error(`the COPY floor stored ${cp.rows} rows of round ${round}, expected ${runs}`);
    totals.copySeconds += cp.seconds;
    totals.copyRows += cp.rows;
    const copyShare = runs / seconds / (cp.rows / cp.seconds);
    copyShares.push(copyShare);
    // the parse-only server on the same requests (the round's runs, parsed and dropped)
    const c0 = performance.now();
    await sendAll(ceiling.url, requests, CONCURRENCY);
    const ceilingSeconds = (performance.now() - c0) / 1000;
    totals.ceilingSeconds += ceilingSeconds;
    const ceilingShare = runs / ceilingSeconds / (fl.rows / fl.seconds);
    ceilingShares.push(ceilingShare);
    rows.push([`round ${round}`, f(runs / seconds), f(fl.rows / fl.seconds), `${f(100 * share)}%`, f(cp.rows / cp.seconds), `${f(100 * copyShare)}%`, f(accepted, 2), f(seconds, 2), f(lat.p50, 1), f(lat.p99, 1), f((1e6 * cpu.server) / runs), f((1e6 * cpu.serverMain) / runs), `${f((100 * cpu.serverMain) / seconds)}%`, pct(cpu.serverMainWait / seconds), f((1e6 * cpu.postgres) / runs), f((1e6 * (cpu.server + cpu.postgres)) / runs), f((1e6 * cpu.client) / runs), f((1e6 * fl.cpu.postgres) / fl.rows), f((1e6 * fl.cpu.client) / fl.rows), `${f(100 * cpu.busy)}%`, `${f(100 * fl.cpu.busy)}%`, f(runs / ceilingSeconds), `${f(100 * ceilingShare)}%`, load]);
  }
  if (args["cpu-prof"]) writeFileSync(path.join(args["cpu-prof"], "window.json"), JSON.stringify({ from: Number(from), to: Number(process.hrtime.bigint() / 1000n) }));
  const all = runs * ROUNDS;
  const medianOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const median = medianOf(shares);
  const copyMedian = medianOf(copyShares);
  rows.push(["all rounds", f(all / totals.seconds), f(totals.floorRows / totals.floorSeconds), `${f(100 * median)}% (median)`, f(totals.copyRows / totals.copySeconds), `${f(100 * copyMedian)}% (median)`, "", f(totals.seconds, 2), "", "", f((1e6 * totals.server) / all), f((1e6 * totals.serverMain) / all), `${f((100 * totals.serverMain) / totals.seconds)}%`, pct(totals.serverMainWait / totals.seconds), f((1e6 * totals.postgres) / all), f((1e6 * (totals.server + totals.postgres)) / all), f((1e6 * totals.client) / all), f((1e6 * totals.floorPg) / totals.floorRows), f((1e6 * totals.floorClient) / totals.floorRows), `${f((100 * totals.busy) / totals.seconds)}%`, `${f((100 * totals.floorBusy) / totals.floorSeconds)}%`, f(all / totals.ceilingSeconds), `${f(100 * medianOf(ceilingShares))}% (median)`, ""]);
  await floors.drop();
  const stored = await storedRuns(state.sql, INGEST_PROJECT);
  if (stored.n !== runs * (ROUNDS + 1) || stored.pending) throw new Error(`stored ${stored.n} runs (${stored.pending} pending), expected ${runs * (ROUNDS + 1)}`);
  console.log(`## ${workload}: ${runs} runs × ${ROUNDS} rounds in ${saved.measured.length} requests each, c=${CONCURRENCY}, one warm server${args["from-source"] ? " (from source)" : ""}; floor: the round's rows, ${rowsPerBatch} per INSERT (and per COPY: copy floor), c=${CONCURRENCY}, right after the round`);
  printTable(["", "runs/s", "floor rows/s", "share", "copy floor rows/s", "share of copy floor", "accepted (s)", "merged (s)", "p50 ms", "p99 ms", "server µs/run", "main thread µs/run", "main thread on a core", "main thread waiting for a core", "pg µs/run", "server+pg µs/run", "client µs/run", "floor pg µs/row", "floor client µs/row", "machine busy", "floor's machine busy", "parse-only runs/s", "parse-only share", "load"], rows);
  console.log(`replay ${(100 * median).toFixed(0)}% of the floor (median round; rounds ${shares.map((x) => `${(100 * x).toFixed(0)}%`).join(", ")}); ${(100 * copyMedian).toFixed(0)}% of the COPY floor; CPU per run ${f((1e6 * (totals.server + totals.postgres)) / all)} µs vs the floor's ${f((1e6 * totals.floorPg) / totals.floorRows)} µs per row; a server that only parses the requests (bench/tracing-parse-ceiling.ts) reaches ${(100 * medianOf(ceilingShares)).toFixed(0)}% of the floor`);
  console.log(budget(totals.floorRows / totals.floorSeconds, (1e6 * totals.serverMain) / all, (1e6 * totals.server) / all, (1e6 * totals.postgres) / all, (1e6 * totals.client) / all));
} finally {
  ceiling.stop();
  await state.close();
}

/**
 * What half the floor's rate leaves the server, from this run's own figures: at that rate a run has
 * `wall` µs of the clock, so the server's main thread (one event loop) may spend at most that on it,
 * and the server in all at most what the cores give in that time less Postgres' and the client's
 * CPU per run as measured (with every core 100% busy, which the floor itself does not reach).
 */
function budget(floorRowsPerSecond: number, main: number, server: number, postgres: number, client: number): string {
  const wall = 1e6 / (floorRowsPerSecond / 2);
  const cores = availableParallelism();
  const all = cores * wall - postgres - client;
  return (
    `to reach 50% of this floor (${f(floorRowsPerSecond / 2)} runs/s, ${f(wall)} µs of wall time a run): the server's main thread may spend ` +
    `≤ ${f(wall)} µs a run (it spent ${f(main)}), and the server ≤ ${cores} cores × ${f(wall)} − Postgres ${f(postgres)} − client ${f(client)} = ${f(all)} µs a run in all (it spent ${f(server)})`
  );
}

/** The parse-only server (bench/tracing-parse-ceiling.ts), in a process of its own like Berth's. */
async function parseCeiling() {
  const child = fork(path.join(import.meta.dirname, "tracing-parse-ceiling.ts"), { execArgv: ["--import", "tsx"], stdio: "inherit" });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("message", (m: { url: string }) => resolve(m.url));
    child.once("exit", (code) => reject(new Error(`the parse-only server exited (${code})`)));
  });
  return { url, stop: () => child.kill("SIGTERM") };
}
process.exit(0);

/**
 * Round trips and server CPU per run (issue 16): `berth serve` (from dist/: `make build` first)
 * with a preload counting its pg queries and Redis commands, driven at concurrency C with one
 * thread per run (create, then join). After a warm-up the counters are reset, so the figures are
 * per measured run; the server's CPU per run is the process's (all threads).
 *
 * The server's graph schemas are derived from TypeScript in a worker thread on a cold cache, which
 * takes a core for seconds: BERTH_SCHEMA_CACHE_DIR is fixed so only the first invocation pays.
 * The server's CPU is split between its main thread and its other threads. After a short warm-up
 * the others are mostly TurboFan compiling what the runs call (at 50 warm-up runs and N=300, a
 * quarter to a third of the server's CPU): WARMUP=1500 measures the steady state instead.
 * "The busiest" of the other threads is, on PGlite, the embedded database's thread (its Postgres).
 * The client's CPU per run is printed too: on a 2-core machine it shares the cores with the server,
 * so server + client CPU per run bounds runs/s (2 cores / that). BERTH_PGLITE_STATS=1 makes the
 * database thread print, every 2 s, its units' wait for the session and PGlite call times.
 * Usage: node --import tsx bench/agent-server-roundtrips.ts [postgres|pglite] [C=50] [N=300]
 * (PROF_DIR=dir adds --cpu-prof; JOBS=n sets N_JOBS_PER_WORKER; SETTLE_MS waits after warm-up;
 * WARMUP=n runs before the counters are reset (default 50); BENCH_SERVER_NODE_FLAGS="--flag …"
 * adds node/V8 flags to the server; on Postgres the CPU of the database's backends in the window is
 * printed too, from /proc: Postgres must run on this machine;
 * ONE_THREAD=1: the N runs are created at once on one thread (enqueue) and joined one after
 * another, as `make bench`'s one-thread row does; C is then ignored)
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONFIG, ROOT, backendMsSince, backendTicks, createDb, forkBerth, getOnce, input, pool, post } from "./lib.js";

const backend = (process.argv[2] ?? "postgres") as "postgres" | "pglite";
const conc = Number(process.argv[3] ?? 50);
const n = Number(process.argv[4] ?? 300);
const countFile = path.join(os.tmpdir(), `berth-roundtrips-${process.pid}.txt`);
const db = await createDb(backend);
// (created up front: node writes the profile there at exit, and window.json is written before the stop)
if (process.env.PROF_DIR) fs.mkdirSync(process.env.PROF_DIR, { recursive: true });
const execArgv = [...(process.env.BENCH_SERVER_NODE_FLAGS ? process.env.BENCH_SERVER_NODE_FLAGS.split(" ") : []), ...(process.env.EXTRA_PRELOAD ? ["--import", process.env.EXTRA_PRELOAD] : []), "--import", path.join(ROOT, "bench/count-preload.mjs"), ...(process.env.PROF_DIR ? ["--cpu-prof", "--cpu-prof-dir", process.env.PROF_DIR] : [])];
const { child, ready, stop } = await forkBerth<{ url: string }>(["serve", "--config", CONFIG, "--port", "0"], {
  env: {
    ...process.env,
    ...(db.uri ? { DATABASE_URI: db.uri, REDIS_URI: process.env.BERTH_TEST_REDIS_URI ?? "redis://127.0.0.1:6379" } : {}),
    REDIS_KEY_PREFIX: `rt-${randomUUID().slice(0, 8)}`,
    BERTH_DATA_DIR: db.dataDir,
    BERTH_SCHEMA_CACHE_DIR: process.env.BERTH_SCHEMA_CACHE_DIR ?? path.join(os.tmpdir(), "berth-bench-schema-cache"),
    LOG_LEVEL: "warn",
    COUNT_FILE: countFile,
    ...(process.env.JOBS ? { N_JOBS_PER_WORKER: process.env.JOBS } : {}),
  },
  execArgv,
});
const url = ready.url;
const once = async (t: string, i: number) => {
  const run = await post<{ run_id: string }>(`${url}/threads/${t}/runs`, { assistant_id: "chat", input: input(i) });
  await (await getOnce(`${url}/threads/${t}/runs/${run.run_id}/join`)).text();
};
const warmRuns = Number(process.env.WARMUP ?? 50);
const warm = await Promise.all(Array.from({ length: warmRuns }, () => post<{ thread_id: string }>(`${url}/threads`, {})));
await pool(warmRuns, Math.min(conc, 10), (i) => once(warm[i]!.thread_id, i));
await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_MS ?? 3000)));
const threads = await Promise.all(Array.from({ length: n }, () => post<{ thread_id: string }>(`${url}/threads`, {})));
const load0 = os.loadavg()[0]!;
const backends0 = await backendTicks(db.uri);
child.kill("SIGUSR2"); // reset the counters
await new Promise((r) => setTimeout(r, 100));
const from = process.hrtime.bigint() / 1000n; // the profile's clock (µs): cpuprofile-top --window PROF_DIR/window.json
// the client's CPU in the window: on a 2-core machine it shares the cores with the server
const clientCpu0 = process.cpuUsage();
let rps: number;
if (process.env.ONE_THREAD === "1") {
  const t = threads[0]!.thread_id;
  const t0 = performance.now();
  const runs = await Promise.all(
    Array.from({ length: n }, (_, i) => post<{ run_id: string }>(`${url}/threads/${t}/runs`, { assistant_id: "chat", input: input(i), multitask_strategy: "enqueue" })),
  );
  for (const r of runs) await (await getOnce(`${url}/threads/${t}/runs/${r.run_id}/join`)).text();
  rps = n / ((performance.now() - t0) / 1000);
  console.log(`one thread: ${n} runs in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
  if (db.uri) {
    // where the time went, from the runs' own timestamps: the wait between a run's end and its
    // successor's start (the hand-over), and the runs' own durations
    const c = new pg.Client({ connectionString: db.uri });
    await c.connect();
    const { rows } = await c.query<{ created_at: Date; started_at: Date; ended_at: Date }>(
      "SELECT created_at, started_at, ended_at FROM runs WHERE thread_id = $1 ORDER BY seq",
      [t],
    );
    await c.end();
    const ms = (a: Date, b: Date) => b.getTime() - a.getTime();
    const gaps = rows.slice(1).map((r, i) => ms(rows[i]!.ended_at, r.started_at));
    const runs = rows.map((r) => ms(r.started_at, r.ended_at));
    const stat = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `sum ${s.reduce((a, b) => a + b, 0)} ms, p50 ${s[Math.floor(s.length / 2)]} ms, max ${s[s.length - 1]} ms`;
    };
    console.log(`  created over ${ms(rows[0]!.created_at, rows[rows.length - 1]!.created_at)} ms; first start ${ms(rows[0]!.created_at, rows[0]!.started_at)} ms after its creation`);
    console.log(`  end → next start: ${stat(gaps)}`);
    console.log(`  start → end:      ${stat(runs)} (first 10: ${runs.slice(0, 10).join(" ")}; last 10: ${runs.slice(-10).join(" ")})`);
  }
} else rps = await pool(n, conc, (i) => once(threads[i]!.thread_id, i));
const clientCpu = process.cpuUsage(clientCpu0);
if (process.env.PROF_DIR) fs.writeFileSync(path.join(process.env.PROF_DIR, "window.json"), JSON.stringify({ from: Number(from), to: Number(process.hrtime.bigint() / 1000n) }));
const backendMs = backendMsSince(backends0, await backendTicks(db.uri));
await stop();
await db.drop();
const lines = fs.readFileSync(countFile, "utf8").split("\n");
fs.rmSync(countFile, { force: true });
const m = /user (\d+) ms system (\d+) ms(?: main (\d+) ms other (\d+) ms busiest (\d+) ms)?/.exec(lines[0]!)!;
const [user, sys] = [Number(m[1]), Number(m[2])];
const threadSplit = m[3] === undefined ? "" : `; main thread ${(Number(m[3]) / n).toFixed(2)}, other threads ${(Number(m[4]) / n).toFixed(2)} (the busiest ${(Number(m[5]) / n).toFixed(2)})`;
console.log(
  `${backend} c=${conc} n=${n}: ${rps.toFixed(1)} runs/s, load ${load0.toFixed(1)}->${os.loadavg()[0]!.toFixed(1)}, ` +
    `server CPU ${((user + sys) / n).toFixed(2)} ms/run (user ${(user / n).toFixed(2)}, sys ${(sys / n).toFixed(2)}${threadSplit})` +
    `, client CPU ${((clientCpu.user + clientCpu.system) / 1000 / n).toFixed(2)} ms/run` +
    (db.uri ? `, Postgres backends ${(backendMs / n).toFixed(2)} ms/run` : ""),
);
for (const l of lines.slice(1).filter(Boolean)) {
  const [count, ...what] = l.trim().split(" ");
  console.log(`${(Number(count) / n).toFixed(2).padStart(7)}/run  ${what.join(" ")}`);
}
process.exit(0);

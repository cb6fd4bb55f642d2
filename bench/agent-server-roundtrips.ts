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
 * BENCH_PGSS=1: per statement from pg_stat_statements in the window (calls, exec and plan ms, WAL
 * bytes, buffers, per run): the cluster needs shared_preload_libraries=pg_stat_statements (and
 * pg_stat_statements.track_planning=on for plan times); point BERTH_TEST_POSTGRES_URI at it;
 * WARMUP_C=n: the warm-up's concurrency (default min(C, 10): the pool's connections that only the
 * measured runs use are then new, and each of their statements is planned afresh 5 times);
 * BENCH_KEEP_DB=1 keeps the Postgres database (for EXPLAIN afterwards);
 * BENCH_SQL="…": SQL run once the server has migrated the database, before the warm-up (a schema
 * variant's ceiling without a build);
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
if (process.env.BENCH_SQL && db.uri) {
  // a schema variant to try (after the server's migrations, before the warm-up): the ceiling of a
  // migration without building it
  const c = new pg.Client({ connectionString: db.uri });
  await c.connect();
  await c.query(process.env.BENCH_SQL);
  await c.end();
}
const once = async (t: string, i: number) => {
  const run = await post<{ run_id: string }>(`${url}/threads/${t}/runs`, { assistant_id: "chat", input: input(i) });
  await (await getOnce(`${url}/threads/${t}/runs/${run.run_id}/join`)).text();
};
const warmRuns = Number(process.env.WARMUP ?? 50);
const warm = await Promise.all(Array.from({ length: warmRuns }, () => post<{ thread_id: string }>(`${url}/threads`, {})));
await pool(warmRuns, Number(process.env.WARMUP_C ?? Math.min(conc, 10)), (i) => once(warm[i]!.thread_id, i));
await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_MS ?? 3000)));
// (made 50 at a time: all at once, N=20000 runs out of file descriptors, EMFILE)
const threads: { thread_id: string }[] = new Array(n);
await pool(n, 50, async (i) => void (threads[i] = await post<{ thread_id: string }>(`${url}/threads`, {})));
const load0 = os.loadavg()[0]!;
// (connected before the backends' CPU is read: its connection's start is not the runs')
const pgss = process.env.BENCH_PGSS === "1" && db.uri ? await pgssStart(db.uri) : undefined;
const backends0 = await backendTicks(db.uri);
await pgss?.reset();
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
const backends1 = await backendTicks(db.uri);
const backendMs = backendMsSince(backends0, backends1);
// backends that connected during the window (the pool opens connections as concurrency rises, and
// closes idle ones): their start, and their statements' first parses and plans, are in the figure
const newBackends = [...backends1.keys()].filter((pid) => !backends0.has(pid));
const newBackendMs = backendMsSince(new Map(), new Map(newBackends.map((pid) => [pid, backends1.get(pid)!])));
await stop();
// (after the server's stop: its backends flush their table statistics as they exit)
const pgssReport = pgss ? await pgss.report() : undefined;
if (process.env.BENCH_KEEP_DB !== "1") await db.drop();
else console.log(`kept ${db.uri}`);
const lines = fs.readFileSync(countFile, "utf8").split("\n");
fs.rmSync(countFile, { force: true });
const m = /user (\d+) ms system (\d+) ms(?: main (\d+) ms other (\d+) ms busiest (\d+) ms)?/.exec(lines[0]!)!;
const [user, sys] = [Number(m[1]), Number(m[2])];
const threadSplit = m[3] === undefined ? "" : `; main thread ${(Number(m[3]) / n).toFixed(2)}, other threads ${(Number(m[4]) / n).toFixed(2)} (the busiest ${(Number(m[5]) / n).toFixed(2)})`;
console.log(
  `${backend} c=${conc} n=${n}: ${rps.toFixed(1)} runs/s, load ${load0.toFixed(1)}->${os.loadavg()[0]!.toFixed(1)}, ` +
    `server CPU ${((user + sys) / n).toFixed(2)} ms/run (user ${(user / n).toFixed(2)}, sys ${(sys / n).toFixed(2)}${threadSplit})` +
    `, client CPU ${((clientCpu.user + clientCpu.system) / 1000 / n).toFixed(2)} ms/run` +
    (db.uri ? `, Postgres backends ${(backendMs / n).toFixed(2)} ms/run (${newBackends.length} connected in the window: ${(newBackendMs / n).toFixed(2)})` : ""),
);
for (const l of lines.slice(1).filter(Boolean)) {
  const [count, ...what] = l.trim().split(" ");
  console.log(`${(Number(count) / n).toFixed(2).padStart(7)}/run  ${what.join(" ")}`);
}
if (pgssReport) console.log(pgssReport);
process.exit(0);

/** Reset pg_stat_statements and the tables' statistics; `report` reads them back as tables, per run. */
async function pgssStart(uri: string): Promise<{ reset(): Promise<unknown>; report(): Promise<string> }> {
  const c = new pg.Client({ connectionString: uri });
  await c.connect();
  await c.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  return { reset: () => c.query("SELECT pg_stat_statements_reset(), pg_stat_reset()"), report: async () => {
    const { rows } = await c.query<Record<string, string>>(
      `SELECT calls, total_exec_time, total_plan_time, plans, rows, wal_bytes, wal_records, wal_fpi,
         shared_blks_hit + shared_blks_read AS blks, shared_blks_dirtied, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS q
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND query NOT LIKE '%pg_stat_statements%' ORDER BY total_exec_time + total_plan_time DESC`,
    );
    const f = (v: string | number, d = 2) => (Number(v) / n).toFixed(d);
    const sum = (k: string) => rows.reduce((a, r) => a + Number(r[k]), 0);
    const lines = [
      "pg_stat_statements per run: calls  exec ms  plan ms  (mean exec µs)  WAL bytes  WAL recs  blks  dirtied  statement",
      ...rows
        .filter((r) => Number(r.calls) / n >= 0.005)
        .map((r) => [f(r.calls).padStart(6), f(r.total_exec_time, 3).padStart(7), f(r.total_plan_time, 3).padStart(7), `(${((1000 * Number(r.total_exec_time)) / Number(r.calls)).toFixed(0)})`.padStart(8), f(r.wal_bytes, 0).padStart(7), f(r.wal_records, 1).padStart(6), f(r.blks, 1).padStart(6), f(r.shared_blks_dirtied, 2).padStart(6), r.q].join("  ")),
      `total: exec ${f(sum("total_exec_time"), 3)} ms, plan ${f(sum("total_plan_time"), 3)} ms, WAL ${f(sum("wal_bytes"), 0)} bytes (${f(sum("wal_records"), 1)} records, ${f(sum("wal_fpi"), 2)} full pages) per run`,
    ];
    await new Promise((r) => setTimeout(r, 500));
    const tables = await c.query<Record<string, string>>(
      `SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, seq_scan, idx_scan FROM pg_stat_user_tables
       WHERE n_tup_ins + n_tup_upd + n_tup_del + seq_scan + coalesce(idx_scan, 0) > 0 ORDER BY relname`,
    );
    lines.push("tables per run: inserted  updated  (HOT)  deleted  seq scans  index scans");
    for (const t of tables.rows) lines.push(`  ${t.relname!.padEnd(20)} ${f(t.n_tup_ins!)}  ${f(t.n_tup_upd!)}  (${f(t.n_tup_hot_upd!)})  ${f(t.n_tup_del!)}  ${f(t.seq_scan!)}  ${f(t.idx_scan ?? 0)}`);
    const indexes = await c.query<Record<string, string>>(
      `SELECT relname, indexrelname, idx_scan FROM pg_stat_user_indexes WHERE relname IN (SELECT relname FROM pg_stat_user_tables
       WHERE n_tup_ins + n_tup_upd + n_tup_del > 0) ORDER BY relname, indexrelname`,
    );
    lines.push("index scans per run: " + indexes.rows.map((i) => `${i.indexrelname} ${f(i.idx_scan!)}`).join(", "));
    await c.end();
    return lines.join("\n");
  } };
}

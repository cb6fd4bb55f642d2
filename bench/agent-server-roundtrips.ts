/**
 * Round trips and server CPU per run (issue 16): `berth serve` (from dist/: `make build` first)
 * with a preload counting its pg queries and Redis commands, driven at concurrency C with one
 * thread per run (create, then join). After a warm-up the counters are reset, so the figures are
 * per measured run; the server's CPU per run is the process's (all threads).
 *
 * The server's graph schemas are derived from TypeScript in a worker thread on a cold cache, which
 * takes a core for seconds: BERTH_SCHEMA_CACHE_DIR is fixed so only the first invocation pays.
 * Usage: node --import tsx bench/agent-server-roundtrips.ts [postgres|pglite] [C=50] [N=300]
 * (PROF_DIR=dir adds --cpu-prof; JOBS=n sets N_JOBS_PER_WORKER; SETTLE_MS waits after warm-up)
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONFIG, ROOT, createDb, forkBerth, input, pool, post } from "./lib.js";

const backend = (process.argv[2] ?? "postgres") as "postgres" | "pglite";
const conc = Number(process.argv[3] ?? 50);
const n = Number(process.argv[4] ?? 300);
const countFile = path.join(os.tmpdir(), `berth-roundtrips-${process.pid}.txt`);
const db = await createDb(backend);
const execArgv = ["--import", path.join(ROOT, "bench/count-preload.mjs"), ...(process.env.PROF_DIR ? ["--cpu-prof", "--cpu-prof-dir", process.env.PROF_DIR] : [])];
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
  await (await fetch(`${url}/threads/${t}/runs/${run.run_id}/join`)).text();
};
const warm = await Promise.all(Array.from({ length: 50 }, () => post<{ thread_id: string }>(`${url}/threads`, {})));
await pool(50, 10, (i) => once(warm[i]!.thread_id, i));
await new Promise((r) => setTimeout(r, Number(process.env.SETTLE_MS ?? 3000)));
const threads = await Promise.all(Array.from({ length: n }, () => post<{ thread_id: string }>(`${url}/threads`, {})));
const load0 = os.loadavg()[0]!;
child.kill("SIGUSR2"); // reset the counters
await new Promise((r) => setTimeout(r, 100));
const rps = await pool(n, conc, (i) => once(threads[i]!.thread_id, i));
await stop();
await db.drop();
const lines = fs.readFileSync(countFile, "utf8").split("\n");
fs.rmSync(countFile, { force: true });
const m = /user (\d+) ms system (\d+) ms/.exec(lines[0]!)!;
const [user, sys] = [Number(m[1]), Number(m[2])];
console.log(
  `${backend} c=${conc} n=${n}: ${rps.toFixed(1)} runs/s, load ${load0.toFixed(1)}->${os.loadavg()[0]!.toFixed(1)}, ` +
    `server CPU ${((user + sys) / n).toFixed(2)} ms/run (user ${(user / n).toFixed(2)}, sys ${(sys / n).toFixed(2)})`,
);
for (const l of lines.slice(1).filter(Boolean)) {
  const [count, ...what] = l.trim().split(" ");
  console.log(`${(Number(count) / n).toFixed(2).padStart(7)}/run  ${what.join(" ")}`);
}
process.exit(0);

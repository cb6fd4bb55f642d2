/**
 * CPU profiles of the agent server under load (issue 16: find what serialises it): `berth serve`
 * with `--cpu-prof`, driven at c=50 with one thread per run (or, with PROF_ONE=1, 100 runs
 * enqueued on one thread). Writes one .cpuprofile per thread of the server (the embedded
 * database has a thread of its own) to PROF_DIR; open them in Chrome DevTools or speedscope.
 * Usage: PROF_DIR=/tmp/prof node --import tsx bench/agent-server-profile.ts [pglite|postgres]
 * (run `make build` first: the server runs from dist/)
 */
import { randomUUID } from "node:crypto";
import { CONFIG, createDb, forkBerth, getOnce, input, pool, post } from "./lib.js";

const backend = (process.argv[2] ?? "pglite") as "postgres" | "pglite";
const db = await createDb(backend);
const { ready, stop } = await forkBerth<{ url: string }>(["serve", "--config", CONFIG, "--port", "0"], {
  env: {
    ...process.env,
    ...(db.uri ? { DATABASE_URI: db.uri, REDIS_URI: process.env.BERTH_TEST_REDIS_URI ?? "redis://127.0.0.1:6379" } : {}),
    REDIS_KEY_PREFIX: `prof-${randomUUID().slice(0, 8)}`,
    BERTH_DATA_DIR: db.dataDir,
    LOG_LEVEL: "warn",
  },
  execArgv: process.env.PROF_DIR ? ["--cpu-prof", "--cpu-prof-dir", process.env.PROF_DIR] : [],
});
const url = ready.url;
const once = async (i: number) => {
  const t = (await post<{ thread_id: string }>(`${url}/threads`, {})).thread_id;
  const run = await post<{ run_id: string }>(`${url}/threads/${t}/runs`, { assistant_id: "chat", input: input(i) });
  await (await getOnce(`${url}/threads/${t}/runs/${run.run_id}/join`)).text();
};
await pool(50, 10, once); // warm-up
if (process.env.PROF_ONE) {
  const one = (await post<{ thread_id: string }>(`${url}/threads`, {})).thread_id;
  const t0 = performance.now();
  const runs = await Promise.all(Array.from({ length: 100 }, (_, i) => post<{ run_id: string }>(`${url}/threads/${one}/runs`, { assistant_id: "chat", input: input(i) })));
  for (const r of runs) await (await getOnce(`${url}/threads/${one}/runs/${r.run_id}/join`)).text();
  console.log(`${backend}: 100 runs on one thread in ${(performance.now() - t0).toFixed(0)} ms`);
} else {
  const rps = await pool(600, 50, once);
  console.log(`${backend}: ${rps.toFixed(1)} runs/s at c=50 (thread creation included)`);
}
await stop();
await db.drop();
process.exit(0);

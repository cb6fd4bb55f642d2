/**
 * Where a run's create→join time goes at concurrency 1 (issue 16): `berth serve` (from dist/:
 * `make build` first, or BENCH_BERTH_BIN) with BERTH_RUN_TIMELINE set, so the server stamps each
 * stage of every run (src/agent-server/queue/timeline.ts), and with bench/count-preload.mjs
 * counting its pg queries and Redis commands. The client stamps its own side (request sent, answer
 * received); both clocks are this machine's. Prints, per stage, the median time since the client
 * sent the create (and since the stage before), and the round trips per measured run.
 * Usage: node --import tsx bench/run-timeline.ts [postgres|pglite] [N=100]
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CONFIG, ROOT, createDb, forkBerth, input, post } from "./lib.js";

const backend = (process.argv[2] ?? "postgres") as "postgres" | "pglite";
const n = Number(process.argv[3] ?? 100);
const stampFile = path.join(os.tmpdir(), `berth-timeline-${process.pid}.jsonl`);
const countFile = path.join(os.tmpdir(), `berth-timeline-counts-${process.pid}.txt`);
const now = () => performance.timeOrigin + performance.now();

const db = await createDb(backend);
const { child, ready, stop } = await forkBerth<{ url: string }>(["serve", "--config", CONFIG, "--port", "0"], {
  env: {
    ...process.env,
    ...(db.uri ? { DATABASE_URI: db.uri, REDIS_URI: process.env.BERTH_TEST_REDIS_URI ?? "redis://127.0.0.1:6379" } : {}),
    REDIS_KEY_PREFIX: `tl-${randomUUID().slice(0, 8)}`,
    BERTH_DATA_DIR: db.dataDir,
    BERTH_SCHEMA_CACHE_DIR: process.env.BERTH_SCHEMA_CACHE_DIR ?? path.join(os.tmpdir(), "berth-bench-schema-cache"),
    LOG_LEVEL: "warn",
    BERTH_RUN_TIMELINE: stampFile,
    COUNT_FILE: countFile,
    QUERY_TIMES: "1",
  },
  execArgv: ["--import", path.join(ROOT, "bench/count-preload.mjs")],
});
const url = ready.url;

/** Client-side stamps per run id. */
const client = new Map<string, [string, number][]>();
const once = async (i: number) => {
  const { thread_id: t } = await post<{ thread_id: string }>(`${url}/threads`, {});
  const sent = now();
  const run = await post<{ run_id: string }>(`${url}/threads/${t}/runs`, { assistant_id: "chat", input: input(i) });
  const answered = now();
  const res = await fetch(`${url}/threads/${t}/runs/${run.run_id}/join`);
  await res.text();
  client.set(run.run_id, [["client: create sent", sent], ["client: create answered", answered], ["client: join answered", now()]]);
};
for (let i = 0; i < 20; i++) await once(i); // warm-up
client.clear();
const load0 = os.loadavg()[0]!;
child.kill("SIGUSR2"); // reset the round-trip counters
await new Promise((r) => setTimeout(r, 100));
for (let i = 0; i < n; i++) await once(i);
const load1 = os.loadavg()[0]!;
await stop();
await db.drop();

const server = new Map<string, [string, number][]>();
// (a build without the tracer, e.g. an A/B's "before", writes no stamps: the client's are still shown)
const stamps = fs.existsSync(stampFile) ? fs.readFileSync(stampFile, "utf8") : "";
for (const line of stamps.split("\n").filter(Boolean)) {
  const { run_id, marks } = JSON.parse(line) as { run_id: string; marks: [string, number][] };
  server.set(run_id, marks);
}
/** Per stage, each measured run's time since its create was sent, and since its stage before (ms). */
const since = new Map<string, number[]>();
const gap = new Map<string, number[]>();
for (const [runId, marks] of client) {
  const t0 = marks[0]![1];
  const all = [...marks, ...(server.get(runId) ?? [])].sort((a, b) => a[1] - b[1]);
  all.forEach(([stage, at], i) => {
    since.set(stage, [...(since.get(stage) ?? []), at - t0]);
    gap.set(stage, [...(gap.get(stage) ?? []), i === 0 ? 0 : at - all[i - 1]![1]]);
  });
}
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const median = (xs: number[]) => sorted(xs)[Math.floor(xs.length / 2)]!;
const p90 = (xs: number[]) => sorted(xs)[Math.floor(xs.length * 0.9)]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const rows = [...since].map(([stage, xs]) => ({ stage, at: median(xs), count: xs.length, gaps: gap.get(stage)! })).sort((a, b) => a.at - b.at);
console.log(`${backend} c=1 n=${n}: load ${load0.toFixed(1)}->${load1.toFixed(1)}`);
console.log("  ms since the create was sent (median) | each run's time since its previous stage: median, mean, p90");
for (const r of rows) {
  const g = r.gaps;
  console.log(
    `  ${r.at.toFixed(2).padStart(7)} | ${median(g).toFixed(2).padStart(6)} ${mean(g).toFixed(2).padStart(6)} ${p90(g).toFixed(2).padStart(6)}  ${r.stage}${r.count < n ? ` (${r.count} runs)` : ""}`,
  );
}
const counts = fs.readFileSync(countFile, "utf8").trim().split("\n");
console.log(`  ${counts[0]} (${n} runs and their threads' creation)`);
for (const line of counts.slice(1)) {
  const m = /^\s*(\d+)(.*)$/.exec(line);
  if (m) console.log(`  ${(Number(m[1]) / n).toFixed(2).padStart(7)}/run  ${m[2]!.slice(0, 100)}`);
}
fs.rmSync(stampFile, { force: true });
fs.rmSync(countFile, { force: true });
process.exit(0);

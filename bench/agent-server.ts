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
import { execSync, fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { BerthPostgresSaver } from "../src/agent-server/checkpointer.js";
import { openDatabase } from "../src/shared/db/index.js";

// The benchmark measures Berth, not a model provider: the example agent uses its offline model.
process.env.BERTH_CHAT_MODEL = "echo";
const { graph: chatGraph } = await import("../examples/chat/agent.js");

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const CONFIG = path.join(ROOT, "examples/langgraph.json");
const ADMIN_URI = process.env.BERTH_TEST_POSTGRES_URI ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URI = process.env.BERTH_TEST_REDIS_URI ?? "redis://127.0.0.1:6379";
const N = Number(process.env.BENCH_N ?? 200);
const BACKENDS = (process.env.BENCH_BACKENDS ?? "pglite,postgres").split(",") as ("pglite" | "postgres")[];
const input = (i: number) => ({ messages: [{ role: "user", content: `hello ${i}` }] });

// ---- statistics ------------------------------------------------------------------------------
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99) };
}
async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await task(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

// ---- databases -------------------------------------------------------------------------------
interface BenchDb {
  uri?: string;
  dataDir: string;
  drop(): Promise<void>;
}
async function createDb(backend: "pglite" | "postgres"): Promise<BenchDb> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-"));
  if (backend === "pglite") return { dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  const name = `berth_bench_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: ADMIN_URI });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(ADMIN_URI);
  u.pathname = `/${name}`;
  return {
    uri: u.toString(),
    dataDir,
    async drop() {
      const a = new pg.Client({ connectionString: ADMIN_URI });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

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

// ---- the server ------------------------------------------------------------------------------
interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}
async function startServer(db: BenchDb, env: Record<string, string> = {}): Promise<Server> {
  const child = fork(path.join(ROOT, "bin/berth.js"), ["serve", "--config", CONFIG, "--port", "0"], {
    env: {
      ...process.env,
      ...(db.uri ? { DATABASE_URI: db.uri, REDIS_URI } : {}),
      REDIS_KEY_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
      BERTH_DATA_DIR: db.dataDir,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: [], // not this script's --import tsx: the server runs the compiled build
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.on("message", (m: { type?: string; url?: string }) => m?.type === "ready" && resolve(m.url!));
    child.once("exit", (code) => reject(new Error(`berth serve exited with ${code}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, json(body));
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
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
execSync("npx tsc -p tsconfig.build.json", { cwd: ROOT, stdio: "inherit" });
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

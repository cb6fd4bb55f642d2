/** Shared pieces of the benchmarks: percentiles, a concurrency pool, throwaway databases, a server process. */
import { execSync, fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { BerthPostgresSaver } from "../src/agent-server/checkpointer.js";
import { DEFAULT_TENANT_ID } from "../src/shared/auth/service.js";
import { openDatabase } from "../src/shared/db/index.js";
import { createScratchDatabase } from "../test/helpers/postgres.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const CONFIG = path.join(ROOT, "examples/langgraph.json");
const ADMIN_URI = process.env.BERTH_TEST_POSTGRES_URI ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const REDIS_URI = process.env.BERTH_TEST_REDIS_URI ?? "redis://127.0.0.1:6379";
export const N = Number(process.env.BENCH_N ?? 200);
export type Backend = "pglite" | "postgres";
export const BACKENDS = (process.env.BENCH_BACKENDS ?? "pglite,postgres").split(",") as Backend[];
export const input = (i: number) => ({ messages: [{ role: "user", content: `hello ${i}` }] });

/** The server runs from a fresh build of dist/, as in production (bin/berth.js prefers it). */
export function buildDist(): void {
  execSync("npx tsc -p tsconfig.build.json", { cwd: ROOT, stdio: "inherit" });
}

// ---- statistics ------------------------------------------------------------------------------
export const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
export function summary(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  return { p50: pct(s, 50), p99: pct(s, 99) };
}
/** The middle sample (the upper one of an even count), as `summary`'s p50. */
export const median = (samples: number[]) => summary(samples).p50;
/** The latency (ms) of each of `n` calls of `task`, one after another. */
export async function sequential(n: number, task: (i: number) => Promise<unknown>): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await task(i);
    lat.push(performance.now() - t0);
  }
  return lat;
}
export async function pool<T>(n: number, concurrency: number, task: (i: number) => Promise<T>): Promise<number> {
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
export interface BenchDb {
  uri?: string;
  dataDir: string;
  drop(): Promise<void>;
}
/**
 * `parent`: where the data directory goes (default the OS temp dir). A `berth dev` that deploys the
 * bundled examples needs it inside this checkout (scratch/): their checkouts resolve
 * @langchain/langgraph by walking up to this repository's node_modules, as the examples do here.
 */
export async function createDb(backend: Backend, parent = os.tmpdir()): Promise<BenchDb> {
  await mkdir(parent, { recursive: true });
  const dataDir = await mkdtemp(path.join(parent, "berth-bench-"));
  if (backend === "pglite") return { dataDir, drop: () => rm(dataDir, { recursive: true, force: true }) };
  const scratch = await createScratchDatabase(ADMIN_URI, "berth_bench");
  return {
    uri: scratch.uri,
    dataDir,
    async drop() {
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * CPU ticks (1/100 s) of the database's backends, by pid: Postgres on this machine (none without
 * `uri`, i.e. on PGlite, whose database runs inside the measured process). Read before and after a
 * window; `backendMsSince` gives the CPU they used in it.
 */
export async function backendTicks(uri: string | undefined): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  if (!uri) return out;
  const c = new pg.Client({ connectionString: uri });
  await c.connect();
  const { rows } = await c.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
  await c.end();
  for (const { pid } of rows) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(pid, Number(f[11]) + Number(f[12]));
    } catch {
      // not on this machine, or gone
    }
  }
  return out;
}
export function backendMsSince(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, ticks] of after) ms += (ticks - (before.get(pid) ?? 0)) * 10;
  return ms;
}

// ---- the server ------------------------------------------------------------------------------
/**
 * The agent server benches' floor: the example chat agent on its offline model, invoked in-process
 * with Berth's Postgres checkpointer on a database of its own. `once(i)` runs input i on a new
 * thread (or on `threadId`); `close` closes and drops the database.
 */
export async function floorChat(backend: Backend) {
  process.env.BERTH_CHAT_MODEL = "echo";
  const { graph: chatGraph } = await import("../examples/chat/agent.js");
  const db = await createDb(backend);
  const database = await openDatabase({ uri: db.uri, dataDir: db.dataDir });
  // (as the server builds it: named statements on Postgres)
  const saver = new BerthPostgresSaver(database.pool, undefined, { namedStatements: !database.embedded });
  await saver.setup();
  const graph = chatGraph as unknown as { checkpointer: unknown; invoke(i: unknown, c: unknown): Promise<unknown> };
  graph.checkpointer = saver;
  const once = (i: number, threadId: string = randomUUID()) => graph.invoke(input(i), { configurable: { thread_id: threadId } });
  const close = async () => {
    await database.close();
    await db.drop();
  };
  return { once, close, uri: db.uri };
}

export interface Server {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}
/**
 * `bin/berth.js <args>` as a child process from the compiled build (not this script's --import tsx),
 * ready when it sends its IPC `ready` message; `stop` sends SIGTERM and waits for the exit.
 */
export async function forkBerth<M extends { url: string }>(
  args: string[],
  options: { env: NodeJS.ProcessEnv; execArgv?: string[]; stdio?: ("ignore" | "inherit" | "pipe" | "ipc")[]; timeoutMs?: number; bin?: string },
): Promise<{ child: ChildProcess; ready: M & { type: "ready" }; stop(): Promise<void> }> {
  // BENCH_BERTH_BIN (or `bin`): another build's bin/berth.js (a copy of bin/, dist/ and
  // package.json inside this checkout, so it resolves the same node_modules), for before/after
  // runs in one session
  const child = fork(options.bin ?? process.env.BENCH_BERTH_BIN ?? path.join(ROOT, "bin/berth.js"), args, {
    env: options.env,
    stdio: options.stdio ?? ["ignore", "inherit", "inherit", "ipc"],
    execArgv: options.execArgv ?? [],
  });
  // Generous: on a shared 2-core machine at load 20+, a first start (PGlite's initdb, migrations)
  // has taken over a minute.
  const timeoutMs = options.timeoutMs ?? Number(process.env.BENCH_START_TIMEOUT_MS ?? 600_000);
  const ready = await new Promise<M & { type: "ready" }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`berth ${args[0]} did not start within ${timeoutMs / 1000} s (BENCH_START_TIMEOUT_MS)`));
    }, timeoutMs);
    child.on("message", (m: M & { type?: string }) => {
      if (m?.type !== "ready") return;
      clearTimeout(timer);
      resolve(m as M & { type: "ready" });
    });
    child.once("exit", (code) => reject(new Error(`berth ${args[0]} exited with ${code}`)));
  });
  return {
    child,
    ready,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** `berth serve` on a benchmark database (the examples' config unless another is named). */
export async function startServer(
  db: BenchDb,
  env: Record<string, string> = {},
  options: { config?: string; execArgv?: string[] } = {},
): Promise<Server> {
  const { child, ready, stop } = await forkBerth(["serve", "--config", options.config ?? CONFIG, "--port", "0"], {
    env: {
      ...process.env,
      ...(db.uri ? { DATABASE_URI: db.uri, REDIS_URI } : {}),
      REDIS_KEY_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
      BERTH_DATA_DIR: db.dataDir,
      LOG_LEVEL: "warn",
      ...env,
    },
    execArgv: options.execArgv,
  });
  return { url: ready.url, child, stop };
}

/**
 * A scratch Postgres database with the checkpointer's tables, one client on it, and that client's
 * backend CPU in clock ticks (10 ms) read from /proc: Postgres must run on this machine. For the
 * checkpoint-statement benches.
 */
export async function checkpointBackend() {
  const db = await createDb("postgres");
  const setup = new pg.Pool({ connectionString: db.uri });
  await new BerthPostgresSaver(setup).setup();
  await setup.end();
  const client = new pg.Client({ connectionString: db.uri });
  await client.connect();
  const pid = (await client.query<{ p: number }>("SELECT pg_backend_pid() AS p")).rows[0]!.p;
  const ticks = () => {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(f[11]) + Number(f[12]);
  };
  return { db, client, ticks };
}

/** A markdown-ish table; the last column (a note) is not padded. */
export function printTable(head: string[], rows: string[][]): void {
  const cols = head.length - 1;
  const width = head.slice(0, cols).map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((x, c) => (c === cols ? x : c === 0 ? x.padEnd(width[c]!) : x.padStart(width[c]!))).join(" | ")}`;
  console.log(line(head));
  console.log(`|${width.map((w) => "-".repeat(w + 2)).join("|")}|------`);
  for (const r of rows) console.log(line(r));
}

export async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

/**
 * The agent server benches' HTTP client. The client shares this 2-core machine with the server it
 * measures, so its own CPU per request comes out of the server's throughput: fetch (undici) on
 * Node 20 cost ~0.6 ms of CPU per request at c=50 (1.29 ms per create + join), node:http with a
 * keep-alive agent ~0.2. A load generator on another machine costs the server nothing, so the
 * default is the lean one; BENCH_CLIENT=fetch measures with fetch, as earlier figures were.
 * Berth and the peer are always measured with the same client.
 */
const CLIENT = process.env.BENCH_CLIENT ?? "http";
if (CLIENT !== "http" && CLIENT !== "fetch") throw new Error(`BENCH_CLIENT must be http or fetch, not ${CLIENT}`);
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: Infinity });

/** What the benches read of an answer (a subset of fetch's Response). */
export interface Reply {
  status: number;
  ok: boolean;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

function send(method: "GET" | "POST", url: string, body?: string): Promise<Reply> {
  if (CLIENT === "fetch") return fetch(url, body === undefined ? { method } : { method, headers: { "content-type": "application/json" }, body });
  return new Promise((resolve, reject) => {
    const headers = body === undefined ? {} : { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const req = http.request(url, { method, agent: keepAlive, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, text: async () => text, json: async () => JSON.parse(text) });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * GET that is tried again when the connection was reset: a server may close a kept-alive socket
 * just as the client reuses it (the LangGraph.js dev server does under load), and a GET is safe
 * to repeat. Anything else (an HTTP error status included) is the caller's.
 */
export async function getOnce(url: string): Promise<Reply> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send("GET", url);
    } catch (err) {
      const e = err as { code?: string; cause?: { code?: string } };
      const code = e.cause?.code ?? e.code;
      if (attempt >= 2 || (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET")) throw err;
    }
  }
}

export async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await send("POST", url, JSON.stringify(body));
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

// ---- M stored runs over 30 days, with their rollups (tracing and console benchmarks) ------------
/** Latency bucket of accounting/histogram.ts bucketOf (1.2× log buckets, 110 of them), in SQL. */
const BUCKET = (ms: string) => `CASE WHEN ${ms} IS NULL THEN NULL WHEN ${ms} < 1 THEN 0 ELSE least(109, 1 + floor(ln(${ms}) / ln(1.2)))::int END`;

/**
 * `n` runs (n/4 traces of a chain root, a retriever, an LLM call and a tool) inserted with SQL into
 * one tracing project, spread evenly over the last 30 days, and the hourly rollups built from them
 * the way ingest keeps them: a project of a million runs in about a minute instead of an hour of ingest.
 */
export async function seedProjectRuns(db: pg.Pool, project: { id: string; name: string }, n: number, tenantId: string = DEFAULT_TENANT_ID) {
  const projectId = project.id;
  const t0 = performance.now();
  // 4 runs per trace (chain root, retriever, llm, tool), traces evenly over the last 30 days (from
  // the first whole hour of the window, so a 30-day stats request counts every one)
  await db.query(
    `INSERT INTO tracing_runs (tenant_id, id, project_id, trace_id, parent_run_id, dotted_order, name, run_type, status, start_time, end_time,
       inputs, outputs, error, extra, tags, session_name, session_id, thread_id, model, provider, input_tokens, output_tokens, total_tokens,
       input_cost, output_cost, total_cost, cost_source, first_token_time, ttft_ms)
     SELECT $1::uuid, CASE pos WHEN 0 THEN root ELSE md5('c' || g)::uuid END, $2::uuid, root, CASE pos WHEN 0 THEN NULL ELSE root END,
       to_char(ts AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISSUS"Z"') || root::text, (ARRAY['support_agent', 'search_docs', 'ChatOpenAI', 'format_answer'])[pos + 1],
       (ARRAY['chain', 'retriever', 'llm', 'tool'])[pos + 1], CASE WHEN pos = 0 AND k % 50 = 7 THEN 'error' ELSE 'success' END,
       ts, ts + make_interval(secs => dur / 1000.0),
       jsonb_build_object('messages', jsonb_build_array(jsonb_build_object('role', 'user', 'content', 'question ' || k))),
       jsonb_build_object('output', 'answer ' || k), CASE WHEN pos = 0 AND k % 50 = 7 THEN 'RateLimitError: upstream busy' END,
       jsonb_build_object('metadata', jsonb_build_object('thread_id', 'thread-' || (k % 1000))), ARRAY['bench'], $3, $2::uuid,
       CASE pos WHEN 0 THEN 'thread-' || (k % 1000) END,
       CASE pos WHEN 2 THEN model END, CASE pos WHEN 2 THEN provider END,
       CASE pos WHEN 2 THEN it END, CASE pos WHEN 2 THEN ot END, CASE pos WHEN 2 THEN it + ot END,
       CASE pos WHEN 2 THEN it * 0.15e-6 END, CASE pos WHEN 2 THEN ot * 0.6e-6 END, CASE pos WHEN 2 THEN it * 0.15e-6 + ot * 0.6e-6 END,
       CASE pos WHEN 2 THEN 'price' END, CASE pos WHEN 2 THEN ts + make_interval(secs => ttft / 1000.0) END, CASE pos WHEN 2 THEN ttft END
     FROM (
       SELECT g, g / 4 AS k, g % 4 AS pos, md5('r' || (g / 4))::uuid AS root,
         now() - interval '719 hours' + (g / 4) * (interval '719 hours' / ($4::bigint / 4)) + (g % 4) * interval '50 ms' AS ts,
         (ARRAY['gpt-4o-mini', 'gpt-4.1', 'claude-3-5-haiku-20241022', 'claude-sonnet-4-20250514'])[(g / 4) % 4 + 1] AS model,
         (ARRAY['openai', 'openai', 'anthropic', 'anthropic'])[(g / 4) % 4 + 1] AS provider,
         180 + (g / 4) % 200 AS it, 40 + (g / 4) % 120 AS ot,
         CASE g % 4 WHEN 0 THEN 500 + exp(random() * 8) WHEN 2 THEN 300 + exp(random() * 7.5) ELSE exp(random() * 5) END AS dur,
         100 + exp(random() * 6) AS ttft
       FROM generate_series(0, $4::bigint - 1) AS g
     ) s`,
    [tenantId, projectId, project.name, n],
  );
  const insertSeconds = (performance.now() - t0) / 1000;
  // hourly rollups as ingest keeps them (rollups/contribution.ts): model '' = every run, roots'
  // traces, errors and end-to-end latency; one row per LLM model with tokens, cost and TTFT
  const t1 = performance.now();
  await db.query(
    `WITH runs AS (
       SELECT date_trunc('hour', start_time) AS hour, parent_run_id IS NULL AS root, status = 'error' AS err, run_type = 'llm' AS llm, model,
         input_tokens, output_tokens, total_tokens, total_cost, extract(epoch FROM end_time - start_time) * 1000 AS ms, ttft_ms
       FROM tracing_runs WHERE project_id = $1
     ), keyed AS (
       SELECT hour, '' AS model, 1 AS run_count, root::int AS trace_count, (root AND err)::int AS error_count, 0 AS llm_count, 0 AS llm_error_count,
         0::bigint AS input_tokens, 0::bigint AS output_tokens, 0::bigint AS total_tokens, 0::numeric AS total_cost,
         CASE WHEN root THEN ${BUCKET("ms")} END AS lat_b, NULL::int AS ttft_b
       FROM runs
       UNION ALL
       SELECT hour, coalesce(model, ''), 0, 0, 0, 1, err::int, coalesce(input_tokens, 0), coalesce(output_tokens, 0), coalesce(total_tokens, 0),
         coalesce(total_cost, 0), NULL, ${BUCKET("ttft_ms")}
       FROM runs WHERE llm
     ), sums AS (
       SELECT hour, model, sum(run_count) AS run_count, sum(trace_count) AS trace_count, sum(error_count) AS error_count, sum(llm_count) AS llm_count,
         sum(llm_error_count) AS llm_error_count, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
         sum(total_tokens) AS total_tokens, sum(total_cost) AS total_cost
       FROM keyed GROUP BY hour, model
     ), counts AS (
       SELECT hour, model, 'lat' AS kind, lat_b AS b, count(*)::int AS c FROM keyed WHERE lat_b IS NOT NULL GROUP BY 1, 2, 4
       UNION ALL
       SELECT hour, model, 'ttft', ttft_b, count(*)::int FROM keyed WHERE ttft_b IS NOT NULL GROUP BY 1, 2, 4
     ), dense AS (
       SELECT k.hour, k.model, k.kind, array_agg(coalesce(c.c, 0) ORDER BY i) AS hist
       FROM (SELECT hour, model, kind, max(b) AS top FROM counts GROUP BY 1, 2, 3) k
       CROSS JOIN LATERAL generate_series(0, k.top) AS i
       LEFT JOIN counts c ON c.hour = k.hour AND c.model = k.model AND c.kind = k.kind AND c.b = i
       GROUP BY k.hour, k.model, k.kind
     )
     INSERT INTO tracing_rollups (project_id, hour, model, run_count, trace_count, error_count, llm_count, llm_error_count, input_tokens,
       output_tokens, total_tokens, total_cost, latency_hist, ttft_hist)
     SELECT $1, s.hour, s.model, s.run_count, s.trace_count, s.error_count, s.llm_count, s.llm_error_count, s.input_tokens, s.output_tokens,
       s.total_tokens, s.total_cost, coalesce(l.hist, '{}'), coalesce(t.hist, '{}')
     FROM sums s
     LEFT JOIN dense l ON l.hour = s.hour AND l.model = s.model AND l.kind = 'lat'
     LEFT JOIN dense t ON t.hour = s.hour AND t.model = s.model AND t.kind = 'ttft'`,
    [projectId],
  );
  await db.query("ANALYZE tracing_runs");
  await db.query("ANALYZE tracing_rollups");
  const rollupSeconds = (performance.now() - t1) / 1000;
  const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM tracing_rollups WHERE project_id = $1", [projectId]);
  return { insertSeconds, rollupSeconds, rollupRows: Number(rows[0]!.n) };
}

/**
 * The tracing ingest workload and its measurement, shared by bench/tracing.ts (the full benchmark)
 * and bench/tracing-replay.ts (one server, repeated replays, a CPU profile of the measured part only):
 * the langsmith SDK workload and the capture of its requests, their replay with plain fetch, the
 * CPU time of the server and of the database's Postgres backends, and the pg-only floor.
 */
import { execSync, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { Client, RunTree } from "langsmith";
import pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { copyFromText } from "../src/tracing/storage/copy-rows.js";
import { createDb, forkBerth, pool, summary, type BenchDb } from "./lib.js";

export type Workload = "posted-patched" | "merged";
export const RUNS_PER_TRACE = 4;
export const API_KEY = "berth-bench-key-0123456789abcdef";
export const INGEST_PROJECT = "bench-ingest";

// ---- the server ------------------------------------------------------------------------------
export interface TracingServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}
/** `bin`: another build's bin/berth.js (bench/lib.ts forkBerth). */
export async function startTracing(db: BenchDb, execArgv: string[] = [], env: NodeJS.ProcessEnv = {}, bin?: string): Promise<TracingServer> {
  const { child, ready, stop } = await forkBerth(["tracing", "--port", "0"], {
    env: { ...process.env, DATABASE_URI: db.uri!, BERTH_API_KEY: API_KEY, BERTH_DATA_DIR: db.dataDir, LOG_LEVEL: "warn", ...env },
    execArgv,
    bin,
  });
  return { url: ready.url, child, stop };
}

/** A scratch database, a server on it and a pg pool: a fresh, empty state. */
export async function freshState(execArgv: string[] = [], env: NodeJS.ProcessEnv = {}, bin?: string) {
  const db = await createDb("postgres");
  const server = await startTracing(db, execArgv, env, bin);
  const sql = new pg.Pool({ connectionString: db.uri, max: 12 });
  return {
    db,
    server,
    sql,
    cpu: () => cpuNow(sql, server.child.pid!),
    async close() {
      await sql.end();
      await server.stop();
      await db.drop();
    },
  };
}

export async function api<T>(url: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, { ...init, headers: { "x-api-key": API_KEY, ...(init.body ? { "content-type": "application/json" } : {}) } });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Runs stored in a project (by name), and how many are still pending. */
export async function storedRuns(sql: pg.Pool, project: string) {
  const { rows } = await sql.query<{ id: string | null; n: string; pending: string; llm_priced: string }>(
    `SELECT min(p.id::text) AS id, count(r.id) AS n, count(r.id) FILTER (WHERE r.status = 'pending') AS pending,
       count(r.id) FILTER (WHERE r.run_type = 'llm' AND r.total_cost IS NOT NULL) AS llm_priced
     FROM tracing_projects p LEFT JOIN tracing_runs r ON r.project_id = p.id WHERE p.name = $1`,
    [project],
  );
  const r = rows[0]!;
  return { projectId: r.id, n: Number(r.n), pending: Number(r.pending), llmPriced: Number(r.llm_priced) };
}

// ---- CPU time of the three processes (they share the machine's cores) ---------------------------
const CLK_TCK = Number(execSync("getconf CLK_TCK").toString().trim()) || 100;
/** CPU seconds (user + system) of a process, or of one of its threads (`tid`: the main thread's is the pid). */
export function procCpu(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) / CLK_TCK; // utime + stime
  } catch {
    return 0; // gone, or not visible from here
  }
}
/**
 * Seconds a thread spent runnable but waiting for a core (/proc/…/schedstat's second field), NaN where
 * the kernel keeps no schedstats (printed as "n/a", not as a wait of 0).
 */
function runqueueWait(pid: number, tid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[1]) / 1e9;
  } catch {
    return NaN;
  }
}
/** The machine's CPU seconds, busy and in all (every core), from /proc/stat's first line. */
function machineCpu(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0); // user … steal (guest time is inside user)
  return { busy: (total - f[3]! - f[4]!) / CLK_TCK, total: total / CLK_TCK }; // minus idle and iowait
}
export interface Cpu {
  client: number;
  server: number;
  /** The server's main thread alone: the JavaScript that one event loop runs. */
  serverMain: number;
  /** How long the main thread was ready to run but had no core (the cores are shared with Postgres and the client). */
  serverMainWait: number;
  /** Postgres backends connected to the scratch database, by pid. */
  backends: Map<number, number>;
  machine: { busy: number; total: number };
}
export async function cpuNow(sql: pg.Pool, serverPid: number): Promise<Cpu> {
  const { rows } = await sql.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
  const u = process.cpuUsage();
  return {
    client: (u.user + u.system) / 1e6,
    server: procCpu(serverPid),
    serverMain: procCpu(serverPid, serverPid),
    serverMainWait: runqueueWait(serverPid, serverPid),
    backends: new Map(rows.map((r) => [r.pid, procCpu(r.pid)])),
    machine: machineCpu(),
  };
}
/** CPU seconds used between two snapshots (backends that appeared in between count from zero), and the machine's busy share. */
export function cpuUsed(a: Cpu, b: Cpu) {
  let postgres = 0;
  for (const [pid, t] of b.backends) postgres += t - (a.backends.get(pid) ?? 0);
  const total = b.machine.total - a.machine.total;
  return { client: b.client - a.client, server: b.server - a.server, serverMain: b.serverMain - a.serverMain, serverMainWait: b.serverMainWait - a.serverMainWait, postgres, busy: total > 0 ? (b.machine.busy - a.machine.busy) / total : NaN };
}


// ---- the SDK workload ------------------------------------------------------------------------
const MODELS = [
  { provider: "openai", model: "gpt-4o-mini" },
  { provider: "openai", model: "gpt-4.1" },
  { provider: "anthropic", model: "claude-3-5-haiku-20241022" },
  { provider: "anthropic", model: "claude-sonnet-4-20250514" },
];
const filler = (i: number, words: number) => Array.from({ length: words }, (_, w) => `w${(i * 31 + w * 7) % 997}`).join(" ");

/**
 * One trace: a chain root with a retriever, an LLM call and a tool (4 runs).
 * posted-patched: each run is posted when it starts and patched when it ends (2 operations).
 * merged: each run is ended before it is posted, so the SDK queues one post carrying outputs and
 * end_time (RunTree.postRun → client.createRun → the auto-batch queue → /runs/multipart); the
 * runs are posted in start order (root first), once the trace is done.
 */
export async function trace(client: Client, project: string, i: number, epoch: number, workload: Workload): Promise<void> {
  const merged = workload === "merged";
  const started: RunTree[] = [];
  const begin = async (run: RunTree) => {
    started.push(run);
    if (!merged) await run.postRun();
    return run;
  };
  const finish = async (run: RunTree, outputs: Record<string, unknown> | undefined, error: string | undefined, endTime: number) => {
    await run.end(outputs, error, endTime);
    if (!merged) await run.patchRun();
  };

  const start = epoch + i * 20; // runs spread over time, as an application would produce them
  const { provider, model } = MODELS[i % MODELS.length]!;
  const question = `Question ${i}: how do I configure the deployment so that ${filler(i, 20)}?`;
  const root = await begin(
    new RunTree({
      name: "support_agent",
      run_type: "chain",
      project_name: project,
      client,
      start_time: start,
      inputs: { messages: [{ role: "user", content: question }] },
      metadata: { thread_id: `thread-${i % 1000}`, user_id: `user-${i % 97}` },
      tags: ["bench", "support"],
    }),
  );

  const retriever = await begin(root.createChild({ name: "search_docs", run_type: "retriever", start_time: start + 3, inputs: { query: question } }));
  const documents = [0, 1, 2].map((d) => ({ page_content: `Doc ${d} for ${i}: ${filler(i + d, 30)}`, metadata: { source: `docs/page-${(i + d) % 50}.md` } }));
  await finish(retriever, { documents }, undefined, start + 40 + (i % 30));

  const llmStart = start + 80;
  const llm = await begin(
    root.createChild({
      name: provider === "openai" ? "ChatOpenAI" : "ChatAnthropic",
      run_type: "llm",
      start_time: llmStart,
      inputs: {
        messages: [
          { role: "system", content: `You are a support assistant. Answer from the documents. ${filler(i, 15)}` },
          { role: "user", content: `${question}\n\nDocuments:\n${documents.map((d) => d.page_content).join("\n")}` },
        ],
      },
      metadata: { ls_provider: provider, ls_model_name: model, ls_model_type: "chat", ls_temperature: 0.2 },
      extra: { invocation_params: { model, temperature: 0.2, max_tokens: 1024 } },
    }),
  );
  const input_tokens = 180 + (i % 200);
  const output_tokens = 40 + (i % 120);
  await finish(
    llm,
    {
      choices: [{ index: 0, message: { role: "assistant", content: `Answer ${i}: ${filler(i, 40)}` }, finish_reason: "stop" }],
      model,
      usage_metadata: { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens, input_token_details: { cache_read: i % 3 ? 0 : 64 } },
    },
    undefined,
    llmStart + 400 + ((i * 37) % 2500),
  );

  const toolStart = llmStart + 3000;
  const tool = await begin(root.createChild({ name: "format_answer", run_type: "tool", start_time: toolStart, inputs: { text: `Answer ${i}` } }));
  await finish(tool, { markdown: `**Answer ${i}**\n\n${filler(i, 10)}` }, undefined, toolStart + 2);

  if (i % 50 === 7) await finish(root, undefined, "RateLimitError: upstream busy", toolStart + 5);
  else await finish(root, { messages: [{ role: "assistant", content: `Answer ${i}` }] }, undefined, toolStart + 5);

  if (merged) for (const run of started) await run.postRun();
}

/** One `POST /runs/multipart` as the SDK sent it. */
export interface Captured {
  body: Buffer;
  contentType: string;
  contentEncoding: string | null;
}

/** Captured requests as bench/tracing-replay.ts --save writes them (bodies in base64). */
export interface SavedCapture {
  workload: Workload;
  runs: number;
  warmup: Captured[];
  measured: Captured[];
}
const capturedToJson = (c: Captured) => ({ ...c, body: c.body.toString("base64") });
const capturedFromJson = (c: Captured & { body: string }) => ({ ...c, body: Buffer.from(c.body, "base64") });

export function saveCapture(file: string, saved: SavedCapture): void {
  writeFileSync(file, JSON.stringify({ ...saved, warmup: saved.warmup.map(capturedToJson), measured: saved.measured.map(capturedToJson) }));
}

export function loadCapture(file: string): SavedCapture {
  const saved = JSON.parse(readFileSync(file, "utf8")) as SavedCapture;
  return { ...saved, warmup: saved.warmup.map((c) => capturedFromJson(c as never)), measured: saved.measured.map((c) => capturedFromJson(c as never)) };
}

/** The same requests with every UUID's first 8 hex digits set to `round`: new runs, same bytes otherwise. */
export const idPrefix = (round: number) => round.toString(16).padStart(8, "0");
export function rewriteIds(requests: Captured[], round: number): Captured[] {
  const prefix = idPrefix(round);
  return requests.map((r) => {
    const plain = r.contentEncoding === "gzip" ? gunzipSync(r.body) : r.body;
    const text = plain.toString("latin1").replace(/[0-9a-f]{8}(?=-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/g, prefix);
    const body = Buffer.from(text, "latin1");
    return { ...r, body: r.contentEncoding === "gzip" ? gzipSync(body) : body };
  });
}

/** A request body, whatever form the SDK gave it in, as bytes (a stream is consumed: send the bytes instead). */
export async function bodyBytes(body: unknown): Promise<{ bytes: Buffer; contentType: string | null }> {
  if (body == null) return { bytes: Buffer.alloc(0), contentType: null };
  if (body instanceof Uint8Array) return { bytes: Buffer.from(body), contentType: null }; // a copy
  if (body instanceof ArrayBuffer) return { bytes: Buffer.from(body.slice(0)), contentType: null };
  if (typeof body === "string") return { bytes: Buffer.from(body), contentType: null };
  // Blob, ReadableStream, FormData, URLSearchParams, async iterables: as fetch would encode them
  const res = new Response(body as ConstructorParameters<typeof Response>[0]);
  return { bytes: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get("content-type") };
}

/**
 * The SDK's fetchImplementation: times each POST /runs/multipart and, while `capture` is set,
 * records it (body bytes exactly as sent, content-type, content-encoding) for the replay.
 */
export function capturingFetch() {
  const state = {
    latencies: [] as number[],
    statuses: new Map<number, number>(),
    inFlight: 0,
    peak: 0,
    bytes: 0,
    capture: null as Captured[] | null,
  };
  const f: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    if (!url.endsWith("/runs/multipart")) return fetch(input, init);
    state.inFlight++;
    state.peak = Math.max(state.peak, state.inFlight);
    const t0 = performance.now();
    try {
      const headers = new Headers(init?.headers);
      const { bytes, contentType } = await bodyBytes(init?.body);
      state.bytes += bytes.byteLength;
      const record: Captured = { body: bytes, contentType: headers.get("content-type") ?? contentType ?? "", contentEncoding: headers.get("content-encoding") };
      const res = await fetch(input, { ...init, body: bytes });
      state.latencies.push(performance.now() - t0);
      state.statuses.set(res.status, (state.statuses.get(res.status) ?? 0) + 1);
      if (res.ok) state.capture?.push(record); // a failed attempt the SDK retries is not replayed twice
      return res;
    } finally {
      state.inFlight--;
    }
  };
  return { state, fetch: f };
}

export async function sdkIngest(url: string, cpu: () => Promise<Cpu>, workload: Workload, traces: number) {
  const timed = capturingFetch();
  const client = new Client({ apiUrl: url, apiKey: API_KEY, autoBatchTracing: true, fetchImplementation: timed.fetch });
  const epoch = Date.now() - 2 * 3_600_000;
  // warm-up (its own project): JIT, connections, prepared caches; not counted, but captured to
  // warm the replay's server the same way
  const warmup: Captured[] = [];
  timed.state.capture = warmup;
  const warm = Math.max(50, Math.ceil(traces / 50));
  for (let i = 0; i < warm; i++) await trace(client, "bench-warmup", i, epoch, workload);
  await client.awaitPendingTraceBatches();
  const measured: Captured[] = [];
  timed.state.capture = measured;
  timed.state.latencies = [];
  timed.state.statuses.clear();
  timed.state.peak = 0;
  timed.state.bytes = 0;

  const before = await cpu();
  const t0 = performance.now();
  for (let i = 0; i < traces; i++) await trace(client, INGEST_PROJECT, i, epoch, workload);
  const queuedMs = performance.now() - t0;
  await client.awaitPendingTraceBatches();
  await merged(url);
  const seconds = (performance.now() - t0) / 1000;
  timed.state.capture = null;
  const { latencies, statuses, peak, bytes } = timed.state;
  return { seconds, queuedMs, cpu: cpuUsed(before, await cpu()), latencies, statuses, peak, bytes, warmup, measured };
}

/** The run operations in captured requests, read from their multipart part names (gzip or plain bodies). */
export function countOperations(requests: Captured[]) {
  const ops = { post: 0, patch: 0, postFinished: 0, unread: 0 };
  for (const r of requests) {
    if (r.contentEncoding && r.contentEncoding !== "gzip") {
      ops.unread++;
      continue;
    }
    const text = (r.contentEncoding ? gunzipSync(r.body) : r.body).toString("latin1");
    const finished = new Set<string>(); // posts that carry outputs or an error: a finished run
    for (const m of text.matchAll(/name="(post|patch)\.([0-9a-f-]{36})(\.outputs|\.error)?"/g)) {
      if (!m[3]) ops[m[1] as "post" | "patch"]++;
      else if (m[1] === "post") finished.add(m[2]!);
    }
    ops.postFinished += finished.size;
  }
  return ops;
}

/**
 * Wait until everything ingested is merged into runs: the query API merges its tenant's staged
 * rows before it reads (read-your-writes), so one read returns after the merge.
 */
export async function merged(url: string): Promise<void> {
  await api(`${url}/projects?name=${encodeURIComponent(INGEST_PROJECT)}`);
}

// ---- replay: the SDK's captured requests, resent with plain fetch ----------------------------
export async function send(url: string, r: Captured): Promise<number> {
  const headers: Record<string, string> = { "x-api-key": API_KEY, "content-type": r.contentType };
  if (r.contentEncoding) headers["content-encoding"] = r.contentEncoding;
  const res = await fetch(`${url}/runs/multipart`, { method: "POST", headers, body: r.body });
  await res.arrayBuffer(); // read to the end: the connection is free for the next request
  return res.status;
}
export async function sendAll(url: string, requests: Captured[], concurrency: number, latencies?: number[], statuses?: Map<number, number>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, requests.length) }, async () => {
      while (next < requests.length) {
        const r = requests[next++]!;
        const t0 = performance.now();
        const status = await send(url, r);
        latencies?.push(performance.now() - t0);
        statuses?.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
}


// ---- the floor: the same rows with pg alone --------------------------------------------------
/**
 * The floor measured next to each replay round (bench/tracing-replay.ts): `prepare` makes the
 * floor table once; `trial` inserts the rows a round stored (its runs' ids start with `idPrefix`)
 * in batches of `rowsPerBatch` at `concurrency` into the emptied table, so each round's share is
 * computed against a floor measured a moment later on the same rows, under the same load.
 */
export async function floorTrials(db: pg.Pool, projectId: string, cpu: () => Promise<Cpu>) {
  await db.query("CREATE TABLE floor_runs (LIKE tracing_runs INCLUDING ALL)");
  await db.query("ALTER TABLE floor_runs ADD FOREIGN KEY (project_id) REFERENCES tracing_projects (id) ON DELETE CASCADE");
  const insert = (batch: Record<string, unknown>[]) => db.query("INSERT INTO floor_runs SELECT * FROM jsonb_populate_recordset(NULL::floor_runs, $1::jsonb)", [JSON.stringify(batch)]);
  const copy = async (text: string) => {
    const client = await db.connect();
    try {
      await copyFromText(client, "COPY floor_runs FROM STDIN", [text]);
    } finally {
      client.release();
    }
  };
  const selected = (idPrefix: string) => `FROM tracing_runs t WHERE project_id = '${projectId}' AND id::text LIKE '${idPrefix}%' ORDER BY created_at, id`;
  const rowsOf = async (idPrefix: string) => (await db.query<{ r: Record<string, unknown> }>(`SELECT to_jsonb(t) AS r ${selected(idPrefix)}`)).rows.map((x) => x.r);
  /** The rows as COPY's text format, a line each, straight from Postgres (nothing to encode while timed). */
  const linesOf = async (idPrefix: string) => {
    const client = await db.connect();
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of client.query(copyTo(`COPY (SELECT t.* ${selected(idPrefix)}) TO STDOUT`))) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8").split("\n").filter(Boolean);
    } finally {
      client.release();
    }
  };
  const timed = async <B>(batches: B[], concurrency: number, write: (b: B) => Promise<unknown>) => {
    await db.query("TRUNCATE floor_runs");
    await Promise.all(Array.from({ length: concurrency }, () => db.query("SELECT 1"))); // connections open before the snapshot
    const before = await cpu();
    const lat: number[] = [];
    const t0 = performance.now();
    await pool(batches.length, concurrency, async (i) => {
      const s = performance.now();
      await write(batches[i]!);
      lat.push(performance.now() - s);
    });
    const seconds = (performance.now() - t0) / 1000;
    const used = cpuUsed(before, await cpu());
    const { rows: n } = await db.query<{ n: string }>("SELECT count(*) AS n FROM floor_runs");
    return { rows: Number(n[0]!.n), batches: batches.length, seconds, latency: summary(lat), cpu: used };
  };
  return {
    /** The rows with multi-row INSERTs (jsonb_populate_recordset), `rowsPerBatch` a statement: the "raw pg insert" floor. */
    async trial(idPrefix: string, rowsPerBatch: number, concurrency: number) {
      const rows = await rowsOf(idPrefix);
      const batches: Record<string, unknown>[][] = [];
      for (let i = 0; i < rows.length; i += rowsPerBatch) batches.push(rows.slice(i, i + rowsPerBatch));
      return timed(batches, concurrency, insert);
    },
    /**
     * The same rows with COPY … FROM STDIN, `rowsPerBatch` a COPY: the cheapest way into Postgres,
     * and what Berth's merge uses on Postgres; reported beside the INSERT floor so the share is
     * read against both.
     */
    async copyTrial(idPrefix: string, rowsPerBatch: number, concurrency: number) {
      const lines = await linesOf(idPrefix);
      const batches: string[] = [];
      for (let i = 0; i < lines.length; i += rowsPerBatch) batches.push(`${lines.slice(i, i + rowsPerBatch).join("\n")}\n`);
      return timed(batches, concurrency, copy);
    },
    drop: () => db.query("DROP TABLE floor_runs"),
  };
}

/** The floor on every row of the project: the median of `repeats` trials (after one that warms up). */
export async function floor(db: pg.Pool, projectId: string, rowsPerBatch: number, concurrency: number, cpu: () => Promise<Cpu>, repeats = 3) {
  const floor = await floorTrials(db, projectId, cpu);
  await floor.trial("", rowsPerBatch, concurrency); // warm-up
  // each a short measurement (about a second) into the emptied table
  const trials = [];
  for (let t = 0; t < repeats; t++) trials.push(await floor.trial("", rowsPerBatch, concurrency));
  await floor.drop();
  return trials.sort((a, b) => a.seconds - b.seconds)[Math.floor(trials.length / 2)]!;
}

/** Shared pieces of the benchmarks: percentiles, a concurrency pool, throwaway databases, a server process. */
import { execSync, fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
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
export async function createDb(backend: Backend): Promise<BenchDb> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-bench-"));
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

// ---- the server ------------------------------------------------------------------------------
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
  options: { env: NodeJS.ProcessEnv; execArgv?: string[]; stdio?: ("ignore" | "inherit" | "pipe" | "ipc")[]; timeoutMs?: number },
): Promise<{ child: ChildProcess; ready: M & { type: "ready" }; stop(): Promise<void> }> {
  const child = fork(path.join(ROOT, "bin/berth.js"), args, {
    env: options.env,
    stdio: options.stdio ?? ["ignore", "inherit", "inherit", "ipc"],
    execArgv: options.execArgv ?? [],
  });
  const ready = await new Promise<M & { type: "ready" }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`berth ${args[0]} did not start within ${(options.timeoutMs ?? 60_000) / 1000} s`)), options.timeoutMs ?? 60_000);
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

export async function startServer(db: BenchDb, env: Record<string, string> = {}): Promise<Server> {
  const { child, ready, stop } = await forkBerth(["serve", "--config", CONFIG, "--port", "0"], {
    env: {
      ...process.env,
      ...(db.uri ? { DATABASE_URI: db.uri, REDIS_URI } : {}),
      REDIS_KEY_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
      BERTH_DATA_DIR: db.dataDir,
      LOG_LEVEL: "warn",
      ...env,
    },
  });
  return { url: ready.url, child, stop };
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

export const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
export async function post<T>(url: string, body: unknown): Promise<T> {
  const res = await fetch(url, json(body));
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/**
 * Real git repositories for the local runtime tests. They live under `scratch/` of this checkout
 * (git-ignored) rather than the system temp dir: the graphs import @langchain/langgraph, which
 * Node resolves by walking up to this checkout's node_modules — from the repository and from the
 * deployer's checkouts, which are put under the same scratch directory.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Client } from "@langchain/langgraph-sdk";
import type { RevisionStatus } from "../../src/control-plane/rules/index.js";
import { MemoryRevisionSink } from "../../src/runtime/local/memory-sink.js";
import { ROOT } from "../helpers/server.js";

export const SCRATCH = path.join(ROOT, "scratch");

/** A fresh directory under scratch/ (removed by `cleanup`). */
export function scratchDir(prefix: string): string {
  mkdirSync(SCRATCH, { recursive: true });
  return mkdtempSync(path.join(SCRATCH, `${prefix}-`));
}

/**
 * Every test graph: `env` reads GREETING (a secret) and can wait in a second node: `configurable.delay_ms`,
 * then until the file `configurable.gate_file` exists (so a test decides when a run ends).
 */
export const GRAPH_TS = `
import { existsSync } from "node:fs";
import { Annotation, StateGraph } from "@langchain/langgraph";

const State = Annotation.Root({
  greeting: Annotation<string>,
  steps: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
});

export const env = new StateGraph(State)
  .addNode("read", async () => ({ greeting: process.env.GREETING ?? "unset", steps: ["read"] }))
  .addNode("wait", async (_state, config) => {
    await new Promise((r) => setTimeout(r, Number(config.configurable?.delay_ms ?? 0)));
    const gate = config.configurable?.gate_file;
    while (typeof gate === "string" && !existsSync(gate)) await new Promise((r) => setTimeout(r, 50));
    return { steps: ["wait"] };
  })
  .addEdge("__start__", "read")
  .addEdge("read", "wait")
  .compile();
`;

export const BASE_FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "berth-test-agent", private: true, type: "module" }),
  "agent/langgraph.json": JSON.stringify({ graphs: { env: "./graph.ts:env" } }),
  "agent/graph.ts": GRAPH_TS,
  // never becomes healthy: the import hangs (the interval keeps Node from giving up on the await)
  "agent/hang.json": JSON.stringify({ graphs: { hang: "./hang.ts:graph" } }),
  "agent/hang.ts": "setInterval(() => undefined, 1000);\nawait new Promise(() => undefined);\nexport const graph = undefined;\n",
  // exits at start: the graph module does not exist
  "agent/broken.json": JSON.stringify({ graphs: { broken: "./missing.ts:graph" } }),
};

export interface TestRepo {
  dir: string;
  url: string;
  /** Write files and commit them; returns the new HEAD. */
  commit(files: Record<string, string>, message?: string): string;
  head(): string;
}

export function createRepo(parent: string, files: Record<string, string> = BASE_FILES): TestRepo {
  const dir = path.join(parent, "repo");
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: dir }).toString().trim();
  git("init", "--quiet", "--initial-branch=main");
  const repo: TestRepo = {
    dir,
    url: `file://${dir}`,
    commit(more, message = "change") {
      for (const [name, content] of Object.entries(more)) {
        mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        writeFileSync(path.join(dir, name), content);
      }
      git("add", ".");
      git("commit", "--quiet", "--allow-empty", "-m", message);
      return git("rev-parse", "HEAD");
    },
    head: () => git("rev-parse", "HEAD"),
  };
  repo.commit(files, "initial");
  return repo;
}

export const TEST_ENV = { BERTH_FROM_SOURCE: "1", LOG_LEVEL: "info" };

export function sink(initial: RevisionStatus = "CREATING"): MemoryRevisionSink {
  return new MemoryRevisionSink(initial);
}

/** Whether a process is still alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function cleanup(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Start a run of the `env` graph and return once a process has claimed it (status "running"): from
 * then on it belongs to the process serving now, whatever rolls out next. The run waits `delayMs`,
 * then (with `gateFile`) until that file exists. Resolves with a promise of the run's final values.
 */
export async function runningRun(client: Client, threadId: string, wait: { delayMs?: number; gateFile?: string }): Promise<{ done: Promise<unknown> }> {
  const configurable = { delay_ms: wait.delayMs ?? 0, ...(wait.gateFile ? { gate_file: wait.gateFile } : {}) };
  const run = await client.runs.create(threadId, "env", { input: {}, config: { configurable } });
  await waitUntil(async () => (await client.runs.get(threadId, run.run_id)).status === "running", 60_000, `run ${run.run_id} to start`);
  return { done: client.runs.join(threadId, run.run_id) };
}

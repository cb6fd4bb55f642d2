/**
 * Start agent servers for tests: in-process (fast, inspectable) or as child processes (for crash,
 * restart and multi-process tests). Every server gets its own database — a fresh Postgres
 * database or a temporary PGlite directory — and its own Redis channel prefix, so test files run
 * in parallel and twice in a row without seeing each other.
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe } from "vitest";
import { resolveAgentServerSettings, type AgentServerSettings } from "../../src/shared/config.js";
import { silentLogger, createLogger } from "../../src/shared/logging.js";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import { captureOutput, childLogLevel } from "./child-output.js";
import { createScratchDatabase } from "./postgres.js";
import { POSTGRES_ADMIN_URI, REDIS_URI } from "./services.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const FIXTURE_CONFIG = path.join(ROOT, "test/fixtures/langgraph.json");
export const BERTH_BIN = path.join(ROOT, "bin/berth.js");

export type Backend = "pglite" | "postgres";
export const BACKENDS: Backend[] = ["pglite", "postgres"];
export const servicesUp = () => process.env.BERTH_TEST_SERVICES === "1";

/** `describe` once per backend; the Postgres one is skipped (visibly) when services are down outside CI. */
export function describeBackends(name: string, fn: (backend: Backend) => void): void {
  for (const backend of BACKENDS) {
    const d = backend === "postgres" && !servicesUp() ? describe.skip : describe;
    d(`${name} [${backend}]`, () => fn(backend));
  }
}

/** A database for one test server: a fresh Postgres database, or a PGlite directory. */
export interface TestDatabase {
  backend: Backend;
  /** DATABASE_URI for Postgres; undefined for PGlite. */
  uri?: string;
  dataDir: string;
  redisUri?: string;
  redisKeyPrefix: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(backend: Backend): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-test-"));
  const redisKeyPrefix = `berth-test-${randomUUID().slice(0, 8)}`;
  if (backend === "pglite") {
    return { backend, dataDir, redisKeyPrefix, drop: () => rm(dataDir, { recursive: true, force: true }) };
  }
  const scratch = await createScratchDatabase(POSTGRES_ADMIN_URI, "berth_test");
  return {
    backend,
    uri: scratch.uri,
    dataDir,
    redisUri: REDIS_URI,
    redisKeyPrefix,
    async drop() {
      await scratch.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServer {
  url: string;
  client: Client;
  handle: AgentServerHandle;
  db: TestDatabase;
  /** Stop the server (and drop its database unless `keepDatabase`). */
  close(opts?: { keepDatabase?: boolean }): Promise<void>;
}

export function testSettings(db: TestDatabase, overrides: Partial<Record<keyof AgentServerSettings, unknown>> = {}): AgentServerSettings {
  return resolveAgentServerSettings(
    {
      configPath: FIXTURE_CONFIG,
      port: 0,
      dataDir: db.dataDir,
      // One cache of schemas derived from TypeScript types for all test servers: each would
      // otherwise run the compiler over the same fixtures in the background.
      schemaCacheDir: path.join(os.tmpdir(), "berth-test-schema-cache"),
      databaseUri: db.uri,
      redisUri: db.redisUri,
      redisKeyPrefix: db.redisKeyPrefix,
      logLevel: "silent",
      heartbeatSeconds: 1,
      ...overrides,
    },
    {},
    () => db.dataDir,
  );
}

export async function startTestServer(
  backend: Backend,
  overrides: Partial<Record<keyof AgentServerSettings, unknown>> = {},
  existing?: TestDatabase,
): Promise<TestServer> {
  const db = existing ?? (await createTestDatabase(backend));
  const settings = testSettings(db, overrides);
  const logger = process.env.BERTH_TEST_LOG ? createLogger({ level: process.env.BERTH_TEST_LOG }) : silentLogger;
  const handle = await startAgentServer(settings, logger);
  const url = handle.url!;
  return {
    url,
    client: new Client({ apiUrl: url, callerOptions: { maxRetries: 0 } }),
    handle,
    db,
    async close(opts = {}) {
      await handle.close(0);
      if (!opts.keepDatabase) await db.drop();
    },
  };
}

/**
 * One test server for the enclosing suite: started before its tests, stopped (and its database
 * dropped) after them. `onStart` receives it, so suites keep plain `server` / `client` variables.
 */
export function serverForSuite(
  backend: Backend,
  onStart: (server: TestServer) => void,
  overrides: Partial<Record<keyof AgentServerSettings, unknown>> = {},
): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await startTestServer(backend, overrides);
    onStart(server);
  });
  afterAll(() => server?.close());
}

/** A `berth serve` or `berth worker` child process. */
export interface ChildServer {
  child: ChildProcess;
  url?: string;
  /** What it wrote so far (stdout and stderr; LOG_LEVEL warn unless BERTH_TEST_LOG says otherwise). */
  output(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startChild(
  command: "serve" | "worker",
  db: TestDatabase,
  env: Record<string, string> = {},
  /** Another langgraph.json than the fixtures' (a suite's own graphs). */
  config = FIXTURE_CONFIG,
): Promise<ChildServer> {
  const child = fork(BERTH_BIN, [command, "--config", config, ...(command === "serve" ? ["--port", "0"] : [])], {
    env: {
      ...process.env,
      ...(db.uri ? { DATABASE_URI: db.uri } : {}),
      ...(db.redisUri ? { REDIS_URI: db.redisUri } : {}),
      REDIS_KEY_PREFIX: db.redisKeyPrefix,
      BERTH_DATA_DIR: db.dataDir,
      LOG_LEVEL: childLogLevel("warn"),
      BERTH_SSE_HEARTBEAT_SECONDS: "1",
      // test the sources, never a stale dist/
      BERTH_FROM_SOURCE: "1",
      ...env,
    },
    // kept, printed only if a test fails (child-output.ts)
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const output = captureOutput(child, `berth ${command}`);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string | undefined>((resolve, reject) => {
    const timer = setTimeout(() => {
      // a child that hangs in start-up is nobody's to stop once this rejects
      child.kill("SIGKILL");
      reject(new Error(`berth ${command} did not start in 90 s:\n${output()}`));
    }, 90_000);
    child.on("message", (m: { type?: string; url?: string }) => {
      if (m?.type === "ready") {
        clearTimeout(timer);
        resolve(m.url);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`berth ${command} exited with code ${code} before it was ready:\n${output()}`));
    });
  });
  return {
    child,
    url,
    output,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Poll until `fn` returns a truthy value or time runs out. */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 50): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${(last as Error).message}` : ""}`);
}

export const userMessage = (content: string) => ({ messages: [{ role: "user", content }] });

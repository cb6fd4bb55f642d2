/**
 * Tracing servers for tests: `berth tracing` in-process on a random port with its own database
 * (PGlite in loopback-open mode, or a scratch Postgres database with a required API key), and a
 * `langsmith` Client pointed at it.
 */
import { fork, type ChildProcess } from "node:child_process";
import { Client } from "langsmith";
import { pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import { createLogger, silentLogger, type Logger } from "../../src/shared/logging.js";
import { resolveTracingSettings, startTracingServer, type TracingServerHandle, type TracingSettings } from "../../src/tracing/index.js";
import { captureOutput } from "./child-output.js";
import { BERTH_BIN, createTestDatabase, type Backend, type TestDatabase } from "./server.js";

export const TEST_API_KEY = "berth-test-key-0123456789abcdef";

export interface TracingTestServer {
  /** LANGSMITH_ENDPOINT (includes the prefix). */
  url: string;
  apiKey?: string;
  handle: TracingServerHandle;
  db: TestDatabase;
  /** A langsmith client that sends to this server. */
  client(options?: ConstructorParameters<typeof Client>[0]): Client;
  /** GET/POST JSON against the query API, with the key. */
  api<T = any>(path: string, init?: RequestInit): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export async function startTracingTestServer(backend: Backend, overrides: Partial<Record<keyof TracingSettings, unknown>> = {}, testLogger?: Logger): Promise<TracingTestServer> {
  const db = await createTestDatabase(backend);
  const apiKey = backend === "postgres" ? TEST_API_KEY : undefined;
  const settings = resolveTracingSettings(
    { port: 0, dataDir: db.dataDir, databaseUri: db.uri, apiKey, logLevel: "silent", prefix: "/tracing", ...overrides },
    {},
  );
  const logger = testLogger ?? (process.env.BERTH_TEST_LOG ? createLogger({ level: process.env.BERTH_TEST_LOG }) : silentLogger);
  const handle = await startTracingServer(settings, logger);
  const key = (settings.apiKey as string | undefined) ?? apiKey;
  return {
    url: handle.url,
    apiKey: key,
    handle,
    db,
    client: (options = {}) => new Client({ apiUrl: handle.url, apiKey: key, autoBatchTracing: true, ...options }),
    async api(path, init = {}) {
      const res = await fetch(`${handle.url}${path}`, {
        ...init,
        headers: { ...(key ? { "x-api-key": key } : {}), ...(init.body ? { "content-type": "application/json" } : {}), ...(init.headers as Record<string, string>) },
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await handle.close();
      await db.drop();
    },
  };
}

export function tracingServerForSuite(backend: Backend, onStart: (s: TracingTestServer) => void, overrides: Partial<Record<keyof TracingSettings, unknown>> = {}, logger?: Logger): void {
  let server: TracingTestServer | undefined;
  beforeAll(async () => {
    server = await startTracingTestServer(backend, overrides, logger);
    onStart(server);
  });
  afterAll(() => server?.close());
}

/** A logger that keeps its records in memory (for tests of what the server logs). */
export function memoryLogger(level = "warn"): { logger: Logger; records: Record<string, any>[] } {
  const records: Record<string, any>[] = [];
  const logger = pino({ level }, { write: (line: string) => void records.push(JSON.parse(line)) });
  return { logger, records };
}

/** `berth tracing` as its own process on a Postgres database. */
export function forkTracing(uri: string, env: Record<string, string> = {}): { child: ChildProcess; ready: Promise<string>; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>; output(): string } {
  const child = fork(BERTH_BIN, ["tracing", "--port", "0"], {
    env: { ...process.env, DATABASE_URI: uri, BERTH_API_KEY: TEST_API_KEY, LOG_LEVEL: "warn", BERTH_FROM_SOURCE: "1", ...env },
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const output = captureOutput(child, "berth tracing");
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise<string>((resolve, reject) => {
    child.on("message", (m: { type?: string; url?: string }) => m?.type === "ready" && resolve(m.url!));
    void exited.then(() => reject(new Error(`berth tracing exited before it was ready:\n${output()}`)));
  });
  ready.catch(() => undefined);
  return { child, ready, exited, output };
}

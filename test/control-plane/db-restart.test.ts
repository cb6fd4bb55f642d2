/**
 * `berth control-plane` on a real Postgres (the control plane API and tracing under /tracing in
 * one process) survives a Postgres restart: with requests and trace ingestion going on while the
 * database goes away, the process stays up and both APIs read and write again afterwards. Runs
 * against a private Postgres cluster (the shared one is never restarted).
 */
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "langsmith";
import pg_ from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";
import { BERTH_BIN, eventually } from "../helpers/server.js";

const pgClient = pg_.Client;
const KEY = "berth-db-restart-key-0123456789abcdef";

async function startControlPlane(databaseUri: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(BERTH_BIN, ["control-plane", "--port", "0", "--host", "127.0.0.1"], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BERTH_FROM_SOURCE: "1",
      BERTH_DATA_DIR: dataDir,
      DATABASE_URI: databaseUri,
      BERTH_SECRETS_KEY: keyToConfig(generateKey()),
      BERTH_API_KEY: KEY,
      BERTH_K8S: "false",
      LOG_LEVEL: process.env.BERTH_TEST_LOG ?? "silent",
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("berth control-plane did not start")), 120_000);
    child.on("message", (m: { type?: string; url?: string }) => m?.type === "ready" && (clearTimeout(timer), resolve(m.url!)));
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`berth control-plane exited with ${code}`))));
  });
  return { child, url };
}

const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

/** `step` raced against the process exiting: a crash fails the test at once. */
function whileAlive(c: ChildProcess): <T>(step: Promise<T>) => Promise<T> {
  const died = new Promise<never>((_, reject) => {
    const onExit = (code: number | null, signal: string | null) => reject(new Error(`berth control-plane exited (code ${code}, signal ${signal})`));
    if (!alive(c)) onExit(c.exitCode, c.signalCode);
    else c.once("exit", onExit);
  });
  died.catch(() => undefined);
  return (step) => Promise.race([step, died]);
}

describe("a Postgres restart under berth control-plane", () => {
  let pg: PrivatePostgres | undefined;
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;

  afterEach(async () => {
    child?.kill("SIGKILL");
    await pg?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    child = pg = dataDir = undefined;
  });

  it("keeps serving the control plane API and tracing after the restart", async () => {
    pg = await startPrivatePostgres();
    dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-test-"));
    const cp = await startControlPlane(pg.uri, dataDir);
    child = cp.child;
    const step = whileAlive(cp.child);
    const api = (method: string, p: string, body?: unknown, key = KEY) =>
      fetch(`${cp.url}${p}`, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const tracer = new Client({ apiUrl: `${cp.url}/tracing`, apiKey: KEY, autoBatchTracing: false });
    const project = `restart-${randomUUID().slice(0, 8)}`;
    const trace = async (name: string) => {
      const id = randomUUID();
      await tracer.createRun({ id, name, run_type: "chain", inputs: { name }, project_name: project, start_time: Date.now() });
      await tracer.updateRun(id, { outputs: { ok: true }, end_time: Date.now() });
      return id;
    };
    const traced = async (id: string) => (await api("GET", `/tracing/runs/${id}`)).status === 200;

    const before = await trace("before");
    await eventually(() => traced(before));

    // When the database goes away, a trace is being stored: its transaction (a client checked out
    // of the pool) waits on the run's ingestion lock, which this test holds. Other requests keep coming.
    const tenant = ((await (await api("GET", "/v2/whoami")).json()) as { tenant_id: string }).tenant_id;
    const holder = new pgClient({ connectionString: pg.uri });
    holder.on("error", () => undefined);
    await holder.connect();
    const blocked = randomUUID();
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock(hashtextextended($1 || $2, 0))", [tenant, blocked]);
    const stuck = tracer.createRun({ id: blocked, name: "stuck", run_type: "chain", inputs: {}, project_name: project, start_time: Date.now() }).catch(() => undefined);
    await eventually(async () => {
      const { rows } = await holder.query("SELECT 1 FROM pg_stat_activity WHERE wait_event = 'advisory' AND pid <> pg_backend_pid()");
      return rows.length > 0;
    });
    let stopped = false;
    const load = (async () => {
      while (!stopped) {
        await Promise.all([api("GET", "/v2/deployments").catch(() => undefined), trace("during").catch(() => undefined)]);
      }
    })();
    await pg.restart({
      whileDown: async () => {
        // While it is down, requests get a clear "retry" answer rather than a 500.
        for (const p of ["/v2/api-keys", `/tracing/runs?project_name=${project}`]) {
          const r = await api("GET", p);
          expect({ path: p, status: r.status, retryAfter: r.headers.get("retry-after") }).toEqual({ path: p, status: 503, retryAfter: "1" });
          expect(((await r.json()) as { detail: string }).detail).toMatch(/database is unavailable/);
        }
      },
    });
    await holder.end().catch(() => undefined);
    stopped = true;
    await step(load);
    await step(stuck);

    const created = await step(eventually(async () => {
      const r = await api("POST", "/v2/api-keys", { name: "after-restart" });
      return r.status === 201 ? ((await r.json()) as { key: string }) : undefined;
    }, 60_000, 200));
    expect((await step(api("GET", "/v2/whoami", undefined, created.key))).status).toBe(200);
    const after = await step(eventually(() => trace("after").catch(() => undefined), 60_000, 200));
    await step(eventually(() => traced(after), 60_000, 200));
    expect(await traced(before)).toBe(true);
    expect(alive(cp.child)).toBe(true);
  }, 180_000);
});

/**
 * Behind a transaction-mode pooler (PgBouncer 1.18, Debian bookworm's): each transaction may run on
 * another server connection, so a statement prepared under a name on one is missing on the next
 * ("prepared statement … does not exist", or "already exists" when the name comes back to a
 * connection that has it). Berth names its hot statements on Postgres for speed (issue 16);
 * `BERTH_PG_NAMED_STATEMENTS=false` sends them unnamed, which any pooler carries.
 *
 * The agent server is a `berth serve` child process, configured as a deployment would be
 * (environment); the tracing server runs in this process, which sets the variable for it.
 */
import { Client } from "@langchain/langgraph-sdk";
import { RunTree, Client as LangSmithClient } from "langsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/shared/logging.js";
import { resolveTracingSettings, startTracingServer } from "../../src/tracing/index.js";
import { TEST_API_KEY } from "../helpers/tracing.js";
import { eventually } from "../helpers/server.js";
import { inCI } from "../helpers/services.js";
import { pgbouncerInstalled, PGBOUNCER_BIN, startPgBouncer, type PgBouncer } from "../helpers/pgbouncer.js";
import { createTestDatabase, servicesUp, startChild, userMessage, type ChildServer, type TestDatabase } from "../helpers/server.js";

type MsgState = { messages: { content: string }[] };
const texts = (v: unknown) => ((v as MsgState).messages ?? []).map((m) => m.content);

const runnable = servicesUp() && (pgbouncerInstalled() || inCI);
const d = runnable ? describe : describe.skip;

d(`the agent server through PgBouncer in transaction mode (${PGBOUNCER_BIN}) [postgres]`, () => {
  let bouncer: PgBouncer;
  let db: TestDatabase;
  let server: ChildServer;
  let client: Client;

  beforeAll(async () => {
    if (!pgbouncerInstalled()) throw new Error(`CI needs PgBouncer at ${PGBOUNCER_BIN} (apt-get install pgbouncer; .ci/run does)`);
    bouncer = await startPgBouncer();
    db = await createTestDatabase("postgres");
    server = await startChild("serve", { ...db, uri: bouncer.through(db.uri!) }, { BERTH_PG_NAMED_STATEMENTS: "false" });
    client = new Client({ apiUrl: server.url!, callerOptions: { maxRetries: 0 } });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.drop();
    await bouncer?.stop();
  });

  it("with BERTH_PG_NAMED_STATEMENTS=false, runs on several threads at once each store their input and output exactly once", async () => {
    const threads = await Promise.all(Array.from({ length: 4 }, () => client.threads.create()));
    // three turns per thread, the threads side by side: statements of different runs interleave on
    // PgBouncer's few server connections
    await Promise.all(
      threads.map(async (t, i) => {
        for (let turn = 0; turn < 3; turn++) {
          const out = await client.runs.wait(t.thread_id, "chat", { input: userMessage(`t${i} turn ${turn}`) });
          expect(texts(out).at(-1)).toBe(`You said: t${i} turn ${turn}`);
        }
      }),
    );
    for (const [i, t] of threads.entries()) {
      const state = await client.threads.getState(t.thread_id);
      expect(texts(state.values)).toEqual([0, 1, 2].flatMap((turn) => [`t${i} turn ${turn}`, `You said: t${i} turn ${turn}`]));
      const runs = await client.runs.list(t.thread_id);
      expect(runs.map((r) => r.status)).toEqual(["success", "success", "success"]);
    }
    expect(server.output()).not.toMatch(/prepared statement/);
  });
});

d(`the tracing server through PgBouncer in transaction mode (${PGBOUNCER_BIN}) [postgres]`, () => {
  let bouncer: PgBouncer;
  let db: TestDatabase;
  let close: (() => Promise<void>) | undefined;
  let url: string;
  const before = process.env.BERTH_PG_NAMED_STATEMENTS;

  beforeAll(async () => {
    if (!pgbouncerInstalled()) throw new Error(`CI needs PgBouncer at ${PGBOUNCER_BIN} (apt-get install pgbouncer; .ci/run does)`);
    bouncer = await startPgBouncer();
    db = await createTestDatabase("postgres");
    process.env.BERTH_PG_NAMED_STATEMENTS = "false";
    const settings = resolveTracingSettings({ port: 0, dataDir: db.dataDir, databaseUri: bouncer.through(db.uri!), apiKey: TEST_API_KEY, logLevel: "silent" }, {});
    const handle = await startTracingServer(settings, silentLogger);
    url = handle.url;
    close = () => handle.close();
  });
  afterAll(async () => {
    if (before === undefined) delete process.env.BERTH_PG_NAMED_STATEMENTS;
    else process.env.BERTH_PG_NAMED_STATEMENTS = before;
    await close?.();
    await db?.drop();
    await bouncer?.stop();
  });

  it("with BERTH_PG_NAMED_STATEMENTS=false, runs posted and then patched are merged and stored with their inputs and outputs", async () => {
    const projectName = "through-pgbouncer";
    // traces sent side by side by separate clients, each posted and then patched in batches of its
    // own: staging inserts and merges run on several pool connections at once, which PgBouncer
    // maps to its few server connections as it likes
    const traces = Array.from({ length: 24 }, (_, i) => i);
    const ids = await Promise.all(
      traces.map(async (i) => {
        const client = new LangSmithClient({ apiUrl: url, apiKey: TEST_API_KEY, autoBatchTracing: true });
        const root = new RunTree({ name: `root ${i}`, run_type: "chain", inputs: { question: `q${i}` }, project_name: projectName, client });
        await root.postRun();
        await client.awaitPendingTraceBatches();
        await root.end({ answer: `a${i}` });
        await root.patchRun();
        await client.awaitPendingTraceBatches();
        return root.id;
      }),
    );
    const headers = { "x-api-key": TEST_API_KEY };
    for (const [i, id] of ids.entries()) {
      const run = await eventually(async () => {
        const res = await fetch(`${url}/runs/${id}`, { headers });
        const body = res.status === 200 ? ((await res.json()) as { inputs?: unknown; outputs?: unknown; status?: string }) : undefined;
        return body?.outputs ? body : undefined;
      }, 60_000);
      expect(run.inputs).toEqual({ question: `q${i}` });
      expect(run.outputs).toEqual({ answer: `a${i}` });
      expect(run.status).toBe("success");
    }
  });
});

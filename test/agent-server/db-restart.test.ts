/**
 * Agent server processes survive a Postgres restart: with runs in flight and connections idle,
 * the database goes away and comes back; the process must stay up and serve new runs without
 * being restarted. Runs against a private Postgres cluster (the shared one is never restarted).
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterEach, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";
import { REDIS_URI } from "../helpers/services.js";
import { eventually, servicesUp, startChild, userMessage, type ChildServer, type TestDatabase } from "../helpers/server.js";

type Msg = { type: string; content: string };
const TERMINAL = new Set(["success", "error", "interrupted", "timeout"]);

async function databaseOn(pg: PrivatePostgres, withRedis: boolean): Promise<TestDatabase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-test-"));
  return {
    backend: "postgres",
    uri: pg.uri,
    dataDir,
    redisUri: withRedis ? REDIS_URI : undefined,
    redisKeyPrefix: `berth-test-${randomUUID().slice(0, 8)}`,
    drop: () => rm(dataDir, { recursive: true, force: true }),
  };
}

const quiet = { LOG_LEVEL: process.env.BERTH_TEST_LOG ?? "silent", BERTH_RUN_LEASE_SECONDS: "2" };
const alive = (c: ChildServer) => c.child.exitCode === null && c.child.signalCode === null;

/** `step` raced against the process exiting: a crash fails the test at once with its exit code. */
function whileAlive(c: ChildServer, name: string): <T>(step: Promise<T>) => Promise<T> {
  const died = new Promise<never>((_, reject) => {
    const onExit = (code: number | null, signal: string | null) => reject(new Error(`${name} exited (code ${code}, signal ${signal})`));
    if (!alive(c)) onExit(c.child.exitCode, c.child.signalCode);
    else c.child.once("exit", onExit);
  });
  died.catch(() => undefined);
  return (step) => Promise.race([step, died]);
}

/** Keep short runs going (each a few checkpoint transactions) until stopped: connections are busy when the database goes. */
function backgroundLoad(client: Client): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    const thread = await client.threads.create();
    while (!stopped) {
      await client.runs.wait(thread.thread_id, "steps", { input: userMessage("load") }).catch(() => undefined);
    }
  })().catch(() => undefined);
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

async function completes(client: Client, threadId: string, text: string): Promise<void> {
  const out = (await client.runs.wait(threadId, "slow", { input: userMessage(text) })) as { messages: Msg[] };
  expect(out.messages.map((m) => m.content)).toContain(`You said: ${text}`);
}

const postgresOnly = servicesUp() ? describe : describe.skip;

postgresOnly("a Postgres restart under agent server processes", () => {
  let pg: PrivatePostgres | undefined;
  let db: TestDatabase | undefined;
  const children: ChildServer[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop("SIGKILL");
    await db?.drop();
    await pg?.stop();
    db = undefined;
    pg = undefined;
  });

  for (const carrier of ["redis", "postgres"] as const) {
    it(`berth serve (${carrier} bus) keeps running and serves runs after the restart`, async () => {
      pg = await startPrivatePostgres();
      db = await databaseOn(pg, carrier === "redis");
      const serve = await startChild("serve", db, quiet);
      children.push(serve);
      const client = new Client({ apiUrl: serve.url!, callerOptions: { maxRetries: 0 } });
      const step = whileAlive(serve, "berth serve");

      const idle = await client.threads.create();
      await completes(client, idle.thread_id, "before");
      const busy = await client.threads.create();
      const inFlight = await client.runs.create(busy.thread_id, "slow", { input: userMessage("in flight"), config: { configurable: { delay_ms: 1500 } } });
      const load = backgroundLoad(client);
      await eventually(async () => (await client.runs.get(busy.thread_id, inFlight.run_id)).status === "running");

      await pg.restart();
      await step(load.stop());

      // The run that was executing ends one way or another (finished, or failed cleanly) instead of hanging.
      await step(eventually(async () => TERMINAL.has((await client.runs.get(busy.thread_id, inFlight.run_id)).status), 90_000, 200));
      // Threads created before the restart and new ones both take runs to completion.
      await step(completes(client, idle.thread_id, "after on an old thread"));
      const fresh = await step(client.threads.create());
      await step(completes(client, fresh.thread_id, "after on a new thread"));
      expect(alive(serve)).toBe(true);
    }, 150_000);
  }
});

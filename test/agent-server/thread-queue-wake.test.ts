/**
 * A run created behind a running run on its thread publishes no wake-up: the end of the run before
 * it starts it (storage/runs.ts `finish` hands the thread over, or settles it when the two raced).
 * These tests run with the workers' backstop poll an hour away, so a run that nothing starts stays
 * pending and its join never returns: a stranded run fails them (by timeout), however fast.
 */
import { afterEach, describe, expect, it } from "vitest";
import pg from "pg";
import type { Client } from "@langchain/langgraph-sdk";
import { createTestDatabase, describeBackends, eventually, servicesUp, startTestServer, userMessage, type TestDatabase, type TestServer } from "../helpers/server.js";

/** No poll to rescue a run nobody started (see the header). */
const NO_POLL = { queuePollSeconds: 3600 };

type Msg = { type: string; content: string };

async function messagesOf(client: Client, threadId: string): Promise<string[]> {
  const state = await client.threads.getState<{ messages: Msg[] }>(threadId);
  return state.values.messages.map((m) => `${m.type}:${m.content}`);
}

/** The runs of a thread in queue order (the order received), with their status and input text. */
async function queueOf(server: TestServer, threadId: string): Promise<{ run_id: string; status: string; text: string }[]> {
  const { rows } = await server.handle.ctx.pool.query<{ run_id: string; status: string; text: string }>(
    "SELECT run_id, status, kwargs #>> '{input,messages,0,content}' AS text FROM runs WHERE thread_id = $1 ORDER BY seq",
    [threadId],
  );
  return rows;
}

/** Each run's input and the graph's answer to it, once, in queue order. */
const turns = (texts: string[]) => texts.flatMap((t) => [`human:${t}`, `ai:You said: ${t}`]);

async function runningNow(server: TestServer, runId: string): Promise<boolean> {
  const { rows } = await server.handle.ctx.pool.query<{ status: string }>("SELECT status FROM runs WHERE run_id = $1", [runId]);
  return rows[0]?.status === "running";
}

describeBackends("a thread's queue without wake-ups", (backend) => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("runs created behind a running run publish no wake-up, and each starts as the one before ends", async () => {
    server = await startTestServer(backend, NO_POLL);
    const { client } = server;
    const { bus, channels } = server.handle.ctx;
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: userMessage("a"), config: { configurable: { delay_ms: 5000 } } });
    await eventually(() => runningNow(server!, first.run_id));

    let wakes = 0;
    const unsubscribe = await bus.subscribe(channels.wake, () => void wakes++);
    const texts = ["b", "c", "d", "e", "f"];
    const created: string[] = [];
    for (const t of texts) created.push((await client.runs.create(thread.thread_id, "chat", { input: userMessage(t), multitaskStrategy: "enqueue" })).run_id);
    // (the test needs the first run still running: delay_ms)
    expect(await runningNow(server, first.run_id)).toBe(true);
    await unsubscribe();
    expect(wakes).toBe(0);

    await client.runs.join(thread.thread_id, created.at(-1)!);
    expect((await queueOf(server, thread.thread_id)).map((r) => r.status)).toEqual(Array(6).fill("success"));
    expect(await messagesOf(client, thread.thread_id)).toEqual(turns(["a", ...texts]));
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  }, 120_000);

  it("runs created on one thread while its runs finish all run, in the order received, each input and answer once", async () => {
    server = await startTestServer(backend, NO_POLL);
    const { client } = server;
    const thread = await client.threads.create();
    // Three clients each create a run as soon as their last one was created: creations land
    // before, during and after the finishes of the runs before them.
    const created = await Promise.all(
      [0, 1, 2].map(async (c) => {
        const ids: string[] = [];
        for (let i = 0; i < 8; i++) {
          ids.push((await client.runs.create(thread.thread_id, "chat", { input: userMessage(`c${c}-${i}`), multitaskStrategy: "enqueue" })).run_id);
        }
        return ids;
      }),
    );
    for (const id of created.flat()) await client.runs.join(thread.thread_id, id);

    const queue = await queueOf(server, thread.thread_id);
    expect(queue).toHaveLength(24);
    expect(queue.map((r) => r.status)).toEqual(Array(24).fill("success"));
    expect(await messagesOf(client, thread.thread_id)).toEqual(turns(queue.map((r) => r.text)));
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  }, 180_000);
});

const postgresOnly = servicesUp() ? describe : describe.skip;

postgresOnly("a thread's queue when the run before finishes between a creation's snapshot and its write", () => {
  let db: TestDatabase | undefined;
  let server: TestServer | undefined;
  let locker: pg.Client | undefined;

  afterEach(async () => {
    await locker?.end().catch(() => undefined);
    locker = undefined;
    await server?.close({ keepDatabase: true });
    server = undefined;
    await db?.drop();
    db = undefined;
  });

  it("a run that saw the run before still running, but wrote its thread after that run's end committed, still starts", async () => {
    db = await createTestDatabase("postgres");
    server = await startTestServer("postgres", NO_POLL, db);
    const { client } = server;
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", { input: userMessage("a"), config: { configurable: { delay_ms: 1500 } } });
    await eventually(() => runningNow(server!, first.run_id));

    // Hold the thread row: the first run's finishing statement queues for it first...
    locker = new pg.Client({ connectionString: db.uri });
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query("SELECT 1 FROM threads WHERE thread_id = $1 FOR NO KEY UPDATE", [thread.thread_id]);
    const waitingOnLock = (like: string) =>
      eventually(async () => {
        // (not on the locker's connection: inside a transaction, pg_stat_activity is read once)
        const { rows } = await server!.handle.ctx.pool.query(
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1",
          [like],
        );
        return rows.length > 0;
      });
    await waitingOnLock("%WITH ended AS%");
    // ...then the creation, whose snapshot sees the first run running.
    const creating = client.runs.create(thread.thread_id, "chat", { input: userMessage("b"), multitaskStrategy: "enqueue" });
    await waitingOnLock("%WITH locked AS%");
    // The finish commits without having seen the new run; the creation then writes the thread.
    await locker.query("COMMIT");
    const second = await creating;

    await client.runs.join(thread.thread_id, second.run_id);
    expect((await queueOf(server, thread.thread_id)).map((r) => r.status)).toEqual(["success", "success"]);
    expect(await messagesOf(client, thread.thread_id)).toEqual(turns(["a", "b"]));
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  }, 120_000);
});

/**
 * The queue across processes: several workers sharing one Postgres + Redis, a worker killed with
 * SIGKILL mid-run, a whole server restarted with runs still queued, and a stream resumed on a
 * different API process with Last-Event-ID.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client } from "@langchain/langgraph-sdk";
import { readSse } from "../helpers/sse.js";
import {
  createTestDatabase,
  eventually,
  servicesUp,
  startChild,
  startTestServer,
  userMessage,
  type Backend,
  type ChildServer,
  type TestDatabase,
  type TestServer,
} from "../helpers/server.js";

type Msg = { type: string; content: string };
const texts = (messages: Msg[] = []) => messages.map((m) => `${m.type}:${m.content}`);


const postgresOnly = servicesUp() ? describe : describe.skip;

postgresOnly("several processes on one Postgres + Redis", () => {
  let db: TestDatabase | undefined;
  let api: TestServer | undefined;
  const children: ChildServer[] = [];

  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop("SIGKILL");
    await api?.close({ keepDatabase: true });
    api = undefined;
    await db?.drop();
    db = undefined;
  });

  const leaseEnv = { BERTH_RUN_LEASE_SECONDS: "2" };

  async function apiOnly(overrides: Record<string, unknown> = {}): Promise<TestServer> {
    db = await createTestDatabase("postgres");
    api = await startTestServer("postgres", { jobsPerWorker: 0, runLeaseSeconds: 2, ...overrides }, db);
    return api;
  }

  async function worker(env: Record<string, string> = {}): Promise<ChildServer> {
    const w = await startChild("worker", db!, { ...leaseEnv, ...env });
    children.push(w);
    return w;
  }

  it("10 concurrent runs on one thread complete in order with two worker processes", async () => {
    const { client } = await apiOnly();
    await Promise.all([worker(), worker()]);
    const thread = await client.threads.create();
    const runs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.runs.create(thread.thread_id, "slow", { input: userMessage(`m${i}`), config: { configurable: { delay_ms: 40 } } }),
      ),
    );
    for (const r of runs) await client.runs.join(thread.thread_id, r.run_id);
    const listed = (await client.runs.list(thread.thread_id, { limit: 100 })).reverse();
    expect(listed.map((r) => r.status)).toEqual(Array(10).fill("success"));
    const received = listed.map((r) => ((r as unknown as { kwargs: { input: { messages: { content: string }[] } } }).kwargs.input.messages[0]!.content));
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(received.flatMap((m) => [`human:${m}`, `ai:You said: ${m}`]));
  });

  it("a join on a process whose worker is busy answers runs another process executes, as they end", async () => {
    // The API process runs one run at a time; its slot is taken, so the runs below wait for a
    // worker and the other process runs them. Its joins cannot count on its own worker telling
    // them the end: they must hear it from the other process. (A heartbeat of 30 s makes a join's
    // poll a 2 s one: an end heard only by polling would show in the timings.)
    db = await createTestDatabase("postgres");
    api = await startTestServer("postgres", { jobsPerWorker: 1, runLeaseSeconds: 2, heartbeatSeconds: 30 }, db);
    const { client } = api;
    await worker();
    const busy = await client.threads.create();
    const long = await client.runs.create(busy.thread_id, "slow", { input: userMessage("long"), config: { configurable: { delay_ms: 8_000 } } });
    await eventually(async () => (await client.runs.get(busy.thread_id, long.run_id)).status === "running");

    // still going when the join arrives
    const t1 = await client.threads.create();
    const r1 = await client.runs.create(t1.thread_id, "slow", { input: userMessage("one"), config: { configurable: { delay_ms: 300 } } });
    const t0 = Date.now();
    const joined = await client.runs.join(t1.thread_id, r1.run_id);
    const took = Date.now() - t0;
    expect(texts((joined as { messages: Msg[] }).messages)).toEqual(["human:one", "ai:You said: one"]);
    expect(took).toBeLessThan(1_700);

    // ended before the join arrives
    const t2 = await client.threads.create();
    const r2 = await client.runs.create(t2.thread_id, "slow", { input: userMessage("two"), config: { configurable: { delay_ms: 10 } } });
    await eventually(async () => (await client.runs.get(t2.thread_id, r2.run_id)).status === "success");
    expect(texts(((await client.runs.join(t2.thread_id, r2.run_id)) as { messages: Msg[] }).messages)).toEqual(["human:two", "ai:You said: two"]);

    // a run queued here, joined on another thread: 404 (the end this process may hear is not that thread's)
    const t3 = await client.threads.create();
    const r3 = await client.runs.create(t3.thread_id, "slow", { input: userMessage("three"), config: { configurable: { delay_ms: 300 } } });
    expect((await fetch(`${api.url}/threads/${t1.thread_id}/runs/${r3.run_id}/join`)).status).toBe(404);
    expect((await client.runs.get(busy.thread_id, long.run_id)).status).toBe("running");
  });

  it("a worker killed with SIGKILL mid-run: another worker resumes the run from its last checkpoint, exactly once", async () => {
    const server = await apiOnly();
    const { client } = server;
    const first = await worker();
    const thread = await client.threads.create();
    // each step sleeps long enough that a busy machine still kills the worker before step two
    const run = await client.runs.create(thread.thread_id, "steps", {
      input: userMessage("go"),
      config: { configurable: { delay_ms: 2500 } },
    });
    await eventually(async () => {
      const s = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
      return texts(s.values.messages).includes("ai:step one");
    });
    await first.stop("SIGKILL");
    await worker();
    await client.runs.join(thread.thread_id, run.run_id);

    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    // resumed after "step one", not restarted: each step once, the input once
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one", "ai:step two", "ai:step three"]);
    const { rows } = await server.handle.ctx.pool.query<{ attempt: number }>("SELECT attempt FROM runs WHERE run_id = $1", [run.run_id]);
    expect(rows[0]!.attempt).toBe(2);
    // the durable event log shows both attempts' metadata events, attempt 1 then 2
    const replay = await readSse(await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: { "Last-Event-ID": "-1" } }));
    expect(replay.filter((e) => e.event === "metadata").map((e) => (e.data as { attempt: number }).attempt)).toEqual([1, 2]);
  });

  it("SIGTERM drains: a run still going after the grace period is handed back and finished by another worker", async () => {
    const server = await apiOnly();
    const { client } = server;
    const first = await worker({ BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS: "1" });
    const thread = await client.threads.create();
    // the run cannot finish within the grace period, even if the SIGTERM comes late on a busy machine
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), config: { configurable: { delay_ms: 2500 } } });
    await eventually(async () => {
      const s = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
      return texts(s.values.messages).includes("ai:step one");
    });
    expect(await first.stop("SIGTERM")).toBe(0); // exits cleanly after handing the run back
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("pending");
    await worker();
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one", "ai:step two", "ai:step three"]);
    // the event log continues across the hand-over: one metadata event per start, ids unbroken
    const replay = await readSse(await fetch(`${server.url}/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: { "Last-Event-ID": "-1" } }));
    expect(replay.map((e) => Number(e.id))).toEqual(replay.map((_, i) => i));
    expect(replay.filter((e) => e.event === "metadata")).toHaveLength(2);
  });

  it("a cancel sent to the API process stops the run in the worker process", async () => {
    const { client } = await apiOnly();
    await worker();
    const thread = await client.threads.create();
    // The steps sleep far longer than a cancel takes even on a busy machine (the cancel cuts the
    // sleep short, so this costs nothing): a run that stops before step two stopped because the
    // cancel signal crossed processes. The worker stays alive, so no lease expiry is involved.
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), config: { configurable: { delay_ms: 0, later_delay_ms: 60_000 } } });
    await eventually(async () => {
      const s = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
      return texts(s.values.messages).includes("ai:step one");
    });
    await client.runs.cancel(thread.thread_id, run.run_id, true, "interrupt");
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one"]);
  });

  it("a worker frozen past its lease (SIGSTOP) loses the run and, woken up, writes nothing to it", async () => {
    const server = await apiOnly();
    const { client } = server;
    const frozen = await worker();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", { input: userMessage("go"), config: { configurable: { delay_ms: 2500 } } });
    await eventually(async () => {
      const s = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
      return texts(s.values.messages).includes("ai:step one");
    });
    frozen.child.kill("SIGSTOP");
    await worker();
    await client.runs.join(thread.thread_id, run.run_id);
    frozen.child.kill("SIGCONT"); // it wakes up mid-step, still believing it owns the run
    // it finds out and gives the run up (logged after its execution stopped): from then on it writes nothing
    await eventually(async () => frozen.output().includes("lease lost: another worker owns this run now"), 60_000);
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:go", "ai:step one", "ai:step two", "ai:step three"]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const history = await client.threads.getHistory<{ messages: Msg[] }>(thread.thread_id, { limit: 100 });
    // every checkpoint of the thread is on one line of descent: no branch written by the zombie
    const ids = new Set(history.map((h) => h.checkpoint.checkpoint_id));
    const parents = history.map((h) => h.parent_checkpoint?.checkpoint_id).filter(Boolean);
    expect(new Set(parents).size).toBe(parents.length);
    expect(parents.every((p) => ids.has(p!))).toBe(true);
  });

  it("a run whose workers keep dying fails after max attempts with a clear error", async () => {
    const server = await apiOnly({ maxAttempts: 1 });
    const { client } = server;
    const first = await worker();
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("x"), config: { configurable: { delay_ms: 60_000 } } });
    // killed while executing the run (its attempt counted), not merely after claiming it
    await eventually(async () => {
      const { rows } = await server.handle.ctx.pool.query<{ attempt: number }>("SELECT attempt FROM runs WHERE run_id = $1", [run.run_id]);
      return rows[0]?.attempt === 1;
    });
    await first.stop("SIGKILL");
    await worker();
    const result = (await client.runs.join(thread.thread_id, run.run_id)) as { __error__?: { error: string; message: string } };
    expect(result.__error__?.error).toBe("RunAttemptsExceeded");
    expect(result.__error__?.message).toMatch(/attempted 1 times/);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("error");
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");
  });

  it("a worker lost between claiming a run and executing it costs the run no attempt", async () => {
    // One attempt allowed: a claim that never executed must not use it up.
    const server = await apiOnly({ maxAttempts: 1 });
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("x") });
    // A worker claims the run and dies before starting it (its claim, made here, is never executed).
    const claimed = await server.handle.ctx.runs.claim("worker-that-died", 1, 1);
    expect(claimed.map((r) => r.run_id)).toEqual([run.run_id]);
    await worker(); // sweeps the lapsed lease, then runs the run
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:x", "ai:You said: x"]);
    const { rows } = await server.handle.ctx.pool.query<{ attempt: number }>("SELECT attempt FROM runs WHERE run_id = $1", [run.run_id]);
    expect(rows[0]!.attempt).toBe(1);
  });

  it("a stream dropped on one API process resumes on another with Last-Event-ID", async () => {
    db = await createTestDatabase("postgres");
    const [api1, api2] = await Promise.all([
      startChild("serve", db, { N_JOBS_PER_WORKER: "0" }),
      startChild("serve", db, { N_JOBS_PER_WORKER: "0" }),
    ]);
    children.push(api1, api2);
    await worker();
    const client1 = new Client({ apiUrl: api1.url!, callerOptions: { maxRetries: 0 } });
    const thread = await client1.threads.create();

    const abort = new AbortController();
    const res = await fetch(`${api1.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        assistant_id: "steps",
        input: userMessage("stream me"),
        stream_mode: ["updates"],
        config: { configurable: { delay_ms: 400 } },
      }),
      signal: abort.signal,
    });
    const location = res.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}/stream$`));
    // drop the connection after the first update
    const before = await readSse(res, (e) => e.event === "updates", abort);
    const lastId = before.at(-1)!.id!;

    const resumed = await readSse(await fetch(`${api2.url}${location}`, { headers: { "Last-Event-ID": String(lastId) } }));
    const ids = [...before, ...resumed].map((e) => Number(e.id));
    expect(ids).toEqual(ids.map((_, i) => i)); // every event once, in order, no gaps
    const updates = [...before, ...resumed].filter((e) => e.event === "updates").map((e) => Object.keys(e.data as object)[0]);
    expect(updates).toEqual(["one", "two", "three"]);
  });
});

postgresOnly("Postgres without Redis: signals over LISTEN/NOTIFY", () => {
  let db: TestDatabase | undefined;
  const children: ChildServer[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop("SIGKILL");
    await db?.drop();
  });

  it("an API process and a worker process wake, stream and cancel through Postgres alone", async () => {
    db = await createTestDatabase("postgres");
    db.redisUri = undefined; // no REDIS_URI: the bus is LISTEN/NOTIFY
    const api = await startChild("serve", db, { N_JOBS_PER_WORKER: "0" });
    children.push(api, await startChild("worker", db));
    const client = new Client({ apiUrl: api.url!, callerOptions: { maxRetries: 0 } });
    expect(((await (await fetch(`${api.url}/info`)).json()) as { host: { bus: string } }).host.bus).toBe("postgres");

    const thread = await client.threads.create();
    const events = [];
    for await (const e of client.runs.stream(thread.thread_id, "slow", { input: userMessage("over notify"), streamMode: "updates" })) events.push(e);
    expect(events.map((e) => e.event)).toEqual(["metadata", "updates"]);

    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("x"), config: { configurable: { delay_ms: 10_000 } } });
    await eventually(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "running");
    await client.runs.cancel(thread.thread_id, run.run_id, true, "interrupt");
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("interrupted");
  });
});

describe.each<Backend>(servicesUp() ? ["pglite", "postgres"] : ["pglite"])("restart of the whole server [%s]", (backend) => {
  let db: TestDatabase | undefined;
  const children: ChildServer[] = [];
  afterEach(async () => {
    for (const c of children.splice(0)) await c.stop("SIGKILL");
    await db?.drop();
  });

  it("keeps threads and runs queued before the restart, and runs them after", async () => {
    db = await createTestDatabase(backend);
    // first life: API only, so the runs stay queued
    const before = await startChild("serve", db, { N_JOBS_PER_WORKER: "0" });
    children.push(before);
    const client = new Client({ apiUrl: before.url!, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create({ metadata: { owner: "restart-test" } });
    const runs = [];
    for (const m of ["one", "two", "three"]) runs.push(await client.runs.create(thread.thread_id, "slow", { input: userMessage(m) }));
    expect(await before.stop("SIGTERM")).toBe(0);
    children.pop();

    const after = await startChild("serve", db);
    children.push(after);
    const client2 = new Client({ apiUrl: after.url!, callerOptions: { maxRetries: 0 } });
    for (const r of runs) await client2.runs.join(thread.thread_id, r.run_id);
    expect((await client2.threads.get(thread.thread_id)).metadata?.owner).toBe("restart-test");
    const state = await client2.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual([
      "human:one",
      "ai:You said: one",
      "human:two",
      "ai:You said: two",
      "human:three",
      "ai:You said: three",
    ]);
  });

  it("a server killed with SIGKILL keeps every run it answered as ended, with its output", async () => {
    db = await createTestDatabase(backend);
    const first = await startChild("serve", db);
    children.push(first);
    const client = new Client({ apiUrl: first.url!, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const ended = [];
    for (const m of ["one", "two", "three"]) {
      const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage(m) });
      await client.runs.join(thread.thread_id, run.run_id);
      ended.push(run.run_id);
    }
    // no clean close: on PGlite nothing gets to checkpoint or flush beyond what each commit wrote
    await first.stop("SIGKILL");
    children.pop();

    const after = await startChild("serve", db);
    children.push(after);
    const client2 = new Client({ apiUrl: after.url!, callerOptions: { maxRetries: 0 } });
    for (const id of ended) expect((await client2.runs.get(thread.thread_id, id)).status).toBe("success");
    const state = await client2.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human:one", "ai:You said: one", "human:two", "ai:You said: two", "human:three", "ai:You said: three"]);
  });
});

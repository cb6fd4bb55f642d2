/**
 * Chaos: runs on several threads executed by several `berth worker` processes that are killed
 * with SIGKILL at random moments (a replacement starts each time), and one crash-restart of
 * Postgres mid-storm (a private cluster: the shared one is never restarted). Then a check of the
 * runs' *effects*: every thread's state holds each run's input and output exactly once, in the
 * order the runs were submitted — a status of `success` proves nothing if the run's writes were
 * dropped.
 *
 * Bounded for CI: the storm lasts BERTH_CHAOS_SECONDS (default 25 s); set it higher for a long
 * soak (Postgres then restarts once a minute). BERTH_CHAOS_VERBOSE=1 prints the figures (runs, kills, attempts) of a passing storm.
 */
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";
import { REDIS_URI } from "../helpers/services.js";
import {
  eventually,
  servicesUp,
  sleep,
  startChild,
  startTestServer,
  type ChildServer,
  type TestDatabase,
  type TestServer,
} from "../helpers/server.js";

const STORM_SECONDS = Number(process.env.BERTH_CHAOS_SECONDS ?? 25);
const THREADS = 8;
const WORKERS = 3;
const JOBS_PER_WORKER = 4;
/** Short leases: a killed worker's runs go to another worker quickly, so the storm gets through many runs. */
const LEASE_SECONDS = 2;
/** Each ledger node pauses up to this long, so kills land inside nodes and between steps alike. */
const STEP_DELAY_MS = 80;
/** Time between kills: random in [MIN, MAX). */
const KILL_EVERY_MS: [number, number] = [400, 1600];
const SUBMIT_EVERY_MS = 120;

const TERMINAL = new Set(["success", "error", "timeout", "interrupted"]);

/** The log a thread must end with: per run, in submission order, each step exactly once. */
const expectedLog = (labels: string[]) => labels.flatMap((l) => [`in:${l}`, `one:${l}`, `left:${l}`, `right:${l}`, `out:${l}`]);

/** Where a thread's log departs from what its runs should have written, in words. */
function logProblems(labels: string[], log: string[]): string[] {
  const problems: string[] = [];
  for (const l of labels) {
    for (const step of ["in", "one", "left", "right", "out"]) {
      const n = log.filter((e) => e === `${step}:${l}`).length;
      if (n !== 1) problems.push(`run ${l}: "${step}" ${n === 0 ? "missing" : `written ${n} times`}`);
    }
  }
  if (problems.length === 0) problems.push(`every entry once but not in submission order: ${log.join(" ")}`);
  return problems;
}

const postgresOnly = servicesUp() ? describe : describe.skip;

postgresOnly("chaos: workers killed at random and Postgres restarted while runs execute", () => {
  let pg: PrivatePostgres | undefined;
  let db: TestDatabase | undefined;
  let api: TestServer | undefined;
  const workers = new Set<ChildServer>();

  afterEach(async () => {
    const all = [...workers];
    workers.clear(); // first: these exits are ours
    for (const w of all) await w.stop("SIGKILL");
    await api?.close({ keepDatabase: true });
    api = undefined;
    await db?.drop();
    db = undefined;
    await pg?.stop();
    pg = undefined;
  });

  /** The test's database: the private cluster's, with Redis (shared, under a key prefix of its own). */
  async function privateDatabase(cluster: PrivatePostgres): Promise<TestDatabase> {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "berth-chaos-"));
    return {
      backend: "postgres",
      uri: cluster.uri,
      dataDir,
      redisUri: REDIS_URI,
      redisKeyPrefix: `berth-chaos-${randomUUID().slice(0, 8)}`,
      drop: () => rm(dataDir, { recursive: true, force: true }),
    };
  }

  /** Workers that exited without being killed by the test: each is a defect (and is replaced). */
  const crashes: string[] = [];
  const replacements: Promise<unknown>[] = [];

  const startWorker = async (): Promise<ChildServer> => {
    const w = await startChild("worker", db!, {
      BERTH_RUN_LEASE_SECONDS: String(LEASE_SECONDS),
      N_JOBS_PER_WORKER: String(JOBS_PER_WORKER),
      LOG_LEVEL: process.env.BERTH_TEST_LOG ?? "silent",
    });
    workers.add(w);
    w.child.once("exit", (code, signal) => {
      if (!workers.delete(w)) return; // killed by the test
      crashes.push(`a worker exited on its own (code ${code}, signal ${signal})`);
      replacements.push(replaceWorker());
    });
    return w;
  };

  /** Start a worker, retrying while it cannot boot (the database is restarting). */
  const replaceWorker = async (): Promise<ChildServer> => {
    for (let tries = 1; ; tries++) {
      try {
        return await startWorker();
      } catch (err) {
        if (tries >= 30) throw err;
        await sleep(1000);
      }
    }
  };

  /** A thread's checkpoints, newest first: what wrote each (source, step, run) and where its log stood. */
  async function checkpointTrail(threadId: string, labelOf: Map<string, string>): Promise<string[]> {
    const history = await api!.client.threads.getHistory<{ log?: string[] }>(threadId, { limit: 1000 });
    return history.map((h) => {
      const m = h.metadata as { source?: string; step?: number; run_id?: string } | null;
      const id = h.checkpoint.checkpoint_id?.slice(0, 13);
      return `${id} ${m?.source}@${m?.step} run=${(m?.run_id && labelOf.get(m.run_id)) ?? "-"} log=…${(h.values.log ?? []).slice(-3).join(",")} next=${h.next.join(",")}`;
    });
  }

  it("every run's input and output reach its thread exactly once, in order, through SIGKILLs and a Postgres restart", async () => {
    pg = await startPrivatePostgres();
    db = await privateDatabase(pg);
    // Attempts are not what this test is about: a run killed many times must still finish.
    api = await startTestServer("postgres", { jobsPerWorker: 0, runLeaseSeconds: LEASE_SECONDS, maxAttempts: 100 }, db);
    const { client } = api;
    await Promise.all(Array.from({ length: WORKERS }, startWorker));
    const threads = await Promise.all(Array.from({ length: THREADS }, () => client.threads.create()));
    const labels = new Map<string, string[]>(threads.map((t) => [t.thread_id, []]));
    const runIds: { thread_id: string; run_id: string; label: string }[] = [];

    const stormStarted = Date.now();
    const stormEnds = stormStarted + STORM_SECONDS * 1000;
    let kills = 0;
    /** Set while Postgres restarts: submissions and kills wait (a worker cannot boot without it). */
    let restarting: Promise<void> | undefined;

    // Submit runs one at a time, so the order on each thread is the order created.
    const submitting = (async () => {
      for (let n = 0; Date.now() < stormEnds; n++) {
        await restarting;
        const thread = threads[n % THREADS]!;
        const label = `${n % THREADS}.${Math.floor(n / THREADS)}`;
        const run = await client.runs.create(thread.thread_id, "ledger", {
          input: { log: [`in:${label}`] },
          config: { configurable: { delay_ms: STEP_DELAY_MS } },
          multitaskStrategy: "enqueue",
        });
        labels.get(thread.thread_id)!.push(label);
        runIds.push({ thread_id: thread.thread_id, run_id: run.run_id, label });
        await sleep(SUBMIT_EVERY_MS);
      }
    })();

    // Kill a random worker every so often; a replacement starts at once (it takes a while to boot).
    const killing = (async () => {
      while (Date.now() < stormEnds) {
        await sleep(KILL_EVERY_MS[0] + Math.random() * (KILL_EVERY_MS[1] - KILL_EVERY_MS[0]));
        await restarting;
        const live = [...workers].filter((w) => w.child.exitCode === null && w.child.signalCode === null);
        const victim = live[Math.floor(Math.random() * live.length)];
        if (!victim || restarting || Date.now() >= stormEnds) continue;
        victim.child.kill("SIGKILL"); // synchronous: no await between the check above and the replacement
        workers.delete(victim);
        kills++;
        replacements.push(replaceWorker());
      }
    })();

    // Postgres crashes and comes back with runs in flight: once in the middle of the storm, and
    // once a minute in longer storms.
    const restartCount = Math.max(1, Math.floor(STORM_SECONDS / 60));
    const slice = (STORM_SECONDS * 1000) / restartCount;
    const restartTimes = Array.from({ length: restartCount }, (_, i) => stormStarted + i * slice + slice * (0.3 + Math.random() * 0.4));
    const restarted = (async () => {
      for (const at of restartTimes) {
        await sleep(at - Date.now());
        restarting = (async () => {
          await Promise.all(replacements); // no worker half-booted when the database goes
          await pg!.restart({ mode: "immediate" });
        })();
        await restarting;
        restarting = undefined;
      }
    })();

    await Promise.all([submitting, killing, restarted]);
    // replacements, and those of workers that died meanwhile
    for (let n = 0; n < replacements.length; n = replacements.length) await Promise.all(replacements);

    // The storm is over: let the surviving workers drain the queues (generous: a hang guard only).
    await eventually(
      async () => {
        const all = await Promise.all(threads.map((t) => client.runs.list(t.thread_id, { limit: 1000 })));
        const runs = all.flat();
        return runs.length === runIds.length && runs.every((r) => TERMINAL.has(r.status)) ? runs : undefined;
      },
      240_000,
      250,
    );

    const { rows: attempts } = await api.handle.ctx.pool.query<{ attempt: number; runs: number }>(
      "SELECT attempt, count(*)::int AS runs FROM runs GROUP BY attempt ORDER BY attempt",
    );
    const figures =
      `${runIds.length} runs on ${THREADS} threads, ${kills} workers killed, ` +
      `Postgres restarted at ${restartTimes.map((t) => `${((t - stormStarted) / 1000).toFixed(1)} s`).join(", ")}, ` +
      `runs by attempts ${attempts.map((a) => `${a.attempt}:${a.runs}`).join(" ")}`;
    const problems: string[] = [...crashes];
    const { rows: notSuccess } = await api.handle.ctx.pool.query<{ run_id: string; status: string; error: unknown }>(
      "SELECT run_id, status, error FROM runs WHERE status <> 'success'",
    );
    for (const r of notSuccess) problems.push(`run ${r.run_id} ended ${r.status}: ${JSON.stringify(r.error)}`);
    let history: string[] = [];
    for (const t of threads) {
      const state = await client.threads.getState<{ log: string[] }>(t.thread_id);
      const want = labels.get(t.thread_id)!;
      const log = state.values.log ?? [];
      if (JSON.stringify(log) === JSON.stringify(expectedLog(want))) continue;
      problems.push(...logProblems(want, log).map((p) => `thread ${t.thread_id}: ${p}`));
      if (history.length === 0) history = await checkpointTrail(t.thread_id, new Map(runIds.map((r) => [r.run_id, r.label])));
    }
    if (history.length) problems.push(`checkpoints of the first thread in trouble, newest first:\n  ${history.join("\n  ")}`);
    if (process.env.BERTH_CHAOS_VERBOSE) console.log(`chaos: ${figures}; ${problems.length} problems`);
    expect(problems, figures).toEqual([]);
  }, STORM_SECONDS * 1000 + 300_000);
});

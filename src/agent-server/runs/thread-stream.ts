/**
 * The thread stream (`GET /threads/{thread_id}/stream`, the SDK's `client.threads.joinStream`):
 * the output of every run on the thread, one run after another in the order they were queued,
 * until the client hangs up (it stays open between runs, as on LangGraph Platform).
 *
 * Modes (`stream_mode`, several allowed; default `run_modes`):
 * - `run_modes`: every event each run streams (what its own stream carries);
 * - `lifecycle`: `lifecycle` events `{run_id, thread_id, status}` when a run starts ("running")
 *   and ends (its final status; "rollback" when the run was rolled back and deleted);
 * - `state_update`: the thread's state after each step of a run (the runs' root `values` events).
 *
 * Event ids are `<run_id>:<n>` (the run's own event ids), `<run_id>:start` and `<run_id>:end`. A
 * reader resumes after any of them with `Last-Event-ID`; `-` or `-1` replays every run of the
 * thread whose events are still kept. Without it, the stream starts with the run in flight (from
 * its first event) or else the next run queued. Everything comes from the durable event log and
 * the run's bus channel (runs/stream.ts), so any server process can serve it.
 */
import type { AgentServerContext } from "../context.js";
import { ValidationError } from "../../shared/errors.js";
import { runEvents } from "./stream.js";

export const THREAD_STREAM_MODES = ["run_modes", "lifecycle", "state_update"] as const;
export type ThreadStreamMode = (typeof THREAD_STREAM_MODES)[number];

/** Where a reader resumes: from the thread's first run, or after an event of a run. */
export type ThreadCursor = { kind: "start" } | { kind: "after"; runId: string; at: number | "start" | "end" };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Parse `Last-Event-ID` of a thread stream (undefined: none given). */
export function parseThreadEventId(raw: string | undefined): ThreadCursor | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (raw === "-" || raw === "-1") return { kind: "start" };
  const sep = raw.lastIndexOf(":");
  const runId = raw.slice(0, sep);
  const at = raw.slice(sep + 1);
  if (sep > 0 && UUID.test(runId)) {
    if (at === "start" || at === "end") return { kind: "after", runId, at };
    const n = Number(at);
    if (at !== "" && Number.isInteger(n) && n >= -1) return { kind: "after", runId, at: n };
  }
  throw ValidationError.field(
    ["header", "Last-Event-ID"],
    `must be an id this stream sent ("<run_id>:<n>", "<run_id>:start" or "<run_id>:end"), or "-" to replay the thread; got ${JSON.stringify(raw)}`,
  );
}

export const threadEventId = (runId: string, at: number | "start" | "end") => `${runId}:${at}`;

/** Whether a run's event goes to a reader of these modes (lifecycle events are made separately). */
export function threadEventSelected(event: string, modes: ReadonlySet<ThreadStreamMode>): boolean {
  if (modes.has("run_modes")) return true;
  return modes.has("state_update") && event === "values";
}

export interface ThreadEvent {
  id: string;
  event: string;
  /** JSON text. */
  data: string;
}

interface RunRef {
  run_id: string;
  seq: string;
}

/** Where a thread stream starts: after the run queued at `afterSeq`, resuming the first run after `firstAfter`. */
export interface ThreadStart {
  afterSeq: string;
  firstAfter: number | "start" | "end";
}

/**
 * Resolve a reader's cursor to a queue position. A run that is gone (rolled back, deleted) cannot
 * be placed, so such a reader continues live, like one that gave no id.
 */
export async function threadStart(ctx: AgentServerContext, threadId: string, cursor: ThreadCursor | undefined): Promise<ThreadStart> {
  const { pool } = ctx;
  if (cursor?.kind === "start") return { afterSeq: "0", firstAfter: -1 };
  if (cursor?.kind === "after") {
    const { rows } = await pool.query<RunRef>("SELECT run_id, seq::text AS seq FROM runs WHERE run_id = $1 AND thread_id = $2", [cursor.runId, threadId]);
    if (rows[0]) return { afterSeq: String(BigInt(rows[0].seq) - 1n), firstAfter: cursor.at };
  }
  // Live: the run in flight (or the next queued) from its first event, else whatever is queued from now on.
  const { rows } = await pool.query<{ seq: string | null; max: string | null }>(
    `SELECT (SELECT min(seq) FROM runs WHERE thread_id = $1 AND status IN ('pending', 'running'))::text AS seq,
            (SELECT max(seq) FROM runs WHERE thread_id = $1)::text AS max`,
    [threadId],
  );
  const r = rows[0];
  if (r?.seq) return { afterSeq: String(BigInt(r.seq) - 1n), firstAfter: -1 };
  return { afterSeq: r?.max ?? "0", firstAfter: -1 };
}

/**
 * Every event of the thread's runs for these modes, from `start` on, until `signal` aborts or the
 * thread is deleted.
 */
export async function* threadEvents(
  ctx: AgentServerContext,
  threadId: string,
  opts: { start: ThreadStart; modes: ReadonlySet<ThreadStreamMode>; signal: AbortSignal },
): AsyncGenerator<ThreadEvent, void> {
  const { pool, bus, channels, settings, threads } = ctx;
  // Runs are looked up by their queue position (`seq`): the next run of the thread after one.
  const nextRun = async (afterSeq: string) =>
    (await pool.query<RunRef>("SELECT run_id, seq::text AS seq FROM runs WHERE thread_id = $1 AND seq > $2 ORDER BY seq LIMIT 1", [threadId, afterSeq])).rows[0];
  let { afterSeq, firstAfter } = opts.start;

  let wake: (() => void) | undefined;
  const unsubscribe = await bus.subscribe(channels.wake, () => wake?.());
  const onAbort = () => wake?.();
  opts.signal.addEventListener("abort", onAbort);
  const lifecycle = opts.modes.has("lifecycle");
  const lifecycleEvent = (runId: string, at: "start" | "end", status: string): ThreadEvent => ({
    id: threadEventId(runId, at),
    event: "lifecycle",
    data: JSON.stringify({ run_id: runId, thread_id: threadId, status }),
  });
  try {
    while (!opts.signal.aborted) {
      const run = await nextRun(afterSeq);
      if (!run) {
        if (!(await threads.find(threadId))) return; // the thread was deleted: nothing more will come
        // Wait for a run to be queued: a wake-up (runs created or ended anywhere), or the poll.
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, settings.heartbeatSeconds * 1000);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
          if (opts.signal.aborted) wake();
        });
        wake = undefined;
        continue;
      }
      const resumeAt = firstAfter;
      firstAfter = -1;
      afterSeq = run.seq;
      if (resumeAt === "end") continue;
      let started = resumeAt !== -1;
      const after = typeof resumeAt === "number" ? resumeAt : -1;
      for await (const e of runEvents(ctx, run.run_id, { after, signal: opts.signal })) {
        if (lifecycle && !started) {
          started = true;
          yield lifecycleEvent(run.run_id, "start", "running");
        }
        started = true;
        if (threadEventSelected(e.event, opts.modes)) yield { id: threadEventId(run.run_id, e.seq), event: e.event, data: e.data };
      }
      if (opts.signal.aborted) return;
      if (lifecycle) {
        const ended = await ctx.runs.find(run.run_id);
        if (started || ended) yield lifecycleEvent(run.run_id, "end", ended?.status ?? "rollback");
      }
    }
  } finally {
    opts.signal.removeEventListener("abort", onAbort);
    await unsubscribe();
  }
}

/**
 * Checkpoint writes of a queued run, held back briefly and committed together — with each other,
 * and with the run's end when the run ends meanwhile (issue 16).
 *
 * LangGraph's default durability ("async") does not wait for a step's checkpoint before the next
 * step starts; it waits for all of them only when the graph returns. A short chat run writes five
 * (three checkpoints, two tasks' writes), each its own transaction, and on Postgres each commit
 * waits for its WAL flush (1.5–4 ms on a loaded disk); then the run's end is one more. Held back
 * for a moment (`lingerMs`), a run's writes go in one transaction; those still held when the run
 * ends are committed by the transaction that ends it (storage/runs.ts `finish`), so a short run
 * costs one flush instead of six, and its `success` is never recorded without its final state.
 *
 * What a crash can lose is what async durability can lose — steps not yet stored are run again
 * when the run resumes — widened by at most `lingerMs`. Runs asking for "sync" durability are not
 * held back. Reads of a thread through this process's checkpointer (state, history, the graph's
 * own reads) first commit what is held for it; another process sees it within `lingerMs`.
 */
import type pg from "pg";
import { batchStatementText, batchValues, type CheckpointWrite } from "./checkpoint-batch.js";

/** A write held back, and what to do once it is committed. */
export interface HeldWrite {
  write: CheckpointWrite;
  committed?: () => void;
}

/** What is held for one thread's running run. */
interface ThreadWrites {
  runId: string;
  /** The worker holding the run's lease: batches are stored only while it does. */
  owner?: string;
  queued: HeldWrite[];
  timer?: NodeJS.Timeout;
  /** The sends so far, in order; settles when the last has committed (never rejects). */
  sending: Promise<void>;
  /** A send that failed: every later write and the run's end fail with it. */
  error?: unknown;
}

/** Writes a run's end takes over: to be committed by the statement that ends it, then `committed()`. */
export interface TakenWrites {
  /** The saver's schema (where the tables are). */
  schema: string;
  writes: CheckpointWrite[];
  committed(): void;
}

export class CheckpointWriteBehind {
  private readonly threads = new Map<string, ThreadWrites>();

  private readonly texts: { plain: string; fenced: string };

  constructor(
    private readonly pool: pg.Pool,
    private readonly lingerMs: number,
    private readonly schema: string,
    /** Send batches as a named statement (not on PGlite: checkpoint-writes.ts). */
    private readonly named: boolean,
  ) {
    this.texts = { plain: batchStatementText(schema, false), fenced: batchStatementText(schema, true) };
  }

  /**
   * Hold back the checkpoint writes of run `runId` on `threadId` (the only run that may write to
   * it). With `owner`, what is sent before the run ends is stored only while that worker holds the
   * run's lease (a fencing token, as the run's end has).
   */
  start(threadId: string, runId: string, owner?: string): void {
    this.threads.set(threadId, { runId, owner, queued: [], sending: Promise.resolve() });
  }

  /** Whether a write with this config is held back: it belongs to the run held back on its thread. */
  holds(configurable: Record<string, unknown> | undefined): boolean {
    if (!configurable) return false;
    const thread = this.threads.get(String(configurable.thread_id));
    return thread !== undefined && thread.runId === configurable.run_id;
  }

  /** Hold a write of the run on `threadId` (after `holds` said yes); throws an earlier send's failure. */
  add(threadId: string, write: HeldWrite): void {
    const thread = this.threads.get(threadId)!;
    if (thread.error !== undefined) throw thread.error;
    thread.queued.push(write);
    thread.timer ??= setTimeout(() => this.send(thread), this.lingerMs);
  }

  /** Commit what is held for the thread (every thread: undefined) now, and wait for it (before reading it). */
  async flush(threadId: string | undefined): Promise<void> {
    if (!this.threads.size) return;
    const threads = threadId === undefined ? [...this.threads.values()] : [this.threads.get(threadId)];
    for (const thread of threads) {
      if (!thread) continue;
      this.send(thread);
      await thread.sending;
      if (thread.error !== undefined) throw thread.error;
    }
  }

  /**
   * Stop holding back the thread's writes; wait for those being sent, and hand over those still
   * held, for the transaction that ends the run. Throws when a send failed.
   */
  async take(threadId: string): Promise<TakenWrites | undefined> {
    const thread = this.threads.get(threadId);
    if (!thread) return undefined;
    this.threads.delete(threadId);
    clearTimeout(thread.timer);
    await thread.sending;
    if (thread.error !== undefined) throw thread.error;
    if (!thread.queued.length) return undefined;
    const writes = thread.queued;
    return { schema: this.schema, writes: writes.map((w) => w.write), committed: () => writes.forEach((w) => w.committed?.()) };
  }

  /**
   * Stop holding back the thread's writes, for a run that does not end here: commit what is held
   * (`commit`: a run handed back keeps its progress) or drop it (its lease was lost, or its
   * checkpoints are about to be deleted), after waiting for those being sent.
   */
  async stop(threadId: string, commit: boolean): Promise<void> {
    const thread = this.threads.get(threadId);
    if (!thread) return;
    if (commit) this.send(thread);
    else clearTimeout(thread.timer);
    this.threads.delete(threadId);
    await thread.sending;
  }

  /** Drop what is held for run `runId` on `threadId` (not for a later run of the thread), sending nothing more. */
  abandon(threadId: string, runId: string): void {
    const thread = this.threads.get(threadId);
    if (thread?.runId !== runId) return;
    clearTimeout(thread.timer);
    this.threads.delete(threadId);
  }

  /** Send what is held for the thread, after what is being sent, as one statement (checkpoint-batch.ts). */
  private send(thread: ThreadWrites): void {
    clearTimeout(thread.timer);
    thread.timer = undefined;
    if (!thread.queued.length || thread.error !== undefined) return;
    const writes = thread.queued;
    thread.queued = [];
    thread.sending = thread.sending.then(async () => {
      if (thread.error !== undefined) return;
      try {
        const { values } = batchValues(writes.map((w) => w.write));
        const fenced = thread.owner !== undefined;
        if (fenced) values.push(thread.runId, thread.owner);
        const statement: pg.QueryConfig = { text: fenced ? this.texts.fenced : this.texts.plain, values };
        if (this.named) statement.name = fenced ? "berth_ckpt_batch_fenced" : "berth_ckpt_batch";
        await this.pool.query(statement);
        for (const w of writes) w.committed?.();
      } catch (err) {
        thread.error = err;
      }
    });
  }
}

/**
 * The merge worker: staged ingest requests (storage/staging.ts) → runs, costs and rollups
 * (merge-batch.ts), in the background, many requests per transaction.
 *
 * - The request path stages its row and hands its prepared runs to this process's queue: the merge
 *   never reads back or parses what it stages (the row is for durability and for other processes).
 * - One merge at a time per process takes everything queued (up to `batchOps` operations): while it
 *   runs, the next requests queue, so the busier the server the larger (and cheaper per run) the
 *   merges, and a post and its patch sent in different requests usually meet in one merge.
 * - Exactly once: the merge transaction first deletes the staged rows it merges and merges only
 *   those it deleted. A process that dies before its commit leaves its rows; any process picks up
 *   rows older than `recoverAfterSeconds` that it does not hold (and a process starting up, its
 *   predecessor's), parses them again and merges them. Two processes never both merge a row: the
 *   second's delete finds it gone.
 * - Bad input never 500s, never stalls: a merge that fails for a reason other than the database
 *   being unreachable is retried request by request, and a request that still fails alone is set
 *   aside (tracing_ingest_failures, with the reason, and a warn log); the rest merge.
 * - Read-your-writes: `drain(tenant)` (the query API calls it before reading) returns once everything
 *   accepted for that tenant before the read is merged, or after `drainTimeoutMs` if the database
 *   is failing; another tenant's pending requests (a big batch, a merge stuck on a lock) never
 *   hold up a read. This process's own requests are awaited in memory; with `sharedDrain` (other
 *   processes or replicas on the database) the tenant's rows staged by anyone before the read are
 *   awaited too, except rows old enough to be a dead process's (they wait for the takeover).
 */
import type pg from "pg";
import { withTransaction } from "../../shared/db/index.js";
import type { Logger } from "../../shared/logging.js";
import { replaceUnstorable } from "../../shared/text.js";
import type { ModelPrice } from "../accounting/cost.js";
import { claimStaged, newestStaged, recordFailures, stagedUpTo, staleStaged, type IngestFailure, type NewStaged, type StagedRow, Stager } from "../storage/staging.js";
import { mergeGroup, type PreparedEntry, type RunOutcome } from "./merge-batch.js";

export interface MergeOutcome {
  runs: Map<string, RunOutcome>;
  attachmentErrors: { run_id: string; error: string }[];
}

export interface MergeWorkerOptions {
  /** Operations (posts and patches) per merge transaction at most. */
  batchOps: number;
  /**
   * Named (server-side prepared) statements for the merge's and the staging's statements: Postgres
   * parses and plans them once per connection instead of every time. Not on the embedded database.
   */
  usePrepared: boolean;
  /** New runs written with COPY: a real Postgres (the embedded database's bridge takes no COPY FROM STDIN). */
  copy: boolean;
  /** Operations accepted but not merged yet beyond which requests wait before staging (backpressure). */
  maxPendingOps: number;
  /** Staged rows older than this that no one merged are taken over (a process died before merging them). */
  recoverAfterSeconds: number;
  /** How often to look for such rows. */
  recoverEverySeconds: number;
  /** How long a read waits for pending merges at most. */
  drainTimeoutMs: number;
  /** Reads also wait for other processes' staged rows (not on the embedded database: one process). */
  sharedDrain?: boolean;
  /**
   * Test-only faults: "hold" stages and answers but never merges (a process that dies before
   * merging); "crash-before-commit" kills the process inside its first merge transaction.
   */
  fault?: string;
}

export interface MergeDeps {
  defaultProject(tenantId: string): Promise<string>;
  prices(tenantId: string): Promise<ModelPrice[]>;
  /** Resolve an entry's projects again (a project was deleted behind the cache). */
  resolveProjects(entry: PreparedEntry): Promise<void>;
  forgetProjects(): void;
  /** A staged row read back (another process's, or this one's before a restart) → its prepared runs. */
  recover(row: StagedRow): Promise<PreparedEntry>;
}

interface Item {
  seq: number;
  entry: PreparedEntry;
  ops: number;
  retried: boolean;
  done: Promise<void>;
  settle(): void;
  waiter?: { resolve(o: MergeOutcome): void; reject(err: unknown): void };
}

/** Errors that say the database is unreachable or busy, not that the data is bad: retry, set nothing aside. */
export function transient(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (typeof e?.code === "string" && /^(08|53|57P|40001|40P01)/.test(e.code)) return true;
  if (typeof e?.code === "string" && /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT)$/.test(e.code)) return true;
  return /connect|terminat|timeout exceeded|Connection terminated/i.test(e?.message ?? "");
}

const opsOf = (entry: PreparedEntry) => {
  let n = entry.attachments.length;
  for (const list of entry.byId.values()) n += list.length;
  return n;
};

export class MergeWorker {
  private readonly stager: Stager;
  private deps?: MergeDeps;
  private queue: Item[] = [];
  /** Every item accepted and not settled yet (queued or in a merge). */
  private readonly pending = new Set<Item>();
  private pendingOps = 0;
  private running?: Promise<void>;
  private retryTimer?: NodeJS.Timeout;
  private recoverTimer?: NodeJS.Timeout;
  private recovering?: Promise<void>;
  private progress: (() => void)[] = [];
  private stopped = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly options: MergeWorkerOptions,
  ) {
    this.stager = new Stager(pool, options.usePrepared);
  }

  start(deps: MergeDeps): void {
    this.deps = deps;
    if (this.options.fault === "hold") return;
    this.recoverTimer = setInterval(() => void this.recover(), this.options.recoverEverySeconds * 1000);
    this.recoverTimer.unref();
    void this.recover(); // what a previous process left
  }

  /** Merge what is queued (up to a limit), then stop background work; the rest stays staged for the next process. */
  async close(): Promise<void> {
    await this.drain();
    this.stopped = true;
    clearInterval(this.recoverTimer);
    clearTimeout(this.retryTimer);
    await this.recovering;
    await this.running;
  }

  /**
   * Stage a prepared request (durable when this returns) and queue it for the merge. With `wait`,
   * resolves with the merge's outcome for its runs; otherwise as soon as it is staged.
   */
  async submit(entry: PreparedEntry, source: Omit<NewStaged, "tenantId" | "scope">, wait: boolean): Promise<MergeOutcome | undefined> {
    while (this.pendingOps > this.options.maxPendingOps && !this.stopped) await new Promise<void>((r) => this.progress.push(r));
    const seq = await this.stager.stage({ tenantId: entry.tenantId, scope: entry.scope, ...source });
    if (this.options.fault === "hold") return undefined;
    const item = this.enqueue(seq, entry);
    if (!wait) return undefined;
    return new Promise<MergeOutcome>((resolve, reject) => (item.waiter = { resolve, reject }));
  }

  /**
   * Read-your-writes: resolves once everything accepted so far by this process (for `tenantId`
   * alone, when given) is merged (bounded wait).
   */
  async drain(tenantId?: string): Promise<void> {
    const deadline = Date.now() + this.options.drainTimeoutMs;
    const waits: Promise<void>[] = [];
    for (const i of this.pending) if (tenantId === undefined || i.entry.tenantId === tenantId) waits.push(i.done);
    if (waits.length) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(waits),
        new Promise<void>((r) => {
          timer = setTimeout(r, this.options.drainTimeoutMs);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
    }
    if (tenantId !== undefined && this.options.sharedDrain) await this.drainOthers(tenantId, deadline);
  }

  /**
   * Wait for the tenant's rows other processes staged before now. Rows older than the wait bound
   * (or the takeover age) are skipped: a process that died left them, and waiting on them would
   * hold every read of the tenant until the takeover. A failing database ends the wait (the read
   * that follows reports it).
   */
  private async drainOthers(tenantId: string, deadline: number): Promise<void> {
    if (this.options.drainTimeoutMs <= 0) return; // read-your-writes turned off: no query either
    const age = Math.min(this.options.recoverAfterSeconds, Math.ceil(this.options.drainTimeoutMs / 1000));
    try {
      const newest = await newestStaged(this.pool, tenantId, age);
      if (newest === undefined) return;
      for (let pause = 1; Date.now() < deadline; pause = Math.min(2 * pause, 25)) {
        await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
        if (!(await stagedUpTo(this.pool, tenantId, newest, age))) return;
      }
    } catch (err) {
      this.logger.warn({ err, tenantId }, "waiting for other processes' staged ingest failed: reading without it");
    }
  }

  private enqueue(seq: number, entry: PreparedEntry): Item {
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    const item: Item = { seq, entry, ops: opsOf(entry), retried: false, done, settle };
    this.queue.push(item);
    this.pending.add(item);
    this.pendingOps += item.ops;
    this.kick();
    return item;
  }

  private finish(item: Item, outcome: MergeOutcome | undefined, err?: unknown): void {
    if (!this.pending.delete(item)) return;
    this.pendingOps -= item.ops;
    if (err !== undefined) item.waiter?.reject(err);
    else item.waiter?.resolve(outcome ?? { runs: new Map(), attachmentErrors: [] });
    item.settle();
  }

  private kick(): void {
    if (this.running || this.retryTimer || this.stopped || !this.queue.length || !this.deps) return;
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (this.queue.length) this.kick();
    });
  }

  private async loop(): Promise<void> {
    while (this.queue.length && !this.stopped) {
      let ops = 0;
      let n = 0;
      while (n < this.queue.length && (n === 0 || ops + this.queue[n]!.ops <= this.options.batchOps)) ops += this.queue[n++]!.ops;
      const batch = this.queue.splice(0, n);
      const again = await this.mergeItems(batch);
      for (const r of this.progress.splice(0)) r();
      if (again.length) {
        // the database is unreachable: the batch goes back in front, tried again shortly
        this.queue.unshift(...again);
        this.retryTimer = setTimeout(() => {
          this.retryTimer = undefined;
          this.kick();
        }, 1000);
        this.retryTimer.unref();
        return;
      }
    }
  }

  /** Merge items, splitting on failure; returns the items to retry later (database unreachable). */
  private async mergeItems(items: Item[]): Promise<Item[]> {
    try {
      const outcomes = await this.transaction(items);
      for (const item of items) this.finish(item, outcomes.get(item));
      return [];
    } catch (err) {
      if (transient(err)) {
        this.logger.warn({ err }, "tracing merge failed: the database is unavailable (retried shortly)");
        // a waiting request answers 503 (its client retries); its runs stay queued and staged
        for (const item of items) item.waiter?.reject(err), (item.waiter = undefined);
        return items;
      }
      if ((err as { code?: string }).code === "23503") {
        // a project deleted by another process is still in this one's cache: resolve again, once
        this.deps!.forgetProjects();
        for (const item of items) if (!item.retried) (item.retried = true), await this.deps!.resolveProjects(item.entry).catch(() => undefined);
      }
      if (items.length > 1) {
        this.logger.warn({ err }, "a tracing merge failed: merging its requests one by one");
        const again: Item[] = [];
        for (const item of items) again.push(...(await this.mergeItems([item])));
        return again;
      }
      const item = items[0]!;
      if ((err as { code?: string }).code === "23503" && item.retried && !(item as { twice?: boolean }).twice) {
        (item as { twice?: boolean }).twice = true;
        return this.mergeItems(items);
      }
      return this.setAside(item, err);
    }
  }

  private async transaction(items: Item[]): Promise<Map<Item, MergeOutcome>> {
    const deps = this.deps!;
    // groups of one tenant and scope, in staging order; what they read from other tables is read
    // before the transaction (the embedded database has one connection, which it holds)
    const groups = new Map<string, Item[]>();
    for (const item of items) {
      const key = `${item.entry.tenantId}|${item.entry.pinned ?? ""}`;
      groups.set(key, [...(groups.get(key) ?? []), item]);
    }
    const context = new Map<string, { defaultProject: string; prices: ModelPrice[] }>();
    for (const list of groups.values()) {
      const t = list[0]!.entry.tenantId;
      if (!context.has(t)) context.set(t, { defaultProject: await deps.defaultProject(t), prices: await deps.prices(t) });
    }
    const outcomes = new Map<Item, MergeOutcome>();
    const failures: IngestFailure[] = [];
    await withTransaction(this.pool, async (client) => {
      outcomes.clear();
      failures.length = 0;
      const claimed = await claimStaged(client, items.map((i) => i.seq), this.options.usePrepared);
      for (const list of groups.values()) {
        const live = list.filter((i) => claimed.has(i.seq)); // the others were merged by another process
        if (!live.length) continue;
        const tenantId = live[0]!.entry.tenantId;
        const merged = await mergeGroup(
          client,
          live.map((i) => i.entry),
          { ...context.get(tenantId)!, logger: this.logger, usePrepared: this.options.usePrepared, copy: this.options.copy },
        );
        for (const item of live) {
          const runs = new Map<string, RunOutcome>();
          for (const id of item.entry.byId.keys()) {
            const o = merged.runs.get(id);
            if (o) runs.set(id, o);
            if (o && !o.stored) {
              failures.push({ tenantId, runId: id, seq: item.seq, error: clean(o.error ?? "not stored"), op: clean(JSON.stringify(item.entry.byId.get(id))) });
            }
          }
          const files = new Set(item.entry.attachments.map((a) => a.runId));
          outcomes.set(item, { runs, attachmentErrors: merged.attachmentErrors.filter((e) => files.has(e.run_id)) });
        }
      }
      await recordFailures(client, failures);
      if (this.options.fault === "crash-before-commit") process.kill(process.pid, "SIGKILL");
    });
    for (const f of failures) this.logger.warn({ tenantId: f.tenantId, runId: f.runId, seq: f.seq }, `ingest: run not merged (kept in tracing_ingest_failures): ${f.error}`);
    return outcomes;
  }

  /** A request that fails alone: its staged row goes to tracing_ingest_failures with the reason. */
  private async setAside(item: Item, cause: unknown): Promise<Item[]> {
    const error = clean(`the merge failed: ${(cause as Error)?.message ?? String(cause)}`);
    const { tenantId } = item.entry;
    const failures: IngestFailure[] = [...item.entry.byId].map(([id, list]) => ({ tenantId, runId: id, seq: item.seq, error, op: clean(JSON.stringify(list)) }));
    if (!failures.length) failures.push({ tenantId, seq: item.seq, error });
    try {
      await withTransaction(this.pool, async (client) => {
        const claimed = await claimStaged(client, [item.seq]);
        if (claimed.size) await recordFailures(client, failures);
      });
    } catch (err) {
      if (transient(err)) return [item];
      this.logger.error({ err, seq: item.seq }, "a staged ingest request could not be set aside: left staged");
    }
    this.logger.warn({ tenantId, seq: item.seq, err: cause, runIds: [...item.entry.byId.keys()] }, `ingest: request not merged (kept in tracing_ingest_failures): ${error}`);
    const runs = new Map<string, RunOutcome>([...item.entry.byId.keys()].map((id) => [id, { stored: false, error, warnings: [] }]));
    this.finish(item, { runs, attachmentErrors: [] });
    return [];
  }

  /** Staged rows no live process is merging (their process died): read back and queued. */
  private recover(): Promise<void> {
    if (this.recovering || this.stopped || !this.deps) return this.recovering ?? Promise.resolve();
    this.recovering = (async () => {
      try {
        for (;;) {
          const held = [...this.pending].map((i) => i.seq);
          const rows = await staleStaged(this.pool, this.options.recoverAfterSeconds, held, 100);
          if (!rows.length || this.stopped) return;
          for (const row of rows) {
            let entry: PreparedEntry;
            try {
              entry = await this.deps!.recover(row);
            } catch (err) {
              if (transient(err)) throw err;
              const failure = { tenantId: row.tenant_id, seq: row.seq, error: clean(`the staged request could not be read: ${(err as Error).message}`) };
              await withTransaction(this.pool, async (client) => {
                if ((await claimStaged(client, [row.seq])).size) await recordFailures(client, [failure]);
              });
              this.logger.warn({ tenantId: row.tenant_id, seq: row.seq }, `ingest: staged request not merged (kept in tracing_ingest_failures): ${failure.error}`);
              continue;
            }
            this.logger.info({ seq: row.seq, runs: entry.byId.size }, "merging a staged ingest request left by another process");
            this.enqueue(row.seq, entry);
          }
          if (rows.length < 100) return;
          await Promise.all([...this.pending].map((i) => i.done)); // keep memory bounded on a large backlog
        }
      } catch (err) {
        if (!this.stopped) this.logger.warn({ err }, "looking for unmerged staged ingest failed (tried again later)");
      }
    })().finally(() => {
      this.recovering = undefined;
    });
    return this.recovering;
  }
}

const clean = (s: string) => replaceUnstorable(s);

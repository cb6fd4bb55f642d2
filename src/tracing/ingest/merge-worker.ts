/**
 * The merge worker: moves staged ingest rows (storage/staging.ts) into tracing_runs and the
 * rollups, in the background, in large batches.
 *
 * - Level-triggered: each pass merges while staged rows exist (a nudge after each staged request,
 *   and a poll every `intervalMs` that finds rows left by other processes or by a crash).
 * - One merger at a time, across processes: a merge transaction holds a transaction-scoped
 *   advisory lock (the lease) while it claims rows in seq order (FOR UPDATE SKIP LOCKED) and
 *   deletes them. One lease keeps each run's posts and patches in the order they were staged,
 *   which the merge semantics need (two patches of one field: the later wins); a merge of a
 *   thousand rows is a handful of statements, so one merger keeps up with many ingest requests.
 * - Crash-safe: claim, merge and delete commit together; a merger that dies rolls back and the
 *   rows are claimed again by the next pass, in this process or another. Nothing accepted is
 *   lost, nothing is merged twice.
 * - A staged row that cannot be merged is set aside (tracing_staged_failures, a warn log) after
 *   its batch is retried row by row, so it never blocks the rows behind it.
 * - Read-your-writes: `drain(tenant)` (called by the query API before it reads) waits for the
 *   lease and merges everything its tenant had staged when the read began.
 */
import type pg from "pg";
import { withTransaction } from "../../shared/db/index.js";
import type { Logger } from "../../shared/logging.js";
import type { PriceStore } from "../storage/prices.js";
import type { ProjectStore } from "../storage/projects.js";
import { claimStaged, pendingWatermark, recordFailures, type StagedRow } from "../storage/staging.js";
import { mergeTenant, type RunOutcome, type TenantMerge } from "./merge-staged.js";

/** The lease's advisory lock key ("berth merge"). */
const MERGE_LEASE = "7266427168";

export interface MergeWorkerOptions {
  /** How often to look for staged rows; 0: no background merging in this process (reads still drain). */
  intervalMs: number;
  /** Staged rows per merge transaction. */
  batch?: number;
  /** Test-only fault injection: "crash-before-commit" kills the process inside a merge transaction. */
  fault?: string;
}

/** Errors that say the database is unreachable or busy, not that a row is bad: retry later, set nothing aside. */
function transient(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e?.code && /^(08|53|57P|40001|40P01)/.test(e.code)) return true;
  return /connect|terminat|timeout|ECONNRESET|EPIPE/i.test(e?.message ?? "");
}

type Collector = Map<string, RunOutcome>;

export class MergeWorker {
  private readonly batch: number;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;
  /** tenant|run id → requests waiting to hear what became of the run (the JSON routes). */
  private readonly waiters = new Map<string, Set<Collector>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly prices: PriceStore,
    private readonly projects: ProjectStore,
    private readonly logger: Logger,
    private readonly options: MergeWorkerOptions,
  ) {
    this.batch = options.batch ?? 1000;
  }

  start(): void {
    if (this.options.intervalMs <= 0) return;
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
    this.timer.unref();
    this.tick(); // rows left by a previous run of this process
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Rows were staged: merge soon (only where this process merges in the background). */
  nudge(): void {
    if (this.options.intervalMs > 0) setImmediate(() => this.tick());
  }

  /**
   * Read-your-writes: return once everything the tenant had staged when called is merged (by
   * this call, or by a merger that held the lease meanwhile).
   */
  async drain(tenantId: string): Promise<void> {
    const upTo = await pendingWatermark(this.pool, tenantId);
    if (upTo !== undefined) await this.pass(true, upTo);
  }

  /** Everything staged up to `upTo` (a request's own watermark), merged before returning. */
  async drainUpTo(upTo: number): Promise<void> {
    await this.pass(true, upTo);
  }

  /** Hear the outcomes of these runs' merges until `release()` (the JSON routes answer with them). */
  collect(tenantId: string, runIds: string[]): { outcomes: Collector; release(): void } {
    const outcomes: Collector = new Map();
    const keys = runIds.map((id) => `${tenantId}|${id}`);
    for (const k of keys) {
      let set = this.waiters.get(k);
      if (!set) this.waiters.set(k, (set = new Set()));
      set.add(outcomes);
    }
    return {
      outcomes,
      release: () => {
        for (const k of keys) {
          const set = this.waiters.get(k);
          set?.delete(outcomes);
          if (set && !set.size) this.waiters.delete(k);
        }
      },
    };
  }

  private tick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true; // level-triggered: look again when the current pass ends
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          if ((await pendingWatermark(this.pool)) !== undefined) await this.pass(false);
        } catch (err) {
          if (!this.stopped) this.logger.warn({ err }, "tracing merge failed (retried at the next interval)");
        }
      } while (this.again && !this.stopped);
    })().finally(() => {
      this.running = undefined;
    });
  }

  /**
   * Merge batches until none is left (up to `upTo`, when given). `wait`: wait for the lease (a
   * read, a JSON request); otherwise give up when another merger holds it.
   */
  private async pass(wait: boolean, upTo?: number): Promise<void> {
    let limit = this.batch;
    let singles = 0; // rows of a failed batch still to merge one by one
    for (;;) {
      let merged: number | "busy";
      try {
        merged = await this.mergeOnce(wait, singles ? 1 : limit, upTo);
      } catch (err) {
        if (transient(err)) throw err;
        if (!singles) {
          // find the row that fails: the batch again, row by row
          singles = limit;
          this.logger.warn({ err }, "a tracing merge batch failed: merging its rows one by one");
          continue;
        }
        await this.setAside(wait, upTo, err);
        singles--;
        continue;
      }
      if (merged === "busy" || merged === 0) return;
      if (singles) singles--;
      if (this.stopped && !wait) return;
    }
  }

  private async lease(client: pg.PoolClient, wait: boolean): Promise<boolean> {
    if (wait) {
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [MERGE_LEASE]);
      return true;
    }
    const { rows } = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_xact_lock($1::bigint) AS ok", [MERGE_LEASE]);
    return rows[0]!.ok;
  }

  private async mergeOnce(wait: boolean, limit: number, upTo?: number): Promise<number | "busy"> {
    let done: { rows: StagedRow[]; merges: Map<string, TenantMerge> } | undefined;
    const n = await withTransaction(this.pool, async (client) => {
      if (!(await this.lease(client, wait))) return "busy" as const;
      const rows = await claimStaged(client, limit, upTo);
      if (!rows.length) return 0;
      const byTenant = new Map<string, StagedRow[]>();
      for (const r of rows) byTenant.set(r.tenant_id, [...(byTenant.get(r.tenant_id) ?? []), r]);
      const merges = new Map<string, TenantMerge>();
      for (const [tenantId, list] of byTenant) merges.set(tenantId, await mergeTenant(client, tenantId, list, this.prices, this.logger));
      await recordFailures(client, [...merges.values()].flatMap((m) => m.failures));
      if (this.options.fault === "crash-before-commit") process.kill(process.pid, "SIGKILL");
      done = { rows, merges };
      return rows.length;
    });
    if (done) this.report(done.merges);
    return n;
  }

  /** The first staged row (up to `upTo`) fails alone: keep it aside, with the reason. */
  private async setAside(wait: boolean, upTo: number | undefined, cause: unknown): Promise<void> {
    const error = `the merge failed: ${(cause as Error)?.message ?? String(cause)}`;
    const rows = await withTransaction(this.pool, async (client) => {
      if (!(await this.lease(client, wait))) return [];
      const claimed = await claimStaged(client, 1, upTo);
      await recordFailures(client, claimed.map((row) => ({ row, error })));
      return claimed;
    });
    const merges = new Map<string, TenantMerge>();
    for (const row of rows) merges.set(row.tenant_id, { outcomes: new Map([[row.run_id, { stored: false, errors: [error], warnings: [] }]]), failures: [{ row, error }] });
    this.report(merges);
  }

  /** After a commit: log what was not stored, tell waiting requests. */
  private report(merges: Map<string, TenantMerge>): void {
    for (const [tenantId, m] of merges) {
      let projectGone = Boolean(m.recreated);
      for (const f of m.failures) {
        projectGone ||= /project was deleted/.test(f.error);
        this.logger.warn({ tenantId, runId: f.row.run_id, seq: f.row.seq, kind: f.row.kind }, `ingest: staged ${f.row.kind} not merged (kept in tracing_staged_failures): ${f.error}`);
      }
      if (projectGone) this.projects.forgetAll(); // the next request resolves the project again
      for (const [runId, outcome] of m.outcomes) {
        for (const c of this.waiters.get(`${tenantId}|${runId}`) ?? []) {
          const had = c.get(runId);
          c.set(runId, had ? { stored: outcome.stored, errors: [...had.errors, ...outcome.errors], warnings: [...had.warnings, ...outcome.warnings] } : outcome);
        }
      }
    }
  }
}

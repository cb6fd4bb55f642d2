/**
 * Deletes what outlived its TTL: store items and threads (with their runs, events and
 * checkpoints). Both are invisible from the moment they expire (queries filter them); the sweep
 * only reclaims the space. It runs on processes that run the queue worker, every
 * `sweep_interval_minutes`; several processes may sweep at once without deleting anything twice
 * or waiting on each other (rows are taken with FOR UPDATE SKIP LOCKED, in batches).
 */
import type pg from "pg";
import type { TtlSettings } from "./config/ttl-config.js";
import type { Logger } from "../shared/logging.js";
import type { ThreadStore } from "./storage/threads.js";

const BATCH = 500;
/** setInterval's longest delay; a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface SweepResult {
  storeItems: number;
  threads: number;
}

export class TtlSweeper {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Map<string, Promise<number>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly threads: ThreadStore,
    private readonly ttl: TtlSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.every(this.ttl.store.sweepIntervalMinutes, "store", () => this.sweepStore());
    this.every(this.ttl.threads.sweepIntervalMinutes, "threads", () => this.sweepThreads());
  }

  /**
   * Sweep both now (what the timers do; also for embedding and tests). A sweep the timers began
   * before this call may have read the rows before the latest expiries: it is waited out, and a
   * sweep begun after this call is run (or joined).
   */
  async sweep(): Promise<SweepResult> {
    return { storeItems: await this.fresh("store", () => this.sweepStore()), threads: await this.fresh("threads", () => this.sweepThreads()) };
  }

  /** Stop the timers and wait for a sweep under way (the pool closes after this). */
  async stop(): Promise<void> {
    for (const t of this.timers.splice(0)) clearInterval(t);
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private every(minutes: number, kind: string, fn: () => Promise<number>): void {
    const ms = Math.min(MAX_TIMER_MS, Math.max(100, Math.round(minutes * 60_000)));
    const timer = setInterval(() => {
      this.once(kind, fn).catch((err) => this.logger.warn({ err }, `TTL sweep of ${kind} failed; retrying at the next interval`));
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** A sweep of a kind begun after this call: the one under way, if any, ends first (its failure is its timer's to log). */
  private async fresh(kind: string, fn: () => Promise<number>): Promise<number> {
    await this.inFlight.get(kind)?.catch(() => undefined);
    return this.once(kind, fn);
  }

  /** One sweep of a kind at a time in this process: a slow sweep is joined, not doubled. */
  private once(kind: string, fn: () => Promise<number>): Promise<number> {
    const running = this.inFlight.get(kind);
    if (running) return running;
    const p = fn().finally(() => this.inFlight.delete(kind));
    this.inFlight.set(kind, p);
    return p;
  }

  private async sweepStore(): Promise<number> {
    let total = 0;
    for (;;) {
      const { rowCount } = await this.pool.query(
        `DELETE FROM store s USING (
           SELECT namespace_path, key FROM store WHERE expires_at <= now() LIMIT $1 FOR UPDATE SKIP LOCKED
         ) e WHERE s.namespace_path = e.namespace_path AND s.key = e.key`,
        [BATCH],
      );
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < BATCH) break;
    }
    if (total > 0) this.logger.info({ items: total }, "TTL sweep deleted expired store items");
    return total;
  }

  private async sweepThreads(): Promise<number> {
    let total = 0;
    for (;;) {
      const { deleted, more } = await this.threads.deleteExpired(BATCH);
      total += deleted.length;
      if (!more) break;
    }
    if (total > 0) this.logger.info({ threads: total }, "TTL sweep deleted expired threads");
    return total;
  }
}

/**
 * The controller's work queue, after client-go's: keys (namespace/name), never objects, so many
 * events for one AgentDeployment collapse into one reconcile of its latest state.
 *
 * - De-duplicating: a key waiting in the queue is not added twice.
 * - One worker per key: a key being processed is not handed out again; if it is added meanwhile
 *   it is queued once more when `done` is called (the change it signals is not lost).
 * - Rate-limited retries: `addRateLimited` delays a failing key exponentially (per key, from
 *   `baseDelayMs` doubling to `maxDelayMs`) and all retries together by a token bucket, so a broken
 *   API server is not hammered. `forget` resets a key's failures after a success.
 * - `addAfter` for requeues at a time (a rollout to check again later).
 */

export interface WorkQueueOptions {
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Overall retry rate: tokens per second and burst. */
  qps?: number;
  burst?: number;
  now?: () => number;
}

export interface WorkQueueStats {
  adds: number;
  retries: number;
  depth: number;
  processing: number;
}

export class WorkQueue<K = string> {
  private readonly queue: K[] = [];
  private head = 0;
  /** Keys that need processing (queued, or re-added while processing). */
  private readonly dirty = new Set<K>();
  private readonly processing = new Set<K>();
  private readonly waiters: ((key: K | undefined) => void)[] = [];
  private readonly timers = new Map<K, { at: number; timer: NodeJS.Timeout }>();
  private readonly failures = new Map<K, number>();
  private readonly addedAt = new Map<K, number>();
  private shuttingDown = false;
  private tokens: number;
  private lastRefill: number;
  private readonly o: Required<WorkQueueOptions>;
  readonly stats = { adds: 0, retries: 0 };
  /** Called with the time a key waited in the queue (ms), for metrics. */
  onDequeue?: (waitedMs: number) => void;

  constructor(options: WorkQueueOptions = {}) {
    this.o = { baseDelayMs: 5, maxDelayMs: 300_000, qps: 10, burst: 100, now: () => performance.now(), ...options };
    this.tokens = this.o.burst;
    this.lastRefill = this.o.now();
  }

  get depth(): number {
    return this.queue.length - this.head;
  }

  snapshot(): WorkQueueStats {
    return { ...this.stats, depth: this.depth, processing: this.processing.size };
  }

  add(key: K): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.stats.adds++;
    this.dirty.add(key);
    this.addedAt.set(key, this.o.now());
    if (this.processing.has(key)) return;
    const waiter = this.waiters.shift();
    if (waiter) this.hand(key, waiter);
    else this.queue.push(key);
  }

  /** Add after a delay; an earlier pending add of the same key wins. */
  addAfter(key: K, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = this.o.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref?.();
    this.timers.set(key, { at, timer });
  }

  /** Retry a key that failed: per-key exponential backoff, all retries under one token bucket. */
  addRateLimited(key: K): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.stats.retries++;
    const perKey = Math.min(this.o.baseDelayMs * 2 ** n, this.o.maxDelayMs);
    this.addAfter(key, Math.max(perKey, this.bucketDelay()));
  }

  forget(key: K): void {
    this.failures.delete(key);
  }

  failuresOf(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  /** The next key to process; `undefined` once the queue shuts down. */
  get(): Promise<K | undefined> {
    if (this.depth > 0) {
      const key = this.queue[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve(this.take(key));
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: K): void {
    this.processing.delete(key);
    if (this.dirty.has(key) && !this.shuttingDown) {
      const waiter = this.waiters.shift();
      if (waiter) this.hand(key, waiter);
      else this.queue.push(key);
    }
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  private hand(key: K, waiter: (key: K | undefined) => void): void {
    waiter(this.take(key));
  }

  private take(key: K): K {
    this.dirty.delete(key);
    this.processing.add(key);
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.onDequeue?.(this.o.now() - added);
    return key;
  }

  /** Milliseconds until the token bucket allows one more retry (taking the token). */
  private bucketDelay(): number {
    const now = this.o.now();
    this.tokens = Math.min(this.o.burst, this.tokens + ((now - this.lastRefill) / 1000) * this.o.qps);
    this.lastRefill = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.o.qps) * 1000;
  }
}

/**
 * Fetches the deployment's key snapshot from the control plane every `everySeconds` (±20 % jitter,
 * so replicas started together do not call at once), with the deployment's own credential. A
 * failure keeps the last snapshot (the control plane may be down: the server goes on with the keys
 * it knows) and is retried at the next tick.
 */
import { parseKeySnapshot, type KeySnapshot } from "../../shared/auth/index.js";
import type { Logger } from "../../shared/logging.js";

export interface RefreshOptions {
  url: string;
  credential: string;
  everySeconds: number;
  tenantId: string;
  logger: Logger;
  /** A snapshot arrived (older or newer than the current: the receiver decides). */
  onSnapshot(s: KeySnapshot): Promise<void>;
}

const TIMEOUT_MS = 10_000;

/** The delay before the next refresh (pure): the interval, ±20 %. */
export function jittered(everySeconds: number, random = Math.random()): number {
  return Math.round(everySeconds * 1000 * (0.8 + 0.4 * random));
}

export class SnapshotRefresher {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly abort = new AbortController();
  /** When the control plane last answered with a snapshot; the error of the last failure since. */
  lastSuccessAt: Date | undefined;
  lastError: string | undefined;

  constructor(private readonly o: RefreshOptions) {}

  /** Refresh now, then on every tick. */
  start(): void {
    void this.tick();
  }

  /** One refresh; false when the control plane could not be asked or answered something unusable. */
  async refreshOnce(): Promise<boolean> {
    try {
      const res = await fetch(this.o.url, {
        headers: { "x-api-key": this.o.credential, accept: "application/json" },
        signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(TIMEOUT_MS)]),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`the control plane answered ${res.status}: ${text.slice(0, 200)}`);
      const snapshot = parseKeySnapshot(text);
      if (snapshot.tenant_id !== this.o.tenantId) throw new Error(`the control plane sent the keys of tenant ${snapshot.tenant_id}, not of ${this.o.tenantId}`);
      await this.o.onSnapshot(snapshot);
      this.lastSuccessAt = new Date();
      if (this.lastError) this.o.logger.info("platform auth: key snapshot refreshed again");
      this.lastError = undefined;
      return true;
    } catch (err) {
      if (this.closed) return false;
      const message = (err as Error).message;
      // one warning per outage, not one per tick
      if (this.lastError === undefined) this.o.logger.warn({ err: { message }, url: this.o.url }, "platform auth: could not refresh the key snapshot; keeping the last one");
      this.lastError = message;
      return false;
    }
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    await this.refreshOnce();
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick(), jittered(this.o.everySeconds));
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.abort.abort();
  }
}

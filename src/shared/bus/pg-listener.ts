/**
 * A dedicated Postgres connection that LISTENs to a set of channels and keeps doing so across
 * database restarts: when the connection dies it reconnects with exponential backoff and
 * LISTENs every channel again. Notifications sent while it was down are lost (LISTEN/NOTIFY
 * has no replay); callers treat them as hints and poll for the truth.
 */
import pg from "pg";
import type { Logger } from "../logging.js";

export interface PgListenerOptions {
  connectionString: string;
  onNotification(channel: string, payload: string | undefined): void;
  logger?: Pick<Logger, "warn" | "info">;
  /** First reconnect delay; doubles each failed attempt up to `maxBackoffMs`. */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
}

/** Pure: the delay before reconnect attempt `attempt` (0-based), with ±20% jitter so processes don't stampede. */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(base * (0.8 + 0.4 * random()));
}

export class PgListener {
  /** The connection currently LISTENing every channel; undefined while reconnecting. */
  private client?: pg.Client;
  private readonly channels = new Set<string>();
  /** Connections that died, possibly before they became current. */
  private readonly dead = new WeakSet<pg.Client>();
  private closed = false;
  private attempt = 0;
  private retryTimer?: NodeJS.Timeout;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;

  private constructor(private readonly opts: PgListenerOptions) {
    this.initialBackoffMs = opts.initialBackoffMs ?? 100;
    this.maxBackoffMs = opts.maxBackoffMs ?? 5000;
  }

  /** Connect once (failing if the database is unreachable now); from then on it reconnects by itself. */
  static async connect(opts: PgListenerOptions): Promise<PgListener> {
    const listener = new PgListener(opts);
    const client = await listener.open([]);
    if (listener.dead.has(client)) listener.scheduleReconnect();
    else listener.client = client;
    return listener;
  }

  /** True while a connection is up and LISTENing. */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /**
   * LISTEN on `channel` (an identifier the caller made safe). While reconnecting, the channel is
   * remembered and LISTENed as soon as the connection is back.
   */
  async listen(channel: string): Promise<void> {
    this.channels.add(channel);
    const client = this.client;
    if (!client) return;
    try {
      await client.query(`LISTEN ${channel}`);
    } catch (err) {
      // A connection lost meanwhile is re-established with every channel; anything else is real.
      if (this.client === client) throw err;
    }
  }

  async unlisten(channel: string): Promise<void> {
    this.channels.delete(channel);
    // Nothing to do while down: the next connection LISTENs only the channels still wanted.
    await this.client?.query(`UNLISTEN ${channel}`).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** A connected client LISTENing `channels`, its loss wired to reconnecting. */
  private async open(channels: string[]): Promise<pg.Client> {
    // keepAlive: a peer that vanished without closing the socket (a network partition) is noticed.
    const client = new pg.Client({ connectionString: this.opts.connectionString, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    const onLost = (err?: Error) => {
      if (this.dead.has(client)) return;
      this.dead.add(client);
      this.connectionLost(client, err);
    };
    // Without an 'error' listener a dying connection crashes the process.
    client.on("error", onLost);
    client.on("end", () => onLost());
    client.on("notification", (n) => this.opts.onNotification(n.channel, n.payload));
    try {
      await client.connect();
      if (channels.length > 0) await client.query(channels.map((c) => `LISTEN ${c};`).join(" "));
    } catch (err) {
      this.dead.add(client); // failed before it was ever ours: the caller decides what happens next
      await client.end().catch(() => undefined);
      throw err;
    }
    return client;
  }

  private connectionLost(client: pg.Client, err?: Error): void {
    if (this.client !== client) return; // not (or no longer) the current connection
    this.client = undefined;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.opts.logger?.warn({ err: err ? { message: err.message } : undefined }, "lost the database LISTEN connection; reconnecting");
    this.attempt = 0;
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const delay = backoffDelay(this.attempt++, this.initialBackoffMs, this.maxBackoffMs);
    this.retryTimer = setTimeout(() => void this.reconnect(), delay);
    this.retryTimer.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closed) return;
    const batch = [...this.channels];
    let client: pg.Client;
    try {
      client = await this.open(batch);
    } catch {
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    if (this.dead.has(client)) {
      this.scheduleReconnect(); // died between connecting and now
      return;
    }
    this.client = client;
    this.opts.logger?.info({ channels: this.channels.size, attempts: this.attempt }, "database LISTEN connection re-established");
    // Channels added while the batch was being LISTENed.
    try {
      for (const c of this.channels) {
        if (!batch.includes(c)) await this.listen(c);
      }
    } catch (err) {
      this.opts.logger?.warn({ err: { message: (err as Error).message } }, "LISTEN after reconnecting failed");
    }
  }
}

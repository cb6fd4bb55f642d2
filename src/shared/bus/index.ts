/**
 * The signal bus: low-latency, fire-and-forget messages between the processes of one deployment
 * (worker wake-ups, run events, run completion, cancellation). It is never the source of truth:
 * everything a message announces is already in Postgres, so a lost message costs latency, not data.
 *
 * Three carriers: Redis pub/sub (`REDIS_URI`), Postgres LISTEN/NOTIFY (a real Postgres without
 * Redis), and an in-process emitter (the embedded single-process default).
 */
import { EventEmitter } from "node:events";
import { Redis } from "ioredis";
import pg from "pg";
import type { Logger } from "../logging.js";
import { PgListener } from "./pg-listener.js";

export type BusHandler = (message: string) => void;

export interface PublishOptions {
  localOnly?: boolean;
}

export interface SubscribeOptions {
  /**
   * Whether to wait until the carrier confirms the subscription (default true). A subscriber that
   * expects its messages from this process (a reader of a run executing here) need not: messages
   * published here reach it at once, and the carrier's arrive once the subscription is active.
   */
  awaitCarrier?: boolean;
}

export interface Bus {
  readonly kind: "memory" | "redis" | "postgres";
  /** Largest message the carrier takes; callers send a pointer instead of a payload above it. */
  readonly maxMessageBytes: number;
  /** `localOnly`: for this process's subscribers only (where the carrier is another process's). */
  publish(channel: string, message: string, options?: PublishOptions): Promise<void>;
  /** Resolves once the subscription is active (see SubscribeOptions); returns the unsubscribe function. */
  subscribe(channel: string, handler: BusHandler, options?: SubscribeOptions): Promise<() => Promise<void>>;
  /**
   * Whether a handler in this process listens on `channel`: a `localOnly` message nobody here
   * listens to need not be built (a run's `values` events carry its whole state).
   */
  hasLocalSubscribers(channel: string): boolean;
  close(): Promise<void>;
}

export class MemoryBus implements Bus {
  readonly kind = "memory" as const;
  readonly maxMessageBytes = Number.POSITIVE_INFINITY;
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  async publish(channel: string, message: string): Promise<void> {
    // Deliver on a later tick so publishers never run subscriber code synchronously.
    queueMicrotask(() => this.emitter.emit(channel, message));
  }

  hasLocalSubscribers(channel: string): boolean {
    return this.emitter.listenerCount(channel) > 0;
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    this.emitter.on(channel, handler);
    return async () => {
      this.emitter.off(channel, handler);
    };
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/**
 * Shared bookkeeping for carriers with one subscriber connection: a channel is subscribed on the
 * carrier while it has at least one local handler.
 */
abstract class MultiplexedBus implements Bus {
  abstract readonly kind: "redis" | "postgres";
  abstract readonly maxMessageBytes: number;
  private readonly handlers = new Map<string, Set<BusHandler>>();
  protected abstract carrierSubscribe(channel: string): Promise<void>;
  protected abstract carrierUnsubscribe(channel: string): Promise<void>;
  abstract publish(channel: string, message: string): Promise<void>;
  abstract close(): Promise<void>;

  protected deliver(channel: string, message: string): void {
    const set = this.handlers.get(channel);
    if (!set) return;
    for (const h of [...set]) {
      try {
        h(message);
      } catch {
        // a failing handler must not starve the others
      }
    }
  }

  /** (Always: a carrier alone cannot keep a message local, so anyone subscribed anywhere may hear it.) */
  hasLocalSubscribers(_channel: string): boolean {
    return true;
  }

  async subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>> {
    let set = this.handlers.get(channel);
    if (!set) {
      set = new Set();
      this.handlers.set(channel, set);
      set.add(handler);
      await this.carrierSubscribe(channel);
    } else {
      set.add(handler);
    }
    return async () => {
      const s = this.handlers.get(channel);
      if (!s) return;
      s.delete(handler);
      if (s.size === 0) {
        this.handlers.delete(channel);
        await this.carrierUnsubscribe(channel).catch(() => undefined);
      }
    };
  }
}

export class RedisBus extends MultiplexedBus {
  readonly kind = "redis" as const;
  readonly maxMessageBytes = 512 * 1024;
  private readonly pub: Redis;
  private readonly sub: Redis;

  private constructor(pub: Redis, sub: Redis) {
    super();
    this.pub = pub;
    this.sub = sub;
    this.sub.on("message", (channel: string, message: string) => this.deliver(channel, message));
  }

  static async connect(uri: string): Promise<RedisBus> {
    // ioredis reconnects forever with backoff and, with autoResubscribe, subscribes the
    // subscriber connection to every channel again (spelled out: the bus depends on it).
    const opts = { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true, autoResubscribe: true };
    // Publishes issued in one event-loop turn (many runs' events and ends under load) leave in
    // one socket write: each write was a syscall waking Redis (~6% of a busy server's CPU).
    const pub = new Redis(uri, { ...opts, enableAutoPipelining: true });
    const sub = new Redis(uri, opts);
    // ioredis logs unhandled 'error' events loudly; reconnection is automatic.
    pub.on("error", () => undefined);
    sub.on("error", () => undefined);
    try {
      await Promise.all([pub.connect(), sub.connect()]);
    } catch (err) {
      pub.disconnect();
      sub.disconnect();
      throw new Error(`cannot connect to Redis at ${uri.replace(/:[^:@/]*@/, ":***@")}: ${(err as Error).message}`);
    }
    return new RedisBus(pub, sub);
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.pub.publish(channel, message);
  }

  protected async carrierSubscribe(channel: string): Promise<void> {
    await this.sub.subscribe(channel);
  }

  protected async carrierUnsubscribe(channel: string): Promise<void> {
    await this.sub.unsubscribe(channel);
  }

  async close(): Promise<void> {
    this.pub.disconnect();
    this.sub.disconnect();
  }
}

/**
 * LISTEN/NOTIFY on a dedicated connection, re-established (with every channel) when the database
 * restarts. Channel names are hashed into identifiers Postgres accepts (≤ 63 bytes); the real
 * name travels in the payload so collisions cannot misdeliver.
 */
export class PostgresBus extends MultiplexedBus {
  readonly kind = "postgres" as const;
  readonly maxMessageBytes = 7000;
  private listener!: PgListener;
  /** Channels per LISTEN identifier (two names may hash alike). */
  private readonly channelsOf = new Map<string, Set<string>>();

  private constructor(private readonly pool: pg.Pool) {
    super();
  }

  static async connect(pool: pg.Pool, connectionString: string, logger?: Pick<Logger, "warn" | "info">): Promise<PostgresBus> {
    const bus = new PostgresBus(pool);
    bus.listener = await PgListener.connect({
      connectionString,
      logger,
      onNotification: (_channel, payload) => {
        if (!payload) return;
        const sep = payload.indexOf("\n");
        if (sep < 0) return;
        bus.deliver(payload.slice(0, sep), payload.slice(sep + 1));
      },
    });
    return bus;
  }

  private static ident(channel: string): string {
    let h = 2166136261;
    for (let i = 0; i < channel.length; i++) h = Math.imul(h ^ channel.charCodeAt(i), 16777619);
    return `berth_${(h >>> 0).toString(16)}`;
  }

  async publish(channel: string, message: string): Promise<void> {
    await this.pool.query("SELECT pg_notify($1, $2)", [PostgresBus.ident(channel), `${channel}\n${message}`]);
  }

  /** While the connection is being re-established this resolves at once; the LISTEN follows on reconnect. */
  protected async carrierSubscribe(channel: string): Promise<void> {
    const ident = PostgresBus.ident(channel);
    const sharing = this.channelsOf.get(ident) ?? new Set<string>();
    sharing.add(channel);
    this.channelsOf.set(ident, sharing);
    await this.listener.listen(ident);
  }

  protected async carrierUnsubscribe(channel: string): Promise<void> {
    const ident = PostgresBus.ident(channel);
    const sharing = this.channelsOf.get(ident);
    sharing?.delete(channel);
    if (sharing && sharing.size > 0) return; // another channel hashed to the same identifier still listens
    this.channelsOf.delete(ident);
    await this.listener.unlisten(ident);
  }

  async close(): Promise<void> {
    await this.listener.close();
  }
}

/**
 * Delivers to subscribers in this process at once and through the carrier to everyone else.
 * In `berth serve` the API and the worker share a process, so a run's wake-up, events and
 * completion reach their local readers without a round trip to Redis or Postgres. Messages
 * coming back from the carrier that this process sent are dropped.
 */
export class LocalFirstBus implements Bus {
  private readonly origin = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  private readonly local = new MemoryBus();

  constructor(private readonly carrier: Bus) {}

  get kind(): Bus["kind"] {
    return this.carrier.kind;
  }

  get maxMessageBytes(): number {
    return this.carrier.maxMessageBytes - this.origin.length - 1;
  }

  async publish(channel: string, message: string, options: PublishOptions = {}): Promise<void> {
    await this.local.publish(channel, message);
    if (options.localOnly) return;
    // Not awaited: local readers already have it, and the bus is never the source of truth (a
    // lost message costs a reader its next poll). The carrier keeps publishes in order.
    this.carrier.publish(channel, `${this.origin}|${message}`).catch(() => undefined);
  }

  hasLocalSubscribers(channel: string): boolean {
    return this.local.hasLocalSubscribers(channel);
  }

  async subscribe(channel: string, handler: BusHandler, options: SubscribeOptions = {}): Promise<() => Promise<void>> {
    const offLocal = await this.local.subscribe(channel, handler);
    const carrier = this.carrier.subscribe(channel, (raw) => {
      const sep = raw.indexOf("|");
      if (sep < 0 || raw.slice(0, sep) === this.origin) return;
      handler(raw.slice(sep + 1));
    });
    if (options.awaitCarrier === false) {
      // (a failed carrier subscription costs this subscriber the other processes' messages only)
      carrier.catch(() => undefined);
    } else await carrier;
    return async () => {
      await offLocal();
      const offCarrier = await carrier.catch(() => undefined);
      await offCarrier?.();
    };
  }

  async close(): Promise<void> {
    await this.local.close();
    await this.carrier.close();
  }
}

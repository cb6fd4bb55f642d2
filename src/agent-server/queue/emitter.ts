/**
 * Writes a run's stream events: live readers first, the durable log behind.
 *
 * `emit` numbers the event and queues it twice:
 * - for the bus: the first event after a quiet spell goes out at once, the events of a burst
 *   together as ONE `events` message per send window (Redis/Postgres see a publish per batch,
 *   not one per token), with each event's payload when it fits — so a live reader gets a token
 *   without waiting for any database write. The window starts at SEND_EVERY_MS and doubles with
 *   each send while the burst goes on, up to MAX_SEND_EVERY_MS: every send costs a socket write per
 *   reader and a publish (each waking another process), which under 20 concurrent bursts cost as
 *   much CPU as the tokens themselves, while a model streaming over the network (a gap between
 *   tokens) still has each token sent the moment it arrives;
 * - for storage: one writer at a time stores everything queued so far as one block row
 *   (storage/events.ts), lingering first so a slow trickle of tokens still makes few rows; after
 *   each write a `stored` message says how far the log now reaches. A reader that needs an event
 *   it did not get live (it joined late, or the payload was too large for the bus) waits for that
 *   message, then reads the log.
 *
 * How long a block lingers: `lingerMs` (50 ms) times the number of runs in this process with
 * events waiting to be stored, up to MAX_LINGER_MS, so the process as a whole stores about one
 * block per `lingerMs` however many runs it executes. Each block is a row, a statement and a
 * commit: with a fixed 20 ms, ten runs at once of ~300 ms each stored a block 20 ms in and
 * another with their end; now mostly only the one with their end. Nobody waits on those blocks
 * meanwhile: readers in this process take unstored events from memory (runs/unstored.ts), and a
 * reader in another process asks for the run's events (`remoteReader`), which stores what is
 * queued at once and, from then on, lingers `lingerMs` only. What the longer linger risks is the events of the last MAX_LINGER_MS of an
 * attempt whose process dies (the retried attempt numbers its events past them: see
 * storage/events.ts); the memory it holds is bounded by MAX_BLOCK_BYTES.
 *
 * `flush` sends and stores everything emitted so far (the worker flushes before it marks the run
 * ended, so `done` always follows every event and the log is complete when it does).
 */
import type { Bus } from "../../shared/bus/index.js";
import type { Channels, DoneMessage, StoredMessage } from "../runs/channels.js";
import { registerUnstored, takeRemoteReader } from "../runs/unstored.js";
import { toWireJson } from "../serde.js";
import type { EventBlock, EventStore, RunEventWriter, StoredEvent } from "../storage/events.js";

/** A retried run numbers its events from this far past the last stored one (see storage/events.ts). */
export const RETRY_SEQ_GAP = 10_000_000;
/** Events of a burst go out on the bus this long after the previous message (ms) at first... */
const SEND_EVERY_MS = 2;
/** ...then ever less often while it lasts, but never later than this (ms)... */
const MAX_SEND_EVERY_MS = 16;
/** ...or once this much is waiting. */
const SEND_BYTES = 64 * 1024;
/** A block is written early once this much is queued. */
const MAX_BLOCK_BYTES = 256 * 1024;
/** The longest a queued event waits to be stored (ms), however many runs store at once (unless `lingerMs` is longer). */
const MAX_LINGER_MS = 1000;
/** The runs in this process with events queued for storage (lingering or being written). */
const storing = new Set<RunEmitter>();

export interface RunEmitterOptions {
  /** An earlier attempt of the run executed: it may have announced events it never stored. */
  retried?: boolean;
  /**
   * How long queued events wait for more before they are stored (ms), per run storing events in
   * this process (see the header).
   */
  lingerMs?: number;
}

export class RunEmitter {
  private seq: number;
  /** The seq after the last stored one when this attempt began. */
  private readonly firstSeq: number;
  private readonly startSeq: number;
  private readonly writer: RunEventWriter;
  private readonly lingerMs: number;
  /** Emitted, not yet sent on the bus. */
  private outbox: StoredEvent[] = [];
  private outboxBytes = 0;
  private lastSentAt = 0;
  /** When the last event was emitted: a longer gap than SEND_EVERY_MS ends a burst. */
  private lastEmitAt = 0;
  /** The current burst's send window (ms). */
  private sendEvery = SEND_EVERY_MS;
  private sending?: NodeJS.Immediate;
  /** Bus publishes, chained so they leave in order. */
  private published: Promise<void> = Promise.resolve();
  /** Emitted, not yet stored. */
  private queue: StoredEvent[] = [];
  private queuedBytes = 0;
  private linger?: NodeJS.Timeout;
  private writing?: Promise<void>;
  /** The batch being stored. */
  private inFlight: StoredEvent[] = [];
  private readonly unregister: () => void;
  private failure: unknown;
  /** A reader in another process asked for this run's events: they go out on the carrier too. */
  private remote: boolean;

  constructor(
    private readonly runId: string,
    events: EventStore,
    private readonly bus: Bus,
    private readonly channels: Channels,
    firstSeq: number,
    options: RunEmitterOptions = {},
  ) {
    this.firstSeq = firstSeq;
    this.seq = this.startSeq = options.retried ? firstSeq + RETRY_SEQ_GAP : firstSeq;
    this.writer = events.writer(runId, firstSeq);
    this.lingerMs = options.lingerMs ?? 50;
    this.remote = takeRemoteReader(runId);
    this.unregister = registerUnstored(runId, {
      unstored: () => (this.inFlight.length ? [...this.inFlight, ...this.queue] : this.queue),
      unstoredFrom: () => this.writer.unstoredFrom,
      nextSeq: () => this.seq,
      remoteReader: () => this.remoteReader(),
    });
  }

  /** The last event's seq (an attempt that emitted nothing: the last stored one). */
  get lastSeq(): number {
    return this.seq === this.startSeq ? this.firstSeq - 1 : this.seq - 1;
  }

  emit = async (event: string, data: unknown): Promise<void> => {
    // Serialise now: the graph may mutate the object after this call returns.
    const e: StoredEvent = { seq: this.seq++, event, data: toWireJson(data) };
    this.outbox.push(e);
    this.outboxBytes += e.data.length;
    // The first event after a quiet spell goes out at once; a burst is batched per send window.
    // Checked here, not only on a timer: a graph whose events come from promise chains alone (no
    // I/O between tokens) would hold every timer and setImmediate back until the burst ends.
    const now = performance.now();
    if (now - this.lastEmitAt >= SEND_EVERY_MS) this.sendEvery = SEND_EVERY_MS;
    this.lastEmitAt = now;
    if (now - this.lastSentAt >= this.sendEvery || this.outboxBytes >= SEND_BYTES) {
      if (now - this.lastSentAt < 2 * this.sendEvery) this.sendEvery = Math.min(MAX_SEND_EVERY_MS, 2 * this.sendEvery);
      this.send();
    } else this.sending ??= setImmediate(() => this.send());
    this.queue.push(e);
    this.queuedBytes += e.data.length;
    this.schedulePersist();
  };

  /** Events and `stored` messages for this process's readers, and other processes' once they asked; `always`: everyone. */
  private publish(message: string, always = false): void {
    const channel = this.channels.run(this.runId);
    const localOnly = !always && !this.remote;
    this.published = this.published.then(() => this.bus.publish(channel, message, { localOnly }).catch(() => undefined));
  }

  /**
   * From now on everything goes out on the carrier too. What the reader missed is in the log or on
   * its way there: say how far the log reaches now; later blocks announce themselves.
   */
  private remoteReader(): void {
    if (this.remote) return;
    this.remote = true;
    const through = this.writer.unstoredFrom - 1;
    if (through >= 0) this.publish(JSON.stringify({ type: "stored", through } satisfies StoredMessage));
    // What it missed and is still queued is stored now, not after a linger grown for throughput.
    this.startWrite();
  }

  /** One `events` message per turn (split only where the carrier's message size demands it). */
  private send(): void {
    if (this.sending) clearImmediate(this.sending);
    this.sending = undefined;
    const events = this.outbox;
    this.outbox = [];
    this.outboxBytes = 0;
    if (events.length === 0) return;
    this.lastSentAt = performance.now();
    // Nobody to send to: no reader in this process, and none elsewhere has asked. A reader that
    // subscribes later takes these events from memory or the log (runs/stream.ts), so building the
    // message (each event's text escaped once more: a `values` event is the whole state) is skipped.
    if (!this.remote && !this.bus.hasLocalSubscribers(this.channels.run(this.runId))) return;
    // Items are serialised once and joined as text, so sizes are exact (in bytes, as carriers count).
    const limit = this.bus.maxMessageBytes - 64;
    const head = '{"type":"events","events":[';
    let part: string[] = [];
    let size = 0;
    const flushPart = () => {
      if (part.length) this.publish(`${head}${part.join(",")}]}`);
      part = [];
      size = 0;
    };
    for (const e of events) {
      let item = JSON.stringify({ seq: e.seq, event: e.event, data: e.data });
      let bytes = Buffer.byteLength(item);
      if (bytes > limit) {
        // Payloads too large for the carrier are left out: readers fetch them from the log.
        item = JSON.stringify({ seq: e.seq, event: e.event });
        bytes = Buffer.byteLength(item);
      }
      if (size + bytes + 1 > limit) flushPart();
      part.push(item);
      size += bytes + 1;
    }
    flushPart();
  }

  private schedulePersist(): void {
    if (this.failure || this.queue.length === 0) {
      if (!this.writing) storing.delete(this);
      return;
    }
    storing.add(this);
    if (this.writing) return;
    if (this.queuedBytes >= MAX_BLOCK_BYTES) return this.startWrite();
    // (a reader elsewhere may be waiting for the log: see the header)
    const ms = this.remote ? this.lingerMs : Math.min(Math.max(MAX_LINGER_MS, this.lingerMs), this.lingerMs * storing.size);
    this.linger ??= setTimeout(() => this.startWrite(), ms);
  }

  private startWrite(): void {
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    if (this.writing || this.failure || this.queue.length === 0) return;
    // `finally` runs on a later tick, after `writing` is assigned: a write that ends at once must
    // not leave a settled promise behind for flush() to await forever.
    this.writing = this.write().finally(() => {
      this.writing = undefined;
      this.schedulePersist();
    });
  }

  private async write(): Promise<void> {
    while (this.queue.length && !this.failure) {
      const batch = this.queue;
      this.queue = [];
      this.queuedBytes = 0;
      this.inFlight = batch;
      try {
        await this.writer.write(batch);
      } catch (err) {
        // Nothing more is stored (flush reports the failure); live readers still get events.
        this.failure = err;
        break;
      } finally {
        this.inFlight = [];
      }
      this.publish(JSON.stringify({ type: "stored", through: batch[batch.length - 1]!.seq } satisfies StoredMessage));
    }
  }

  /**
   * Send every event emitted so far and let the writes under way end, reporting a failed one;
   * what is still queued stays queued (see `takeFinal`).
   */
  async settle(): Promise<void> {
    this.send();
    await this.writing;
    await this.published;
    if (this.failure) throw this.failure;
  }

  /**
   * The run has emitted its last event: send everything, wait for the writes under way, and hand
   * back what is still queued as one block for the caller to store in the statement that ends the
   * run (one round trip less; no `stored` message: the `done` that follows says the log is
   * complete). Until `finalWritten`, readers in this process still find those events here.
   * Undefined when nothing is left to store (or storing has failed).
   */
  async takeFinal(): Promise<EventBlock | undefined> {
    await this.settle().catch(() => undefined);
    if (this.linger) clearTimeout(this.linger);
    this.linger = undefined;
    storing.delete(this);
    if (this.failure || this.queue.length === 0) return undefined;
    const block = this.writer.encode(this.queue);
    this.inFlight = this.queue;
    this.queue = [];
    this.queuedBytes = 0;
    if (!block) this.inFlight = [];
    return block;
  }

  /** The block `takeFinal` handed out was stored (or, `stored` false, dropped with the run's end). */
  finalWritten(block: EventBlock | undefined, stored: boolean): void {
    if (block && stored) this.writer.written(block);
    this.inFlight = [];
  }

  /** Send and store every event emitted so far. */
  async flush(): Promise<void> {
    this.send();
    while (!this.failure && (this.writing || this.queue.length)) {
      this.startWrite();
      await this.writing;
    }
    await this.published;
    if (this.failure) throw this.failure;
  }

  /** Announce the end (after every event); `local` gets the message first, whole, for readers in this process. */
  async done(msg: Omit<DoneMessage, "type" | "last_seq">, local?: (message: DoneMessage) => void): Promise<void> {
    await this.flush().catch(() => undefined);
    const full: DoneMessage = { type: "done", last_seq: this.lastSeq, ...msg };
    local?.({ ...full });
    let text = JSON.stringify(full);
    if (text.length > this.bus.maxMessageBytes) {
      delete full.output;
      text = JSON.stringify(full);
    }
    this.publish(text, true);
    this.unregister();
    await this.published;
  }
}

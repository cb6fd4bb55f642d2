/**
 * The durable per-run event log behind resumable streams.
 *
 * Events are stored in blocks: one row per write (the emitter writes everything queued since its
 * last write at once), keyed by the block's LAST seq, with `first_seq` its first. Inside a block
 * each event is a delta against the previous event of the same name (common prefix and suffix
 * lengths plus the middle text): a token event differs from the one before only in its content, so
 * the message metadata every token repeats (~600 B) is stored once per block, not once per token.
 * Rows written before blocks existed (`first_seq` NULL) hold one plain event each.
 *
 * A block covers the seqs [first_seq, seq] even where it holds no event for some of them: token
 * events dropped by the run's storage budget, or seqs an earlier attempt of the run announced
 * live but never stored (a retried run starts its seqs past them). Readers treat a covered seq
 * without an event as "never stored".
 *
 * Budget: once a run has stored `budgetBytes` of blocks, further token events (`messages`,
 * `messages/*`) are not stored; the first one dropped is replaced in storage by a
 * `berth/events_truncated` event (same seq) saying so. Live readers still receive every token;
 * a reader that resumes past that point gets the marker instead of the dropped tokens, then every
 * later non-token event (values, updates, custom, the end) as usual.
 */
import type pg from "pg";
import { prepared } from "../../shared/db/index.js";

export interface StoredEvent {
  seq: number;
  event: string;
  data: string;
}

/** What a read found: the events, and the highest seq the stored blocks cover (-1: none). */
export interface EventRead {
  events: StoredEvent[];
  through: number;
}

export const TRUNCATED_EVENT = "berth/events_truncated";

/** Token events: the ones a run emits by the thousand, and the ones the budget may drop. */
export const isTokenEvent = (event: string) => event === "messages" || event.startsWith("messages/");

/** One block entry: [seq delta, common prefix length, common suffix length, middle, event name if it changed]. */
type Entry = [number, number, number, string] | [number, number, number, string, string];

/** Builds a block's data text event by event (ascending seq), knowing its size as it goes. */
export class BlockEncoder {
  private readonly parts: string[] = [];
  private readonly lastOf = new Map<string, string>();
  private prevSeq: number;
  private prevEvent = "";
  /** Length of the text so far (close enough to its bytes for a budget). */
  size = 2;

  constructor(firstSeq: number) {
    this.prevSeq = firstSeq - 1;
  }

  /** The entry `e` would add (nothing is added). */
  entry(e: StoredEvent): string {
    const base = this.lastOf.get(e.event) ?? "";
    const max = Math.min(base.length, e.data.length);
    let p = 0;
    while (p < max && base.charCodeAt(p) === e.data.charCodeAt(p)) p++;
    let s = 0;
    while (s < max - p && base.charCodeAt(base.length - 1 - s) === e.data.charCodeAt(e.data.length - 1 - s)) s++;
    const entry: Entry = [e.seq - this.prevSeq, p, s, e.data.slice(p, e.data.length - s)];
    if (e.event !== this.prevEvent) entry.push(e.event);
    return JSON.stringify(entry);
  }

  add(e: StoredEvent, entry = this.entry(e)): void {
    this.parts.push(entry);
    this.size += entry.length + 1;
    this.lastOf.set(e.event, e.data);
    this.prevSeq = e.seq;
    this.prevEvent = e.event;
  }

  text(): string {
    return `[${this.parts.join(",")}]`;
  }
}

/** Encode events (ascending seq) as a block's data text. */
export function encodeBlock(events: StoredEvent[], firstSeq: number): string {
  const encoder = new BlockEncoder(firstSeq);
  for (const e of events) encoder.add(e);
  return encoder.text();
}

export function decodeBlock(text: string, firstSeq: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  const lastOf = new Map<string, string>();
  let seq = firstSeq - 1;
  let event = "";
  for (const [d, p, s, middle, name] of JSON.parse(text) as Entry[]) {
    seq += d;
    if (name !== undefined) event = name;
    const base = lastOf.get(event) ?? "";
    const data = base.slice(0, p) + middle + base.slice(base.length - s);
    lastOf.set(event, data);
    out.push({ seq, event, data });
  }
  return out;
}

interface Row {
  seq: number;
  first_seq: number | null;
  event: string;
  data: string;
}

export interface EventStoreOptions {
  usePrepared?: boolean;
  /** Bytes of stored blocks per run after which token events are no longer stored. */
  budgetBytes?: number;
}

/**
 * Writes one run's blocks (one writer per run attempt). `coverFrom` is the first seq its first
 * block covers: the seq after the last stored one, which may lie before the writer's first event
 * (see the header on retried runs).
 */
export class RunEventWriter {
  private stored = 0;
  private truncated = false;

  constructor(
    private readonly store: EventStore,
    private readonly runId: string,
    private coverFrom: number,
  ) {}

  /** Store events (ascending seq, after everything written before) as one block. */
  async write(batch: StoredEvent[]): Promise<void> {
    const block = this.encode(batch);
    if (!block) return;
    await this.store.insertBlock(this.runId, block.firstSeq, block.lastSeq, block.data);
    this.written(block);
  }

  /**
   * The block `write` would store for `batch`, for a caller that stores it in a statement of its
   * own (the run's end stores its last block: storage/runs.ts `finish`); then call `written`.
   */
  encode(batch: StoredEvent[]): EventBlock | undefined {
    if (batch.length === 0) return undefined;
    const encoder = new BlockEncoder(this.coverFrom);
    for (const e of batch) {
      const token = isTokenEvent(e.event);
      if (token && this.truncated) continue;
      const entry = encoder.entry(e);
      if (!token || this.stored + encoder.size + entry.length <= this.store.budgetBytes) {
        encoder.add(e, entry);
        continue;
      }
      // Over budget: this token is not stored, nor any after it; a marker takes its seq.
      this.truncated = true;
      const data = JSON.stringify({
        reason: "this run's stream event storage budget is exhausted: later token events were not stored",
        first_dropped_seq: e.seq,
        budget_bytes: this.store.budgetBytes,
      });
      encoder.add({ seq: e.seq, event: TRUNCATED_EVENT, data });
    }
    return { firstSeq: this.coverFrom, lastSeq: batch[batch.length - 1]!.seq, data: encoder.text() };
  }

  /** The first seq no stored block of this writer's covers yet. */
  get unstoredFrom(): number {
    return this.coverFrom;
  }

  /** `block` (from `encode`) is stored. */
  written(block: EventBlock): void {
    this.stored += block.data.length;
    this.coverFrom = block.lastSeq + 1;
  }
}

/** One stored row of a run's events: the seqs [firstSeq, lastSeq], encoded. */
export interface EventBlock {
  firstSeq: number;
  lastSeq: number;
  data: string;
}

export class EventStore {
  readonly budgetBytes: number;
  private readonly usePrepared: boolean;

  constructor(
    private readonly pool: pg.Pool,
    options: EventStoreOptions | boolean = {},
  ) {
    const opts = typeof options === "boolean" ? { usePrepared: options } : options;
    this.usePrepared = opts.usePrepared ?? false;
    this.budgetBytes = opts.budgetBytes ?? 16 * 1024 * 1024;
  }

  writer(runId: string, coverFrom: number): RunEventWriter {
    return new RunEventWriter(this, runId, coverFrom);
  }

  async insertBlock(runId: string, firstSeq: number, lastSeq: number, data: string): Promise<void> {
    await this.pool.query(
      prepared(
        this.usePrepared,
        "berth_events_block",
        "INSERT INTO run_events (run_id, seq, first_seq, event, data) VALUES ($1, $2, $3, '', $4) ON CONFLICT DO NOTHING",
        [runId, lastSeq, firstSeq, data],
      ),
    );
  }

  /** Events with seq in (after, upTo], in order, and how far the stored blocks cover (at most upTo). */
  async read(runId: string, after: number, upTo?: number): Promise<EventRead> {
    const { rows } = await this.pool.query<Row>(
      prepared(
        this.usePrepared,
        upTo === undefined ? "berth_events_read" : "berth_events_read_upto",
        upTo === undefined
          ? "SELECT seq, first_seq, event, data FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq"
          : "SELECT seq, first_seq, event, data FROM run_events WHERE run_id = $1 AND seq > $2 AND coalesce(first_seq, seq) <= $3 ORDER BY seq",
        upTo === undefined ? [runId, after] : [runId, after, upTo],
      ),
    );
    const events: StoredEvent[] = [];
    let through = after;
    for (const row of rows) {
      const decoded = row.first_seq === null ? [{ seq: row.seq, event: row.event, data: row.data }] : decodeBlock(row.data, row.first_seq);
      for (const e of decoded) if (e.seq > after && (upTo === undefined || e.seq <= upTo)) events.push(e);
      through = Math.max(through, upTo === undefined ? row.seq : Math.min(row.seq, upTo));
    }
    return { events, through };
  }

  /** Events with seq in (after, upTo], in order. */
  async after(runId: string, after: number, upTo?: number): Promise<StoredEvent[]> {
    return (await this.read(runId, after, upTo)).events;
  }

  async lastSeq(runId: string): Promise<number> {
    const { rows } = await this.pool.query<{ seq: number | null }>("SELECT max(seq) AS seq FROM run_events WHERE run_id = $1", [runId]);
    return rows[0]?.seq ?? -1;
  }

  /** Retention: delete the events of runs that ended more than `ttlSeconds` ago. Returns the rows deleted. */
  async sweep(ttlSeconds: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM run_events e USING runs r
       WHERE e.run_id = r.run_id AND r.ended_at < now() - make_interval(secs => $1)`,
      [ttlSeconds],
    );
    return rowCount ?? 0;
  }
}

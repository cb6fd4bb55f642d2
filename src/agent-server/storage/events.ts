/** The durable per-run event log behind resumable streams. */
import type pg from "pg";
import { prepared } from "../../shared/db/index.js";

export interface StoredEvent {
  seq: number;
  event: string;
  data: string;
}

export class EventStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly usePrepared = false,
  ) {}

  async append(runId: string, seq: number, event: string, data: string): Promise<void> {
    await this.pool.query(
      prepared(this.usePrepared, "berth_events_append", "INSERT INTO run_events (run_id, seq, event, data) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", [
        runId,
        seq,
        event,
        data,
      ]),
    );
  }

  /** Store several events of a run in one statement. */
  async appendMany(runId: string, events: StoredEvent[]): Promise<void> {
    if (events.length === 1) return this.append(runId, events[0]!.seq, events[0]!.event, events[0]!.data);
    await this.pool.query(
      prepared(
        this.usePrepared,
        "berth_events_append_many",
        `INSERT INTO run_events (run_id, seq, event, data)
         SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`,
        [runId, events.map((e) => e.seq), events.map((e) => e.event), events.map((e) => e.data)],
      ),
    );
  }

  /** Events with seq in (after, upTo], in order. */
  async after(runId: string, after: number, upTo?: number): Promise<StoredEvent[]> {
    const { rows } = await this.pool.query<StoredEvent>(
      upTo === undefined
        ? "SELECT seq, event, data FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq"
        : "SELECT seq, event, data FROM run_events WHERE run_id = $1 AND seq > $2 AND seq <= $3 ORDER BY seq",
      upTo === undefined ? [runId, after] : [runId, after, upTo],
    );
    return rows;
  }

  async lastSeq(runId: string): Promise<number> {
    const { rows } = await this.pool.query<{ seq: number | null }>("SELECT max(seq) AS seq FROM run_events WHERE run_id = $1", [runId]);
    return rows[0]?.seq ?? -1;
  }
}

/**
 * The ingest staging table (append-only, migration "staged ingest"): what a request accepted,
 * written before it is answered; claimed (deleted) by the transaction that merges it, so a crash
 * before that commit leaves it for the next merge, and a commit removes it exactly once.
 */
import type pg from "pg";
import type { Queryable } from "../../shared/db/index.js";

/** How a staged body is read back: a multipart request as sent, or prepared runs as JSON. */
export type StagedFormat = "multipart" | "ops";

export interface NewStaged {
  tenantId: string;
  /** A scoped key's project. */
  scope?: string;
  format: StagedFormat;
  contentType?: string;
  contentEncoding?: string;
  body: Buffer;
}

export interface StagedRow {
  seq: number;
  tenant_id: string;
  scope: string | null;
  format: string;
  content_type: string | null;
  content_encoding: string | null;
  body: Buffer;
}

const INSERT = `INSERT INTO tracing_staged (tenant_id, scope, format, content_type, content_encoding, body)
  SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bytea[]) RETURNING seq`;

const INSERT_ONE = `INSERT INTO tracing_staged (tenant_id, scope, format, content_type, content_encoding, body) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`;
const LARGE_BODY = 256 * 1024;

/**
 * Group commit: requests staging while an insert is in flight are written together by the next
 * one (one multi-row INSERT, one commit), so concurrent requests share a round trip and a WAL flush.
 */
export class Stager {
  private queue: { row: NewStaged; resolve(seq: number): void; reject(err: unknown): void }[] = [];
  private busy = false;

  constructor(private readonly pool: pg.Pool) {}

  stage(row: NewStaged): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.busy) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.busy = true;
    while (this.queue.length) {
      // a large body goes alone, as a binary parameter (inside an array it would travel as hex text)
      const large = this.queue.findIndex((b) => b.row.body.length > LARGE_BODY);
      if (large === 0) {
        const b = this.queue.shift()!;
        try {
          const r = b.row;
          const { rows } = await this.pool.query<{ seq: string }>(INSERT_ONE, [r.tenantId, r.scope ?? null, r.format, r.contentType ?? null, r.contentEncoding ?? null, r.body]);
          b.resolve(Number(rows[0]!.seq));
        } catch (err) {
          b.reject(err);
        }
        continue;
      }
      const batch = this.queue.splice(0, large > 0 ? Math.min(large, 500) : 500);
      try {
        const rows = batch.map((b) => b.row);
        const { rows: seqs } = await this.pool.query<{ seq: string }>(INSERT, [
          rows.map((r) => r.tenantId),
          rows.map((r) => r.scope ?? null),
          rows.map((r) => r.format),
          rows.map((r) => r.contentType ?? null),
          rows.map((r) => r.contentEncoding ?? null),
          rows.map((r) => r.body),
        ]);
        // RETURNING follows the order of the SELECT's rows (unnest's order)
        batch.forEach((b, i) => b.resolve(Number(seqs[i]!.seq)));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.busy = false;
  }
}

/** Claim staged rows for the merge in progress: those still staged (not merged by another process meanwhile). */
export async function claimStaged(db: Queryable, seqs: number[]): Promise<Set<number>> {
  if (!seqs.length) return new Set();
  const { rows } = await db.query<{ seq: string }>("DELETE FROM tracing_staged WHERE seq = ANY($1::bigint[]) RETURNING seq", [seqs]);
  return new Set(rows.map((r) => Number(r.seq)));
}

/**
 * Rows staged at least `ageSeconds` ago that this process does not hold: left by a process that
 * died (or is stuck) before merging them. Oldest first.
 */
export async function staleStaged(db: Queryable, ageSeconds: number, held: number[], limit: number): Promise<StagedRow[]> {
  const { rows } = await db.query<StagedRow & { seq: string }>(
    `SELECT * FROM tracing_staged WHERE created_at <= now() - make_interval(secs => $1) AND NOT (seq = ANY($2::bigint[])) ORDER BY seq LIMIT $3`,
    [ageSeconds, held, limit],
  );
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

export interface IngestFailure {
  tenantId: string;
  runId?: string;
  seq?: number;
  error: string;
  /** The run (or request) as it was to be stored, as JSON text. */
  op?: string;
}

/** Keep what could not be stored, with the reason (never retried). */
export async function recordFailures(db: Queryable, failures: IngestFailure[]): Promise<void> {
  if (!failures.length) return;
  await db.query(
    `INSERT INTO tracing_ingest_failures (tenant_id, run_id, seq, error, op)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::text[], $5::text[])`,
    [failures.map((f) => f.tenantId), failures.map((f) => f.runId ?? null), failures.map((f) => f.seq ?? null), failures.map((f) => f.error), failures.map((f) => f.op ?? null)],
  );
}

/**
 * The ingest staging table (append-only, migration "staged ingest"): what a request accepted,
 * written before it is answered; claimed (deleted) by the transaction that merges it, so a crash
 * before that commit leaves it for the next merge, and a commit removes it exactly once.
 */
import type pg from "pg";
import { prepared, type Queryable } from "../../shared/db/index.js";

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

const COLUMNS = "tenant_id, scope, format, content_type, content_encoding, body";
const INSERT_ONE = `INSERT INTO tracing_staged (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`;
/**
 * A multi-row insert of `n` rows with a parameter per value, so each body travels as a binary
 * parameter: inside a bytea[] (unnest) it travels as hex text, which node-postgres writes (hex,
 * then two regex escapes of the whole text) and Postgres' array_in and byteain read back, char by
 * char, for every byte of every request. Text per row count is kept (a batch has few sizes).
 */
const inserts = new Map<number, string>();
function insertOf(n: number): string {
  let sql = inserts.get(n);
  if (sql === undefined) {
    const rows = Array.from({ length: n }, (_, i) => `($${6 * i + 1}::uuid, $${6 * i + 2}, $${6 * i + 3}, $${6 * i + 4}, $${6 * i + 5}, $${6 * i + 6}::bytea)`);
    sql = `INSERT INTO tracing_staged (${COLUMNS}) VALUES ${rows.join(", ")} RETURNING seq`;
    if (inserts.size < 100) inserts.set(n, sql);
  }
  return sql;
}
/** Rows per insert at most (6 parameters each, well under the protocol's 65,535), and bytes. */
const BATCH_ROWS = 200;
const BATCH_BYTES = 8 * 1024 * 1024;

/**
 * Group commit: requests staging while an insert is in flight are written together by the next
 * one (one multi-row INSERT, one commit), so concurrent requests share a round trip and a WAL flush.
 */
export class Stager {
  private queue: { row: NewStaged; resolve(seq: number): void; reject(err: unknown): void }[] = [];
  private busy = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly usePrepared = false,
  ) {}

  stage(row: NewStaged): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject });
      if (!this.busy) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.busy = true;
    while (this.queue.length) {
      let n = 0;
      let bytes = 0;
      while (n < this.queue.length && n < BATCH_ROWS && (n === 0 || bytes + this.queue[n]!.row.body.length <= BATCH_BYTES)) bytes += this.queue[n++]!.row.body.length;
      const batch = this.queue.splice(0, n);
      try {
        const params: unknown[] = [];
        for (const { row: r } of batch) params.push(r.tenantId, r.scope ?? null, r.format, r.contentType ?? null, r.contentEncoding ?? null, r.body);
        const n = batch.length;
        const { rows: seqs } = await this.pool.query<{ seq: string }>(prepared(this.usePrepared && n <= 8, `berth_tracing_stage_${n}`, n === 1 ? INSERT_ONE : insertOf(n), params));
        // RETURNING follows the order of the VALUES rows
        batch.forEach((b, i) => b.resolve(Number(seqs[i]!.seq)));
      } catch (err) {
        for (const b of batch) b.reject(err);
      }
    }
    this.busy = false;
  }
}

/** Claim staged rows for the merge in progress: those still staged (not merged by another process meanwhile). */
export async function claimStaged(db: Queryable, seqs: number[], usePrepared = false): Promise<Set<number>> {
  if (!seqs.length) return new Set();
  const { rows } = await db.query<{ seq: string }>(prepared(usePrepared, "berth_tracing_claim_staged", "DELETE FROM tracing_staged WHERE seq = ANY($1::bigint[]) RETURNING seq", [seqs]));
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

/**
 * The newest of a tenant's staged rows younger than `ageSeconds` (older ones are a dead process's,
 * left for the takeover: waiting on them would only delay reads), or undefined when none.
 */
export async function newestStaged(db: Queryable, tenantId: string, ageSeconds: number): Promise<number | undefined> {
  const { rows } = await db.query<{ seq: string | null }>(
    "SELECT max(seq) AS seq FROM tracing_staged WHERE tenant_id = $1 AND created_at > now() - make_interval(secs => $2)",
    [tenantId, ageSeconds],
  );
  return rows[0]?.seq == null ? undefined : Number(rows[0].seq);
}

/** Whether any of a tenant's rows staged up to `seq` (and younger than `ageSeconds`) is still unmerged. */
export async function stagedUpTo(db: Queryable, tenantId: string, seq: number, ageSeconds: number): Promise<boolean> {
  const { rows } = await db.query(
    "SELECT 1 FROM tracing_staged WHERE tenant_id = $1 AND seq <= $2 AND created_at > now() - make_interval(secs => $3) LIMIT 1",
    [tenantId, seq, ageSeconds],
  );
  return rows.length > 0;
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

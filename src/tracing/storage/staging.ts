/**
 * The ingest staging table (append-only): what a request accepted, written in one statement per
 * request, claimed in seq order by the merge (ingest/merge-worker.ts) and deleted in the
 * transaction that merges it — so a crash before that commit leaves the rows for the next merge,
 * and a commit removes them exactly once.
 */
import type pg from "pg";
import { withTransaction, type Queryable } from "../../shared/db/index.js";
import type { Json, RunRecord } from "../run.js";

/** A post or patch as prepared by the request (cleaned, payloads trimmed, project resolved). */
export interface StagedRunOp {
  run: RunRecord;
  /** The project the request resolved from the run's session (undefined: keep the stored one). */
  project?: string;
  /** The tenant's default project: where a run lands when nothing names one. */
  fallback?: string;
  /** A scoped key's project: the run may not live in another one. */
  pinned?: string;
  /** That project's name (for the refusal message). */
  scope?: string;
  /** Problems found while preparing the run, stored with it. */
  problems?: string[];
}
export interface StagedAttachmentOp {
  name: string;
  contentType: string;
}

export type StagedKind = "post" | "patch" | "attachment";

export interface StagedRow {
  seq: number;
  tenant_id: string;
  run_id: string;
  kind: StagedKind;
  op: StagedRunOp | StagedAttachmentOp;
  data: Buffer | null;
  created_at: Date;
}

export interface NewStagedRow {
  tenant_id: string;
  run_id: string;
  kind: StagedKind;
  op: StagedRunOp | StagedAttachmentOp;
  data?: Buffer;
}

const INSERT_JSON = `INSERT INTO tracing_staged_ops (tenant_id, run_id, kind, op)
  SELECT tenant_id, run_id, kind, op FROM jsonb_to_recordset($1::jsonb) AS x(tenant_id uuid, run_id uuid, kind text, op jsonb) RETURNING seq`;

/**
 * Append a request's rows: one multi-row INSERT for the runs (the usual request has no
 * attachments); attachments (bytea, not JSON) one statement each, in the same transaction.
 * Returns the highest seq written (the request's watermark).
 */
export async function stageRows(pool: pg.Pool, rows: NewStagedRow[]): Promise<number> {
  const runs = rows.filter((r) => r.kind !== "attachment");
  const files = rows.filter((r) => r.kind === "attachment");
  const write = async (db: Queryable) => {
    let top = 0;
    if (runs.length) {
      const { rows: seqs } = await db.query<{ seq: string }>(INSERT_JSON, [JSON.stringify(runs.map(({ tenant_id, run_id, kind, op }) => ({ tenant_id, run_id, kind, op })))]);
      for (const s of seqs) top = Math.max(top, Number(s.seq));
    }
    for (const f of files) {
      const { rows: seqs } = await db.query<{ seq: string }>(
        "INSERT INTO tracing_staged_ops (tenant_id, run_id, kind, op, data) VALUES ($1, $2, $3, $4, $5) RETURNING seq",
        [f.tenant_id, f.run_id, f.kind, JSON.stringify(f.op), f.data],
      );
      top = Math.max(top, Number(seqs[0]!.seq));
    }
    return top;
  };
  return files.length ? withTransaction(pool, write) : write(pool);
}

/**
 * Claim up to `limit` staged rows in seq order (at most `upTo`, when given) and delete them: the
 * caller merges them in the same transaction. SKIP LOCKED: a claim never waits on rows another
 * transaction is deleting (the merge lease already orders mergers; see merge-worker.ts).
 */
export async function claimStaged(db: Queryable, limit: number, upTo?: number): Promise<StagedRow[]> {
  const { rows } = await db.query<StagedRow & { seq: string }>(
    `DELETE FROM tracing_staged_ops WHERE seq IN (
       SELECT seq FROM tracing_staged_ops ${upTo === undefined ? "" : "WHERE seq <= $2"} ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
     ) RETURNING *`,
    upTo === undefined ? [limit] : [limit, upTo],
  );
  return rows.map((r) => ({ ...r, seq: Number(r.seq) })).sort((a, b) => a.seq - b.seq);
}

/** Keep rows the merge could not use, with the reason (never claimed again). */
export async function recordFailures(db: Queryable, failures: { row: StagedRow; error: string }[]): Promise<void> {
  for (const { row, error } of failures) {
    await db.query(
      `INSERT INTO tracing_staged_failures (seq, tenant_id, run_id, kind, op, data, error, staged_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (seq) DO NOTHING`,
      [row.seq, row.tenant_id, row.run_id, row.kind, JSON.stringify(row.op as unknown as Json), row.data, error, row.created_at],
    );
  }
}

/** The highest pending seq of a tenant (undefined: nothing pending). One index probe. */
export async function pendingWatermark(db: Queryable, tenantId?: string): Promise<number | undefined> {
  const { rows } = tenantId
    ? await db.query<{ seq: string }>("SELECT seq FROM tracing_staged_ops WHERE tenant_id = $1 ORDER BY seq DESC LIMIT 1", [tenantId])
    : await db.query<{ seq: string }>("SELECT seq FROM tracing_staged_ops ORDER BY seq DESC LIMIT 1");
  return rows[0] ? Number(rows[0].seq) : undefined;
}

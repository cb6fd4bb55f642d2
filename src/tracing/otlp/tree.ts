/**
 * Dotted orders of OTLP runs. An exporter sends spans as they end — children before their
 * parents, often in separate requests — so a span's ancestry is rarely complete when it arrives.
 * Runs are stored with their trace and parent ids; once a trace's root is stored, this walks the
 * stored tree from the root down and fills in the dotted order of every run that lacks one. It
 * only ever fills (a dotted order sent by the client is kept), so it needs no ingest lock.
 */
import type { Queryable } from "../../shared/db/index.js";

/** Deeper than any real trace; bounds the walk on hostile input. */
const MAX_DEPTH = 1000;

const SEGMENT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISSUS"Z"') || `;

export async function fillDottedOrders(db: Queryable, tenantId: string, traceIds: string[]): Promise<number> {
  if (!traceIds.length) return 0;
  const { rowCount } = await db.query(
    `WITH RECURSIVE t (id, d, depth) AS (
       SELECT id, coalesce(dotted_order, ${SEGMENT("start_time")} id::text), 1 FROM tracing_runs
        WHERE tenant_id = $1 AND trace_id = ANY($2::uuid[]) AND parent_run_id IS NULL AND start_time IS NOT NULL
       UNION ALL
       SELECT c.id, coalesce(c.dotted_order, t.d || '.' || ${SEGMENT("c.start_time")} c.id::text), t.depth + 1
         FROM t JOIN tracing_runs c ON c.tenant_id = $1 AND c.parent_run_id = t.id
        WHERE c.start_time IS NOT NULL AND t.depth < ${MAX_DEPTH}
     )
     UPDATE tracing_runs r SET dotted_order = t.d FROM t WHERE r.tenant_id = $1 AND r.id = t.id AND r.dotted_order IS NULL`,
    [tenantId, [...new Set(traceIds)]],
  );
  return rowCount ?? 0;
}

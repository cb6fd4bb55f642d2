/**
 * Dotted orders of OTLP runs. An exporter sends spans as they end — children before their
 * parents, often in separate requests — and a parent may never arrive at all (its process died,
 * or it was sampled out). Runs are stored with their trace and parent ids; after each export this
 * walks the stored trees of its traces from their tops down and gives every run a dotted order
 * that agrees with where it now sits:
 * - a top is a root, or an orphan (its parent is not stored): an orphan's order starts at itself,
 *   so its subtree is well-formed (ordered, with its own ancestry) while the parent is missing;
 * - a run whose stored order does not continue its parent's (an orphan's provisional one, once
 *   the parent arrived; or none) gets `<parent's order>.<its segment>`: a late parent links its
 *   subtree in. An order that already continues its parent's — as the LangSmith SDKs send — is kept.
 * It writes only the dotted order, which no other writer of OTLP runs sets, so it needs no ingest lock.
 */
import type { Queryable } from "../../shared/db/index.js";

/** Deeper than any real trace; bounds the walk on hostile input. */
const MAX_DEPTH = 1000;

const SEGMENT = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYYMMDD"T"HH24MISSUS"Z"') || `;

export async function fillDottedOrders(db: Queryable, tenantId: string, traceIds: string[]): Promise<number> {
  if (!traceIds.length) return 0;
  const { rowCount } = await db.query(
    `WITH RECURSIVE t (id, d, depth) AS (
       SELECT r.id, coalesce(r.dotted_order, ${SEGMENT("r.start_time")} r.id::text), 1 FROM tracing_runs r
        WHERE r.tenant_id = $1 AND r.trace_id = ANY($2::uuid[]) AND r.start_time IS NOT NULL
          AND (r.parent_run_id IS NULL
               OR NOT EXISTS (SELECT 1 FROM tracing_runs p WHERE p.tenant_id = $1 AND p.id = r.parent_run_id AND p.start_time IS NOT NULL))
       UNION ALL
       SELECT c.id,
              CASE WHEN starts_with(c.dotted_order, t.d || '.') AND strpos(substr(c.dotted_order, length(t.d) + 2), '.') = 0 THEN c.dotted_order
                   ELSE t.d || '.' || ${SEGMENT("c.start_time")} c.id::text END,
              t.depth + 1
         FROM t JOIN tracing_runs c ON c.tenant_id = $1 AND c.parent_run_id = t.id
        WHERE c.start_time IS NOT NULL AND t.depth < ${MAX_DEPTH}
     )
     UPDATE tracing_runs r SET dotted_order = t.d FROM t WHERE r.tenant_id = $1 AND r.id = t.id AND r.dotted_order IS DISTINCT FROM t.d`,
    [tenantId, [...new Set(traceIds)]],
  );
  return rowCount ?? 0;
}

/**
 * Per-run ingest locks: transaction-scoped advisory locks on (tenant, run id), taken in one order
 * so two transactions locking overlapping sets cannot deadlock. Everything that rewrites a stored
 * run (ingest, the abandoned-run sweep) takes them first.
 */
import { prepared, type Queryable } from "../../shared/db/index.js";

export async function lockRuns(db: Queryable, tenantId: string, ids: string[], usePrepared = false): Promise<void> {
  await db.query(prepared(usePrepared, "berth_tracing_lock_runs", "SELECT pg_advisory_xact_lock(h) FROM (SELECT hashtextextended($1 || x, 0) AS h FROM unnest($2::text[]) AS x ORDER BY 1) AS s", [tenantId, ids]));
}

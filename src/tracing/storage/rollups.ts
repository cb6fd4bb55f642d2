/** Writing rollup deltas (see rollups/contribution.ts) in one statement per batch. */
import { prepared, type Queryable } from "../../shared/db/index.js";
import { denseHistogram, type RollupDelta } from "../rollups/contribution.js";

// Histograms add elementwise; unnest pads the shorter array with NULLs.
const addHist = (col: string) =>
  `${col} = (SELECT coalesce(array_agg(coalesce(a, 0) + coalesce(b, 0) ORDER BY i), '{}') FROM unnest(r.${col}, EXCLUDED.${col}) WITH ORDINALITY AS t(a, b, i))`;

const COUNTERS = ["run_count", "trace_count", "error_count", "llm_count", "llm_error_count", "input_tokens", "output_tokens", "total_tokens", "total_cost"];

const APPLY_SQL = `
  INSERT INTO tracing_rollups AS r (project_id, hour, model, ${COUNTERS.join(", ")}, latency_hist, ttft_hist)
  SELECT project_id, hour, model, ${COUNTERS.join(", ")}, latency_hist, ttft_hist
  FROM jsonb_to_recordset($1::jsonb) AS x(project_id uuid, hour timestamptz, model text,
    ${COUNTERS.map((c) => `${c} ${c === "total_cost" ? "numeric" : "bigint"}`).join(", ")}, latency_hist int[], ttft_hist int[])
  ORDER BY project_id, hour, model
  ON CONFLICT (project_id, hour, model) DO UPDATE SET
    ${COUNTERS.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(", ")},
    ${addHist("latency_hist")},
    ${addHist("ttft_hist")}`;

export async function applyRollupDeltas(db: Queryable, deltas: RollupDelta[], usePrepared = false): Promise<void> {
  if (!deltas.length) return;
  const payload = deltas.map((d) => ({
    ...d,
    latency_hist: denseHistogram(d.latency_hist),
    ttft_hist: denseHistogram(d.ttft_hist),
  }));
  await db.query(prepared(usePrepared, "berth_tracing_apply_rollups", APPLY_SQL, [JSON.stringify(payload)]));
}

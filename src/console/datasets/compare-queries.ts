/**
 * What the compare view reads, all through the LangSmith-compatible API the SDK uses (no route of
 * its own): the selected experiments' root runs on a page of examples (`POST /runs/query` filtered
 * by session and reference example, with each run's feedback stats), then their traces' totals
 * (`POST /api/v2/traces/query`), since an evaluated target's tokens and cost sit on its LLM
 * children, not on the root.
 */
import { data, tracing } from "../api/client";
import { toExperimentRun, withTraceTotals, type ExperimentRun } from "./compare";

const RUN_FIELDS = ["id", "trace_id", "session_id", "reference_example_id", "start_time", "end_time", "status", "error", "outputs", "latency_ms", "total_tokens", "total_cost", "feedback_stats"];
/** A page of examples × a handful of experiments × repetitions stays far below this; it bounds a runaway. */
const MAX_PAGES = 20;
const PAGE = 1000;
/** Trace totals: every run since the epoch (the v2 query looks at the last day unless told otherwise). */
const EPOCH = "1970-01-01T00:00:00.000Z";

export async function loadExperimentRuns(experimentIds: string[], exampleIds: string[]): Promise<ExperimentRun[]> {
  if (!experimentIds.length || !exampleIds.length) return [];
  const runs: ExperimentRun[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < MAX_PAGES; i++) {
    const page: { runs: Record<string, unknown>[]; cursors: { next: string | null } } = data(
      await tracing.POST("/runs/query", {
        body: { session: experimentIds, reference_example: exampleIds, is_root: true, limit: PAGE, select: RUN_FIELDS, ...(cursor ? { cursor } : {}) },
      }),
    );
    for (const raw of page.runs) {
      const r = toExperimentRun(raw);
      if (r) runs.push(r);
    }
    cursor = page.cursors.next;
    if (!cursor) break;
  }
  const totals = new Map<string, { total_tokens: number | null; total_cost: number | null }>();
  const traceIds = [...new Set(runs.map((r) => r.trace_id))];
  for (let i = 0; i < traceIds.length; i += PAGE) {
    const chunk = traceIds.slice(i, i + PAGE);
    const page = data(await tracing.POST("/api/v2/traces/query", { body: { trace_ids: chunk, min_start_time: EPOCH, selects: ["ID", "TRACE_ID"], page_size: PAGE } }));
    for (const item of page.items) {
      const root = item.root_run as { trace_id?: string } | undefined;
      const agg = item.trace_aggregates as { total_tokens?: number; total_cost?: number } | undefined;
      if (root?.trace_id && agg) totals.set(root.trace_id, { total_tokens: agg.total_tokens ?? null, total_cost: agg.total_cost ?? null });
    }
  }
  return withTraceTotals(runs, totals);
}

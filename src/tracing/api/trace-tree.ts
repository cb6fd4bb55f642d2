/** A trace as a tree of runs with its totals (the console's trace view, owner or shared link). */
import { type PresentedRun, presentRun } from "../query/present.js";
import type { QueryService, TraceTotals } from "../query/service.js";
import type { RunRow } from "../storage/runs.js";

const TREE_LIMIT = 25_000; // LangSmith's documented maximum of runs per trace

/** A trace's totals as shown with its root run. */
export function traceSummary(root: RunRow | PresentedRun, t: TraceTotals | undefined) {
  if (!t) return null;
  return {
    run_count: t.run_count,
    llm_count: t.llm_count,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    total_tokens: t.total_tokens,
    total_cost: t.total_cost,
    first_token_time: t.first_token_time,
    ttft_ms: t.first_token_time && root.start_time ? Math.max(0, Date.parse(t.first_token_time) - Date.parse(root.start_time)) : null,
    models: t.models,
  };
}

export async function traceTree(query: QueryService, tenant: string, traceId: string) {
  const rows = await query.traceRuns(tenant, traceId, TREE_LIMIT);
  const totals = (await query.traceTotals(tenant, [traceId])).get(traceId);
  type Node = PresentedRun & { children: Node[] };
  const nodes = new Map<string, Node>(rows.map((r) => [r.id, { ...presentRun(r), children: [] }]));
  const roots: Node[] = [];
  for (const n of nodes.values()) {
    const parent = n.parent_run_id ? nodes.get(n.parent_run_id) : undefined;
    if (parent) parent.children.push(n);
    else roots.push(n); // the root, or a run whose parent has not arrived yet
  }
  const root = roots.find((r) => !r.parent_run_id) ?? roots[0]!;
  return { trace_id: traceId, project_id: root.project_id, root_run_id: root.id, totals: traceSummary(root, totals), runs: roots };
}

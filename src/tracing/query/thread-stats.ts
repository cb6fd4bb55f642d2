/**
 * One conversation's aggregates in LangSmith v2's `ThreadStats` shape (`client.threads.stats`),
 * from its turns (root runs) and their traces' totals (LLM runs only). Pure. The split of cost
 * into prompt and completion is not kept per trace, so those selects answer nothing.
 */
import type { RunRow } from "../storage/runs.js";
import type { TraceTotals } from "./service.js";

function percentile(sorted: number[], p: number): number | null {
  if (!sorted.length) return null;
  // linear interpolation between closest ranks, as Postgres's percentile_cont
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

const iso = (ms: number) => new Date(ms).toISOString();

export function threadStats(turns: RunRow[], totals: Map<string, TraceTotals>) {
  const starts = turns.map((t) => (t.start_time ? Date.parse(t.start_time) : NaN)).filter((n) => !Number.isNaN(n));
  const ends = turns.map((t) => (t.end_time ? Date.parse(t.end_time) : NaN)).filter((n) => !Number.isNaN(n));
  const latencies = turns
    .filter((t) => t.start_time && t.end_time)
    .map((t) => Math.max(0, Date.parse(t.end_time!) - Date.parse(t.start_time!)) / 1000)
    .sort((a, b) => a - b);
  let prompt = 0;
  let completion = 0;
  let total = 0;
  let cost: number | null = null;
  const plus = (a: number | null, b: number | null) => (b === null ? a : (a ?? 0) + b);
  for (const t of turns) {
    const tt = totals.get(t.trace_id);
    if (!tt) continue;
    prompt += tt.input_tokens;
    completion += tt.output_tokens;
    total += tt.total_tokens;
    cost = plus(cost, tt.total_cost);
  }
  return {
    TURNS: turns.length,
    FIRST_START_TIME: starts.length ? iso(Math.min(...starts)) : null,
    LAST_START_TIME: starts.length ? iso(Math.max(...starts)) : null,
    LAST_END_TIME: ends.length ? iso(Math.max(...ends)) : null,
    LATENCY_P50: percentile(latencies, 0.5),
    LATENCY_P99: percentile(latencies, 0.99),
    PROMPT_TOKENS: prompt,
    COMPLETION_TOKENS: completion,
    TOTAL_TOKENS: total,
    TOTAL_COST: cost,
  };
}

/** The answer's key of each select (`LATENCY_P50` → `latency_p50_seconds`). */
export const THREAD_STATS_KEYS: Record<string, string> = {
  TURNS: "turns",
  FIRST_START_TIME: "first_start_time",
  LAST_START_TIME: "last_start_time",
  LAST_END_TIME: "last_end_time",
  LATENCY_P50: "latency_p50_seconds",
  LATENCY_P99: "latency_p99_seconds",
  PROMPT_TOKENS: "prompt_tokens",
  COMPLETION_TOKENS: "completion_tokens",
  TOTAL_TOKENS: "total_tokens",
  TOTAL_COST: "total_cost",
  FEEDBACK_STATS: "feedback_stats",
};

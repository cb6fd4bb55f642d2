/**
 * What one run adds to the hourly rollups (pure). A run counts once it has ended; when a later
 * post or patch changes it, the rollups move by (what it adds now − what it added before), so
 * duplicates add nothing and out-of-order updates settle on the same totals.
 *
 * Rows are keyed by project, hour of the run's start and model. model '' carries the trace-level
 * figures of root runs (trace count, errors, end-to-end latency); LLM runs add tokens, cost and
 * time to first token under their model. Only LLM runs carry tokens and cost, so a parent that
 * repeats its children's usage is never counted twice.
 */
import { bucketOf } from "../accounting/histogram.js";

export interface RunFacts {
  project_id: string;
  start_time?: string | null;
  end_time?: string | null;
  status: string;
  parent_run_id?: string | null;
  run_type?: string | null;
  model?: string | null;
  input_tokens?: number | null;
  output_tokens?: number | null;
  total_tokens?: number | null;
  total_cost?: number | null;
  ttft_ms?: number | null;
}

/** The additive figures of a rollup row (and of a change to one). */
export interface RollupCounters {
  run_count: number;
  trace_count: number;
  error_count: number;
  llm_count: number;
  llm_error_count: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  total_cost: number;
}

export interface RollupDelta extends RollupCounters {
  project_id: string;
  hour: string;
  model: string;
  /** Sparse: bucket index → count change. */
  latency_hist: Map<number, number>;
  ttft_hist: Map<number, number>;
}

const COUNTERS = ["run_count", "trace_count", "error_count", "llm_count", "llm_error_count", "input_tokens", "output_tokens", "total_tokens", "total_cost"] as const;

const HOUR_PREFIX = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export function hourOf(iso: string): string {
  // a UTC ISO time (as stored) is its own hour's prefix: no Date round trip, a hot path of the merge
  // (days past the 28th go the long way: Date rolls a 30 February over into March)
  if (HOUR_PREFIX.test(iso) && iso >= "1000" && iso.slice(8, 10) <= "28" && iso.slice(11, 13) <= "23") return `${iso.slice(0, 13)}:00:00.000Z`;
  const d = new Date(iso);
  d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

function emptyDelta(project_id: string, hour: string, model: string): RollupDelta {
  return {
    project_id,
    hour,
    model,
    run_count: 0,
    trace_count: 0,
    error_count: 0,
    llm_count: 0,
    llm_error_count: 0,
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    total_cost: 0,
    latency_hist: new Map(),
    ttft_hist: new Map(),
  };
}

const bump = (m: Map<number, number>, ms: number, by: number) => {
  const b = bucketOf(ms);
  m.set(b, (m.get(b) ?? 0) + by);
};

/** The rollup rows a run adds (with sign +1) or takes away (with sign −1). */
export function contribution(run: RunFacts | undefined, sign: 1 | -1 = 1): RollupDelta[] {
  if (!run || run.status === "pending" || !run.start_time) return [];
  const hour = hourOf(run.start_time);
  const rows: RollupDelta[] = [];
  const trace = emptyDelta(run.project_id, hour, "");
  trace.run_count = sign;
  if (!run.parent_run_id) {
    trace.trace_count = sign;
    if (run.status === "error") trace.error_count = sign;
    if (run.end_time) bump(trace.latency_hist, Math.max(0, Date.parse(run.end_time) - Date.parse(run.start_time)), sign);
  }
  rows.push(trace);
  if (run.run_type === "llm") {
    const llm = emptyDelta(run.project_id, hour, run.model ?? "");
    llm.llm_count = sign;
    if (run.status === "error") llm.llm_error_count = sign;
    llm.input_tokens = sign * (run.input_tokens ?? 0);
    llm.output_tokens = sign * (run.output_tokens ?? 0);
    llm.total_tokens = sign * (run.total_tokens ?? 0);
    llm.total_cost = sign * (run.total_cost ?? 0);
    if (run.ttft_ms !== undefined && run.ttft_ms !== null) bump(llm.ttft_hist, run.ttft_ms, sign);
    rows.push(llm);
  }
  return rows;
}

/** Sum deltas by key, dropping rows that net to nothing. */
export function combineDeltas(deltas: RollupDelta[]): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  for (const d of deltas) {
    const key = `${d.project_id}|${d.hour}|${d.model}`;
    const acc = byKey.get(key);
    if (!acc) {
      byKey.set(key, { ...d, latency_hist: new Map(d.latency_hist), ttft_hist: new Map(d.ttft_hist) });
      continue;
    }
    for (const c of COUNTERS) acc[c] += d[c];
    for (const [b, n] of d.latency_hist) acc.latency_hist.set(b, (acc.latency_hist.get(b) ?? 0) + n);
    for (const [b, n] of d.ttft_hist) acc.ttft_hist.set(b, (acc.ttft_hist.get(b) ?? 0) + n);
  }
  const nonZero = (m: Map<number, number>) => [...m.values()].some((v) => v !== 0);
  return [...byKey.values()]
    .filter((d) => COUNTERS.some((c) => Math.abs(d[c]) > 1e-15) || nonZero(d.latency_hist) || nonZero(d.ttft_hist))
    .sort((a, b) => (a.project_id + a.hour + a.model < b.project_id + b.hour + b.model ? -1 : 1));
}

/** A sparse histogram delta as a dense array as long as its highest bucket (Postgres pads the rest). */
export function denseHistogram(m: Map<number, number>): number[] {
  const max = Math.max(-1, ...[...m.entries()].filter(([, v]) => v !== 0).map(([k]) => k));
  return Array.from({ length: max + 1 }, (_, i) => m.get(i) ?? 0);
}

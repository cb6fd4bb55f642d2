/**
 * Stats over time from hourly rollup rows (pure): hour or day buckets (UTC), percentiles from the
 * summed histograms, cost and tokens by model.
 */
import { mergeHistograms, quantile } from "../accounting/histogram.js";
import type { RollupCounters } from "../rollups/contribution.js";

export interface RollupRow extends RollupCounters {
  hour: string;
  model: string;
  latency_hist: number[];
  ttft_hist: number[];
}

export interface Totals {
  run_count: number;
  trace_count: number;
  error_count: number;
  error_rate: number | null;
  llm_count: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  total_cost: number;
  latency_p50: number | null;
  latency_p99: number | null;
  first_token_p50: number | null;
  first_token_p99: number | null;
}

export type Bucket = "hour" | "day";

export function bucketStart(hourIso: string, bucket: Bucket): string {
  const d = new Date(hourIso);
  if (bucket === "day") d.setUTCHours(0, 0, 0, 0);
  else d.setUTCMinutes(0, 0, 0);
  return d.toISOString();
}

/** Totals of a set of rollup rows. */
export function totalsOf(rows: RollupRow[]): Totals {
  let latency: number[] = [];
  let ttft: number[] = [];
  const t = { run_count: 0, trace_count: 0, error_count: 0, llm_count: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, total_cost: 0 };
  for (const r of rows) {
    for (const k of Object.keys(t) as (keyof typeof t)[]) t[k] += Number(r[k]);
    latency = mergeHistograms(latency, r.latency_hist ?? []);
    ttft = mergeHistograms(ttft, r.ttft_hist ?? []);
  }
  const q = (h: number[], p: number) => {
    const v = quantile(h, p);
    return v === undefined ? null : Math.round(v * 100) / 100;
  };
  return {
    ...t,
    total_cost: Math.round(t.total_cost * 1e9) / 1e9,
    error_rate: t.trace_count ? t.error_count / t.trace_count : null,
    latency_p50: q(latency, 0.5),
    latency_p99: q(latency, 0.99),
    first_token_p50: q(ttft, 0.5),
    first_token_p99: q(ttft, 0.99),
  };
}

/**
 * Every bucket in [start, end), empty ones included, so charts have a continuous axis. `rows` are
 * rollup rows of the range (any grouping finer than `bucket`); `modelRows` the same rows or ones
 * already summed per model.
 */
export function statsOverTime(rows: RollupRow[], modelRows: RollupRow[], start: Date, end: Date, bucket: Bucket) {
  const groups = new Map<string, RollupRow[]>();
  for (const r of rows) {
    const k = bucketStart(r.hour, bucket);
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const step = bucket === "day" ? 86_400_000 : 3_600_000;
  const buckets = [];
  for (let t = Date.parse(bucketStart(start.toISOString(), bucket)); t < end.getTime(); t += step) {
    const k = new Date(t).toISOString();
    buckets.push({ start: k, ...totalsOf(groups.get(k) ?? []) });
  }
  const models = new Map<string, RollupRow[]>();
  for (const r of modelRows) {
    if (!r.llm_count && r.model === "") continue;
    const g = models.get(r.model);
    if (g) g.push(r);
    else models.set(r.model, [r]);
  }
  const by_model = [...models.entries()]
    .map(([model, rs]) => {
      const t = totalsOf(rs);
      return { model: model || null, llm_count: t.llm_count, input_tokens: t.input_tokens, output_tokens: t.output_tokens, total_tokens: t.total_tokens, total_cost: t.total_cost, first_token_p50: t.first_token_p50 };
    })
    .filter((m) => m.llm_count !== 0)
    .sort((a, b) => b.total_cost - a.total_cost || b.total_tokens - a.total_tokens);
  return { bucket, start_time: start.toISOString(), end_time: end.toISOString(), totals: totalsOf(rows), buckets, by_model };
}

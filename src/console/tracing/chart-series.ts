/**
 * The dashboard's numbers (pure): which stats window to ask for, and the API's buckets as chart
 * rows. Empty buckets stay on the axis: counts, tokens and cost read 0 there, while percentiles and
 * the error rate are null (a gap in the line: "no data" is not "0 ms" or "0 % errors").
 */
import type { StatsOverTime } from "../api/types";
import { RANGES, type RangeKey } from "./ranges";

export type Bucket = "hour" | "day";

export const DASHBOARD_RANGES = ["24h", "7d", "30d", "90d"] as const satisfies readonly RangeKey[];
export type DashboardRange = (typeof DASHBOARD_RANGES)[number];

/** Hours for up to a week (≤ 168 points), days beyond. */
export function defaultBucket(range: DashboardRange): Bucket {
  return RANGES[range].ms <= RANGES["7d"].ms ? "hour" : "day";
}

const STEP: Record<Bucket, number> = { hour: 3_600_000, day: 86_400_000 };

/**
 * The query for a range ending now. The start is floored to a bucket boundary (UTC, like the
 * server's buckets): the rollups are hourly, and a start inside an hour would leave the first
 * bucket on the chart but its data out of the answer.
 */
export function statsWindow(range: DashboardRange, bucket: Bucket, now: number): { start_time: string; end_time: string; bucket: Bucket } {
  const start = Math.floor((now - RANGES[range].ms) / STEP[bucket]) * STEP[bucket];
  return { start_time: new Date(start).toISOString(), end_time: new Date(now).toISOString(), bucket };
}

export interface ChartPoint {
  /** Bucket start, epoch ms. */
  t: number;
  label: string;
  traces: number;
  /** Traces whose root did not fail (stacked under `errors`, they add up to `traces`). */
  ok_traces: number;
  runs: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  cost: number;
  latency_p50: number | null;
  latency_p99: number | null;
  ttft_p50: number | null;
  ttft_p99: number | null;
  /** Percent of traces whose root failed; null without traces. */
  error_rate: number | null;
}

export function chartSeries(stats: StatsOverTime, timeZone?: string): ChartPoint[] {
  return stats.buckets.map((b) => ({
    t: Date.parse(b.start),
    label: bucketLabel(b.start, stats.bucket, timeZone),
    traces: b.trace_count,
    ok_traces: Math.max(0, b.trace_count - b.error_count),
    runs: b.run_count,
    errors: b.error_count,
    input_tokens: b.input_tokens,
    output_tokens: b.output_tokens,
    cost: b.total_cost,
    latency_p50: b.latency_p50,
    latency_p99: b.latency_p99,
    ttft_p50: b.first_token_p50,
    ttft_p99: b.first_token_p99,
    error_rate: b.error_rate === null ? null : b.error_rate * 100,
  }));
}

/** Whether any bucket has a value other than null/0 for one of `keys` (else the chart says "no data"). */
export function hasData(points: readonly ChartPoint[], keys: readonly (keyof ChartPoint)[]): boolean {
  return points.some((p) => keys.some((k) => p[k] !== null && p[k] !== 0));
}

/** Whether any bucket has a value for `keys` at all (0 counts: a 0 % error rate is data). */
export function hasValues(points: readonly ChartPoint[], keys: readonly (keyof ChartPoint)[]): boolean {
  return points.some((p) => keys.some((k) => p[k] !== null));
}

export interface ModelCost {
  model: string;
  cost: number;
  tokens: number;
  calls: number;
}

/** LLM cost per model over the range, most expensive first (as the API orders it). */
export function costByModel(stats: StatsOverTime): ModelCost[] {
  return stats.by_model.map((m) => ({ model: m.model ?? "(unknown model)", cost: m.total_cost, tokens: m.total_tokens, calls: m.llm_count }));
}

/**
 * An axis label: "Nov 10, 14:00" for hours, in the viewer's time zone (default); "Nov 10" for
 * days, always the UTC date, since a day bucket is a UTC day and the viewer's date of its
 * midnight may be the day before.
 */
export function bucketLabel(iso: string, bucket: Bucket, timeZone?: string): string {
  const d = new Date(iso);
  return bucket === "day"
    ? d.toLocaleDateString("en-US", { month: "short", day: "numeric", timeZone: "UTC" })
    : d.toLocaleString("en-US", { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hour12: false, timeZone });
}

/**
 * Whether the value at `index` stands alone (its neighbours are gaps): a line draws nothing for a
 * lone point, so the chart marks it with a dot (dots everywhere would bury a dense line).
 */
export function isIsolated(points: readonly ChartPoint[], index: number, key: keyof ChartPoint): boolean {
  const at = (i: number) => (i >= 0 && i < points.length ? points[i]![key] : null);
  return at(index) !== null && at(index - 1) === null && at(index + 1) === null;
}

/**
 * The experiment compare view's rules, pure (tested without a browser): the selection in the URL,
 * the runs the LangSmith-compatible API answers turned into per-example rows, and each score set
 * against a chosen baseline experiment.
 *
 * A higher score counts as better: that is how evaluate()'s evaluators score (1 correct, 0 wrong;
 * LangSmith's UI reads them the same way). Keys scored the other way round (a "length") still show
 * the difference; only its colour assumes the direction.
 */
import type { FeedbackStats } from "./scores";

type Stat = FeedbackStats[string];

/** One root run of an experiment on one example, as the compare view shows it. */
export interface ExperimentRun {
  id: string;
  trace_id: string;
  experiment_id: string;
  example_id: string;
  start_time: string | null;
  status: string | null;
  error: string | null;
  outputs: unknown;
  latency_ms: number | null;
  /** The whole trace's tokens and cost (the target's LLM calls are its children), else the root's own. */
  total_tokens: number | null;
  total_cost: number | null;
  feedback: FeedbackStats;
}

const str = (v: unknown) => (typeof v === "string" ? v : null);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : typeof v === "string" && v !== "" && Number.isFinite(Number(v)) ? Number(v) : null);

/** A run of `POST /runs/query` (LangSmith's run schema, loosely typed there) → an ExperimentRun; null without the ids it needs. */
export function toExperimentRun(raw: Record<string, unknown>): ExperimentRun | null {
  const id = str(raw.id);
  const experiment = str(raw.session_id);
  const example = str(raw.reference_example_id);
  if (!id || !experiment || !example) return null;
  const start = str(raw.start_time);
  const end = str(raw.end_time);
  const latency = num(raw.latency_ms) ?? (start && end ? Math.max(0, Date.parse(end) - Date.parse(start)) : null);
  return {
    id,
    trace_id: str(raw.trace_id) ?? id,
    experiment_id: experiment,
    example_id: example,
    start_time: start,
    status: str(raw.status),
    error: str(raw.error),
    outputs: raw.outputs ?? null,
    latency_ms: latency,
    total_tokens: num(raw.total_tokens),
    total_cost: num(raw.total_cost),
    feedback: (raw.feedback_stats && typeof raw.feedback_stats === "object" ? raw.feedback_stats : {}) as FeedbackStats,
  };
}

/** Trace totals (`/api/v2/traces/query` items) by trace id: they win over a root run's own tokens and cost. */
export function withTraceTotals(runs: ExperimentRun[], totals: Map<string, { total_tokens: number | null; total_cost: number | null }>): ExperimentRun[] {
  return runs.map((r) => {
    const t = totals.get(r.trace_id);
    return t ? { ...r, total_tokens: t.total_tokens ?? r.total_tokens, total_cost: t.total_cost ?? r.total_cost } : r;
  });
}

export interface CompareRow<E extends { id: string }> {
  example: E;
  /** Per experiment id, its runs on this example (several with evaluate()'s numRepetitions), oldest first. */
  runs: Record<string, ExperimentRun[]>;
}

/** One row per example, in the examples' order; each selected experiment gets its runs (maybe none). */
export function joinRows<E extends { id: string }>(examples: E[], runs: ExperimentRun[], experimentIds: string[]): CompareRow<E>[] {
  const byKey = new Map<string, ExperimentRun[]>();
  for (const r of runs) {
    const k = `${r.example_id}|${r.experiment_id}`;
    byKey.set(k, [...(byKey.get(k) ?? []), r]);
  }
  const order = (a: ExperimentRun, b: ExperimentRun) => (a.start_time ?? "").localeCompare(b.start_time ?? "") || a.id.localeCompare(b.id);
  return examples.map((example) => ({
    example,
    runs: Object.fromEntries(experimentIds.map((e) => [e, [...(byKey.get(`${example.id}|${e}`) ?? [])].sort(order)])),
  }));
}

/** Feedback of several runs merged per key: counts and value tallies add up, means weigh by count. */
export function mergeFeedback(stats: FeedbackStats[]): FeedbackStats {
  const out: FeedbackStats = {};
  for (const s of stats)
    for (const [k, v] of Object.entries(s)) {
      const cur = out[k];
      if (!cur) {
        out[k] = { n: v.n, avg: v.avg, values: { ...v.values } };
        continue;
      }
      const avg = cur.avg === null ? v.avg : v.avg === null ? cur.avg : (cur.avg * cur.n + v.avg * v.n) / (cur.n + v.n);
      const values = { ...cur.values };
      for (const [val, c] of Object.entries(v.values)) values[val] = (values[val] ?? 0) + c;
      out[k] = { n: cur.n + v.n, avg, values };
    }
  return out;
}

/** The feedback keys any run of the rows has, sorted. */
export function rowKeys(rows: CompareRow<{ id: string }>[]): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const runs of Object.values(row.runs)) for (const r of runs) for (const k of Object.keys(r.feedback)) keys.add(k);
  return [...keys].sort();
}

export type Diff = "better" | "worse" | "same";

/** A score against the baseline's: better when higher. Nothing to say when either has no score (or this is the baseline). */
export function diff(score: number | null | undefined, baseline: number | null | undefined): Diff | null {
  if (score === null || score === undefined || baseline === null || baseline === undefined) return null;
  // the SDK rounds scores to 4 decimals: closer than that is the same score
  if (Math.abs(score - baseline) < 1e-9) return "same";
  return score > baseline ? "better" : "worse";
}

/** Per experiment and key: on how many of the rows its score beat / fell behind / matched the baseline's. */
export type DiffCounts = Record<string, Record<string, { better: number; worse: number; same: number }>>;

export function diffCounts(rows: CompareRow<{ id: string }>[], experimentIds: string[], baseline: string, keys: string[]): DiffCounts {
  const out: DiffCounts = {};
  for (const e of experimentIds) {
    if (e === baseline) continue;
    out[e] = Object.fromEntries(keys.map((k) => [k, { better: 0, worse: 0, same: 0 }]));
    for (const row of rows) {
      const mine = mergeFeedback((row.runs[e] ?? []).map((r) => r.feedback));
      const theirs = mergeFeedback((row.runs[baseline] ?? []).map((r) => r.feedback));
      for (const k of keys) {
        const d = diff(mine[k]?.avg, theirs[k]?.avg);
        if (d) out[e]![k]![d] += 1;
      }
    }
  }
  return out;
}

/** The mean of the runs' latencies, tokens or costs (those that have one); null when none has. */
export function meanOf(runs: ExperimentRun[], pick: (r: ExperimentRun) => number | null): number | null {
  const xs = runs.map(pick).filter((x): x is number => x !== null);
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** A score as the view prints it: at most 4 decimals (what the SDK sends), no trailing zeros. */
export function fmtMean(avg: number | null | undefined): string {
  if (avg === null || avg === undefined) return "–";
  return String(Number(avg.toFixed(4)));
}

/** "+0.5" / "−0.25": a difference to the baseline. */
export function fmtDelta(score: number | null | undefined, baseline: number | null | undefined): string {
  if (score === null || score === undefined || baseline === null || baseline === undefined) return "";
  const d = Number((score - baseline).toFixed(4));
  return d === 0 ? "±0" : d > 0 ? `+${d}` : `−${-d}`;
}

/** A stat cell's text: the mean (with the values given when there is none). */
export function fmtStat(s: Stat | undefined): string {
  if (!s) return "–";
  if (s.avg !== null) return fmtMean(s.avg);
  const values = Object.entries(s.values).map(([v, n]) => (n > 1 ? `${v}×${n}` : v));
  return values.length ? values.join(", ") : "–";
}

/** The selection the URL holds: `experiments` (comma separated, order kept, no repeats) and a baseline among them (else the first). */
export function parseSelection(params: URLSearchParams): { experiments: string[]; baseline: string | null } {
  const experiments = [...new Set((params.get("experiments") ?? "").split(",").map((s) => s.trim()).filter(Boolean))];
  const asked = params.get("baseline");
  return { experiments, baseline: asked && experiments.includes(asked) ? asked : (experiments[0] ?? null) };
}

/** Comparisons (pairwise experiments) that compared only experiments of the selection. */
export function comparisonsWithin<C extends { experiments_info: { id: string }[] }>(comparisons: C[], selected: string[]): C[] {
  const set = new Set(selected);
  return comparisons.filter((c) => c.experiments_info.length > 0 && c.experiments_info.every((e) => set.has(e.id)));
}

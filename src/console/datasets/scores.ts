/** Aggregate scores of experiments, pure: the feedback keys across them and one cell per key. */
export type FeedbackStats = Record<string, { n: number; avg: number | null; values: Record<string, number> }>;

/** Every feedback key the experiments have, sorted, so each gets a column. */
export function scoreKeys(stats: (FeedbackStats | undefined)[]): string[] {
  return [...new Set(stats.flatMap((s) => Object.keys(s ?? {})))].sort();
}

/** "0.67 (3)": the mean score and how many feedbacks it averages; values when there is no score. */
export function fmtScore(s: FeedbackStats[string] | undefined): string {
  if (!s) return "–";
  if (s.avg !== null) return `${Number(s.avg.toFixed(2))} (${s.n})`;
  const values = Object.entries(s.values).map(([v, n]) => `${v}×${n}`);
  return values.length ? values.join(", ") : `(${s.n})`;
}

/** Per key of a comparative experiment: comparisons, ties, and per experiment id its preferred count. */
export type Preference = { comparisons: number; ties: number; preferred: Record<string, number> };

/** "exp-a 2 · exp-b 0 · ties 1": how often each compared experiment won, in the comparison's order. */
export function fmtPreference(p: Preference | undefined, experiments: { id: string; name: string }[]): string {
  if (!p) return "–";
  return [...experiments.map((e) => `${e.name} ${p.preferred[e.id] ?? 0}`), `ties ${p.ties}`].join(" · ");
}

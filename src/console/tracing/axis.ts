/** Axis labels of the tracing charts and the waterfall (pure). */

/** A short duration for an axis tick: "0", "250 ms", "1.5 s", "2 min", "1.5 h". */
export function fmtAxisDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms === 0) return "0";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${+(ms / 60_000).toFixed(1)} min`;
  return `${+(ms / 3_600_000).toFixed(1)} h`;
}

/**
 * Waterfall geometry (pure): where each run's bar sits on the trace's time axis, as percentages
 * of the trace's duration, so the bars need no measuring of the page.
 */

export interface Timed {
  start_time: string | null;
  end_time: string | null;
}

/** The trace's time axis, epoch ms. */
export interface Span {
  start: number;
  end: number;
}

export interface Bar {
  /** Percent of the span from its start to the bar's start. */
  left: number;
  /** Percent of the span the bar covers (at least MIN_WIDTH, so an instant run still shows). */
  width: number;
  /** The run has not ended: its bar runs to `now` (or the span's end). */
  open: boolean;
}

export const MIN_WIDTH = 0.4;

const ms = (iso: string | null): number | undefined => {
  if (!iso) return undefined;
  const t = Date.parse(iso);
  return Number.isNaN(t) ? undefined : t;
};

/**
 * From the earliest start to the latest end of `runs`. A run still going extends the span to
 * `now`; a span of zero length is widened to 1 ms so a division by it is safe.
 */
export function traceSpan(runs: Iterable<Timed>, now: number): Span | undefined {
  let start = Infinity;
  let end = -Infinity;
  for (const r of runs) {
    const s = ms(r.start_time);
    if (s === undefined) continue;
    const e = ms(r.end_time) ?? Math.max(s, now);
    if (s < start) start = s;
    if (e > end) end = e;
  }
  if (start === Infinity) return undefined;
  return { start, end: Math.max(end, start + 1) };
}

/** The bar of one run; none for a run that has not started. */
export function barOf(run: Timed, span: Span, now: number): Bar | undefined {
  const s = ms(run.start_time);
  if (s === undefined) return undefined;
  const e0 = ms(run.end_time);
  const open = e0 === undefined;
  const e = Math.min(span.end, Math.max(s, e0 ?? now));
  const total = span.end - span.start;
  const left = clamp(((s - span.start) / total) * 100, 0, 100);
  const width = clamp(((e - s) / total) * 100, MIN_WIDTH, 100);
  // a bar that starts at the very end keeps its minimum width inside the axis
  return { left: Math.min(left, 100 - width), width, open };
}

/** Ticks for the axis above the bars: `count` evenly spaced offsets from the trace's start, ms. */
export function axisTicks(span: Span, count = 4): { offsetMs: number; percent: number }[] {
  const total = span.end - span.start;
  return Array.from({ length: count + 1 }, (_, i) => ({ offsetMs: (total * i) / count, percent: (100 * i) / count }));
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

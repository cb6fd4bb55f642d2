/**
 * Fixed log-scale latency histograms (pure), for rollups: arrays of counts stored in Postgres
 * int[] columns and summed elementwise, so every histogram has the same buckets.
 *
 * - Bucket 0 holds durations under 1 ms (and anything negative or not a number).
 * - Bucket i ≥ 1 holds [1.2^(i−1), 1.2^i) ms: each bucket is 20% wider than the one before.
 * - The last bucket also holds everything longer: it starts at 1.2^(HISTOGRAM_BUCKETS−2) ms
 *   (about 4.1 days), so every duration up to then, well past 24 h, has its own bucket.
 *
 * Relative error of quantiles: a quantile is interpolated linearly inside the bucket its rank
 * falls into, so it lies in the same bucket as the true value and is off by less than the
 * bucket's width: under 20% of the value in the worst case, typically a few percent (values
 * spread inside a bucket). Under 1 ms the error is under 1 ms; beyond the last bucket's start it
 * is unbounded.
 *
 * Arrays shorter than HISTOGRAM_BUCKETS (rollup deltas stop at their highest bucket, Postgres
 * pads) are read as if zero-padded; counts below zero (a delta taking runs away) count as zero.
 */

export const GROWTH = 1.2;
export const HISTOGRAM_BUCKETS = 110;

const LOG_GROWTH = Math.log(GROWTH);

/** Lower bound of bucket i in ms (0 for bucket 0). */
export function bucketLower(i: number): number {
  return i <= 0 ? 0 : GROWTH ** (i - 1);
}

/** Upper bound of bucket i in ms (exclusive; nominal for the last, open-ended bucket). */
export function bucketUpper(i: number): number {
  return i <= 0 ? 1 : GROWTH ** i;
}

export function bucketOf(ms: number): number {
  if (!(ms >= 1)) return 0; // < 1 ms, negative, NaN
  if (ms === Infinity) return HISTOGRAM_BUCKETS - 1;
  let i = 1 + Math.floor(Math.log(ms) / LOG_GROWTH);
  // floating point can land one bucket off at the exact bounds
  if (ms < bucketLower(i)) i--;
  else if (ms >= bucketUpper(i)) i++;
  return Math.min(HISTOGRAM_BUCKETS - 1, Math.max(1, i));
}

export function emptyHistogram(): number[] {
  return new Array<number>(HISTOGRAM_BUCKETS).fill(0);
}

/** Counts `ms` once (or `count` times) in `hist`, in place; returns it. */
export function addTo(hist: number[], ms: number, count = 1): number[] {
  const b = bucketOf(ms);
  while (hist.length <= b) hist.push(0);
  hist[b] = (hist[b] ?? 0) + count;
  return hist;
}

/** Elementwise sum, as long as the longer of the two (shorter arrays read as zero-padded). */
export function mergeHistograms(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = (Number(a[i]) || 0) + (Number(b[i]) || 0);
  return out;
}

/** The q-quantile (0 ≤ q ≤ 1) in ms, interpolated inside its bucket; undefined when empty. */
export function quantile(hist: readonly number[], q: number): number | undefined {
  const counts = hist.slice(0, HISTOGRAM_BUCKETS).map((c) => Math.max(0, Number(c) || 0));
  // counts past the last bucket (longer arrays) belong to it
  for (let i = HISTOGRAM_BUCKETS; i < hist.length; i++) counts[HISTOGRAM_BUCKETS - 1]! += Math.max(0, Number(hist[i]) || 0);
  const total = counts.reduce((s, c) => s + c, 0);
  if (total <= 0) return undefined;
  const rank = Math.min(1, Math.max(0, Number.isFinite(q) ? q : 0)) * total;
  let before = 0;
  for (let i = 0; i < counts.length; i++) {
    const c = counts[i]!;
    if (c > 0 && before + c >= rank) {
      const lo = bucketLower(i);
      return lo + (bucketUpper(i) - lo) * ((rank - before) / c);
    }
    before += c;
  }
  return undefined; // not reached: rank ≤ total
}

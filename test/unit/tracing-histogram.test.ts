import { describe, expect, it } from "vitest";
import { addTo, bucketLower, bucketOf, bucketUpper, emptyHistogram, HISTOGRAM_BUCKETS, mergeHistograms, quantile } from "../../src/tracing/accounting/histogram.js";

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const exactQuantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;

describe("latency histogram", () => {
  it("has fixed log-scale buckets: <1 ms first, 20% wider each, past 24 h before the last", () => {
    expect(emptyHistogram()).toHaveLength(HISTOGRAM_BUCKETS);
    expect(emptyHistogram().every((c) => c === 0)).toBe(true);
    for (const ms of [0, 0.5, 0.999, -3, Number.NaN]) expect(bucketOf(ms)).toBe(0);
    expect(bucketOf(1)).toBe(1);
    expect(bucketOf(1.19)).toBe(1);
    expect(bucketOf(1.2)).toBe(2);
    expect(bucketOf(1.44)).toBe(3);
    const day = 24 * 3600 * 1000;
    expect(bucketOf(day)).toBeLessThan(HISTOGRAM_BUCKETS - 1);
    expect(bucketOf(1e12)).toBe(HISTOGRAM_BUCKETS - 1);
    expect(bucketOf(Infinity)).toBe(HISTOGRAM_BUCKETS - 1);
    for (let i = 1; i < HISTOGRAM_BUCKETS; i++) expect(bucketUpper(i) / bucketLower(i)).toBeCloseTo(1.2, 12);
  });

  it("puts every value inside its bucket's bounds, exact powers included", () => {
    const r = rng(1);
    const values = [...Array.from({ length: 2000 }, () => Math.exp(r() * Math.log(1e8))), ...Array.from({ length: 100 }, (_, i) => 1.2 ** i)];
    for (const v of values) {
      const b = bucketOf(v);
      if (b === HISTOGRAM_BUCKETS - 1) continue;
      expect(bucketLower(b) <= v && v < bucketUpper(b), `${v} in bucket ${b}`).toBe(true);
    }
  });

  it("adds, merges (any lengths) and is empty without counts", () => {
    const a = addTo(addTo(emptyHistogram(), 5), 5);
    expect(a[bucketOf(5)]).toBe(2);
    expect(a.reduce((s, c) => s + c, 0)).toBe(2);
    const sparse = addTo([], 1000); // grows only as far as needed, like rollup deltas
    expect(sparse).toHaveLength(bucketOf(1000) + 1);
    const m = mergeHistograms(a, sparse);
    expect(m).toHaveLength(HISTOGRAM_BUCKETS);
    expect(m[bucketOf(5)]).toBe(2);
    expect(m[bucketOf(1000)]).toBe(1);
    expect(mergeHistograms([], [])).toEqual([]);
    expect(quantile(emptyHistogram(), 0.5)).toBeUndefined();
    expect(quantile([], 0.5)).toBeUndefined();
    // a delta taking runs away leaves negative cells: they count as nothing
    expect(quantile(mergeHistograms(addTo([], 10), addTo([], 10, -2)), 0.5)).toBeUndefined();
  });

  it("interpolates quantiles inside the bucket", () => {
    const h = addTo(addTo(emptyHistogram(), 1000), 2000);
    const p50 = quantile(h, 0.5)!;
    expect(p50).toBeGreaterThan(900);
    expect(p50).toBeLessThan(1300);
    expect(quantile(h, 0.99)!).toBeGreaterThan(1800);
    expect(quantile(h, 0.99)!).toBeLessThan(2200);
    const one = addTo(emptyHistogram(), 100, 10);
    const b = bucketOf(100);
    expect(quantile(one, 0.5)).toBeCloseTo((bucketLower(b) + bucketUpper(b)) / 2, 9);
    expect(quantile(one, 0)).toBeCloseTo(bucketLower(b), 9);
    expect(quantile(one, 1)).toBeCloseTo(bucketUpper(b), 9);
    expect(quantile(addTo(emptyHistogram(), 0.3), 0.5)).toBeLessThan(1);
  });

  it("keeps the documented relative error: under 20%, a few percent typically", () => {
    const r = rng(42);
    // log-normal latencies around 800 ms
    const values = Array.from({ length: 20_000 }, () => Math.exp(Math.log(800) + 1.1 * Math.sqrt(-2 * Math.log(r() || 1e-12)) * Math.cos(2 * Math.PI * r())));
    const h = emptyHistogram();
    for (const v of values) addTo(h, v);
    const sorted = [...values].sort((a, b) => a - b);
    let sumErr = 0;
    const qs = [0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999];
    for (const q of qs) {
      const exact = exactQuantile(sorted, q);
      const err = Math.abs(quantile(h, q)! - exact) / exact;
      expect(err, `q=${q}`).toBeLessThan(0.2);
      sumErr += err;
    }
    expect(sumErr / qs.length).toBeLessThan(0.05);
  });
});

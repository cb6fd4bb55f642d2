/**
 * Retry delays for watches: exponential growth with jitter and a cap. Pure, so the rule is tested
 * on its own; the informer owns the state (the current base delay).
 *
 * Jitter spreads the restarts of many informers (and many operator replicas) that failed together —
 * an API server restart — so they do not come back in lockstep.
 */
export interface BackoffPolicy {
  /** First delay (ms). */
  min: number;
  /** Largest delay, jitter included (ms). */
  max: number;
  /** Fraction of the delay drawn at random, ± (default 0.2). */
  jitter?: number;
}

/** The base delay after one more failure: doubled, capped at `max`. */
export function nextBase(base: number, p: BackoffPolicy): number {
  return Math.min(Math.max(base, p.min) * 2, p.max);
}

/** The delay to wait for a base: base ± jitter, within [min, max]. `random` is in [0, 1). */
export function jittered(base: number, p: BackoffPolicy, random: number = Math.random()): number {
  const j = p.jitter ?? 0.2;
  const d = base * (1 - j + 2 * j * random);
  return Math.round(Math.min(p.max, Math.max(p.min, d)));
}

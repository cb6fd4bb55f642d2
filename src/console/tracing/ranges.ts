/** Time windows the tracing pages offer ("last 24 hours"…), relative to now (pure). */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const RANGES = {
  "1h": { label: "Last hour", ms: HOUR },
  "24h": { label: "Last 24 hours", ms: DAY },
  "7d": { label: "Last 7 days", ms: 7 * DAY },
  "30d": { label: "Last 30 days", ms: 30 * DAY },
  "90d": { label: "Last 90 days", ms: 90 * DAY },
} as const;

export type RangeKey = keyof typeof RANGES;

export function isRange(v: unknown): v is RangeKey {
  return typeof v === "string" && Object.hasOwn(RANGES, v);
}

/** The start of a window ending now, ISO. */
export function rangeStart(range: RangeKey, now: number): string {
  return new Date(now - RANGES[range].ms).toISOString();
}

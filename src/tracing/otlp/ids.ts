/**
 * OpenTelemetry ids → Berth run ids (pure, deterministic: a span exported twice is the same run).
 * A trace id (16 bytes) is a UUID as it is, the mapping LangSmith uses. A span id has only 8 bytes:
 * the run id is the trace id's first 8 bytes followed by the span id, so it stays unique per trace
 * even when two traces reuse a span id, and both ids can still be read off it.
 */

const uuid = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

export function traceUuid(traceIdHex: string): string {
  return uuid(traceIdHex);
}

export function runUuid(traceIdHex: string, spanIdHex: string): string {
  return uuid(traceIdHex.slice(0, 16) + spanIdHex);
}

/** Unix nanoseconds → ISO 8601 with microseconds (what Postgres keeps). */
export function isoFromNanos(ns: bigint): string {
  const micros = ns / 1000n;
  const ms = Number(micros / 1000n);
  const base = new Date(ms).toISOString(); // …sss Z
  return `${base.slice(0, 23)}${String(micros % 1000n).padStart(3, "0")}Z`;
}

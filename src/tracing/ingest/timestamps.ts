/**
 * Timestamps as the SDKs send them (pure): ISO 8601 with `Z`, with an offset (Python's "+00:00")
 * or with no zone (taken as UTC), and epoch milliseconds (the JS SDK's `end_time`). Output is an
 * ISO string Postgres reads losslessly; ISO input keeps its microseconds.
 */

const ISO_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** An ISO string with a zone, or undefined when `value` is no timestamp we can read. */
export function normalizeTimestamp(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? fromEpoch(value) : undefined;
  if (typeof value !== "string") return undefined;
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return fromEpoch(Number(s));
  const m = ISO_RE.exec(s);
  if (!m) return undefined;
  let [, date, time, zone] = m;
  // Fractions beyond microseconds are beyond Postgres; keep six digits.
  time = time!.replace(/\.(\d{6})\d+$/, ".$1");
  const iso = `${date}T${time}${zone ? (zone.toUpperCase() === "Z" ? "Z" : zone) : "Z"}`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

/** Epoch milliseconds; values that can only be seconds (before 1973 as ms) are read as seconds. */
function fromEpoch(n: number): string | undefined {
  const ms = n < 1e11 ? n * 1000 : n;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** Milliseconds since the epoch of a normalised timestamp. */
export function epochMs(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

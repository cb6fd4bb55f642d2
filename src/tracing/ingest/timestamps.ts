/**
 * Timestamps as the SDKs send them (pure): ISO 8601 with `Z`, with an offset (Python's "+00:00")
 * or with no zone (taken as UTC), and epoch milliseconds (the JS SDK's `end_time`). Output is an
 * ISO string Postgres reads losslessly; ISO input keeps its microseconds.
 */

const ISO_RE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * What the SDKs send (and what normalizeTimestamp makes of everything else): UTC, `T`, `Z`, at most
 * microseconds. Such a string is its own normal form: only its validity and range are checked.
 */
const NORMAL_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/;

/** An ISO string with a zone, or undefined when `value` is no timestamp we can read. */
export function normalizeTimestamp(value: unknown): string | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? fromEpoch(value) : undefined;
  if (typeof value !== "string") return undefined;
  if (NORMAL_RE.test(value)) {
    const ms = Date.parse(value);
    return Number.isNaN(ms) || !inStorableRange(ms) ? undefined : value;
  }
  const s = value.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return fromEpoch(Number(s));
  const m = ISO_RE.exec(s);
  if (!m) return undefined;
  let [, date, time, zone] = m;
  // Fractions beyond microseconds are beyond Postgres; keep six digits.
  time = time!.replace(/\.(\d{6})\d+$/, ".$1");
  const iso = `${date}T${time}${zone ? (zone.toUpperCase() === "Z" ? "Z" : zone) : "Z"}`;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) || !inStorableRange(ms) ? undefined : iso;
}

// Years 1 to 9999: Postgres refuses year 0, and JS writes years past 9999 as "+033658-…", which
// Postgres cannot read. (A zone offset may move an edge instant across; those are refused too.)
const MIN_MS = Date.parse("0001-01-02T00:00:00Z");
const MAX_MS = Date.parse("9999-12-30T23:59:59.999Z");
function inStorableRange(ms: number): boolean {
  return ms >= MIN_MS && ms <= MAX_MS;
}

/** Epoch milliseconds; values that can only be seconds (before 1973 as ms) are read as seconds. */
function fromEpoch(n: number): string | undefined {
  const ms = n < 1e11 ? n * 1000 : n;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) || !inStorableRange(d.getTime()) ? undefined : d.toISOString();
}

/** Milliseconds since the epoch of a normalised timestamp. */
export function epochMs(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : ms;
}

const UTC_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;

/**
 * Microseconds since the epoch of a normalised timestamp: `Date.parse` stops at milliseconds, and
 * a dotted order's start carries microseconds while the JS SDK's end has milliseconds only.
 */
export function epochMicros(iso: string | undefined): number | undefined {
  if (!iso) return undefined;
  // the usual form (what normalizeTimestamp makes of the SDKs' times) without Date.parse
  const utc = UTC_RE.exec(iso);
  if (utc && utc[1]! >= "0100" && utc[4]! <= "23") {
    const [, y, mo, d, h, mi, s, f] = utc;
    const ms = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s!);
    if (!Number.isNaN(ms)) return ms * 1000 + (f ? Number(f.padEnd(6, "0").slice(0, 6)) : 0);
  }
  const frac = /\.(\d+)/.exec(iso)?.[1] ?? "";
  const ms = Date.parse(iso.replace(/\.\d+/, ""));
  return Number.isNaN(ms) ? undefined : ms * 1000 + Number(frac.padEnd(6, "0").slice(0, 6));
}

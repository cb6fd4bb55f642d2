/**
 * The JSON text a payload was parsed from, kept beside the parsed value so the merge can write the
 * text as sent instead of serialising the value again (JSON.stringify of the SDKs' inputs and
 * outputs was about a tenth of the ingest's CPU, on top of the JSON.parse it undoes).
 *
 * Sound because nothing changes a parsed payload in place: every step that would (storable.ts,
 * payload.ts, merge.ts) copies on write, so a value that is still the very object parsed from the
 * text still says exactly what the text says. A copy has no text and is serialised as before.
 * Postgres reads the text into jsonb the same way either way (jsonb keeps the last of duplicate
 * keys, as JSON.parse does, and normalises whitespace and number spelling).
 */
const TEXT = Symbol("json text");
type WithText = { [TEXT]?: string };

/**
 * The text rides on the parsed object as a non-enumerable symbol property: no key, spread, copy or
 * serialisation sees it (a copy has none), and unlike a WeakMap entry (an ephemeron, which every
 * garbage collection must trace) it costs the collector nothing: a WeakMap of every payload of
 * every pending request was a good part of the ingest's GC time.
 */
function remember(value: object, text: string): void {
  Object.defineProperty(value, TEXT, { value: text, enumerable: false, writable: false, configurable: true });
}
const textOf = (value: object): string | undefined => (value as WithText)[TEXT];

/**
 * A number JSON.parse reads as Infinity (so JSON.stringify writes null) may be past what jsonb's
 * numeric holds: such a text is not kept (a false match, in a string, only costs the shortcut).
 */
const HUGE_EXPONENT = /\d[eE][+-]?\d{3,}/;

/** JSON.parse, remembering the text of an object or array. Throws as JSON.parse does. */
export function parseRemembered(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (typeof value === "object" && value !== null && !hugeExponent(text)) remember(value, text);
  return value;
}

/** HUGE_EXPONENT's test, run only on a text that has an exponent letter after a digit at all (most have none). */
function hugeExponent(text: string): boolean {
  for (let i = text.indexOf("e"); i >= 0; i = text.indexOf("e", i + 1)) if (i > 0 && isDigit(text.charCodeAt(i - 1))) return HUGE_EXPONENT.test(text);
  for (let i = text.indexOf("E"); i >= 0; i = text.indexOf("E", i + 1)) if (i > 0 && isDigit(text.charCodeAt(i - 1))) return HUGE_EXPONENT.test(text);
  return false;
}
const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Recent texts of payloads that repeat (a run's `extra` is sent alike with its post and its patch,
 * and often alike by every run of a trace): parsed once, the same value handed out again. Sound
 * for the reason above (nothing changes a parsed payload in place); bounded, short texts only.
 */
const shared = new Map<string, unknown>();
const SHARED_MAX = 512;
const SHARED_MAX_CHARS = 4096;

/** parseRemembered, answering a text seen recently with the value parsed then. Throws as JSON.parse does. */
export function parseShared(text: string): unknown {
  if (text.length > SHARED_MAX_CHARS) return parseRemembered(text);
  const hit = shared.get(text);
  if (hit !== undefined) return hit;
  const value = parseRemembered(text);
  if (typeof value !== "object" || value === null) return value;
  if (shared.size >= SHARED_MAX) shared.clear();
  shared.set(text, value);
  return value;
}

/** `value` as JSON: the text it was parsed from when it is that very object, else JSON.stringify. */
export function jsonText(value: unknown): string {
  return (typeof value === "object" && value !== null && textOf(value)) || JSON.stringify(value);
}

/** Whether `a` and `b` were parsed from the very same text (so they are equal, key order included). */
export function sameText(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return false;
  const t = textOf(a);
  return t !== undefined && t === textOf(b);
}

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
const texts = new WeakMap<object, string>();

/**
 * A number JSON.parse reads as Infinity (so JSON.stringify writes null) may be past what jsonb's
 * numeric holds: such a text is not kept (a false match, in a string, only costs the shortcut).
 */
const HUGE_EXPONENT = /\d[eE][+-]?\d{3,}/;

/** JSON.parse, remembering the text of an object or array. Throws as JSON.parse does. */
export function parseRemembered(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  if (typeof value === "object" && value !== null && !HUGE_EXPONENT.test(text)) texts.set(value, text);
  return value;
}

/** `value` as JSON: the text it was parsed from when it is that very object, else JSON.stringify. */
export function jsonText(value: unknown): string {
  return (typeof value === "object" && value !== null && texts.get(value)) || JSON.stringify(value);
}

/** Whether `a` and `b` were parsed from the very same text (so they are equal, key order included). */
export function sameText(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return false;
  const t = texts.get(a);
  return t !== undefined && t === texts.get(b);
}

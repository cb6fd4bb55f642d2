/**
 * Pretty JSON for display (pure), capped: a traced payload can hold megabytes (base64 media, long
 * documents), and a <pre> of all of it freezes the page. The cap cuts the text, not the value, so
 * what is shown is exactly the start of the full text.
 */

/** Characters shown before "show all". */
export const JSON_PREVIEW_CHARS = 20_000;

export interface JsonText {
  /** The text to show (the start of `full` when truncated). */
  text: string;
  truncated: boolean;
  /** Length of the full text, to say how much is hidden. */
  total: number;
}

/** JSON.stringify that never throws (cycles, BigInt) and shows `undefined` as such. */
export function stringify(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v), 2) ?? String(value);
  } catch {
    return String(value);
  }
}

export function jsonText(value: unknown, limit: number = JSON_PREVIEW_CHARS): JsonText {
  const full = typeof value === "string" ? value : stringify(value);
  if (full.length <= limit) return { text: full, truncated: false, total: full.length };
  return { text: full.slice(0, limit), truncated: true, total: full.length };
}

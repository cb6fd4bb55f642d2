/**
 * A run as sent → a run Postgres can store, whatever the SDK put in it (pure). Every string and key
 * loses the characters `text`/`jsonb` refuse (U+FFFD instead, shared/text.ts), and nesting deeper
 * than `MAX_RUN_DEPTH` is cut with a marker: Postgres, `JSON.stringify` and the ingest's own walks
 * recurse, so a ten-thousand-level payload must not reach them. Iterative, so depth cannot overflow
 * the stack here either. A clean run (the usual case) is returned as is, without a copy.
 */
import { isStorableText, replaceUnstorable } from "../../shared/text.js";

/** Levels of objects/arrays kept in a run (the run object itself is level 1). */
export const MAX_RUN_DEPTH = 100;

export function depthMarker(maxDepth: number): string {
  return `…[cut by Berth: nested deeper than ${maxDepth} levels]`;
}

export interface StorableRun {
  value: unknown;
  /** Strings or keys whose unstorable characters were replaced. */
  replaced: number;
  /** Values cut for depth. */
  cut: number;
  /**
   * The longest string value (in UTF-16 units) of a run returned as is: payload.ts changes only
   * strings longer than its limits, so a run whose strings are all shorter needs no second walk.
   * Infinity when the run was rebuilt (not measured).
   */
  longest: number;
}

export function storableRun(raw: unknown, maxDepth = MAX_RUN_DEPTH): StorableRun {
  const longest = cleanLongest(raw, 0, maxDepth);
  if (longest >= 0) return { value: raw, replaced: 0, cut: 0, longest };
  let replaced = 0;
  let cut = 0;
  const fix = (s: string) => {
    const r = replaceUnstorable(s);
    if (r !== s) replaced++;
    return r;
  };
  // own data properties, even one named "__proto__" (JSON.parse makes those)
  const put = (o: Record<string, unknown>, k: string, v: unknown) => Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  const root: { v?: unknown } = {};
  const stack: [unknown, (v: unknown) => void, number][] = [[raw, (v) => (root.v = v), 0]];
  while (stack.length) {
    const [src, set, depth] = stack.pop()!;
    if (typeof src === "string") set(fix(src));
    else if (typeof src !== "object" || src === null) set(src);
    else if (depth >= maxDepth) {
      cut++;
      set(depthMarker(maxDepth));
    } else if (Array.isArray(src)) {
      const out: unknown[] = new Array(src.length);
      set(out);
      for (let i = 0; i < src.length; i++) stack.push([src[i], (v) => (out[i] = v), depth + 1]);
    } else {
      const out: Record<string, unknown> = {};
      set(out);
      for (const k of Object.keys(src)) {
        const key = fix(k);
        put(out, key, undefined); // insertion order as sent; filled when popped
        stack.push([(src as Record<string, unknown>)[k], (v) => put(out, key, v), depth + 1]);
      }
    }
  }
  return { value: root.v, replaced, cut, longest: Infinity };
}

/**
 * -1 when `v` holds a string or key Postgres cannot store or nests `maxDepth` levels or deeper;
 * else its longest string value's length. Recursive, but never deeper than `maxDepth` (it stops
 * there), so no input can overflow the stack; no allocation per value (the ingest walks every
 * value of every run with it).
 */
function cleanLongest(v: unknown, depth: number, maxDepth: number): number {
  if (typeof v === "string") return isStorableText(v) ? v.length : -1;
  if (typeof v !== "object" || v === null) return 0;
  if (depth >= maxDepth) return -1;
  let longest = 0;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const n = cleanLongest(v[i], depth + 1, maxDepth);
      if (n < 0) return -1;
      if (n > longest) longest = n;
    }
    return longest;
  }
  for (const k in v) {
    if (!Object.hasOwn(v, k)) continue;
    if (!isStorableText(k)) return -1;
    const n = cleanLongest((v as Record<string, unknown>)[k], depth + 1, maxDepth);
    if (n < 0) return -1;
    if (n > longest) longest = n;
  }
  return longest;
}

// ---- column values: what the run's indexed and numeric columns can hold ----

/**
 * Longest value kept in an indexed text column (thread_id, model, provider): a btree entry must fit
 * in a third of a page (~2.7 kB), and a UTF-16 unit can take 3 bytes of UTF-8.
 */
export const MAX_INDEXED_CHARS = 512;
/**
 * Largest token count stored: far beyond any real run, and small enough that hourly sums of many
 * runs stay inside `bigint`. Larger counts are not stored (null) and the run says why.
 */
export const MAX_TOKENS = 1e12;

/** An indexed text value, cut to what its index can hold (and said so). */
export function indexable(field: string, value: unknown, notes: string[]): string | null {
  if (value === undefined || value === null) return null;
  const s = replaceUnstorable(typeof value === "string" ? value : JSON.stringify(value) ?? String(value));
  if (s.length <= MAX_INDEXED_CHARS) return s;
  notes.push(`${field} is ${s.length} characters long: cut to ${MAX_INDEXED_CHARS}`);
  return s.slice(0, MAX_INDEXED_CHARS);
}

/** A token count as a `bigint` column takes it; anything else is not stored (and said so). */
export function tokenCount(field: string, value: number | undefined | null, notes: string[]): number | null {
  if (value === undefined || value === null) return null;
  if (Number.isFinite(value) && Math.abs(value) <= MAX_TOKENS) return Math.round(value);
  notes.push(`${field} ${value} is not a token count that can be stored (a number up to ${MAX_TOKENS}): not stored`);
  return null;
}

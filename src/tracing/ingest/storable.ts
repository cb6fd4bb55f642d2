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
}

export function storableRun(raw: unknown, maxDepth = MAX_RUN_DEPTH): StorableRun {
  if (isClean(raw, maxDepth)) return { value: raw, replaced: 0, cut: 0 };
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
  return { value: root.v, replaced, cut };
}

function isClean(raw: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[raw, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v === "string") {
      if (!isStorableText(v)) return false;
    } else if (typeof v === "object" && v !== null) {
      if (depth >= maxDepth) return false;
      if (Array.isArray(v)) for (const x of v) stack.push([x, depth + 1]);
      else
        for (const k of Object.keys(v)) {
          if (!isStorableText(k)) return false;
          stack.push([(v as Record<string, unknown>)[k], depth + 1]);
        }
    }
  }
  return true;
}

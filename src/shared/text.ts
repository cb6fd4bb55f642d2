/**
 * Text Postgres can store (pure). `text` refuses NUL (22021 / 22P05 in `jsonb`) and `jsonb` refuses
 * unpaired UTF-16 surrogates (22P02: JSON strings are UTF-8 once stored, and half a pair has no
 * UTF-8 form). Every component applies one of two rules to what clients send:
 * - reject (`findUnstorable`): the control plane, the agent server and A2A answer 422 / -32602
 *   naming the field — a secret, an id or a command silently altered would be worse than refused;
 * - replace (`replaceUnstorable`): tracing stores what an SDK sent as well as it can, the bad
 *   characters becoming U+FFFD (its README promises a bad run never costs the batch).
 *
 * The walks are iterative, so a body nested ten thousand levels deep does not overflow the stack.
 */

/**
 * Request nesting deeper than this is refused (422 / -32602): nothing Berth stores is legitimately
 * that deep, and Postgres, JSON.stringify and schema walks all recurse.
 */
export const MAX_REQUEST_DEPTH = 512;

/** NUL, and surrogates that are not part of a pair. */
const UNSTORABLE_RE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_RE_G = new RegExp(UNSTORABLE_RE.source, "g");

export function isStorableText(s: string): boolean {
  return !UNSTORABLE_RE.test(s);
}

export function replaceUnstorable(s: string): string {
  return UNSTORABLE_RE.test(s) ? s.replace(UNSTORABLE_RE_G, "\uFFFD") : s;
}

/** Why a string is refused, for error messages. */
export function unstorableReason(s: string): string {
  return s.includes("\u0000")
    ? "must not contain the NUL character (\\u0000)"
    : "must not contain an unpaired UTF-16 surrogate (such as a lone \\ud800): it is not valid Unicode";
}

export interface UnstorableFound {
  /** Path to the string (or the key) from the root: object keys and array indexes. */
  path: (string | number)[];
  msg: string;
}

/**
 * The first string (value or object key) in `value` that Postgres cannot store, or undefined.
 * `maxDepth` also refuses nesting deeper than that (Postgres parses jsonb recursively).
 */
export function findUnstorable(value: unknown, maxDepth = Infinity): UnstorableFound | undefined {
  // parent links, not a path per entry: copying paths would cost depth² on deep bodies
  interface Entry {
    v: unknown;
    depth: number;
    key?: string | number;
    parent?: Entry;
  }
  const pathOf = (e: Entry | undefined, last?: string): (string | number)[] => {
    const out: (string | number)[] = last === undefined ? [] : [last];
    for (let x = e; x && x.key !== undefined; x = x.parent) out.unshift(x.key);
    return out;
  };
  const stack: Entry[] = [{ v: value, depth: 0 }];
  while (stack.length) {
    const e = stack.pop()!;
    const v = e.v;
    if (typeof v === "string") {
      if (!isStorableText(v)) return { path: pathOf(e), msg: unstorableReason(v) };
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    if (e.depth >= maxDepth) return { path: pathOf(e), msg: `is nested more than ${maxDepth} levels deep` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: e.depth + 1, key: i, parent: e });
      continue;
    }
    const keys = Object.keys(v);
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      if (!isStorableText(k)) return { path: pathOf(e, k), msg: `an object key ${unstorableReason(k)}` };
      stack.push({ v: (v as Record<string, unknown>)[k], depth: e.depth + 1, key: k, parent: e });
    }
  }
  return undefined;
}

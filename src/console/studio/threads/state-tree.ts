/**
 * A state's values as rows of a collapsible tree (pure): the panel renders only the rows this
 * returns, so a state with a huge array costs what is expanded, not what is stored. Paths are
 * arrays of keys/indices; `pathId` turns one into the string the expanded set holds.
 */

export type NodeKind = "object" | "array" | "string" | "number" | "boolean" | "null" | "other";

export interface TreeRow {
  /** Stable id of the row: its path (see pathId). */
  id: string;
  path: (string | number)[];
  /** Key or index shown at the start of the row. */
  label: string;
  depth: number;
  kind: NodeKind;
  /** One-line description: a scalar's value, or "{3 keys}" / "[5 items]". */
  summary: string;
  expandable: boolean;
  expanded: boolean;
  /** Expanded, but its children are shown some other way (messages): no rows for them. */
  opaque: boolean;
  value: unknown;
}

/** A "… N more" row in place of children past the cap. */
export interface MoreRow {
  id: string;
  more: number;
  depth: number;
  /** Path of the container whose children were capped. */
  parent: string;
}

export type Row = TreeRow | MoreRow;

export const isMoreRow = (r: Row): r is MoreRow => "more" in r;

export const STRING_PREVIEW = 160;
export const CHILDREN_CAP = 200;

export function kindOf(v: unknown): NodeKind {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) return "array";
  switch (typeof v) {
    case "object":
      return "object";
    case "string":
      return "string";
    case "number":
    case "bigint":
      return "number";
    case "boolean":
      return "boolean";
    default:
      return "other";
  }
}

/** JSON-pointer-like id: segments escaped so "a/b" as one key differs from a → b. */
export function pathId(path: readonly (string | number)[]): string {
  return path.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");
}

export function summarize(v: unknown, preview = STRING_PREVIEW): string {
  const kind = kindOf(v);
  if (kind === "array") {
    const n = (v as unknown[]).length;
    return `[${n} item${n === 1 ? "" : "s"}]`;
  }
  if (kind === "object") {
    const n = Object.keys(v as object).length;
    return `{${n} key${n === 1 ? "" : "s"}}`;
  }
  if (kind === "string") {
    const s = v as string;
    const shown = s.length > preview ? `${s.slice(0, preview)}…` : s;
    return JSON.stringify(shown);
  }
  if (kind === "null") return v === undefined ? "undefined" : "null";
  return String(v);
}

function children(v: unknown): [string | number, unknown][] {
  if (Array.isArray(v)) return v.map((x, i) => [i, x]);
  if (v && typeof v === "object") return Object.entries(v as Record<string, unknown>);
  return [];
}

/**
 * The visible rows of `values`: its top-level keys at depth 0 and, under every expanded
 * container, its children (at most `cap` of them, then a MoreRow). `shownMore` lifts the cap of
 * the containers whose ids it holds; an expanded container `opaque` says yes to lists no children.
 */
export function flattenState(
  values: unknown,
  expanded: ReadonlySet<string>,
  opts: { cap?: number; shownMore?: ReadonlySet<string>; opaque?: (value: unknown, id: string) => boolean } = {},
): Row[] {
  const cap = opts.cap ?? CHILDREN_CAP;
  const out: Row[] = [];
  const walk = (v: unknown, path: (string | number)[], depth: number) => {
    const kids = children(v);
    const parent = pathId(path);
    const limit = opts.shownMore?.has(parent) ? kids.length : cap;
    for (const [key, child] of kids.slice(0, limit)) {
      const p = [...path, key];
      const id = pathId(p);
      const kind = kindOf(child);
      const expandable = (kind === "object" || kind === "array") && children(child).length > 0;
      const isOpen = expandable && expanded.has(id);
      const opaque = isOpen && (opts.opaque?.(child, id) ?? false);
      out.push({ id, path: p, label: String(key), depth, kind, summary: summarize(child), expandable, expanded: isOpen, opaque, value: child });
      if (isOpen && !opaque) walk(child, p, depth + 1);
    }
    if (kids.length > limit) out.push({ id: `${parent}#more`, more: kids.length - limit, depth, parent });
  };
  walk(values, [], 0);
  return out;
}

/** Ids of every container in `values` down to `depth` levels (for "expand all" within reason). */
export function containerIds(values: unknown, depth: number): string[] {
  const out: string[] = [];
  const walk = (v: unknown, path: (string | number)[], d: number) => {
    if (d >= depth) return;
    for (const [key, child] of children(v)) {
      const k = kindOf(child);
      if ((k === "object" || k === "array") && children(child).length > 0) {
        const p = [...path, key];
        out.push(pathId(p));
        walk(child, p, d + 1);
      }
    }
  };
  walk(values, [], 0);
  return out;
}

/** Returns a new set with `id` flipped. */
export function toggle(set: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(set);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

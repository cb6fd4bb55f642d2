/**
 * What changed between two checkpoints' values (pure). Objects are compared key by key, arrays
 * index by index — except arrays whose items all carry a distinct string `id` (LangGraph
 * messages), which are matched by id so one message inserted early does not show every later
 * message as changed.
 */

export type Segment = string | number | { id: string };

export interface DiffEntry {
  path: Segment[];
  change: "added" | "removed" | "changed";
  before?: unknown;
  after?: unknown;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The ids of an array's items when every item has a distinct string id; undefined otherwise. */
function itemIds(list: unknown[]): string[] | undefined {
  if (!list.length) return undefined;
  const ids: string[] = [];
  for (const item of list) {
    const id = isPlainObject(item) ? item.id : undefined;
    if (typeof id !== "string" || !id) return undefined;
    ids.push(id);
  }
  return new Set(ids).size === ids.length ? ids : undefined;
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return Number.isNaN(a) && Number.isNaN(b);
}

/** Every difference from `before` to `after`, in document order of `after` (removals last per container). */
export function diffValues(before: unknown, after: unknown, path: Segment[] = []): DiffEntry[] {
  if (deepEqual(before, after)) return [];
  if (isPlainObject(before) && isPlainObject(after)) {
    const out: DiffEntry[] = [];
    for (const [k, v] of Object.entries(after)) {
      if (!Object.prototype.hasOwnProperty.call(before, k)) out.push({ path: [...path, k], change: "added", after: v });
      else out.push(...diffValues(before[k], v, [...path, k]));
    }
    for (const [k, v] of Object.entries(before)) {
      if (!Object.prototype.hasOwnProperty.call(after, k)) out.push({ path: [...path, k], change: "removed", before: v });
    }
    return out;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const idsA = itemIds(before);
    const idsB = itemIds(after);
    if (idsA && idsB) {
      const out: DiffEntry[] = [];
      const byId = new Map(idsA.map((id, i) => [id, before[i]]));
      const inAfter = new Set(idsB);
      idsB.forEach((id, i) => {
        if (!byId.has(id)) out.push({ path: [...path, { id }], change: "added", after: after[i] });
        else out.push(...diffValues(byId.get(id), after[i], [...path, { id }]));
      });
      idsA.forEach((id, i) => {
        if (!inAfter.has(id)) out.push({ path: [...path, { id }], change: "removed", before: before[i] });
      });
      return out;
    }
    const out: DiffEntry[] = [];
    const n = Math.max(before.length, after.length);
    for (let i = 0; i < n; i++) {
      if (i >= before.length) out.push({ path: [...path, i], change: "added", after: after[i] });
      else if (i >= after.length) out.push({ path: [...path, i], change: "removed", before: before[i] });
      else out.push(...diffValues(before[i], after[i], [...path, i]));
    }
    return out;
  }
  return [{ path, change: "changed", before, after }];
}

/** `messages[id=abc].content`, `log[2]`, `a.b` — how a diff path reads on screen. */
export function formatPath(path: readonly Segment[]): string {
  if (!path.length) return "(whole state)";
  let out = "";
  for (const s of path) {
    if (typeof s === "number") out += `[${s}]`;
    else if (typeof s === "object") out += `[id=${s.id}]`;
    else out += /^[A-Za-z_$][\w$]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
  }
  return out;
}

export interface DiffCounts {
  added: number;
  removed: number;
  changed: number;
}

export function countChanges(entries: readonly DiffEntry[]): DiffCounts {
  const c: DiffCounts = { added: 0, removed: 0, changed: 0 };
  for (const e of entries) c[e.change]++;
  return c;
}

/**
 * Patch algorithms: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and an approximation of
 * server-side apply.
 *
 * Approximations:
 * - strategic-merge-patch is treated as a merge patch: lists are replaced, `$patch`/`$retainKeys`
 *   directives are not understood (they would be stored as fields), containers are not merged by name.
 * - server-side apply does not build managedFields. For each object and field manager it remembers
 *   the last applied configuration. A new apply (1) removes the leaf fields the manager applied last
 *   time and no longer applies (unless another applier still applies them), (2) checks conflicts:
 *   another *applier* applied a different value for the same leaf → 409 unless `force=true`, in
 *   which case that applier loses ownership of the field, (3) deep-merges the applied configuration
 *   into the object. Maps merge; lists are atomic (replaced wholesale), except `metadata.finalizers`
 *   which is a set (union, minus the entries this manager stopped applying). Conflicts with
 *   non-apply writers (merge patch, PUT) are not detected.
 */
import { ApiError } from "./errors.js";
import { clone, deepEqual, deletePath, getPath, isObject } from "./util.js";

// ---------------------------------------------------------------- RFC 7386 merge patch

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: Record<string, any> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete result[k];
    else result[k] = mergePatch(result[k], v);
  }
  return result;
}

// ---------------------------------------------------------------- RFC 6902 JSON patch

function unprocessable(message: string): ApiError {
  return new ApiError(422, message, "Invalid");
}

function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== "string") throw unprocessable(`invalid JSON pointer: ${String(pointer)}`);
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw unprocessable(`invalid JSON pointer "${pointer}": must start with /`);
  return pointer
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function arrayIndex(arr: unknown[], token: string, forAdd: boolean, path: string): number {
  if (token === "-" && forAdd) return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw unprocessable(`invalid array index "${token}" in ${path}`);
  const i = Number(token);
  if (i > arr.length || (!forAdd && i === arr.length)) throw unprocessable(`array index ${i} out of bounds in ${path}`);
  return i;
}

/** Resolve the parent container of `tokens` in `root`; throws 422 when it is missing. */
function parentOf(root: any, tokens: string[], op: string, path: string): any {
  let cur = root;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[arrayIndex(cur, t, false, path)];
    else if (isObject(cur) && t in cur) cur = cur[t];
    else throw unprocessable(`jsonpatch ${op} operation does not apply: doc is missing path: "${path}"`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) {
    throw unprocessable(`jsonpatch ${op} operation does not apply: doc is missing path: "${path}"`);
  }
  return cur;
}

function readPointer(root: any, pointer: string, op: string): any {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return root;
  const parent = parentOf(root, tokens, op, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(parent, last, false, pointer)];
  if (!(last in parent)) throw unprocessable(`jsonpatch ${op} operation does not apply: doc is missing path: "${pointer}"`);
  return parent[last];
}

function addAt(root: any, pointer: string, value: any, op: string): any {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const parent = parentOf(root, tokens, op, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, pointer), 0, value);
  else parent[last] = value;
  return root;
}

function removeAt(root: any, pointer: string, op: string): any {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return undefined;
  const parent = parentOf(root, tokens, op, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const removed = parent.splice(arrayIndex(parent, last, false, pointer), 1);
    return removed[0];
  }
  if (!(last in parent)) throw unprocessable(`jsonpatch ${op} operation does not apply: doc is missing path: "${pointer}"`);
  const old = parent[last];
  delete parent[last];
  return old;
}

export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new ApiError(400, "json patch body must be a JSON array of operations", "BadRequest");
  let root: any = clone(doc);
  for (const op of ops) {
    if (!isObject(op) || typeof op.op !== "string") throw unprocessable("invalid JSON patch operation");
    switch (op.op) {
      case "add":
        root = addAt(root, op.path, clone(op.value), "add");
        break;
      case "remove":
        if (parsePointer(op.path).length === 0) throw unprocessable("jsonpatch remove operation does not apply to the document root");
        removeAt(root, op.path, "remove");
        break;
      case "replace":
        readPointer(root, op.path, "replace");
        if (parsePointer(op.path).length === 0) root = clone(op.value);
        else {
          removeAt(root, op.path, "replace");
          root = addAt(root, op.path, clone(op.value), "replace");
        }
        break;
      case "move": {
        const value = readPointer(root, op.from, "move");
        removeAt(root, op.from, "move");
        root = addAt(root, op.path, value, "move");
        break;
      }
      case "copy":
        root = addAt(root, op.path, clone(readPointer(root, op.from, "copy")), "copy");
        break;
      case "test": {
        let actual: unknown;
        try {
          actual = readPointer(root, op.path, "test");
        } catch {
          actual = undefined;
        }
        if (!deepEqual(actual, op.value)) {
          throw unprocessable(`the server rejected our request due to an error in our request: testing value ${op.path} failed: test failed`);
        }
        break;
      }
      default:
        throw unprocessable(`Unexpected kind: ${op.op}`);
    }
  }
  return root;
}

// ---------------------------------------------------------------- server-side apply (approximation)

/** Paths that identify the object; never removed nor conflicting. */
const IDENTITY = new Set(["apiVersion", "kind", "metadata.name", "metadata.namespace", "metadata.resourceVersion"]);
const FINALIZERS = "metadata.finalizers";

/** Leaf paths of an applied configuration: scalars, lists and empty maps are leaves. */
export function leafPaths(value: unknown, prefix: string[] = [], out: string[][] = []): string[][] {
  if (isObject(value) && Object.keys(value).length > 0) {
    for (const [k, v] of Object.entries(value)) leafPaths(v, [...prefix, k], out);
  } else if (prefix.length > 0) {
    out.push(prefix);
  }
  return out;
}

export interface ApplyConflict {
  manager: string;
  field: string;
}

/**
 * Compute the object that results from `manager` applying `applied` to `existing`.
 * `records` maps every applier of this object (and subresource) to its last applied config; the
 * map is updated in place (the manager's new config, ownership lost by others on force) but the
 * configs in it are never mutated (replaced by trimmed copies), so callers may pass a shallow copy.
 * The result is a fresh object (no structure shared with `existing` or `applied`).
 */
export function serverSideApply(
  existing: Record<string, any> | undefined,
  applied: Record<string, any>,
  manager: string,
  records: Map<string, Record<string, any>>,
  force: boolean,
): Record<string, any> {
  const base: Record<string, any> = clone(existing) ?? {};
  const previous = records.get(manager);
  const others = [...records.entries()].filter(([m]) => m !== manager);
  const appliedByOthers = (path: string[]) => others.some(([, cfg]) => getPath(cfg, path) !== undefined);

  // 1. conflicts: another applier owns the same leaf with a different value.
  const conflicts: ApplyConflict[] = [];
  const leaves = leafPaths(applied);
  for (const path of leaves) {
    const dotted = path.join(".");
    if (IDENTITY.has(dotted) || dotted === FINALIZERS) continue;
    const mine = getPath(applied, path);
    for (const [other, cfg] of others) {
      const theirs = getPath(cfg, path);
      if (theirs !== undefined && !deepEqual(theirs, mine)) conflicts.push({ manager: other, field: "." + dotted });
    }
  }
  if (conflicts.length > 0 && !force) {
    const lines = conflicts.map((c) => `conflict with "${c.manager}": ${c.field}`);
    throw new ApiError(
      409,
      conflicts.length === 1 ? `Apply failed with 1 conflict: ${lines[0]}` : `Apply failed with ${conflicts.length} conflicts: ${lines.join("\n")}`,
      "Conflict",
      { causes: conflicts.map((c) => ({ type: "FieldManagerConflict", message: `conflict with "${c.manager}"`, field: c.field })) },
    );
  }
  for (const c of conflicts) {
    const cfg = records.get(c.manager);
    if (!cfg) continue;
    const trimmed = clone(cfg);
    deletePath(trimmed, c.field.slice(1).split("."));
    records.set(c.manager, trimmed);
  }

  // 2. remove what this manager applied last time and no longer applies.
  if (previous) {
    for (const path of leafPaths(previous)) {
      const dotted = path.join(".");
      if (IDENTITY.has(dotted) || dotted === FINALIZERS) continue;
      if (getPath(applied, path) !== undefined || appliedByOthers(path)) continue;
      // A parent that is now applied as a scalar/list replaces the subtree anyway.
      if (path.some((_, i) => i > 0 && i < path.length && getPath(applied, path.slice(0, i)) !== undefined && !isObject(getPath(applied, path.slice(0, i))))) continue;
      const current = getPath(base, path);
      if (isObject(current) && Object.keys(current).length > 0 && isObject(getPath(previous, path))) continue; // empty-map leaf now filled by others
      deletePath(base, path);
    }
  }

  // 3. finalizers are a set.
  const prevFinalizers: string[] = previous?.metadata?.finalizers ?? [];
  const newFinalizers: string[] | undefined = applied.metadata?.finalizers;
  const othersFinalizers = new Set(others.flatMap(([, cfg]) => (cfg.metadata?.finalizers ?? []) as string[]));
  let finalizers: string[] = base.metadata?.finalizers ?? [];
  finalizers = finalizers.filter((f) => !prevFinalizers.includes(f) || newFinalizers?.includes(f) || othersFinalizers.has(f));
  for (const f of newFinalizers ?? []) if (!finalizers.includes(f)) finalizers.push(f);

  // 4. deep-merge the configuration (maps merge, lists and scalars replace).
  const result = mergePatch(base, withoutFinalizers(applied)) as Record<string, any>;
  if (finalizers.length > 0) result.metadata = { ...result.metadata, finalizers };
  else if (result.metadata) delete result.metadata.finalizers;

  records.set(manager, applied);
  return result;
}

function withoutFinalizers(applied: Record<string, any>): Record<string, any> {
  if (!applied.metadata || !("finalizers" in applied.metadata)) return applied;
  const { finalizers: _dropped, ...metadata } = applied.metadata;
  return { ...applied, metadata };
}

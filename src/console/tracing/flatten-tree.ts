/**
 * A trace's run tree as the flat list of rows the waterfall shows (pure). A trace can hold tens of
 * thousands of runs: everything here is one linear pass, iterative (no recursion depth limit), and
 * a collapsed run hides its subtree without visiting it.
 */

/** The part of a trace node these rules read (the API's TraceNode has it). */
export interface TreeNode<T extends TreeNode<T>> {
  id: string;
  run_type: string;
  status?: string;
  children: T[];
}

export interface FlatRow<T> {
  node: T;
  /** 0 for a root. */
  depth: number;
  hasChildren: boolean;
  /** Whether its children are shown (false for a leaf). */
  expanded: boolean;
}

/** Depth-first, parents before children, siblings in the order the API gave (start order). */
export function flattenTree<T extends TreeNode<T>>(roots: readonly T[], collapsed: ReadonlySet<string>): FlatRow<T>[] {
  const rows: FlatRow<T>[] = [];
  const stack: { node: T; depth: number }[] = [];
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ node: roots[i]!, depth: 0 });
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    const hasChildren = node.children.length > 0;
    const expanded = hasChildren && !collapsed.has(node.id);
    rows.push({ node, depth, hasChildren, expanded });
    if (expanded) for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i]!, depth: depth + 1 });
  }
  return rows;
}

export interface TreeIndex<T> {
  /** Every run by id. */
  byId: Map<string, T>;
  /** The parent of each run that has one in this tree. */
  parentOf: Map<string, string>;
  /** Runs in tree order (as if nothing were collapsed). */
  order: T[];
  /** Runs with a failed run somewhere below them (so a collapsed row can say so). */
  failedBelow: Set<string>;
}

export function indexTree<T extends TreeNode<T>>(roots: readonly T[]): TreeIndex<T> {
  const byId = new Map<string, T>();
  const parentOf = new Map<string, string>();
  const order: T[] = [];
  const stack: T[] = [...roots].reverse();
  while (stack.length) {
    const node = stack.pop()!;
    byId.set(node.id, node);
    order.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i]!;
      parentOf.set(child.id, node.id);
      stack.push(child);
    }
  }
  // children come after their parents in `order`: walking it backwards settles each run's
  // subtree before the run itself
  const failedBelow = new Set<string>();
  for (let i = order.length - 1; i >= 0; i--) {
    const node = order[i]!;
    const parent = parentOf.get(node.id);
    if (parent !== undefined && (node.status === "error" || failedBelow.has(node.id))) failedBelow.add(parent);
  }
  return { byId, parentOf, order, failedBelow };
}

/** The run shown when no run is chosen: the first LLM call (what people open a trace for), else the root. */
export function defaultSelection<T extends TreeNode<T>>(index: TreeIndex<T>): string | undefined {
  return (index.order.find((n) => n.run_type === "llm") ?? index.order[0])?.id;
}

/** Ids of the runs above `id`, nearest first. */
export function ancestorsOf(index: TreeIndex<unknown>, id: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>([id]); // a malformed tree must not loop forever
  for (let p = index.parentOf.get(id); p !== undefined && !seen.has(p); p = index.parentOf.get(p)) {
    out.push(p);
    seen.add(p);
  }
  return out;
}

/** `collapsed` without the ancestors of `id`, so that run is visible (the same set when it already is). */
export function revealRun(index: TreeIndex<unknown>, collapsed: ReadonlySet<string>, id: string): ReadonlySet<string> {
  const hidden = ancestorsOf(index, id).filter((a) => collapsed.has(a));
  if (!hidden.length) return collapsed;
  const next = new Set(collapsed);
  for (const a of hidden) next.delete(a);
  return next;
}

/** Every run that has children ("collapse all": only the roots stay visible). */
export function allParents<T extends TreeNode<T>>(index: TreeIndex<T>): Set<string> {
  return new Set(index.order.filter((n) => n.children.length > 0).map((n) => n.id));
}

/**
 * Where a key takes the selection in the visible rows: up/down move by one, home/end jump,
 * left goes to the parent (when the row is a leaf or already collapsed), right to the first child.
 * Returns the new selection and the change to the collapsed set, if any.
 */
export function navigate<T extends TreeNode<T>>(
  rows: readonly FlatRow<T>[],
  index: TreeIndex<T>,
  selected: string | undefined,
  key: string,
): { select?: string; collapse?: string; expand?: string } | undefined {
  if (!rows.length) return undefined;
  const at = selected === undefined ? -1 : rows.findIndex((r) => r.node.id === selected);
  const row = at >= 0 ? rows[at] : undefined;
  switch (key) {
    case "ArrowDown":
      return { select: rows[Math.min(rows.length - 1, at + 1)]!.node.id };
    case "ArrowUp":
      return { select: rows[Math.max(0, at - 1)]!.node.id };
    case "Home":
      return { select: rows[0]!.node.id };
    case "End":
      return { select: rows[rows.length - 1]!.node.id };
    case "ArrowLeft":
      if (!row) return undefined;
      if (row.expanded) return { collapse: row.node.id };
      return index.parentOf.has(row.node.id) ? { select: index.parentOf.get(row.node.id) } : undefined;
    case "ArrowRight":
      if (!row || !row.hasChildren) return undefined;
      if (!row.expanded) return { expand: row.node.id };
      return { select: row.node.children[0]!.id };
    default:
      return undefined;
  }
}

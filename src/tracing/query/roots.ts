/**
 * Which runs are roots in run lists (`is_root`): runs without a parent, and runs whose parent was
 * never stored — an OTLP span whose parent has not arrived (or never will: its process died, or it
 * was sampled out). otlp/tree.ts gives such an orphan a dotted order of one segment (its own) and,
 * once the parent arrives, rewrites it to continue the parent's; so "one segment" says exactly
 * "a top right now", and needs no probe of the parent per row. The expression is the predicate of
 * the partial index tracing_runs_tops (migrations.ts), written the same so the planner uses it.
 */
export function isTopSql(alias?: string): string {
  const a = alias ? `${alias}.` : "";
  return `(${a}parent_run_id IS NULL OR strpos(${a}dotted_order, '.') = 0)`;
}

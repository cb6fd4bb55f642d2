/** The WHERE clause of run lists and run stats (one filter model for both). Tenant-scoped. */
import { containsPattern } from "../../shared/db/like.js";
import { filterSql } from "./filter.js";
import { isTopSql } from "./roots.js";

export interface RunFilter {
  project_id?: string;
  trace_id?: string;
  parent_run_id?: string;
  is_root?: boolean;
  run_type?: string;
  status?: string;
  name?: string;
  name_contains?: string;
  model?: string;
  trace_model?: string;
  min_latency_ms?: number;
  max_latency_ms?: number;
  thread_id?: string;
  start_time_gte?: string;
  start_time_lte?: string;
  metadata?: Record<string, string>;
  /** LangSmith `POST /runs/query` filters. */
  project_ids?: string[];
  ids?: string[];
  /** Runs of any of these traces (LangSmith v2's `trace_ids`). */
  trace_ids?: string[];
  reference_example_ids?: string[];
  /** true: failed runs only; false: runs without an error. */
  error?: boolean;
  /** LangSmith filter expressions (query/filter.ts) on the run, its trace's root, any run of its trace. */
  filter?: string;
  trace_filter?: string;
  tree_filter?: string;
  /** Newest first (default) or oldest first. */
  order?: "asc" | "desc";
  /** Return the payload columns too (inputs, outputs, events, full extra). */
  full?: boolean;
  limit: number;
  cursor?: string;
}

/** Conditions (ANDed) over `tracing_runs` and their bound values, `$1` being the tenant. */
export function runConditions(tenantId: string, f: Omit<RunFilter, "limit">): { where: string[]; values: unknown[] } {
  const where = ["tenant_id = $1"];
  const values: unknown[] = [tenantId];
  const add = (sql: string, v: unknown) => {
    values.push(v);
    where.push(sql.replace("?", `$${values.length}`));
  };
  if (f.project_id) add("project_id = ?", f.project_id);
  if (f.project_ids) add("project_id = ANY(?::uuid[])", f.project_ids);
  if (f.ids) add("id = ANY(?::uuid[])", f.ids);
  if (f.trace_ids) add("trace_id = ANY(?::uuid[])", f.trace_ids);
  if (f.reference_example_ids) add("reference_example_id = ANY(?::uuid[])", f.reference_example_ids);
  if (f.error === true) where.push("(error IS NOT NULL OR status = 'error')");
  if (f.error === false) where.push("(error IS NULL AND status <> 'error')");
  const bind = (v: unknown) => {
    values.push(v);
    return `$${values.length}`;
  };
  if (f.filter) where.push(filterSql(f.filter, "run", bind));
  if (f.trace_filter) where.push(filterSql(f.trace_filter, "trace", bind));
  if (f.tree_filter) where.push(filterSql(f.tree_filter, "tree", bind));
  if (f.trace_id) add("trace_id = ?", f.trace_id);
  if (f.parent_run_id) add("parent_run_id = ?", f.parent_run_id);
  if (f.is_root === true) where.push(isTopSql());
  if (f.is_root === false) where.push(`NOT coalesce(${isTopSql()}, false)`);
  if (f.run_type) add("run_type = ?", f.run_type);
  if (f.status) add("status = ?", f.status);
  if (f.name) add("name = ?", f.name);
  if (f.name_contains) add("name ILIKE ?", containsPattern(f.name_contains));
  if (f.model) add("model = ?", f.model);
  if (f.trace_model) {
    // per candidate run, one probe of the (tenant_id, trace_id) index
    add("EXISTS (SELECT 1 FROM tracing_runs m WHERE m.tenant_id = tracing_runs.tenant_id AND m.trace_id = tracing_runs.trace_id AND m.model = ?)", f.trace_model);
  }
  if (f.min_latency_ms !== undefined) add("end_time - start_time >= ?::float8 * interval '1 millisecond'", f.min_latency_ms);
  if (f.max_latency_ms !== undefined) add("end_time - start_time <= ?::float8 * interval '1 millisecond'", f.max_latency_ms);
  if (f.thread_id) add("thread_id = ?", f.thread_id);
  if (f.start_time_gte) add("start_time >= ?", f.start_time_gte);
  if (f.start_time_lte) add("start_time <= ?", f.start_time_lte);
  for (const [k, v] of Object.entries(f.metadata ?? {})) {
    values.push(k);
    add(`extra->'metadata'->>$${values.length} = ?`, v);
  }
  return { where, values };
}

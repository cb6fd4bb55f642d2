/** Reads for the query API: runs, trace trees, threads, project stats. Tenant-scoped throughout. */
import type pg from "pg";
import { BadRequestError, NotFoundError } from "../../shared/errors.js";
import { fromRow, type RunRow } from "../storage/runs.js";
import { runConditions, type RunFilter } from "./conditions.js";
export type { RunFilter };
import { type Bucket, type RollupRow, statsOverTime, totalsOf } from "./stats.js";

/** Columns of list views: everything but the payloads. */
const LIGHT = `tenant_id, id, project_id, trace_id, parent_run_id, dotted_order, name, run_type, status, start_time, end_time, error,
  jsonb_build_object('metadata', extra->'metadata') AS extra, tags, thread_id, model, provider, input_tokens, output_tokens, total_tokens,
  input_token_details, output_token_details, usage_estimated, input_cost, output_cost, total_cost, input_cost_details, output_cost_details,
  cost_source, cost_reason, price_id, first_token_time, ttft_ms, problems, session_name, session_id, reference_example_id,
  to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS start_time_exact`;
const EXACT_START = `to_char(start_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS start_time_exact`;

interface Cursor {
  t: string | null;
  id: string;
}
const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString("base64url");
function decodeCursor(s: string): Cursor {
  try {
    const c = JSON.parse(Buffer.from(s, "base64url").toString("utf8")) as Cursor;
    if (typeof c.id !== "string") throw new Error();
    return c;
  } catch {
    throw new BadRequestError("cursor is not one this server issued: pass next_cursor from a previous page");
  }
}

export class QueryService {
  constructor(private readonly pool: pg.Pool) {}

  /** Runs newest first, with a keyset cursor (stable under concurrent inserts). */
  async listRuns(tenantId: string, f: RunFilter): Promise<{ runs: RunRow[]; next_cursor: string | null }> {
    const { where, values } = runConditions(tenantId, f);
    const add = (sql: string, v: unknown) => {
      values.push(v);
      where.push(sql.replace("?", `$${values.length}`));
    };
    // Keyset pages in (start_time DESC NULLS LAST, id DESC) order (ASC for oldest first). A row
    // comparison lets the index start right after the cursor; runs with no start yet come last.
    const asc = f.order === "asc";
    const cmp = asc ? ">" : "<";
    let afterNulls = false;
    const base = [...where];
    const baseValues = [...values];
    if (f.cursor) {
      const c = decodeCursor(f.cursor);
      if (c.t === null) {
        afterNulls = true;
        add(`start_time IS NULL AND id ${cmp} ?`, c.id);
      } else {
        values.push(c.t);
        add(`start_time IS NOT NULL AND (start_time, id) ${cmp} ($${values.length}, ?)`, c.id);
      }
    } else where.push("start_time IS NOT NULL");
    const cols = f.full ? `*, ${EXACT_START}` : LIGHT;
    const dir = asc ? "ASC" : "DESC";
    const page = async (w: string[], v: unknown[], limit: number) => {
      v = [...v, limit];
      const { rows } = await this.pool.query(`SELECT ${cols} FROM tracing_runs WHERE ${w.join(" AND ")} ORDER BY start_time ${dir} NULLS LAST, id ${dir} LIMIT $${v.length}`, v);
      return rows;
    };
    let rows = await page(where, values, f.limit + 1);
    if (!afterNulls && rows.length <= f.limit) {
      // the timed runs are exhausted: continue with those not started yet
      rows = rows.concat(await page([...base, "start_time IS NULL"], baseValues, f.limit + 1 - rows.length));
    }
    const runs = rows.slice(0, f.limit).map(fromRow);
    // the cursor keeps Postgres's microseconds: a JS Date's milliseconds would skip runs
    const last = rows[f.limit - 1] as { start_time_exact: string | null; id: string } | undefined;
    return { runs, next_cursor: rows.length > f.limit && last ? encodeCursor({ t: last.start_time_exact, id: last.id }) : null };
  }

  /** Ids of runs' direct children, in execution order (LangSmith's `child_run_ids`). */
  async childRunIds(tenantId: string, runIds: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(runIds.map((id) => [id, []]));
    if (!runIds.length) return out;
    const { rows } = await this.pool.query<{ id: string; parent_run_id: string }>(
      "SELECT id, parent_run_id FROM tracing_runs WHERE tenant_id = $1 AND parent_run_id = ANY($2::uuid[]) ORDER BY dotted_order NULLS LAST, start_time, id",
      [tenantId, runIds],
    );
    for (const r of rows) out.get(r.parent_run_id)?.push(r.id);
    return out;
  }

  /**
   * Aggregates over the runs a filter selects (LangSmith's `POST /runs/stats`): counts, tokens,
   * cost, latency and time-to-first-token percentiles (seconds, as LangSmith reports them).
   * Tokens and cost count LLM runs only: a chain repeating its child's usage is not counted twice.
   */
  async runStats(tenantId: string, f: Omit<RunFilter, "limit">) {
    const { where, values } = runConditions(tenantId, f);
    const { rows } = await this.pool.query(
      `SELECT count(*) AS run_count,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch from end_time - start_time)) AS latency_p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch from end_time - start_time)) AS latency_p99,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch from first_token_time - start_time)) AS first_token_p50,
         percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch from first_token_time - start_time)) AS first_token_p99,
         coalesce(sum(total_tokens) FILTER (WHERE run_type = 'llm'), 0) AS total_tokens,
         coalesce(sum(input_tokens) FILTER (WHERE run_type = 'llm'), 0) AS prompt_tokens,
         coalesce(sum(output_tokens) FILTER (WHERE run_type = 'llm'), 0) AS completion_tokens,
         percentile_cont(0.5) WITHIN GROUP (ORDER BY total_tokens) FILTER (WHERE run_type = 'llm') AS median_tokens,
         sum(total_cost) FILTER (WHERE run_type = 'llm') AS total_cost, sum(input_cost) FILTER (WHERE run_type = 'llm') AS prompt_cost,
         sum(output_cost) FILTER (WHERE run_type = 'llm') AS completion_cost,
         count(*) FILTER (WHERE status = 'error' OR error IS NOT NULL) AS error_count,
         count(*) FILTER (WHERE first_token_time IS NOT NULL) AS streaming_count,
         max(start_time) AS last_run_start_time
       FROM tracing_runs WHERE ${where.join(" AND ")}`,
      values,
    );
    const r = rows[0]!;
    const n = Number(r.run_count);
    const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return {
      run_count: n,
      latency_p50: num(r.latency_p50),
      latency_p99: num(r.latency_p99),
      first_token_p50: num(r.first_token_p50),
      first_token_p99: num(r.first_token_p99),
      total_tokens: Number(r.total_tokens),
      prompt_tokens: Number(r.prompt_tokens),
      completion_tokens: Number(r.completion_tokens),
      median_tokens: num(r.median_tokens),
      total_cost: num(r.total_cost),
      prompt_cost: num(r.prompt_cost),
      completion_cost: num(r.completion_cost),
      error_rate: n ? Number(r.error_count) / n : null,
      streaming_rate: n ? Number(r.streaming_count) / n : null,
      last_run_start_time: r.last_run_start_time ? new Date(r.last_run_start_time).toISOString() : null,
    };
  }

  /** Per-trace totals (LLM runs only, so parents repeating usage are not counted twice). */
  async traceTotals(tenantId: string, traceIds: string[]) {
    if (!traceIds.length) return new Map<string, TraceTotals>();
    const { rows } = await this.pool.query(
      `SELECT trace_id, count(*) AS run_count, count(*) FILTER (WHERE run_type = 'llm') AS llm_count,
         coalesce(sum(input_tokens) FILTER (WHERE run_type = 'llm'), 0) AS input_tokens,
         coalesce(sum(output_tokens) FILTER (WHERE run_type = 'llm'), 0) AS output_tokens,
         coalesce(sum(total_tokens) FILTER (WHERE run_type = 'llm'), 0) AS total_tokens,
         sum(total_cost) FILTER (WHERE run_type = 'llm') AS total_cost,
         min(first_token_time) FILTER (WHERE run_type = 'llm') AS first_token_time,
         array_remove(array_agg(DISTINCT model), NULL) AS models
       FROM tracing_runs WHERE tenant_id = $1 AND trace_id = ANY($2::uuid[]) GROUP BY trace_id`,
      [tenantId, traceIds],
    );
    return new Map<string, TraceTotals>(
      rows.map((r) => [
        r.trace_id,
        {
          run_count: Number(r.run_count),
          llm_count: Number(r.llm_count),
          input_tokens: Number(r.input_tokens),
          output_tokens: Number(r.output_tokens),
          total_tokens: Number(r.total_tokens),
          total_cost: r.total_cost === null ? null : Number(r.total_cost),
          first_token_time: r.first_token_time ? new Date(r.first_token_time).toISOString() : null,
          models: r.models as string[],
        },
      ]),
    );
  }

  async getRun(tenantId: string, id: string): Promise<RunRow> {
    const { rows } = await this.pool.query("SELECT * FROM tracing_runs WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Run ${id} not found.`);
    return fromRow(rows[0]);
  }

  async attachments(tenantId: string, runId: string) {
    const { rows } = await this.pool.query<{ name: string; content_type: string; size: number }>(
      "SELECT name, content_type, octet_length(data) AS size FROM tracing_attachments WHERE tenant_id = $1 AND run_id = $2 ORDER BY name",
      [tenantId, runId],
    );
    return rows.map((r) => ({ ...r, size: Number(r.size) }));
  }

  async attachment(tenantId: string, runId: string, name: string): Promise<{ content_type: string; data: Buffer }> {
    const { rows } = await this.pool.query<{ content_type: string; data: Buffer }>(
      "SELECT content_type, data FROM tracing_attachments WHERE tenant_id = $1 AND run_id = $2 AND name = $3",
      [tenantId, runId, name],
    );
    if (!rows[0]) throw new NotFoundError(`Attachment ${name} of run ${runId} not found.`);
    return rows[0];
  }

  /** Every run of a trace, in tree order (dotted_order sorts parents before children by start). */
  async traceRuns(tenantId: string, traceId: string, limit: number): Promise<RunRow[]> {
    const { rows } = await this.pool.query(
      `SELECT ${LIGHT} FROM tracing_runs WHERE tenant_id = $1 AND trace_id = $2 ORDER BY dotted_order NULLS LAST, start_time, id LIMIT $3`,
      [tenantId, traceId, limit],
    );
    if (!rows.length) throw new NotFoundError(`Trace ${traceId} not found.`);
    return rows.map(fromRow);
  }

  /** Conversations of a project: root runs grouped by thread id, with LLM totals of their traces. */
  async threads(tenantId: string, projectId: string, limit: number, offset: number, window: { min?: string; max?: string } = {}) {
    const { rows } = await this.pool.query(
      `WITH roots AS (
         SELECT thread_id, trace_id, start_time, end_time, status, name FROM tracing_runs
         WHERE project_id = $1 AND tenant_id = $2 AND thread_id IS NOT NULL AND parent_run_id IS NULL
           AND ($5::timestamptz IS NULL OR start_time >= $5) AND ($6::timestamptz IS NULL OR start_time <= $6)
       ), threads AS (
         SELECT thread_id, count(*) AS turn_count, min(start_time) AS first_start_time, max(start_time) AS last_start_time,
           count(*) FILTER (WHERE status = 'error') AS error_count, array_agg(trace_id) AS trace_ids,
           (array_agg(trace_id ORDER BY start_time, trace_id))[1] AS first_trace_id,
           (array_agg(trace_id ORDER BY start_time DESC, trace_id DESC))[1] AS last_trace_id
         FROM roots GROUP BY thread_id ORDER BY max(start_time) DESC NULLS LAST, thread_id LIMIT $3 OFFSET $4
       )
       SELECT t.thread_id, t.turn_count, t.first_start_time, t.last_start_time, t.error_count, t.first_trace_id, t.last_trace_id,
         coalesce(sum(r.total_tokens), 0) AS total_tokens, sum(r.total_cost) AS total_cost, count(r.id) AS llm_count
       FROM threads t LEFT JOIN tracing_runs r ON r.tenant_id = $2 AND r.trace_id = ANY(t.trace_ids) AND r.run_type = 'llm'
       GROUP BY t.thread_id, t.turn_count, t.first_start_time, t.last_start_time, t.error_count, t.first_trace_id, t.last_trace_id
       ORDER BY t.last_start_time DESC NULLS LAST, t.thread_id`,
      [projectId, tenantId, limit, offset, window.min ?? null, window.max ?? null],
    );
    return rows.map((r) => ({
      thread_id: r.thread_id as string,
      first_trace_id: r.first_trace_id as string,
      last_trace_id: r.last_trace_id as string,
      turn_count: Number(r.turn_count),
      error_count: Number(r.error_count),
      llm_count: Number(r.llm_count),
      first_start_time: r.first_start_time ? new Date(r.first_start_time).toISOString() : null,
      last_start_time: r.last_start_time ? new Date(r.last_start_time).toISOString() : null,
      total_tokens: Number(r.total_tokens),
      total_cost: r.total_cost === null ? null : Number(r.total_cost),
    }));
  }

  /** The turns of one conversation, oldest first: root runs with their payloads. */
  async threadTurns(tenantId: string, projectId: string, threadId: string, limit: number, offset = 0): Promise<RunRow[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM tracing_runs WHERE project_id = $1 AND tenant_id = $2 AND thread_id = $3 AND parent_run_id IS NULL
       ORDER BY start_time NULLS LAST, id LIMIT $4 OFFSET $5`,
      [projectId, tenantId, threadId, limit, offset],
    );
    return rows.map(fromRow);
  }

  /**
   * The hourly rollup rows of projects in a range (a 30-day dashboard reads ~720 per model).
   * Histograms travel as text and are split here: pg's generic array parser was most of the cost.
   */
  async rollups(projectIds: string[], start?: Date, end?: Date): Promise<(RollupRow & { project_id: string })[]> {
    const { rows } = await this.pool.query(
      `SELECT project_id, hour, model, run_count, trace_count, error_count, llm_count, llm_error_count, input_tokens, output_tokens,
         total_tokens, total_cost, latency_hist::text AS latency_hist, ttft_hist::text AS ttft_hist
       FROM tracing_rollups WHERE project_id = ANY($1::uuid[]) AND ($2::timestamptz IS NULL OR hour >= $2) AND ($3::timestamptz IS NULL OR hour < $3)`,
      [projectIds, start?.toISOString() ?? null, end?.toISOString() ?? null],
    );
    return rows.map((r) => ({
      project_id: r.project_id,
      hour: new Date(r.hour).toISOString(),
      model: r.model,
      run_count: Number(r.run_count),
      trace_count: Number(r.trace_count),
      error_count: Number(r.error_count),
      llm_count: Number(r.llm_count),
      llm_error_count: Number(r.llm_error_count),
      input_tokens: Number(r.input_tokens),
      output_tokens: Number(r.output_tokens),
      total_tokens: Number(r.total_tokens),
      total_cost: Number(r.total_cost),
      latency_hist: intArray(r.latency_hist),
      ttft_hist: intArray(r.ttft_hist),
    }));
  }

  async projectStats(projectIds: string[], start?: Date, end?: Date) {
    const byProject = new Map<string, RollupRow[]>();
    for (const r of await this.rollups(projectIds, start, end)) {
      const list = byProject.get(r.project_id);
      if (list) list.push(r);
      else byProject.set(r.project_id, [r]);
    }
    const { rows: last } = await this.pool.query<{ project_id: string; last: Date | null }>(
      `SELECT p.id AS project_id, (SELECT max(start_time) FROM tracing_runs r WHERE r.project_id = p.id AND r.parent_run_id IS NULL) AS last
       FROM tracing_projects p WHERE p.id = ANY($1::uuid[])`,
      [projectIds],
    );
    const lastOf = new Map(last.map((l) => [l.project_id, l.last ? new Date(l.last).toISOString() : null]));
    return new Map(projectIds.map((id) => [id, { ...totalsOf(byProject.get(id) ?? []), last_run_start_time: lastOf.get(id) ?? null }]));
  }

  async statsOverTime(projectId: string, start: Date, end: Date, bucket: Bucket) {
    const step = bucket === "day" ? 86_400_000 : 3_600_000;
    if ((end.getTime() - start.getTime()) / step > 5000) {
      throw new BadRequestError(`the range holds more than 5000 ${bucket} buckets: narrow it or use bucket=day`);
    }
    const rows = await this.rollups([projectId], start, end);
    return statsOverTime(rows, rows, start, end, bucket);
  }
}

/** Postgres int[] text ("{1,0,3}") → numbers. */
function intArray(text: string): number[] {
  return text.length <= 2 ? [] : text.slice(1, -1).split(",").map(Number);
}

export interface TraceTotals {
  run_count: number;
  llm_count: number;
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  total_cost: number | null;
  /** The trace's first LLM token (TTFT of the trace = this − the root's start). */
  first_token_time: string | null;
  models: string[];
}

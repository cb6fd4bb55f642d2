/**
 * Feedback on runs, as LangSmith's `/feedback` API and multipart `feedback.{id}` parts carry it:
 * a key with a score and/or value, a comment, a correction and its source. Tenant-scoped; a
 * feedback's run must belong to the tenant (or, before its run has arrived, the project given).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { BadRequestError, ConflictError, NotFoundError } from "../../shared/errors.js";

export interface FeedbackInput {
  id?: string;
  run_id?: string | null;
  trace_id?: string | null;
  session_id?: string | null;
  key: string;
  score?: number | boolean | null;
  value?: unknown;
  comment?: string | null;
  correction?: unknown;
  feedback_source?: { type?: string | null; metadata?: Record<string, unknown> | null } | null;
  comparative_experiment_id?: string | null;
  /** The feedbacks of one pairwise comparison share it (storage/comparative.ts). */
  feedback_group_id?: string | null;
}

export interface Feedback {
  id: string;
  run_id: string | null;
  trace_id: string | null;
  session_id: string | null;
  key: string;
  score: number | null;
  value: unknown;
  comment: string | null;
  correction: unknown;
  feedback_source: { type: string; metadata: Record<string, unknown> } | null;
  comparative_experiment_id: string | null;
  feedback_group_id: string | null;
  created_at: string;
  modified_at: string;
}

export interface FeedbackListQuery {
  run_ids?: string[];
  keys?: string[];
  sources?: string[];
  session_ids?: string[];
  limit: number;
  offset: number;
}

/** Per key: count, mean score and how often each value was given (LangSmith's `feedback_stats`). */
export type FeedbackStats = Record<string, { n: number; avg: number | null; values: Record<string, number> }>;

const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
const scoreOf = (s: FeedbackInput["score"]) => (s === undefined || s === null ? null : typeof s === "boolean" ? Number(s) : s);

function present(r: Record<string, any>): Feedback {
  return {
    id: r.id,
    run_id: r.run_id,
    trace_id: r.trace_id,
    session_id: r.project_id,
    key: r.key,
    score: r.score === null ? null : Number(r.score),
    value: r.value,
    comment: r.comment,
    correction: r.correction,
    feedback_source: r.feedback_source,
    comparative_experiment_id: r.comparative_experiment_id,
    feedback_group_id: r.feedback_group_id ?? null,
    created_at: new Date(r.created_at).toISOString(),
    modified_at: new Date(r.modified_at).toISOString(),
  };
}

export class FeedbackStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Store one feedback. Its run (when given) must be the tenant's, or not yet arrived with a
   * project of the tenant named; the run's project and trace win over what the client said.
   */
  async create(tenantId: string, input: FeedbackInput): Promise<Feedback> {
    let projectId = input.session_id ?? null;
    let traceId = input.trace_id ?? null;
    if (input.run_id) {
      const { rows } = await this.pool.query<{ project_id: string; trace_id: string }>("SELECT project_id, trace_id FROM tracing_runs WHERE tenant_id = $1 AND id = $2", [
        tenantId,
        input.run_id,
      ]);
      if (rows[0]) {
        projectId = rows[0].project_id;
        traceId = rows[0].trace_id;
      } else if (!projectId) throw new NotFoundError(`Run ${input.run_id} not found.`);
      else await this.assertProject(tenantId, projectId); // the run has not arrived yet
    } else if (!projectId) throw new BadRequestError("feedback needs a run_id or a session_id");
    else await this.assertProject(tenantId, projectId);
    if (input.comparative_experiment_id) {
      const { rowCount } = await this.pool.query("SELECT 1 FROM tracing_comparative_experiments WHERE tenant_id = $1 AND id = $2", [tenantId, input.comparative_experiment_id]);
      if (!rowCount) throw new NotFoundError(`Comparative experiment ${input.comparative_experiment_id} not found.`);
    }
    const source = input.feedback_source ? { type: input.feedback_source.type ?? "api", metadata: input.feedback_source.metadata ?? {} } : { type: "api", metadata: {} };
    const { rows } = await this.pool.query(
      `INSERT INTO tracing_feedback (id, tenant_id, run_id, trace_id, project_id, key, score, value, comment, correction, feedback_source, comparative_experiment_id, feedback_group_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING RETURNING *`,
      [
        input.id ?? randomUUID(),
        tenantId,
        input.run_id ?? null,
        traceId,
        projectId,
        input.key,
        scoreOf(input.score),
        json(input.value),
        input.comment ?? null,
        json(input.correction),
        JSON.stringify(source),
        input.comparative_experiment_id ?? null,
        input.feedback_group_id ?? null,
      ],
    );
    if (!rows[0]) throw new ConflictError(`feedback ${input.id} already exists`);
    return present(rows[0]);
  }

  /** The project of a run of the tenant, if it exists. */
  async projectOfRun(tenantId: string, runId: string): Promise<string | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(runId)) return undefined;
    const { rows } = await this.pool.query<{ project_id: string }>("SELECT project_id FROM tracing_runs WHERE tenant_id = $1 AND id = $2", [tenantId, runId]);
    return rows[0]?.project_id;
  }

  private async assertProject(tenantId: string, projectId: string): Promise<void> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM tracing_projects WHERE tenant_id = $1 AND id = $2", [tenantId, projectId]);
    if (!rowCount) throw new NotFoundError(`Project ${projectId} not found.`);
  }

  async get(tenantId: string, id: string): Promise<Feedback> {
    const { rows } = await this.pool.query("SELECT * FROM tracing_feedback WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Feedback ${id} not found.`);
    return present(rows[0]);
  }

  /** Change the fields given (`null` clears one). */
  async update(tenantId: string, id: string, patch: Pick<FeedbackInput, "score" | "value" | "comment" | "correction">): Promise<Feedback> {
    const sets: string[] = [];
    const values: unknown[] = [tenantId, id];
    const set = (col: string, v: unknown) => {
      values.push(v);
      sets.push(`${col} = $${values.length}`);
    };
    if (patch.score !== undefined) set("score", scoreOf(patch.score));
    if (patch.value !== undefined) set("value", json(patch.value));
    if (patch.comment !== undefined) set("comment", patch.comment);
    if (patch.correction !== undefined) set("correction", json(patch.correction));
    const { rows } = await this.pool.query(
      `UPDATE tracing_feedback SET ${[...sets, "modified_at = now()"].join(", ")} WHERE tenant_id = $1 AND id = $2 RETURNING *`,
      values,
    );
    if (!rows[0]) throw new NotFoundError(`Feedback ${id} not found.`);
    return present(rows[0]);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    const { rowCount } = await this.pool.query("DELETE FROM tracing_feedback WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rowCount) throw new NotFoundError(`Feedback ${id} not found.`);
  }

  async list(tenantId: string, q: FeedbackListQuery): Promise<Feedback[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM tracing_feedback WHERE tenant_id = $1
         AND ($2::uuid[] IS NULL OR run_id = ANY($2)) AND ($3::text[] IS NULL OR key = ANY($3))
         AND ($4::text[] IS NULL OR feedback_source->>'type' = ANY($4)) AND ($5::uuid[] IS NULL OR project_id = ANY($5))
       ORDER BY created_at, id LIMIT $6 OFFSET $7`,
      [tenantId, q.run_ids ?? null, q.keys ?? null, q.sources ?? null, q.session_ids ?? null, q.limit, q.offset],
    );
    return rows.map(present);
  }

  /** Feedback stats per run (for runs in lists and details). */
  async statsByRun(tenantId: string, runIds: string[], comparativeExperimentId?: string): Promise<Map<string, FeedbackStats>> {
    if (!runIds.length) return new Map();
    // a comparison's view: only the pairwise feedback given in it
    if (comparativeExperimentId) return this.stats("tenant_id = $1 AND run_id = ANY($2::uuid[]) AND comparative_experiment_id = $3", [tenantId, runIds, comparativeExperimentId], "run_id");
    return this.stats("tenant_id = $1 AND run_id = ANY($2::uuid[])", [tenantId, runIds], "run_id");
  }

  /** Feedback stats per project (project stats and experiments' aggregate scores). */
  async statsByProject(projectIds: string[]): Promise<Map<string, FeedbackStats>> {
    if (!projectIds.length) return new Map();
    return this.stats("project_id = ANY($1::uuid[])", [projectIds], "project_id");
  }

  private async stats(where: string, values: unknown[], by: "run_id" | "project_id"): Promise<Map<string, FeedbackStats>> {
    const { rows } = await this.pool.query(
      `SELECT ${by} AS owner, key, count(*) AS n, avg(score) AS avg,
         coalesce(jsonb_object_agg(v, vc) FILTER (WHERE v IS NOT NULL), '{}') AS values
       FROM (
         SELECT ${by}, key, score, value #>> '{}' AS v, count(*) OVER (PARTITION BY ${by}, key, value #>> '{}') AS vc
         FROM tracing_feedback WHERE ${where}
       ) f GROUP BY ${by}, key`,
      values,
    );
    const out = new Map<string, FeedbackStats>();
    for (const r of rows) {
      const stats = out.get(r.owner) ?? {};
      stats[r.key] = { n: Number(r.n), avg: r.avg === null ? null : Number(r.avg), values: Object.fromEntries(Object.entries(r.values as Record<string, unknown>).map(([k, v]) => [k, Number(v)])) };
      out.set(r.owner, stats);
    }
    return out;
  }
}

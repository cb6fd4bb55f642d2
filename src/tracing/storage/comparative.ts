/**
 * Comparative (pairwise) experiments, as LangSmith's `/datasets/comparative` API holds them: a
 * named comparison of two or more experiments of one dataset. The evaluators' verdicts are ordinary
 * feedback on the compared runs carrying `comparative_experiment_id` (storage/feedback.ts); what
 * this store adds is the comparison itself and, read back, per feedback key how often each
 * experiment was preferred.
 *
 * One comparison (a "group") is one evaluator call over the runs of one example: the feedbacks of
 * a group share `feedback_group_id` (the Python SDK sends one) or else the evaluator's own run
 * (`feedback_source.metadata.__run.run_id`, which the JS SDK's evaluateComparative always sets).
 * In a group, the experiment whose run has the strictly highest score is preferred; equal highest
 * scores are a tie.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../../shared/db/index.js";
import { BadRequestError, ConflictError, isUniqueViolation, NotFoundError } from "../../shared/errors.js";
import type { FeedbackStats } from "./feedback.js";

export interface ComparativeCreate {
  id?: string | null;
  name: string;
  description?: string | null;
  experiment_ids: string[];
  reference_dataset_id: string;
  created_at?: string | null;
  extra?: Record<string, unknown> | null;
}

/** Per feedback key: comparisons made, ties, and how often each experiment was preferred. */
export type Preferences = Record<string, { comparisons: number; ties: number; preferred: Record<string, number> }>;

export interface ComparativeExperiment {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  reference_dataset_id: string;
  extra: Record<string, unknown>;
  created_at: string;
  modified_at: string;
  /** The compared experiments in the order given (a deleted one drops out). */
  experiments_info: { id: string; name: string }[];
  feedback_stats: FeedbackStats;
  preferences: Preferences;
}

export interface ComparativeListQuery {
  ids?: string[];
  name?: string;
  nameContains?: string;
  sortBy: "created_at" | "name";
  desc: boolean;
  limit: number;
  offset: number;
}

const iso = (t: unknown) => new Date(t as string).toISOString();

export class ComparativeStore {
  constructor(private readonly pool: pg.Pool) {}

  /**
   * Create a comparison. The dataset must be the tenant's and every experiment one of the tenant's
   * projects run against that dataset: comparing runs of different examples means nothing.
   */
  async create(tenantId: string, input: ComparativeCreate): Promise<ComparativeExperiment> {
    const ids = input.experiment_ids.map((id) => id.toLowerCase());
    if (new Set(ids).size !== ids.length) throw new BadRequestError("experiment_ids lists an experiment twice");
    const datasetId = input.reference_dataset_id.toLowerCase();
    const id = input.id ?? randomUUID();
    await withTransaction(this.pool, async (client) => {
      const ds = await client.query("SELECT 1 FROM tracing_datasets WHERE tenant_id = $1 AND id = $2", [tenantId, input.reference_dataset_id]);
      if (!ds.rowCount) throw new NotFoundError(`Dataset ${input.reference_dataset_id} not found.`);
      const { rows } = await client.query<{ id: string; reference_dataset_id: string | null }>(
        "SELECT id, reference_dataset_id FROM tracing_projects WHERE tenant_id = $1 AND id = ANY($2::uuid[])",
        [tenantId, ids],
      );
      const found = new Map(rows.map((r) => [r.id, r.reference_dataset_id]));
      const missing = ids.filter((x) => !found.has(x));
      if (missing.length) throw new NotFoundError(`Experiment ${missing.join(", ")} not found.`);
      const other = ids.filter((x) => found.get(x) !== datasetId);
      if (other.length) throw new BadRequestError(`experiment ${other.join(", ")} was not run against dataset ${input.reference_dataset_id}: a comparison needs experiments of one dataset`);
      try {
        await client.query(
          `INSERT INTO tracing_comparative_experiments (id, tenant_id, name, description, reference_dataset_id, extra, created_at, modified_at)
           VALUES ($1, $2, $3, $4, $5, $6, coalesce($7::timestamptz, now()), now())`,
          [id, tenantId, input.name, input.description ?? null, input.reference_dataset_id, JSON.stringify(input.extra ?? {}), input.created_at ?? null],
        );
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`a comparative experiment with id ${id} already exists`);
        throw err;
      }
      await client.query(
        `INSERT INTO tracing_comparative_experiment_sessions (comparative_experiment_id, project_id, position)
         SELECT $1, p, i FROM unnest($2::uuid[]) WITH ORDINALITY AS t(p, i)`,
        [id, ids],
      );
    });
    return this.get(tenantId, id);
  }

  async get(tenantId: string, id: string): Promise<ComparativeExperiment> {
    const { rows } = await this.pool.query("SELECT * FROM tracing_comparative_experiments WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Comparative experiment ${id} not found.`);
    return (await this.present(tenantId, rows))[0]!;
  }

  /** Whether a comparison of the tenant exists (feedback naming one must name a real one). */
  async exists(tenantId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM tracing_comparative_experiments WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    return Boolean(rowCount);
  }

  /** A dataset's comparisons, newest first by default. */
  async list(tenantId: string, datasetId: string, q: ComparativeListQuery): Promise<ComparativeExperiment[]> {
    const order = `${q.sortBy === "name" ? "name" : "created_at"} ${q.desc ? "DESC" : "ASC"}, id`;
    const { rows } = await this.pool.query(
      `SELECT * FROM tracing_comparative_experiments
       WHERE tenant_id = $1 AND reference_dataset_id = $2 AND ($3::uuid[] IS NULL OR id = ANY($3))
         AND ($4::text IS NULL OR name = $4) AND ($5::text IS NULL OR strpos(lower(name), lower($5)) > 0)
       ORDER BY ${order} LIMIT $6 OFFSET $7`,
      [tenantId, datasetId, q.ids ?? null, q.name ?? null, q.nameContains ?? null, q.limit, q.offset],
    );
    return this.present(tenantId, rows);
  }

  /** Delete a comparison and the pairwise feedback given in it (it means nothing without it). */
  async delete(tenantId: string, id: string): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query("DELETE FROM tracing_comparative_experiments WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
      if (!rowCount) throw new NotFoundError(`Comparative experiment ${id} not found.`);
      await client.query("DELETE FROM tracing_feedback WHERE tenant_id = $1 AND comparative_experiment_id = $2", [tenantId, id]);
    });
  }

  private async present(tenantId: string, rows: Record<string, any>[]): Promise<ComparativeExperiment[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id as string);
    const [sessions, stats, prefs] = await Promise.all([this.sessions(ids), this.feedbackStats(tenantId, ids), this.preferences(tenantId, ids)]);
    // an experiment never preferred still gets its 0
    for (const [cid, byKey] of prefs) for (const k of Object.values(byKey)) for (const e of sessions.get(cid) ?? []) k.preferred[e.id] ??= 0;
    return rows.map((r) => ({
      id: r.id,
      tenant_id: r.tenant_id,
      name: r.name,
      description: r.description,
      reference_dataset_id: r.reference_dataset_id,
      extra: r.extra ?? {},
      created_at: iso(r.created_at),
      modified_at: iso(r.modified_at),
      experiments_info: sessions.get(r.id) ?? [],
      feedback_stats: stats.get(r.id) ?? {},
      preferences: prefs.get(r.id) ?? {},
    }));
  }

  private async sessions(ids: string[]): Promise<Map<string, { id: string; name: string }[]>> {
    const { rows } = await this.pool.query<{ cid: string; id: string; name: string }>(
      `SELECT s.comparative_experiment_id AS cid, p.id, p.name FROM tracing_comparative_experiment_sessions s
       JOIN tracing_projects p ON p.id = s.project_id WHERE s.comparative_experiment_id = ANY($1::uuid[]) ORDER BY s.position`,
      [ids],
    );
    const out = new Map<string, { id: string; name: string }[]>();
    for (const r of rows) out.set(r.cid, [...(out.get(r.cid) ?? []), { id: r.id, name: r.name }]);
    return out;
  }

  /** LangSmith's feedback_stats over the comparison's feedback: per key count, mean and values. */
  private async feedbackStats(tenantId: string, ids: string[]): Promise<Map<string, FeedbackStats>> {
    const { rows } = await this.pool.query(
      `SELECT cid, key, count(*) AS n, avg(score) AS avg, coalesce(jsonb_object_agg(v, vc) FILTER (WHERE v IS NOT NULL), '{}') AS values
       FROM (
         SELECT comparative_experiment_id AS cid, key, score, value #>> '{}' AS v,
           count(*) OVER (PARTITION BY comparative_experiment_id, key, value #>> '{}') AS vc
         FROM tracing_feedback WHERE tenant_id = $1 AND comparative_experiment_id = ANY($2::uuid[])
       ) f GROUP BY cid, key`,
      [tenantId, ids],
    );
    const out = new Map<string, FeedbackStats>();
    for (const r of rows) {
      const s = out.get(r.cid) ?? {};
      s[r.key] = { n: Number(r.n), avg: r.avg === null ? null : Number(r.avg), values: Object.fromEntries(Object.entries(r.values as Record<string, unknown>).map(([k, v]) => [k, Number(v)])) };
      out.set(r.cid, s);
    }
    return out;
  }

  /** Per key, how often each experiment's run scored strictly highest in a group (see the top). */
  private async preferences(tenantId: string, ids: string[]): Promise<Map<string, Preferences>> {
    const { rows } = await this.pool.query<{ cid: string; key: string; winner: string | null; n: string }>(
      `WITH f AS (
         -- only runs of the compared experiments take part (feedback may name the comparison on any run)
         SELECT f.comparative_experiment_id AS cid, f.key, f.project_id, f.score,
           coalesce(f.feedback_group_id::text, f.feedback_source #>> '{metadata,__run,run_id}', f.id::text) AS grp
         FROM tracing_feedback f
         JOIN tracing_comparative_experiment_sessions s ON s.comparative_experiment_id = f.comparative_experiment_id AND s.project_id = f.project_id
         WHERE f.tenant_id = $1 AND f.comparative_experiment_id = ANY($2::uuid[]) AND f.score IS NOT NULL
       ),
       g AS (
         SELECT cid, key, grp, max(score) AS best FROM f GROUP BY cid, key, grp HAVING count(DISTINCT project_id) >= 2
       ),
       w AS (
         SELECT f.cid, f.key, f.grp, count(DISTINCT f.project_id) AS nbest, min(f.project_id::text) AS winner
         FROM f JOIN g USING (cid, key, grp) WHERE f.score = g.best GROUP BY f.cid, f.key, f.grp
       )
       SELECT cid, key, CASE WHEN nbest = 1 THEN winner END AS winner, count(*) AS n FROM w GROUP BY 1, 2, 3`,
      [tenantId, ids],
    );
    const out = new Map<string, Preferences>();
    for (const r of rows) {
      const p = out.get(r.cid) ?? {};
      const k = (p[r.key] ??= { comparisons: 0, ties: 0, preferred: {} });
      k.comparisons += Number(r.n);
      if (r.winner === null) k.ties += Number(r.n);
      else k.preferred[r.winner] = Number(r.n);
      out.set(r.cid, p);
    }
    return out;
  }
}

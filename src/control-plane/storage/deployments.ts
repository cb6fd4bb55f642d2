/**
 * Deployments and their revisions in Postgres. Every query is scoped by tenant: another tenant's
 * id reads as not found. Secrets are encrypted per value before they are written and decrypted
 * only here; the API sees them masked.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { containsPattern, withTransaction, type Queryable } from "../../shared/db/index.js";
import { ApiError, ConflictError, NotFoundError, isUniqueViolation } from "../../shared/errors.js";
import {
  SECRET_MASK,
  decryptSecret,
  deriveDeploymentStatus,
  encryptSecret,
  isTerminal,
  nextForSupersede,
  pickActiveRevision,
  revisionServing,
  stampDeployingSince,
  StaleRevisionStatusError,
  transition,
  type DeploymentConfig,
  type DeploymentListQuery,
  type DeploymentStatus,
  type RevisionListQuery,
  type RevisionServing,
  type RevisionSnapshot,
  type RevisionStatus,
  type Secret,
} from "../rules/index.js";

export interface DeploymentRow {
  id: string;
  tenant_id: string;
  name: string;
  config: Omit<DeploymentConfig, "secrets">;
  secrets: Secret[];
  status: DeploymentStatus;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  database_ready: boolean;
  delete_requested_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface RevisionRow {
  id: string;
  deployment_id: string;
  tenant_id: string;
  seq: number;
  status: RevisionStatus;
  snapshot: Omit<RevisionSnapshot, "secrets">;
  secrets: Secret[];
  repo_commit_sha: string | null;
  status_reason: string | null;
  deploying_since: string | null;
  /** Every status it went through, oldest first. */
  status_history: StatusChange[];
  created_at: string;
  updated_at: string;
}

/** A revision as the API reads it: with its part in serving the deployment (derived, never stored). */
export type RevisionView = RevisionRow & { serving: RevisionServing };

// the deployment's active revision beside each revision row (`r`): its id and position
const ACTIVE_JOIN = "JOIN cp_deployments d ON d.id = r.deployment_id LEFT JOIN cp_revisions a ON a.id = d.active_revision_id";
const ACTIVE_COLUMNS = "a.id AS active_id, a.seq AS active_seq";

export interface StatusChange {
  status: RevisionStatus;
  at: string;
  reason: string | null;
}

/** SQL that appends a status change to `status_history`, when the status really changes ($status, $reason are placeholders). */
const appendHistory = (status: string, reason: string) =>
  `status_history = CASE WHEN status IS DISTINCT FROM ${status} THEN status_history || jsonb_build_array(jsonb_build_object('status', ${status}::text, 'at', clock_timestamp(), 'reason', ${reason}::text)) ELSE status_history END`;

const notFound = (id: string) => new NotFoundError(`Deployment ID ${id} not found.`);
const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));

export class DeploymentStore {
  constructor(
    private readonly pool: pg.Pool,
    /** Newest first: values are written with the first and read with any. */
    private readonly keys: Buffer[],
  ) {}

  private seal = (secrets: Secret[]) => secrets.map((s) => ({ name: s.name, value: encryptSecret(s.value, this.keys[0]!) }));
  private open = (secrets: Secret[]) => secrets.map((s) => ({ name: s.name, value: decryptSecret(s.value, this.keys) }));

  /** `decrypt: false` leaves values masked: lists only show names, and decrypting costs. */
  private deployment(r: Record<string, any>, decrypt = true): DeploymentRow {
    return {
      ...(r as DeploymentRow),
      secrets: decrypt ? this.open(r.secrets ?? []) : (r.secrets ?? []).map((x: Secret) => ({ name: x.name, value: SECRET_MASK })),
      delete_requested_at: iso(r.delete_requested_at),
      created_at: iso(r.created_at)!,
      updated_at: iso(r.updated_at)!,
    };
  }

  private toRevision(r: Record<string, any>): RevisionRow {
    return {
      ...(r as RevisionRow),
      secrets: this.open(r.secrets ?? []),
      deploying_since: iso(r.deploying_since),
      status_history: ((r.status_history ?? []) as StatusChange[]).map((h) => ({ status: h.status, at: new Date(h.at).toISOString(), reason: h.reason ?? null })),
      created_at: iso(r.created_at)!,
      updated_at: iso(r.updated_at)!,
    };
  }

  /** A deployment and its first revision (QUEUED), in one transaction. */
  async create(tenantId: string, config: DeploymentConfig, snapshot: RevisionSnapshot): Promise<{ deployment: DeploymentRow; revision: RevisionRow }> {
    const id = randomUUID();
    const { secrets, ...rest } = config;
    try {
      return await withTransaction(this.pool, async (c) => {
        await c.query(
          `INSERT INTO cp_deployments (id, tenant_id, name, source, config, secrets, status) VALUES ($1, $2, $3, $4, $5, $6, 'AWAITING_DATABASE')`,
          [id, tenantId, config.name, config.source, JSON.stringify(rest), JSON.stringify(this.seal(secrets))],
        );
        const revision = await this.insertRevision(c, tenantId, id, snapshot);
        const deployment = await this.getFor(c, tenantId, id, false);
        return { deployment, revision };
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`A deployment named '${config.name}' already exists.`);
      throw err;
    }
  }

  async get(tenantId: string, id: string): Promise<DeploymentRow> {
    return this.getFor(this.pool, tenantId, id, false);
  }

  private async getFor(db: Queryable, tenantId: string, id: string, lock: boolean): Promise<DeploymentRow> {
    const { rows } = await db.query(`SELECT * FROM cp_deployments WHERE tenant_id = $1 AND id = $2${lock ? " FOR UPDATE" : ""}`, [tenantId, id]);
    if (!rows[0]) throw notFound(id);
    return this.deployment(rows[0]);
  }

  async list(tenantId: string, q: DeploymentListQuery): Promise<DeploymentRow[]> {
    const where = ["tenant_id = $1"];
    const values: unknown[] = [tenantId];
    const add = (sql: string, v: unknown) => {
      values.push(v);
      where.push(sql.replace("?", `$${values.length}`));
    };
    if (q.name_contains) add("name ILIKE ?", containsPattern(q.name_contains));
    if (q.name) add("name = ?", q.name);
    if (q.status) add("status = ?", q.status);
    if (q.deployment_type) add("config->'source_config'->>'deployment_type' = ?", q.deployment_type);
    if (q.deployment_ids?.length) add("id = ANY(?::uuid[])", q.deployment_ids);
    values.push(q.limit, q.offset);
    const { rows } = await this.pool.query(
      `SELECT * FROM cp_deployments WHERE ${where.join(" AND ")} ORDER BY created_at DESC, id LIMIT $${values.length - 1} OFFSET $${values.length}`,
      values,
    );
    return rows.map((r) => this.deployment(r, false));
  }

  /**
   * Apply a PATCH under the deployment's row lock: `plan` sees the stored config (secrets
   * decrypted) and returns the next one, and the snapshot of a new revision when there is one.
   * Concurrent PATCHes therefore each get their own revision, in order.
   */
  async update(
    tenantId: string,
    id: string,
    plan: (current: DeploymentConfig) => { next: DeploymentConfig; revision: RevisionSnapshot | null },
  ): Promise<{ deployment: DeploymentRow; revision: RevisionRow | null; superseded: RevisionRow[] }> {
    return withTransaction(this.pool, async (c) => {
      const current = await this.getFor(c, tenantId, id, true);
      if (current.delete_requested_at) throw new ApiError(409, `Deployment ID ${id} is being deleted.`);
      const { next, revision } = plan({ ...current.config, secrets: current.secrets });
      const { secrets, ...rest } = next;
      await c.query("UPDATE cp_deployments SET config = $3, secrets = $4, updated_at = now() WHERE tenant_id = $1 AND id = $2", [
        tenantId,
        id,
        JSON.stringify(rest),
        JSON.stringify(this.seal(secrets)),
      ]);
      let created: RevisionRow | null = null;
      let superseded: RevisionRow[] = [];
      if (revision) {
        superseded = await this.supersede(c, id);
        created = await this.insertRevision(c, tenantId, id, revision);
      }
      return { deployment: await this.getFor(c, tenantId, id, false), revision: created, superseded };
    });
  }

  /** A new revision from a snapshot (POST …/revisions, redeploy), under the row lock. */
  async addRevision(tenantId: string, id: string, snapshotOf: (d: DeploymentRow) => RevisionSnapshot): Promise<{ deployment: DeploymentRow; revision: RevisionRow; superseded: RevisionRow[] }> {
    return withTransaction(this.pool, async (c) => {
      const current = await this.getFor(c, tenantId, id, true);
      if (current.delete_requested_at) throw new ApiError(409, `Deployment ID ${id} is being deleted.`);
      const superseded = await this.supersede(c, id);
      const revision = await this.insertRevision(c, tenantId, id, snapshotOf(current));
      return { deployment: await this.getFor(c, tenantId, id, false), revision, superseded };
    });
  }

  /** Revisions that had not started yet are overtaken by a newer one: SKIPPED. */
  private async supersede(db: Queryable, deploymentId: string): Promise<RevisionRow[]> {
    const { rows } = await db.query("SELECT * FROM cp_revisions WHERE deployment_id = $1 AND status = ANY($2::text[]) FOR UPDATE", [
      deploymentId,
      ["CREATING", "QUEUED", "AWAITING_BUILD"],
    ]);
    const out: RevisionRow[] = [];
    for (const r of rows) {
      const next = nextForSupersede(r.status as RevisionStatus);
      if (next === r.status) continue;
      const { rows: updated } = await db.query(`UPDATE cp_revisions SET ${appendHistory("$2", "$3")}, status = $2, status_reason = $3, updated_at = now() WHERE id = $1 RETURNING *`, [
        r.id,
        next,
        "a newer revision was created before this one started",
      ]);
      out.push(this.toRevision(updated[0]));
    }
    return out;
  }

  private async insertRevision(db: Queryable, tenantId: string, deploymentId: string, snapshot: RevisionSnapshot): Promise<RevisionRow> {
    const { secrets, ...rest } = snapshot;
    const { rows } = await db.query(
      `INSERT INTO cp_revisions (id, deployment_id, tenant_id, seq, status, snapshot, secrets, status_history)
       VALUES ($1, $2, $3, (SELECT coalesce(max(seq), 0) + 1 FROM cp_revisions WHERE deployment_id = $2), 'QUEUED', $4, $5,
               jsonb_build_array(jsonb_build_object('status', 'QUEUED', 'at', clock_timestamp(), 'reason', NULL))) RETURNING *`,
      [randomUUID(), deploymentId, tenantId, JSON.stringify(rest), JSON.stringify(this.seal(secrets))],
    );
    await db.query("UPDATE cp_deployments SET latest_revision_id = $2, updated_at = now() WHERE id = $1", [deploymentId, rows[0].id]);
    return this.toRevision(rows[0]);
  }

  /** Set the URL a runtime serves a deployment at (for hosted_git it is assigned, not chosen). */
  async assignUrl(deploymentId: string, url: string): Promise<void> {
    await this.pool.query(
      `UPDATE cp_deployments SET config = jsonb_set(config, '{source_config,custom_url}', to_jsonb($2::text)), updated_at = now()
       WHERE id = $1 AND config->'source_config'->>'custom_url' IS DISTINCT FROM $2`,
      [deploymentId, url],
    );
  }

  /** Every live deployment of every tenant, with its active and latest revisions (runtime start-up). */
  async allLive(): Promise<{ deployment: DeploymentRow; active: RevisionRow | undefined; latest: RevisionRow | undefined }[]> {
    const { rows } = await this.pool.query("SELECT * FROM cp_deployments WHERE delete_requested_at IS NULL ORDER BY created_at");
    const out = [];
    for (const r of rows) {
      const deployment = this.deployment(r);
      const revs = await this.pool.query("SELECT * FROM cp_revisions WHERE id = ANY($1::uuid[])", [[deployment.active_revision_id, deployment.latest_revision_id].filter(Boolean)]);
      const byId = new Map(revs.rows.map((x) => [x.id as string, this.toRevision(x)]));
      out.push({ deployment, active: byId.get(deployment.active_revision_id ?? ""), latest: byId.get(deployment.latest_revision_id ?? "") });
    }
    return out;
  }

  /** Live hosted_git deployments with build_on_push, with their latest revision (branch polling). */
  async allBuildOnPush(): Promise<{ deployment: DeploymentRow; latest: RevisionRow | undefined }[]> {
    const { rows } = await this.pool.query(
      `SELECT to_jsonb(d) AS d, to_jsonb(r) AS r FROM cp_deployments d LEFT JOIN cp_revisions r ON r.id = d.latest_revision_id
       WHERE d.delete_requested_at IS NULL AND d.source = 'hosted_git' AND (d.config->'source_config'->>'build_on_push')::boolean`,
    );
    return rows.map((x) => ({ deployment: this.deployment(x.d), latest: x.r ? this.toRevision(x.r) : undefined }));
  }

  /** Deletions requested but not finished (a restart continues them). */
  async pendingDeletes(): Promise<DeploymentRow[]> {
    const { rows } = await this.pool.query("SELECT * FROM cp_deployments WHERE delete_requested_at IS NOT NULL");
    return rows.map((r) => this.deployment(r));
  }

  /** Deployments that build on push from an integration (webhooks pick theirs by repo and branch). */
  async buildOnPush(tenantId: string, integrationId: string): Promise<DeploymentRow[]> {
    const { rows } = await this.pool.query(
      `SELECT * FROM cp_deployments WHERE tenant_id = $1 AND delete_requested_at IS NULL AND source = 'hosted_git'
         AND config->'source_config'->>'integration_id' = $2 AND (config->'source_config'->>'build_on_push')::boolean`,
      [tenantId, integrationId],
    );
    return rows.map((r) => this.deployment(r));
  }

  /** The newest revision of each deployment (for responses: a deployment shows its latest commit). */
  async latestRevisions(ids: string[]): Promise<Map<string, RevisionRow>> {
    if (!ids.length) return new Map();
    const { rows } = await this.pool.query(
      "SELECT r.* FROM cp_deployments d JOIN cp_revisions r ON r.id = d.latest_revision_id WHERE d.id = ANY($1::uuid[])",
      [ids],
    );
    return new Map(rows.map((r) => [r.deployment_id as string, this.toRevision(r)]));
  }

  async revisions(tenantId: string, deploymentId: string, q: RevisionListQuery): Promise<RevisionView[]> {
    await this.get(tenantId, deploymentId);
    const { rows } = await this.pool.query(
      `SELECT r.*, ${ACTIVE_COLUMNS} FROM cp_revisions r ${ACTIVE_JOIN}
       WHERE r.tenant_id = $1 AND r.deployment_id = $2 AND ($3::text[] IS NULL OR r.status = ANY($3::text[]))
       ORDER BY r.seq DESC LIMIT $4 OFFSET $5`,
      [tenantId, deploymentId, q.status?.length ? q.status : null, q.limit, q.offset],
    );
    return rows.map((r) => this.toRevisionView(r));
  }

  async revision(tenantId: string, deploymentId: string, revisionId: string): Promise<RevisionView> {
    const { rows } = await this.pool.query(`SELECT r.*, ${ACTIVE_COLUMNS} FROM cp_revisions r ${ACTIVE_JOIN} WHERE r.tenant_id = $1 AND r.deployment_id = $2 AND r.id = $3`, [
      tenantId,
      deploymentId,
      revisionId,
    ]);
    if (!rows[0]) throw new NotFoundError(`Revision ID ${revisionId} not found.`);
    return this.toRevisionView(rows[0]);
  }

  /** A revision read with its deployment's active revision, in one statement (so status and pointer agree). */
  private toRevisionView(r: Record<string, any>): RevisionView {
    const { active_id, active_seq, ...row } = r;
    const revision = this.toRevision(row);
    return { ...revision, serving: revisionServing(revision, active_id ? { id: active_id as string, seq: Number(active_seq) } : null) };
  }

  /**
   * Move a revision through the state machine (illegal moves throw: they are bugs in a listener),
   * and the deployment's active revision and status with it.
   */
  async setRevisionStatus(revisionId: string, next: RevisionStatus, detail: { reason?: string; commitSha?: string; buildless?: boolean; from?: RevisionStatus } = {}): Promise<RevisionRow> {
    return withTransaction(this.pool, async (c) => {
      // Lock order everywhere: the deployment, then its revisions (as update() and refreshDeployment
      // do). Locking the revision first deadlocks against a concurrent PATCH on Postgres.
      const { rows: owner } = await c.query("SELECT deployment_id FROM cp_revisions WHERE id = $1", [revisionId]);
      if (!owner[0]) throw new Error(`revision ${revisionId} does not exist`);
      await c.query("SELECT 1 FROM cp_deployments WHERE id = $1 FOR UPDATE", [owner[0].deployment_id]);
      const { rows } = await c.query("SELECT * FROM cp_revisions WHERE id = $1 FOR UPDATE", [revisionId]);
      if (!rows[0]) throw new Error(`revision ${revisionId} does not exist`);
      const current = this.toRevision(rows[0]);
      // Compare-and-set: a writer that names the status it saw is told, not failed, when the control
      // plane moved the revision meanwhile (SKIPPED by a newer revision, say) and it can only stop.
      if (detail.from && current.status !== detail.from && current.status !== next && isTerminal(current.status)) {
        throw new StaleRevisionStatusError(revisionId, detail.from, current.status, current.status_reason);
      }
      const t = transition(current.status, next, { buildless: detail.buildless });
      if (!t.ok) {
        this.illegalTransitions++;
        throw new Error(t.error);
      }
      const since = stampDeployingSince(current.deploying_since ? new Date(current.deploying_since) : null, next, new Date());
      const { rows: updated } = await c.query(
        `UPDATE cp_revisions SET ${appendHistory("$2", "$3")}, status = $2, status_reason = coalesce($3, status_reason), repo_commit_sha = coalesce($4, repo_commit_sha),
           deploying_since = $5, updated_at = now() WHERE id = $1 RETURNING *`,
        [revisionId, next, detail.reason ?? null, detail.commitSha ?? null, since],
      );
      await this.refreshDeployment(c, current.deployment_id);
      return this.toRevision(updated[0]);
    });
  }

  /** Mark the deployment's database as existing (the runtime created it). */
  async setDatabaseReady(deploymentId: string, ready: boolean): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      await c.query("UPDATE cp_deployments SET database_ready = $2, updated_at = now() WHERE id = $1", [deploymentId, ready]);
      await this.refreshDeployment(c, deploymentId);
    });
  }

  /** Status writes refused by the state machine since start (each one is a bug in a writer; tests watch it). */
  illegalTransitions = 0;

  /** Recompute active revision and status from the facts (rules/revision-status, deployment-status). */
  private async refreshDeployment(db: Queryable, deploymentId: string): Promise<void> {
    const { rows } = await db.query("SELECT * FROM cp_deployments WHERE id = $1 FOR UPDATE", [deploymentId]);
    const d = rows[0];
    if (!d) return;
    const { rows: revs } = await db.query("SELECT id, status FROM cp_revisions WHERE deployment_id = $1 ORDER BY seq DESC", [deploymentId]);
    const active = pickActiveRevision(revs as { id: string; status: RevisionStatus }[], d.active_revision_id);
    const status = deriveDeploymentStatus({
      deleteRequested: Boolean(d.delete_requested_at),
      databaseReady: d.database_ready,
      listenerReachable: true,
      hasActiveRevision: active !== null,
    });
    await db.query("UPDATE cp_deployments SET active_revision_id = $2, status = $3 WHERE id = $1", [deploymentId, active, status]);
  }

  /** Start a delete: AWAITING_DELETE until `remove` is called once the runtime has torn it down. */
  async requestDelete(tenantId: string, id: string): Promise<DeploymentRow> {
    return withTransaction(this.pool, async (c) => {
      await this.getFor(c, tenantId, id, true);
      await c.query("UPDATE cp_deployments SET delete_requested_at = coalesce(delete_requested_at, now()), status = 'AWAITING_DELETE', updated_at = now() WHERE id = $1", [id]);
      return this.getFor(c, tenantId, id, false);
    });
  }

  async remove(id: string): Promise<void> {
    await this.pool.query("DELETE FROM cp_deployments WHERE id = $1", [id]);
  }

  async appendLogs(revisionId: string, type: "build" | "deploy", lines: { level: string; message: string; ts?: string }[]): Promise<void> {
    if (!lines.length) return;
    await this.pool.query(
      `INSERT INTO cp_revision_logs (revision_id, type, level, message, ts)
       SELECT $1, $2, l.level, l.message, coalesce(l.ts, clock_timestamp()) FROM jsonb_to_recordset($3::jsonb) AS l(level text, message text, ts timestamptz)`,
      [revisionId, type, JSON.stringify(lines)],
    );
  }

  async logs(
    revisionId: string,
    q: { type: "build" | "deploy"; limit: number; offset?: string; order: "asc" | "desc"; start_time?: string; end_time?: string; query?: string; level?: string },
  ): Promise<{ logs: { id: string; timestamp: string; level: string; message: string }[]; next_offset: string | null }> {
    const after = q.offset === undefined ? null : Number.parseInt(q.offset, 10);
    if (after !== null && !Number.isSafeInteger(after)) throw new ApiError(400, "offset is not a cursor this server issued: pass next_offset from the previous page");
    const cmp = q.order === "asc" ? ">" : "<";
    const { rows } = await this.pool.query(
      `SELECT id, ts, level, message FROM cp_revision_logs
       WHERE revision_id = $1 AND type = $2 AND ($3::bigint IS NULL OR id ${cmp} $3)
         AND ($4::timestamptz IS NULL OR ts >= $4) AND ($5::timestamptz IS NULL OR ts <= $5)
         AND ($6::text IS NULL OR message ILIKE $6) AND ($7::text IS NULL OR level = $7)
       ORDER BY id ${q.order === "asc" ? "ASC" : "DESC"} LIMIT $8`,
      [revisionId, q.type, after, q.start_time ?? null, q.end_time ?? null, q.query === undefined ? null : containsPattern(q.query), q.level ?? null, q.limit + 1],
    );
    const page = rows.slice(0, q.limit);
    return {
      logs: page.map((r) => ({ id: String(r.id), timestamp: iso(r.ts)!, level: r.level, message: r.message })),
      next_offset: rows.length > q.limit ? String(page.at(-1)!.id) : null,
    };
  }
}

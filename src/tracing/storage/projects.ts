/** Tracing projects: one per name per tenant, created on first use. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { containsPattern } from "../../shared/db/like.js";
import { ConflictError, NotFoundError } from "../../shared/errors.js";

export interface Project {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  metadata: Record<string, unknown>;
  /** LangSmith session fields: extra (besides metadata), end time, the dataset of an experiment. */
  extra: Record<string, unknown>;
  end_time: string | null;
  reference_dataset_id: string | null;
  created_at: string;
}

export interface ProjectUpdate {
  name?: string | null;
  description?: string | null;
  metadata?: Record<string, unknown> | null;
  extra?: Record<string, unknown> | null;
  end_time?: string | null;
}

export const DEFAULT_PROJECT = "default";

export class ProjectStore {
  /** tenant|name → id. Project ids never change, so only deletes invalidate. */
  private byName = new Map<string, string>();
  private ids = new Map<string, string>(); // id → tenant

  constructor(private readonly pool: pg.Pool) {}

  /** The id of a project by name, creating it when it does not exist. */
  async idForName(tenantId: string, name: string): Promise<string> {
    const key = `${tenantId}|${name}`;
    const cached = this.byName.get(key);
    if (cached) return cached;
    const { rows } = await this.pool.query<{ id: string }>(
      `WITH ins AS (
         INSERT INTO tracing_projects (id, tenant_id, name) VALUES ($1, $2, $3) ON CONFLICT (tenant_id, name) DO NOTHING RETURNING id
       )
       SELECT id FROM ins UNION ALL SELECT id FROM tracing_projects WHERE tenant_id = $2 AND name = $3`,
      [randomUUID(), tenantId, name],
    );
    // A concurrent first use inserted it after this statement's snapshot was taken: the insert
    // found the conflict but the select cannot see the row yet. A new statement can.
    const id =
      rows[0]?.id ??
      (await this.pool.query<{ id: string }>("SELECT id FROM tracing_projects WHERE tenant_id = $1 AND name = $2", [tenantId, name])).rows[0]?.id;
    if (!id) throw new Error(`project "${name}" was deleted while it was being created`);
    this.byName.set(key, id);
    this.ids.set(id, tenantId);
    return id;
  }

  /** Drop every cached id (a project may have been deleted by another process). */
  forgetAll(): void {
    this.byName.clear();
    this.ids.clear();
  }

  /** Whether a project id exists for the tenant (session_id on a run). */
  async exists(tenantId: string, id: string): Promise<boolean> {
    if (this.ids.get(id) === tenantId) return true;
    const { rowCount } = await this.pool.query("SELECT 1 FROM tracing_projects WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (rowCount) this.ids.set(id, tenantId);
    return Boolean(rowCount);
  }

  async create(
    tenantId: string,
    input: { name: string; description?: string | null; metadata?: Record<string, unknown>; id?: string; extra?: Record<string, unknown> | null; reference_dataset_id?: string | null; end_time?: string | null },
  ): Promise<Project> {
    const { rows } = await this.pool.query<Project>(
      `INSERT INTO tracing_projects (id, tenant_id, name, description, metadata, extra, reference_dataset_id, end_time) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant_id, name) DO NOTHING RETURNING *`,
      [
        input.id ?? randomUUID(),
        tenantId,
        input.name,
        input.description ?? null,
        JSON.stringify(input.metadata ?? {}),
        JSON.stringify(input.extra ?? {}),
        input.reference_dataset_id ?? null,
        input.end_time ?? null,
      ],
    );
    if (!rows[0]) throw new ConflictError(`a project named "${input.name}" already exists`);
    return iso(rows[0]);
  }

  async get(tenantId: string, id: string): Promise<Project> {
    const { rows } = await this.pool.query<Project>("SELECT * FROM tracing_projects WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Project ${id} not found.`);
    return iso(rows[0]);
  }

  async findByName(tenantId: string, name: string): Promise<Project | undefined> {
    const { rows } = await this.pool.query<Project>("SELECT * FROM tracing_projects WHERE tenant_id = $1 AND name = $2", [tenantId, name]);
    return rows[0] ? iso(rows[0]) : undefined;
  }

  /** Projects newest first; `metadata`: a JSON object the project's metadata contains (LangSmith's listProjects filter). */
  async list(tenantId: string, opts: { nameContains?: string; ids?: string[]; referenceDatasetId?: string; referenceFree?: boolean; metadata?: Record<string, unknown>; limit: number; offset: number }): Promise<Project[]> {
    const { rows } = await this.pool.query<Project>(
      `SELECT * FROM tracing_projects WHERE tenant_id = $1 AND ($2::text IS NULL OR name ILIKE $2)
         AND ($5::uuid[] IS NULL OR id = ANY($5)) AND ($6::uuid IS NULL OR reference_dataset_id = $6)
         AND ($7::boolean IS NULL OR (reference_dataset_id IS NULL) = $7) AND ($8::jsonb IS NULL OR metadata @> $8)
       ORDER BY created_at DESC, id LIMIT $3 OFFSET $4`,
      [tenantId, opts.nameContains === undefined ? null : containsPattern(opts.nameContains), opts.limit, opts.offset, opts.ids ?? null, opts.referenceDatasetId ?? null, opts.referenceFree ?? null, opts.metadata ? JSON.stringify(opts.metadata) : null],
    );
    return rows.map(iso);
  }

  /** Change the fields given (LangSmith's updateProject sends every field, null for "unchanged"). */
  async update(tenantId: string, id: string, patch: ProjectUpdate): Promise<Project> {
    const sets: string[] = [];
    const values: unknown[] = [tenantId, id];
    const set = (col: string, v: unknown) => {
      values.push(v);
      sets.push(`${col} = $${values.length}`);
    };
    if (patch.name) set("name", patch.name);
    if (patch.description !== undefined && patch.description !== null) set("description", patch.description);
    if (patch.metadata) set("metadata", JSON.stringify(patch.metadata));
    if (patch.extra) set("extra", JSON.stringify(patch.extra));
    if (patch.end_time) set("end_time", patch.end_time);
    if (!sets.length) return this.get(tenantId, id);
    let rows: Project[];
    try {
      ({ rows } = await this.pool.query<Project>(`UPDATE tracing_projects SET ${sets.join(", ")} WHERE tenant_id = $1 AND id = $2 RETURNING *`, values));
    } catch (err) {
      if ((err as { code?: string }).code === "23505") throw new ConflictError(`a project named "${patch.name}" already exists`);
      throw err;
    }
    if (!rows[0]) throw new NotFoundError(`Project ${id} not found.`);
    for (const [k, v] of this.byName) if (v === id) this.byName.delete(k); // renamed
    return iso(rows[0]);
  }

  /** Delete a project with its runs and rollups (attachments go with their runs' tenant rows). */
  async delete(tenantId: string, id: string): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const { rowCount } = await client.query("DELETE FROM tracing_projects WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
      if (!rowCount) throw new NotFoundError(`Project ${id} not found.`);
      await client.query(
        "DELETE FROM tracing_attachments a WHERE a.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM tracing_runs r WHERE r.tenant_id = a.tenant_id AND r.id = a.run_id)",
        [tenantId],
      );
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
    for (const [k, v] of this.byName) if (v === id) this.byName.delete(k);
    this.ids.delete(id);
  }
}

function iso(p: Project): Project {
  return { ...p, created_at: new Date(p.created_at).toISOString(), end_time: p.end_time ? new Date(p.end_time).toISOString() : null };
}

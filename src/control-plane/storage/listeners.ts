/** Listeners: where deployments run (compute type `local` or `k8s`), one per compute id per tenant. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { ApiError, ConflictError, NotFoundError, isUniqueViolation } from "../../shared/errors.js";
import type { Listener, ListenerCreateRequest, ListenerPatchRequest } from "../rules/index.js";

const present = (r: Record<string, any>): Listener => ({
  id: r.id,
  compute_type: r.compute_type,
  compute_id: r.compute_id,
  compute_config: r.compute_config ?? {},
  version: r.version ?? null,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

export class ListenerStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(tenantId: string, body: ListenerCreateRequest): Promise<Listener> {
    try {
      const { rows } = await this.pool.query(
        "INSERT INTO cp_listeners (id, tenant_id, compute_type, compute_id, compute_config, version) VALUES ($1, $2, $3, $4, $5, $6) RETURNING *",
        [randomUUID(), tenantId, body.compute_type, body.compute_id, JSON.stringify(body.compute_config ?? {}), body.version ?? null],
      );
      return present(rows[0]);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`Listener for tenant ID '${tenantId}' and compute ID '${body.compute_id}' already exists.`);
      throw err;
    }
  }

  async get(tenantId: string, id: string): Promise<Listener> {
    const { rows } = await this.pool.query("SELECT * FROM cp_listeners WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Listener ID ${id} not found.`);
    return present(rows[0]);
  }

  async list(tenantId: string, limit: number, offset: number): Promise<Listener[]> {
    const { rows } = await this.pool.query("SELECT * FROM cp_listeners WHERE tenant_id = $1 ORDER BY created_at, id LIMIT $2 OFFSET $3", [tenantId, limit, offset]);
    return rows.map(present);
  }

  async patch(tenantId: string, id: string, body: ListenerPatchRequest): Promise<Listener> {
    const { rows } = await this.pool.query(
      `UPDATE cp_listeners SET compute_config = coalesce($3::jsonb, compute_config), version = coalesce($4, version), updated_at = now()
       WHERE tenant_id = $1 AND id = $2 RETURNING *`,
      [tenantId, id, body.compute_config ? JSON.stringify(body.compute_config) : null, body.version ?? null],
    );
    if (!rows[0]) throw new NotFoundError(`Listener ID ${id} not found.`);
    return present(rows[0]);
  }

  /** A listener deployments still run on cannot go away under them. */
  async delete(tenantId: string, id: string): Promise<void> {
    await this.get(tenantId, id);
    const { rows } = await this.pool.query("SELECT name FROM cp_deployments WHERE tenant_id = $1 AND config->'source_config'->>'listener_id' = $2 LIMIT 3", [tenantId, id]);
    if (rows.length) throw new ApiError(409, `Listener ID ${id} is used by deployments (${rows.map((r) => r.name).join(", ")}): delete them first.`);
    await this.pool.query("DELETE FROM cp_listeners WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
  }
}

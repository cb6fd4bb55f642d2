/** Hosted-git integrations: the git hosts a tenant's deployments build from. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { ConflictError, NotFoundError, isUniqueViolation } from "../../shared/errors.js";
import { decryptSecret, encryptSecret } from "../rules/index.js";

export const INTEGRATION_KINDS = ["local", "github", "git"] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

export interface Integration {
  id: string;
  tenant_id: string;
  name: string;
  kind: IntegrationKind;
  base_url: string | null;
  /** Decrypted; never returned by the API. */
  token: string | null;
  webhook_secret: string | null;
  created_at: string;
}

export class IntegrationStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly keys: Buffer[],
  ) {}

  private row = (r: Record<string, any>): Integration => ({
    id: r.id,
    tenant_id: r.tenant_id,
    name: r.name,
    kind: r.kind,
    base_url: r.base_url,
    token: r.token ? decryptSecret(r.token, this.keys) : null,
    webhook_secret: r.webhook_secret ? decryptSecret(r.webhook_secret, this.keys) : null,
    created_at: new Date(r.created_at).toISOString(),
  });

  async create(tenantId: string, input: { name: string; kind: IntegrationKind; base_url?: string | null; token?: string | null; webhook_secret?: string | null }): Promise<Integration> {
    const seal = (v: string | null | undefined) => (v ? encryptSecret(v, this.keys[0]!) : null);
    try {
      const { rows } = await this.pool.query(
        "INSERT INTO cp_integrations (id, tenant_id, name, kind, base_url, token, webhook_secret) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *",
        [randomUUID(), tenantId, input.name, input.kind, input.base_url ?? null, seal(input.token), seal(input.webhook_secret)],
      );
      return this.row(rows[0]);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`An integration named '${input.name}' already exists.`);
      throw err;
    }
  }

  /** Find-or-create by name (what `berth dev` does for its default local integration). */
  async ensure(tenantId: string, input: { name: string; kind: IntegrationKind; base_url?: string | null }): Promise<Integration> {
    const { rows } = await this.pool.query("SELECT * FROM cp_integrations WHERE tenant_id = $1 AND name = $2", [tenantId, input.name]);
    return rows[0] ? this.row(rows[0]) : this.create(tenantId, input).catch(async (err) => {
      if (!(err instanceof ConflictError)) throw err;
      return this.ensure(tenantId, input);
    });
  }

  async get(tenantId: string, id: string): Promise<Integration> {
    const { rows } = await this.pool.query("SELECT * FROM cp_integrations WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Integration ID ${id} not found.`);
    return this.row(rows[0]);
  }

  /** By id alone: webhooks arrive without a tenant, and prove themselves with the integration's secret. */
  async getById(id: string): Promise<Integration | undefined> {
    const { rows } = await this.pool.query("SELECT * FROM cp_integrations WHERE id = $1", [id]);
    return rows[0] ? this.row(rows[0]) : undefined;
  }

  async list(tenantId: string): Promise<Integration[]> {
    const { rows } = await this.pool.query("SELECT * FROM cp_integrations WHERE tenant_id = $1 ORDER BY created_at, id", [tenantId]);
    return rows.map(this.row);
  }

  async delete(tenantId: string, id: string): Promise<void> {
    const { rowCount } = await this.pool.query("DELETE FROM cp_integrations WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
    if (!rowCount) throw new NotFoundError(`Integration ID ${id} not found.`);
  }
}

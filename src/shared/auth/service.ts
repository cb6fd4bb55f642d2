/**
 * API keys and tenants. A key is stored as its SHA-256 (keys are random, so no slow hash is
 * needed); a key may act for several tenants, the request picks one with `X-Tenant-Id`.
 *
 * Three kinds of key:
 * - a tenant key (no scopes): every API of its tenants;
 * - an admin key (the one the operator configures): a tenant key that may also manage tenants;
 * - a scoped key (`scopes: ["tracing:write"]`, usually pinned to one project): what a deployment
 *   gets to send its traces; every other API refuses it (see `middleware.ts`). A deployment's
 *   platform-auth key (`deployment-auth:<id>`) is scoped too: it only fetches that deployment's
 *   key snapshot (platform-keys.ts).
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { ApiError } from "../errors.js";
import { DEFAULT_FAILURE_LIMITS, FailureLimiter, type FailureLimits } from "./failures.js";
import { deploymentAuthScope, type KeySnapshot } from "./platform-keys.js";

export const DEFAULT_TENANT_ID = "00000000-0000-4000-8000-000000000001";
export const DEFAULT_TENANT_NAME = "default";

export interface Principal {
  /** The tenant this request acts for. */
  tenantId: string;
  /** Every tenant the caller may act for. */
  tenantIds: string[];
  /** The key used; undefined for anonymous loopback access in the embedded dev mode. */
  keyId?: string;
  /** An admin key: may manage tenants. */
  admin?: boolean;
  /** A scoped key: only what these scopes allow (tracing:write), into `project` when set. */
  restricted?: KeyRestriction;
}

/** The scope of a deployment's tracing key: ingest traces, nothing else. */
export const TRACING_WRITE = "tracing:write";

export interface KeyRestriction {
  scopes: string[];
  /** The only tracing project the key may write to; null: any of its tenant. */
  project: string | null;
}

export interface ApiKeyRecord {
  id: string;
  name: string;
  tenant_ids: string[];
  admin: boolean;
  scopes: string[];
  project: string | null;
  deployment_id: string | null;
  created_at: string;
}

export interface Tenant {
  id: string;
  name: string;
  created_at: string;
}

interface KeyRow {
  id: string;
  tenant_ids: string[];
  admin: boolean;
  scopes: string[];
  project: string | null;
}

export class AuthError extends ApiError {
  constructor(status: 401 | 403, detail: string) {
    super(status, detail, status === 401 ? { "WWW-Authenticate": 'ApiKey header="X-Api-Key"' } : {});
    this.name = "AuthError";
  }
}

const CACHES = new WeakMap<pg.Pool, Map<string, { at: number; key?: KeyRow }>>();
const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");
const CACHE_MS = 30_000;

export interface AuthOptions {
  /** Most keys (valid or not) remembered at once; the least recently used go first. */
  cacheEntries?: number;
  /** Failed attempts per client before 429 (see FailureLimiter). */
  failures?: Partial<FailureLimits>;
}

export class AuthService {
  /**
   * Key hash → key record, briefly cached: every request authenticates. Shared by every service on
   * the same pool (the control plane and the tracing facility of one server), so a revocation by
   * one takes effect at once in the other. Unknown keys are cached too (a client retrying a bad key
   * costs no query), so the cache is bounded: otherwise every distinct guess would stay in memory.
   */
  private readonly cache: Map<string, { at: number; key?: KeyRow }>;
  private readonly cacheEntries: number;
  /** Failed attempts per client; the middleware consults and feeds it. */
  readonly failures: FailureLimiter;

  constructor(
    private readonly pool: pg.Pool,
    options: AuthOptions = {},
  ) {
    let cache = CACHES.get(pool);
    if (!cache) CACHES.set(pool, (cache = new Map()));
    this.cache = cache;
    this.cacheEntries = Math.max(1, options.cacheEntries ?? 10_000);
    this.failures = new FailureLimiter({ ...DEFAULT_FAILURE_LIMITS, ...options.failures });
  }

  /** Keys cached now (bounded by `cacheEntries`). */
  get cacheSize(): number {
    return this.cache.size;
  }

  async ensureDefaultTenant(): Promise<void> {
    await this.pool.query("INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT DO NOTHING", [DEFAULT_TENANT_ID, DEFAULT_TENANT_NAME]);
  }

  async createTenant(name: string): Promise<{ id: string; name: string }> {
    const { rows } = await this.pool.query<{ id: string; name: string }>(
      "INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id, name",
      [randomUUID(), name],
    );
    return rows[0]!;
  }

  async tenants(ids: string[]): Promise<{ id: string; name: string }[]> {
    const { rows } = await this.pool.query<{ id: string; name: string }>("SELECT id, name FROM tenants WHERE id = ANY($1::uuid[]) ORDER BY name", [ids]);
    return rows;
  }

  /** A new tenant; undefined when the name is taken. */
  async addTenant(name: string): Promise<Tenant | undefined> {
    const { rows } = await this.pool.query("INSERT INTO tenants (id, name) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING id, name, created_at", [randomUUID(), name]);
    return rows[0] ? tenantOf(rows[0]) : undefined;
  }

  async allTenants(): Promise<Tenant[]> {
    const { rows } = await this.pool.query("SELECT id, name, created_at FROM tenants ORDER BY created_at, name");
    return rows.map(tenantOf);
  }

  async tenant(id: string): Promise<Tenant | undefined> {
    const { rows } = await this.pool.query("SELECT id, name, created_at FROM tenants WHERE id = $1", [id]);
    return rows[0] ? tenantOf(rows[0]) : undefined;
  }

  /**
   * Delete a tenant and its keys (a key shared with other tenants only loses this one); false when
   * there is none. The caller checks first that nothing else (deployments) still belongs to it.
   */
  async deleteTenant(id: string): Promise<boolean> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const { rowCount } = await client.query("DELETE FROM tenants WHERE id = $1", [id]);
      await client.query("DELETE FROM api_keys WHERE tenant_ids = ARRAY[$1::uuid]", [id]);
      await client.query("UPDATE api_keys SET tenant_ids = array_remove(tenant_ids, $1::uuid) WHERE $1::uuid = ANY(tenant_ids)", [id]);
      await client.query("COMMIT");
      this.cache.clear();
      return Boolean(rowCount);
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Register a key the operator chose (e.g. from an environment variable); idempotent. An admin key stays admin. */
  async addKey(key: string, tenantIds: string[] = [DEFAULT_TENANT_ID], name = "", options: { admin?: boolean } = {}): Promise<string> {
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO api_keys (id, key_hash, name, tenant_ids, admin) VALUES ($1, $2, $3, $4::uuid[], $5)
       ON CONFLICT (key_hash) DO UPDATE SET tenant_ids = EXCLUDED.tenant_ids, admin = api_keys.admin OR EXCLUDED.admin RETURNING id`,
      [randomUUID(), hashKey(key), name, tenantIds, options.admin ?? false],
    );
    this.cache.clear();
    return rows[0]!.id;
  }

  /** A new random key; the plaintext is returned once and never stored. */
  async createKey(tenantIds: string[] = [DEFAULT_TENANT_ID], name = ""): Promise<{ id: string; key: string }> {
    const key = newKey();
    return { id: await this.addKey(key, tenantIds, name), key };
  }

  /**
   * The key a deployment's agent server traces with: one tenant, scope tracing:write, only into the
   * deployment's project; revoked with the deployment (`revokeDeploymentKeys`).
   */
  async createDeploymentKey(tenantId: string, deployment: { id: string; name: string }): Promise<{ id: string; key: string }> {
    const key = newKey();
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO api_keys (id, key_hash, name, tenant_ids, scopes, project, deployment_id) VALUES ($1, $2, $3, ARRAY[$4::uuid], $5, $6, $7) RETURNING id`,
      [randomUUID(), hashKey(key), `deployment ${deployment.name} (tracing)`, tenantId, [TRACING_WRITE], deployment.name, deployment.id],
    );
    return { id: rows[0]!.id, key };
  }

  /**
   * The credential a deployment's agent server fetches its tenant's key snapshot with (platform
   * auth): one tenant, the single scope `deployment-auth:<id>` — every API but that snapshot's
   * endpoint refuses it; revoked with the deployment.
   */
  async createDeploymentAuthKey(tenantId: string, deployment: { id: string; name: string }): Promise<{ id: string; key: string }> {
    const key = newKey();
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO api_keys (id, key_hash, name, tenant_ids, scopes, deployment_id) VALUES ($1, $2, $3, ARRAY[$4::uuid], $5, $6) RETURNING id`,
      [randomUUID(), hashKey(key), `deployment ${deployment.name} (platform auth)`, tenantId, [deploymentAuthScope(deployment.id)], deployment.id],
    );
    return { id: rows[0]!.id, key };
  }

  /**
   * What a deployment of `tenantId` needs to check keys itself: the hashes of the keys that may act
   * for the tenant on every API (unscoped: never a deployment's tracing or platform-auth key),
   * versioned by the database's clock so the newest snapshot wins wherever it is kept.
   */
  async platformKeySnapshot(tenantId: string): Promise<KeySnapshot> {
    const { rows } = await this.pool.query<{ id: string; key_hash: string; version: string }>(
      `SELECT k.id, k.key_hash, v.version FROM (SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint AS version) v
       LEFT JOIN api_keys k ON $1 = ANY(k.tenant_ids) AND k.scopes = '{}' ORDER BY k.created_at, k.id`,
      [tenantId],
    );
    return {
      tenant_id: tenantId,
      version: Number(rows[0]!.version),
      keys: rows.filter((r) => r.id !== null).map((r) => ({ id: r.id, sha256: r.key_hash })),
    };
  }

  /** Revoke every key issued for a deployment; how many there were. */
  async revokeDeploymentKeys(deploymentId: string): Promise<number> {
    const { rowCount } = await this.pool.query("DELETE FROM api_keys WHERE deployment_id = $1", [deploymentId]);
    this.cache.clear();
    return rowCount ?? 0;
  }

  /** A key's record, if it exists and may act for the tenant. */
  async key(tenantId: string, id: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.pool.query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE id = $1 AND $2 = ANY(tenant_ids)`, [id, tenantId]);
    return rows[0] ? keyOf(rows[0]) : undefined;
  }

  /** Keys that may act for a tenant (never their secret: only a hash is kept). */
  async listKeys(tenantId: string): Promise<ApiKeyRecord[]> {
    const { rows } = await this.pool.query(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE $1 = ANY(tenant_ids) ORDER BY created_at, id`, [tenantId]);
    return rows.map(keyOf);
  }

  /** Revoke a key of this tenant; false when there is none. Takes effect at once in this process. */
  async revokeKey(tenantId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("DELETE FROM api_keys WHERE id = $1 AND $2 = ANY(tenant_ids)", [id, tenantId]);
    this.cache.clear();
    return Boolean(rowCount);
  }

  /**
   * The principal for a request's key and tenant header. Throws 401 for a missing or unknown key
   * and 403 for a tenant the key may not act for.
   */
  async authenticate(key: string | undefined, tenantHeader: string | undefined): Promise<Principal> {
    if (!key) throw new AuthError(401, "missing API key: send it in the X-Api-Key header");
    const hash = hashKey(key);
    let hit = this.cache.get(hash);
    if (!hit || Date.now() - hit.at > CACHE_MS) {
      const { rows } = await this.pool.query<KeyRow>("SELECT id, tenant_ids, admin, scopes, project FROM api_keys WHERE key_hash = $1", [hash]);
      hit = { at: Date.now(), key: rows[0] };
    }
    // most recently used last; the oldest go when the cache is full
    this.cache.delete(hash);
    this.cache.set(hash, hit);
    while (this.cache.size > this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    if (!hit.key) throw new AuthError(401, "invalid API key");
    const { admin, scopes, project } = hit.key;
    return {
      ...pickTenant(hit.key.tenant_ids, tenantHeader, hit.key.id),
      ...(admin ? { admin: true } : {}),
      ...(scopes.length ? { restricted: { scopes, project } } : {}),
    };
  }
}

const newKey = () => `berth_${randomBytes(24).toString("base64url")}`;
const KEY_COLUMNS = "id, name, tenant_ids, admin, scopes, project, deployment_id, created_at";
const iso = (t: unknown) => new Date(t as string).toISOString();
const keyOf = (r: ApiKeyRecord): ApiKeyRecord => ({ ...r, created_at: iso(r.created_at) });
const tenantOf = (r: Tenant): Tenant => ({ id: r.id, name: r.name, created_at: iso(r.created_at) });

/** The tenant a request acts for: the header's, if the caller may; else the caller's first. */
export function pickTenant(tenantIds: string[], tenantHeader: string | undefined, keyId?: string): Principal {
  const wanted = tenantHeader?.trim();
  if (wanted && !tenantIds.includes(wanted)) throw new AuthError(403, `this API key may not act for tenant ${wanted}`);
  return { tenantId: wanted || tenantIds[0]!, tenantIds, ...(keyId ? { keyId } : {}) };
}

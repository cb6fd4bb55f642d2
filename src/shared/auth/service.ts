/**
 * API keys and tenants. A key is stored as its SHA-256 (keys are random, so no slow hash is
 * needed); a key may act for several tenants, the request picks one with `X-Tenant-Id`.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type pg from "pg";
import { ApiError } from "../errors.js";
import { DEFAULT_FAILURE_LIMITS, FailureLimiter, type FailureLimits } from "./failures.js";

export const DEFAULT_TENANT_ID = "00000000-0000-4000-8000-000000000001";
export const DEFAULT_TENANT_NAME = "default";

export interface Principal {
  /** The tenant this request acts for. */
  tenantId: string;
  /** Every tenant the caller may act for. */
  tenantIds: string[];
  /** The key used; undefined for anonymous loopback access in the embedded dev mode. */
  keyId?: string;
}

export class AuthError extends ApiError {
  constructor(status: 401 | 403, detail: string) {
    super(status, detail, status === 401 ? { "WWW-Authenticate": 'ApiKey header="X-Api-Key"' } : {});
    this.name = "AuthError";
  }
}

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
   * Key hash → key record, briefly cached: every request authenticates. Unknown keys are cached
   * too (a client retrying a bad key costs no query), so the cache is bounded: otherwise every
   * distinct guess would stay in memory.
   */
  private cache = new Map<string, { at: number; key?: { id: string; tenant_ids: string[] } }>();
  private readonly cacheEntries: number;
  /** Failed attempts per client; the middleware consults and feeds it. */
  readonly failures: FailureLimiter;

  constructor(
    private readonly pool: pg.Pool,
    options: AuthOptions = {},
  ) {
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

  /** Register a key the operator chose (e.g. from an environment variable); idempotent. */
  async addKey(key: string, tenantIds: string[] = [DEFAULT_TENANT_ID], name = ""): Promise<string> {
    const { rows } = await this.pool.query<{ id: string }>(
      `INSERT INTO api_keys (id, key_hash, name, tenant_ids) VALUES ($1, $2, $3, $4::uuid[])
       ON CONFLICT (key_hash) DO UPDATE SET tenant_ids = EXCLUDED.tenant_ids RETURNING id`,
      [randomUUID(), hashKey(key), name, tenantIds],
    );
    this.cache.clear();
    return rows[0]!.id;
  }

  /** A new random key; the plaintext is returned once and never stored. */
  async createKey(tenantIds: string[] = [DEFAULT_TENANT_ID], name = ""): Promise<{ id: string; key: string }> {
    const key = `berth_${randomBytes(24).toString("base64url")}`;
    return { id: await this.addKey(key, tenantIds, name), key };
  }

  /** Keys that may act for a tenant (never their secret: only a hash is kept). */
  async listKeys(tenantId: string): Promise<{ id: string; name: string; tenant_ids: string[]; created_at: string }[]> {
    const { rows } = await this.pool.query("SELECT id, name, tenant_ids, created_at FROM api_keys WHERE $1 = ANY(tenant_ids) ORDER BY created_at, id", [tenantId]);
    return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
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
      const { rows } = await this.pool.query<{ id: string; tenant_ids: string[] }>("SELECT id, tenant_ids FROM api_keys WHERE key_hash = $1", [hash]);
      hit = { at: Date.now(), key: rows[0] };
    }
    // most recently used last; the oldest go when the cache is full
    this.cache.delete(hash);
    this.cache.set(hash, hit);
    while (this.cache.size > this.cacheEntries) this.cache.delete(this.cache.keys().next().value!);
    if (!hit.key) throw new AuthError(401, "invalid API key");
    return pickTenant(hit.key.tenant_ids, tenantHeader, hit.key.id);
  }
}

/** The tenant a request acts for: the header's, if the caller may; else the caller's first. */
export function pickTenant(tenantIds: string[], tenantHeader: string | undefined, keyId?: string): Principal {
  const wanted = tenantHeader?.trim();
  if (wanted && !tenantIds.includes(wanted)) throw new AuthError(403, `this API key may not act for tenant ${wanted}`);
  return { tenantId: wanted || tenantIds[0]!, tenantIds, ...(keyId ? { keyId } : {}) };
}

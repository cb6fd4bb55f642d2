/**
 * Platform auth: a request needs a key of the deployment's tenant (`X-Api-Key`, or
 * `Authorization: Bearer <key>`), a Bearer JWT the control plane would accept for that tenant, or
 * one of the keys `berth serve` was given by hand. Keys are checked here against SHA-256 hashes
 * (snapshot from the control plane, refreshed in the background: no round trip per request, and
 * the last snapshot keeps working while the control plane is down). Scoped keys (a deployment's
 * tracing key, its platform-auth credential) are never in the snapshot, so they open nothing.
 */
import { timingSafeEqual } from "node:crypto";
import type { Request } from "express";
import type pg from "pg";
import { AuthError, newerSnapshot, requestKey, scopeAllows, sha256Hex, type KeySnapshot } from "../../shared/auth/index.js";
import { jwtVerifier, looksLikeJwt, type JwtVerifier } from "../../shared/auth/jwt.js";
import { DEFAULT_FAILURE_LIMITS, FailureLimiter, clientOfRequest, type FailureLimits } from "../../shared/auth/failures.js";
import { ApiError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logging.js";
import type { PlatformAuthConfig } from "./platform-settings.js";
import { SnapshotRefresher } from "./platform-refresh.js";
import { KeySnapshotStore } from "./platform-snapshots.js";
import type { AuthUser, RequestAuthenticator } from "./types.js";

/** Whether `hash` is one of `keys` (pure): every entry compared in constant time, no early exit. */
export function matchKey(hash: string, keys: readonly { id: string; sha256: string }[]): string | undefined {
  const wanted = Buffer.from(hash, "hex");
  let found: string | undefined;
  for (const k of keys) {
    const candidate = Buffer.from(k.sha256, "hex");
    if (candidate.length === wanted.length && timingSafeEqual(candidate, wanted) && found === undefined) found = k.id;
  }
  return found;
}

export interface PlatformAuthDeps {
  pool: pg.Pool;
  embedded: boolean;
  logger: Logger;
  /** Whether to refresh snapshots (only a process serving HTTP needs them). */
  refresh: boolean;
  failures?: Partial<FailureLimits>;
}

export class PlatformAuthenticator implements RequestAuthenticator {
  readonly mode = "platform" as const;
  private snapshot: KeySnapshot | undefined;
  private snapshotSource: "environment" | "database" | "control-plane" | undefined;
  private refresher: SnapshotRefresher | undefined;
  private readonly failures: FailureLimiter;

  private constructor(
    private readonly config: PlatformAuthConfig,
    private readonly store: KeySnapshotStore | undefined,
    private readonly verifyToken: JwtVerifier | undefined,
    failures: Partial<FailureLimits> | undefined,
  ) {
    this.failures = new FailureLimiter({ ...DEFAULT_FAILURE_LIMITS, ...failures });
  }

  static async create(config: PlatformAuthConfig, deps: PlatformAuthDeps): Promise<PlatformAuthenticator> {
    const store = config.tenantId ? new KeySnapshotStore(deps.pool, deps.embedded) : undefined;
    // the control plane's own verifier (claims, tenants, scopes); only public keys reach a deployment
    const verify = config.tenantId && config.jwt ? await jwtVerifier({ jwksUrl: config.jwt.jwksUrl, publicKey: config.jwt.publicKey, issuer: config.jwt.issuer, audience: config.jwt.audience }) : undefined;
    const a = new PlatformAuthenticator(config, store, verify, deps.failures);
    if (store && config.tenantId) {
      await store.setup();
      const kept = await store.load(config.tenantId);
      a.snapshot = newerSnapshot(kept, config.initialSnapshot);
      a.snapshotSource = !a.snapshot ? undefined : a.snapshot === kept ? "database" : "environment";
      if (a.snapshot && a.snapshotSource === "environment") await store.save(a.snapshot);
      if (config.refresh && deps.refresh) {
        a.refresher = new SnapshotRefresher({ ...config.refresh, tenantId: config.tenantId, logger: deps.logger, onSnapshot: (s) => a.accept(s) });
        a.refresher.start();
      }
    }
    return a;
  }

  /** Take a snapshot from the control plane if it is newer than ours, and keep it in the database. */
  private async accept(s: KeySnapshot): Promise<void> {
    if (newerSnapshot(this.snapshot, s) !== s) return;
    this.snapshot = s;
    this.snapshotSource = "control-plane";
    await this.store?.save(s);
  }

  describe(): Record<string, unknown> {
    const s = this.snapshot;
    return {
      mode: "platform",
      ...(this.config.tenantId
        ? {
            tenant_id: this.config.tenantId,
            keys: {
              version: s?.version ?? null,
              count: s?.keys.length ?? 0,
              source: this.snapshotSource ?? null,
              // the version is the control plane's clock (µs) when it read the keys
              age_seconds: s ? Math.max(0, Math.round((Date.now() - s.version / 1000) / 1000)) : null,
            },
            refresh: this.config.refresh
              ? {
                  every_seconds: this.config.refresh.everySeconds,
                  last_success_at: this.refresher?.lastSuccessAt?.toISOString() ?? null,
                  failing: this.refresher?.lastError !== undefined,
                }
              : null,
            jwt: Boolean(this.verifyToken),
          }
        : {}),
      static_keys: this.config.staticKeys.length,
    };
  }

  async authenticate(req: Request): Promise<AuthUser> {
    const key = requestKey(req);
    if (!key) throw new AuthError(401, "missing API key: send a key of this deployment's tenant in the X-Api-Key header (or Authorization: Bearer)");
    const client = clientOfRequest(req);
    const wait = this.failures.retryAfter(client);
    if (wait > 0) throw new ApiError(429, `too many failed authentication attempts from this client: retry in ${wait} s`, { "Retry-After": String(wait) });
    try {
      const bearer = req.headers.authorization?.startsWith("Bearer ") ? key : undefined;
      if (this.verifyToken && bearer && looksLikeJwt(bearer)) return await this.tokenUser(bearer, req.method);
      const hash = sha256Hex(key);
      const tenantId = this.config.tenantId;
      const id = (tenantId && this.snapshot ? matchKey(hash, this.snapshot.keys) : undefined) ?? matchKey(hash, this.config.staticKeys);
      if (!id) throw new AuthError(401, "invalid API key");
      return { identity: id, permissions: [], is_authenticated: true, kind: "api_key", ...(tenantId ? { tenant_id: tenantId } : {}) };
    } catch (err) {
      if (err instanceof AuthError && err.status === 401) this.failures.fail(client);
      throw err;
    }
  }

  private async tokenUser(token: string, method: string): Promise<AuthUser> {
    const tenantId = this.config.tenantId!;
    // naming the deployment's tenant as the wanted one: a token of other tenants only is a 403
    const principal = await this.verifyToken!(token, tenantId).catch((err: unknown) => {
      if (err instanceof AuthError && err.status === 403) throw new AuthError(403, "the bearer token may not act for this deployment's tenant");
      throw err;
    });
    if (!scopeAllows(principal.scopes, method)) throw new AuthError(403, `the bearer token's scope (${principal.scopes.join(" ")}) does not allow ${method}`);
    return { identity: principal.subject ?? "jwt", permissions: [], is_authenticated: true, kind: "jwt", tenant_id: tenantId };
  }

  async close(): Promise<void> {
    this.refresher?.close();
  }
}

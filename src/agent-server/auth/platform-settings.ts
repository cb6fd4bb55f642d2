/**
 * Which platform auth an agent server process runs with, from its settings (pure but for reading
 * the keys file): the control plane's (a tenant, its key snapshot, where to refresh it, JWT
 * verification) and/or fixed keys (`berth serve --api-key` / `--api-keys-file`). Undefined: none.
 */
import { readFileSync } from "node:fs";
import { parseKeySnapshot, sha256Hex, type JwtSettings, type KeySnapshot } from "../../shared/auth/index.js";
import { ConfigError, type AgentServerSettings } from "../../shared/config.js";

export interface PlatformAuthConfig {
  /** The deployment's tenant: keys and tokens acting for it open this server. */
  tenantId?: string;
  /** The snapshot the process was started with (BERTH_AUTH_KEYS). */
  initialSnapshot?: KeySnapshot;
  /** Where fresher snapshots come from, with the deployment's own credential. */
  refresh?: { url: string; credential: string; everySeconds: number };
  /** SHA-256 of the keys given by hand (`--api-key`, keys file), with a name each (never the key). */
  staticKeys: { id: string; sha256: string }[];
  jwt?: JwtSettings;
}

const MIN_KEY_LENGTH = 16;

/** The keys of `--api-key` (comma-separated) and of the keys file (one a line, `#` comments). */
export function staticKeysOf(apiKey: string | undefined, fileText: string | undefined): string[] {
  const keys = [...(apiKey ?? "").split(","), ...(fileText ?? "").split(/\r?\n/).map((l) => l.replace(/#.*/, ""))].map((k) => k.trim()).filter(Boolean);
  const short = keys.find((k) => k.length < MIN_KEY_LENGTH);
  if (short !== undefined) throw new ConfigError(`invalid configuration:\n  --api-key / BERTH_API_KEY / BERTH_API_KEYS_FILE: every key must be at least ${MIN_KEY_LENGTH} characters (one has ${short.length})`);
  return [...new Set(keys)];
}

export function platformAuthConfig(s: AgentServerSettings): PlatformAuthConfig | undefined {
  let fileText: string | undefined;
  if (s.apiKeysFile) {
    try {
      fileText = readFileSync(s.apiKeysFile, "utf8");
    } catch (err) {
      throw new ConfigError(`invalid configuration:\n  BERTH_API_KEYS_FILE / --api-keys-file: cannot read ${s.apiKeysFile}: ${(err as Error).message}`);
    }
  }
  const staticKeys = staticKeysOf(s.apiKey, fileText).map((k, i) => ({ id: `api-key-${i + 1}`, sha256: sha256Hex(k) }));
  if (!s.authTenantId) {
    if (s.authKeys || s.authKeysUrl) throw new ConfigError("invalid configuration:\n  BERTH_AUTH_KEYS / BERTH_AUTH_KEYS_URL need BERTH_AUTH_TENANT_ID (the deployment's tenant)");
    return staticKeys.length ? { staticKeys } : undefined;
  }
  let initialSnapshot: KeySnapshot | undefined;
  if (s.authKeys) {
    try {
      initialSnapshot = parseKeySnapshot(s.authKeys);
    } catch (err) {
      throw new ConfigError(`invalid configuration:\n  environment variable BERTH_AUTH_KEYS: not a key snapshot: ${(err as Error).message}`);
    }
    if (initialSnapshot.tenant_id !== s.authTenantId) throw new ConfigError("invalid configuration:\n  BERTH_AUTH_KEYS is the snapshot of another tenant than BERTH_AUTH_TENANT_ID");
  }
  if (s.authKeysUrl && !s.authDeploymentKey) throw new ConfigError("invalid configuration:\n  BERTH_AUTH_KEYS_URL needs BERTH_AUTH_DEPLOYMENT_KEY (the deployment's credential)");
  if (!initialSnapshot && !s.authKeysUrl) throw new ConfigError("invalid configuration:\n  BERTH_AUTH_TENANT_ID needs BERTH_AUTH_KEYS or BERTH_AUTH_KEYS_URL");
  const jwt: JwtSettings | undefined =
    s.authJwtJwksUrl || s.authJwtPublicKey
      ? { jwksUrl: s.authJwtJwksUrl, publicKey: s.authJwtPublicKey, issuer: s.authJwtIssuer, audience: s.authJwtAudience }
      : undefined;
  return {
    tenantId: s.authTenantId,
    initialSnapshot,
    refresh: s.authKeysUrl ? { url: s.authKeysUrl, credential: s.authDeploymentKey!, everySeconds: s.authRefreshSeconds } : undefined,
    staticKeys,
    jwt,
  };
}

/**
 * Platform auth of deployed agent servers: what the control plane hands a deployment so its agent
 * server can check its tenant's API keys locally, without asking the control plane per request.
 *
 * - A key snapshot: the SHA-256 hashes of the tenant's unscoped keys (the same hashes the control
 *   plane stores; a hash does not open anything, only the key does), with a version (the control
 *   plane database's clock, in microseconds) so the newest snapshot always wins.
 * - The deployment's own credential: a key whose only scope is `deployment-auth:<deployment id>`,
 *   which every API refuses except the endpoint serving that deployment's snapshot.
 * - The JWT verification settings a token of the control plane is checked with (never an HMAC
 *   secret: a deployment holding it could mint tokens for the control plane).
 *
 * Both ends (the listeners writing the environment, the agent server reading it) use these names.
 */
import { createHash } from "node:crypto";
import { z } from "zod";
import type { JwtSettings } from "./jwt.js";

/** The scope of a deployment's platform-auth credential, bound to that deployment. */
export const deploymentAuthScope = (deploymentId: string) => `deployment-auth:${deploymentId}`;

/** The path (under the control plane) that serves a deployment its tenant's key snapshot. */
export const platformKeysPath = (deploymentId: string) => `/v2/deployments/${deploymentId}/platform-auth/keys`;

export const DEFAULT_AUTH_REFRESH_SECONDS = 30;

/** The environment variables an agent server reads its platform auth from (see config.ts). */
export const PLATFORM_AUTH_ENV = {
  tenantId: "BERTH_AUTH_TENANT_ID",
  keys: "BERTH_AUTH_KEYS",
  keysUrl: "BERTH_AUTH_KEYS_URL",
  deploymentKey: "BERTH_AUTH_DEPLOYMENT_KEY",
  refreshSeconds: "BERTH_AUTH_REFRESH_SECONDS",
  jwtJwksUrl: "BERTH_AUTH_JWT_JWKS_URL",
  jwtPublicKey: "BERTH_AUTH_JWT_PUBLIC_KEY",
  jwtIssuer: "BERTH_AUTH_JWT_ISSUER",
  jwtAudience: "BERTH_AUTH_JWT_AUDIENCE",
} as const;

export const keySnapshotSchema = z.object({
  tenant_id: z.string().min(1),
  /** Strictly growing: a snapshot with a lower version is older and never replaces a newer one. */
  version: z.number().int().nonnegative(),
  keys: z.array(z.object({ id: z.string().min(1), sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be a hex SHA-256") })).max(100_000),
});
export type KeySnapshot = z.infer<typeof keySnapshotSchema>;

export const sha256Hex = (key: string) => createHash("sha256").update(key).digest("hex");

/** A snapshot from JSON text; throws with a readable reason when it is not one. */
export function parseKeySnapshot(text: string): KeySnapshot {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON: ${(err as Error).message}`);
  }
  const parsed = keySnapshotSchema.safeParse(raw);
  if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join(".") || "snapshot"}: ${i.message}`).join("; "));
  return parsed.data;
}

/** The newer of two snapshots (pure): the higher version; a tie keeps `current`. */
export function newerSnapshot(current: KeySnapshot | undefined, candidate: KeySnapshot | undefined): KeySnapshot | undefined {
  if (!candidate) return current;
  if (!current) return candidate;
  return candidate.version > current.version ? candidate : current;
}

export interface PlatformAuthEnvInput {
  tenantId: string;
  snapshot: KeySnapshot;
  /** The control plane's base URL as the deployment reaches it. */
  controlPlaneUrl: string;
  deploymentId: string;
  /** The deployment's own credential (scope deployment-auth:<id>). */
  deploymentKey: string;
  refreshSeconds?: number;
  jwt?: JwtSettings;
}

/** The environment that turns platform auth on in a deployment's agent server (pure). */
export function platformAuthEnv(input: PlatformAuthEnvInput): Record<string, string> {
  const e = PLATFORM_AUTH_ENV;
  const env: Record<string, string> = {
    [e.tenantId]: input.tenantId,
    [e.keys]: JSON.stringify(input.snapshot),
    [e.keysUrl]: `${input.controlPlaneUrl.replace(/\/+$/, "")}${platformKeysPath(input.deploymentId)}`,
    [e.deploymentKey]: input.deploymentKey,
  };
  if (input.refreshSeconds !== undefined) env[e.refreshSeconds] = String(input.refreshSeconds);
  const jwt = input.jwt;
  // only what verifies a token; an HMAC secret would let the deployment sign tokens itself
  if (jwt?.jwksUrl) env[e.jwtJwksUrl] = jwt.jwksUrl;
  else if (jwt?.publicKey) env[e.jwtPublicKey] = jwt.publicKey;
  if (jwt && (jwt.jwksUrl || jwt.publicKey)) {
    if (jwt.issuer) env[e.jwtIssuer] = jwt.issuer;
    if (jwt.audience) env[e.jwtAudience] = jwt.audience;
  }
  return env;
}

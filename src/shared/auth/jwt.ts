/**
 * Bearer JWTs (spec §5 lists bearer auth beside API keys): verified with `jose` against a JWKS URL
 * (an identity provider) or a static key/secret, with issuer and audience checked when configured.
 * Claims: `tenant_ids` (array) or `tenant_id` name the tenants; `scope` (space-separated) limits
 * what the token may do — `read` allows safe methods, `write` (or none given) allows everything.
 */
import { createPublicKey } from "node:crypto";
import { createRemoteJWKSet, importSPKI, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";
import { AuthError, pickTenant, type Principal } from "./service.js";

export interface JwtSettings {
  jwksUrl?: string;
  /** PEM public key (RS256/ES256) or an HMAC secret (HS256). */
  publicKey?: string;
  secret?: string;
  issuer?: string;
  audience?: string;
}

/** The token's principal, its scopes and its `sub` (who it names, where the caller wants it). */
export type JwtVerifier = (token: string, tenantHeader: string | undefined) => Promise<Principal & { scopes: string[]; subject?: string }>;

export const looksLikeJwt = (token: string) => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);

export async function jwtVerifier(settings: JwtSettings): Promise<JwtVerifier | undefined> {
  let key: JWTVerifyGetKey | Awaited<ReturnType<typeof importSPKI>> | Uint8Array | undefined;
  if (settings.jwksUrl) key = createRemoteJWKSet(new URL(settings.jwksUrl));
  else if (settings.publicKey) key = await importSPKI(settings.publicKey, algorithmOf(settings.publicKey));
  else if (settings.secret) key = new TextEncoder().encode(settings.secret);
  if (!key) return undefined;
  const k = key;
  return async (token, tenantHeader) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, k as never, { issuer: settings.issuer, audience: settings.audience }));
    } catch (err) {
      throw new AuthError(401, `invalid bearer token: ${(err as Error).message}`);
    }
    const tenants = Array.isArray(payload.tenant_ids) ? payload.tenant_ids.map(String) : typeof payload.tenant_id === "string" ? [payload.tenant_id] : [];
    if (!tenants.length) throw new AuthError(403, "the bearer token names no tenant (claim tenant_id or tenant_ids)");
    const scopes = typeof payload.scope === "string" ? payload.scope.split(/\s+/).filter(Boolean) : [];
    return { ...pickTenant(tenants, tenantHeader), scopes, ...(payload.sub ? { subject: payload.sub } : {}) };
  };
}

/** The JWS algorithm of a PEM public key, from the key itself (never guessed from its text). */
export function algorithmOf(pem: string): string {
  let key;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new Error(`the JWT public key is not a PEM public key: ${(err as Error).message}`);
  }
  if (key.asymmetricKeyType === "rsa") return "RS256";
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    return curve === "secp384r1" ? "ES384" : curve === "secp521r1" ? "ES512" : "ES256";
  }
  throw new Error(`unsupported JWT public key type ${key.asymmetricKeyType}`);
}

/** Whether a token's scopes allow a request method (no scope claim = unrestricted, like an API key). */
export function scopeAllows(scopes: string[], method: string): boolean {
  if (!scopes.length || scopes.includes("write") || scopes.includes("admin")) return true;
  return scopes.includes("read") && (method === "GET" || method === "HEAD" || method === "OPTIONS");
}

/** Express middleware that authenticates each request and leaves the principal on `res.locals`. */
import type { Request, RequestHandler, Response } from "express";
import { AuthError, AuthService, DEFAULT_TENANT_ID, pickTenant, type KeyRestriction, type Principal } from "./service.js";
import { looksLikeJwt, scopeAllows, type JwtVerifier } from "./jwt.js";
import { loopbackPeerUid } from "./peer.js";

export type AuthMode = "required" | "loopback-open";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/**
 * A request from this machine that no proxy forwarded. A reverse proxy on loopback would make
 * every outside request look local, so a forwarding header disqualifies it.
 */
export function isLoopbackRequest(req: Request): boolean {
  return LOOPBACK.has(req.socket.remoteAddress ?? "") && req.headers["x-forwarded-for"] === undefined && req.headers.forwarded === undefined;
}

/**
 * A loopback request from a process of this server's own user (where the system says who the
 * peer is: Linux). Another user's process — a local deployment's commands run as a user of their
 * own — is not let in without a key.
 */
export function isSameUserRequest(req: Request): boolean {
  if (typeof process.getuid !== "function") return true;
  const uid = loopbackPeerUid(req.socket.remotePort ?? 0, req.socket.localPort ?? 0);
  // unknown peer: let it in, unless this server runs as root (the local runtime then runs
  // deployments as other users, whom a failed lookup must not let through)
  return uid === undefined ? process.getuid() !== 0 : uid === process.getuid();
}

/** The API key of a request: `X-Api-Key`, or `Authorization: Bearer <key>`. */
export function requestKey(req: Request): string | undefined {
  const header = req.headers["x-api-key"];
  if (typeof header === "string" && header) return header;
  const auth = req.headers.authorization;
  return auth?.startsWith("Bearer ") ? auth.slice(7).trim() : undefined;
}

/** Which requests a scoped key may make (default: none). */
export type RestrictedAccess = (req: Request, restriction: KeyRestriction) => boolean;

/**
 * A scoped key (a deployment's tracing key) is refused everywhere except where `allowRestricted`
 * lets it in: the tracing facility's ingestion endpoints.
 */
export function authenticate(auth: AuthService, mode: AuthMode, jwt?: JwtVerifier, allowRestricted: RestrictedAccess = () => false): RequestHandler {
  return (req, res, next) => {
    const key = requestKey(req);
    const bearer = req.headers.authorization?.startsWith("Bearer ") ? key : undefined;
    if (jwt && bearer && looksLikeJwt(bearer)) {
      const tenant = req.headers["x-tenant-id"];
      jwt(bearer, typeof tenant === "string" ? tenant : undefined).then((principal) => {
        if (!scopeAllows(principal.scopes, req.method)) throw new AuthError(403, `the bearer token's scope (${principal.scopes.join(" ")}) does not allow ${req.method}`);
        res.locals.principal = principal;
        next();
      }, next).catch(next);
      return;
    }
    const tenant = req.headers["x-tenant-id"];
    const tenantHeader = typeof tenant === "string" ? tenant : undefined;
    if (!key && mode === "loopback-open" && isLoopbackRequest(req) && isSameUserRequest(req)) {
      try {
        res.locals.principal = pickTenant([DEFAULT_TENANT_ID], tenantHeader);
        next();
      } catch (err) {
        next(err);
      }
      return;
    }
    auth.authenticate(key, tenantHeader).then(
      (principal) => {
        if (principal.restricted && !allowRestricted(req, principal.restricted)) {
          next(new AuthError(403, `this API key is limited to ${principal.restricted.scopes.join(", ")} (a deployment's tracing key): it may not ${req.method} ${req.originalUrl.split("?")[0]}`));
          return;
        }
        res.locals.principal = principal;
        next();
      },
      next,
    );
  };
}

export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error("route mounted without the authenticate middleware");
  return p;
}

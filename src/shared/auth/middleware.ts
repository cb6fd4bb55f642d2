/** Express middleware that authenticates each request and leaves the principal on `res.locals`. */
import type { Request, RequestHandler, Response } from "express";
import { AuthError, AuthService, DEFAULT_TENANT_ID, pickTenant, type KeyRestriction, type Principal } from "./service.js";
import { looksLikeJwt, scopeAllows, type JwtVerifier } from "./jwt.js";
import { localRequestError } from "../local-access.js";
import { ApiError } from "../errors.js";
import { clientOf, LOOPBACK_ADDRESSES } from "./failures.js";
import { loopbackPeerUid } from "./peer.js";

export type AuthMode = "required" | "loopback-open";


/**
 * A request from this machine that no proxy forwarded. A reverse proxy on loopback would make
 * every outside request look local, so a forwarding header makes it remote: it needs a key.
 */
export function isLoopbackRequest(req: Request): boolean {
  return LOOPBACK_ADDRESSES.has(req.socket.remoteAddress ?? "") && req.headers["x-forwarded-for"] === undefined && req.headers.forwarded === undefined;
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
  // the langsmith JS SDK 0.3.x uploads with `x-api-key: undefined` (the text) when it has no key:
  // that is no key, not a wrong one (refusing it lost every trace sent to a keyless `berth dev`)
  if (typeof header === "string" && header && header !== "undefined") return header;
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
    const tenant = req.headers["x-tenant-id"];
    const tenantHeader = typeof tenant === "string" ? tenant : undefined;
    if (!key) {
      if (mode === "loopback-open" && isLoopbackRequest(req) && isSameUserRequest(req)) {
        // a browser on this machine is on loopback too: refuse DNS rebinding and cross-site pages
        const refused = localRequestError(req);
        if (refused) {
          next(refused);
          return;
        }
        try {
          res.locals.principal = pickTenant([DEFAULT_TENANT_ID], tenantHeader);
          next();
        } catch (err) {
          next(err);
        }
        return;
      }
      next(new AuthError(401, "missing API key: send it in the X-Api-Key header"));
      return;
    }
    // a client that keeps presenting bad credentials is guessing: it waits out its window
    const client = clientOf(req.socket.remoteAddress);
    const wait = auth.failures.retryAfter(client);
    if (wait > 0) {
      next(new ApiError(429, `too many failed authentication attempts from this client: retry in ${wait} s`, { "Retry-After": String(wait) }));
      return;
    }
    const failed = (err: unknown) => {
      if (err instanceof AuthError && err.status === 401) auth.failures.fail(client);
      next(err);
    };
    const bearer = req.headers.authorization?.startsWith("Bearer ") ? key : undefined;
    const verified: Promise<Principal & { scopes?: string[] }> = jwt && bearer && looksLikeJwt(bearer) ? jwt(bearer, tenantHeader) : auth.authenticate(key, tenantHeader);
    verified.then((principal) => {
      const scopes = principal.scopes;
      if (scopes && !scopeAllows(scopes, req.method)) throw new AuthError(403, `the bearer token's scope (${scopes.join(" ")}) does not allow ${req.method}`);
      if (principal.restricted && !allowRestricted(req, principal.restricted)) {
        throw new AuthError(403, `this API key is limited to ${principal.restricted.scopes.join(", ")} (a deployment's tracing key): it may not ${req.method} ${req.originalUrl.split("?")[0]}`);
      }
      res.locals.principal = principal;
      next();
    }).catch(failed);
  };
}

export function principalOf(res: Response): Principal {
  const p = res.locals.principal as Principal | undefined;
  if (!p) throw new Error("route mounted without the authenticate middleware");
  return p;
}

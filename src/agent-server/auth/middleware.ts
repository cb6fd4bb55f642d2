/** Runs the process's authenticator in front of every route except the probe and public discovery paths. */
import type { RequestHandler } from "express";
import type { RequestAuth, RequestAuthenticator } from "./types.js";

/**
 * Paths anyone may read: the liveness probe, the server's description (which says what auth it
 * wants), the API docs and the A2A agent cards (public by the A2A spec; the extended card is not).
 */
export function isPublicPath(method: string, path: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  return path === "/ok" || path === "/info" || path === "/docs" || path.startsWith("/docs/") || path === "/openapi.json" || path.endsWith("/.well-known/agent-card.json") || path.endsWith("/.well-known/agent.json");
}

/** `isPublicPath`'s list extended by a route group (the generative-UI files). */
export type PublicPathTest = (method: string, path: string) => boolean;

export function requireAuth(authenticator: RequestAuthenticator, alsoPublic?: PublicPathTest): RequestHandler {
  return (req, res, next) => {
    if (authenticator.mode === "none" || req.method === "OPTIONS" || isPublicPath(req.method, req.path) || alsoPublic?.(req.method, req.path)) {
      res.locals.auth = { mode: authenticator.mode } satisfies RequestAuth;
      next();
      return;
    }
    authenticator.authenticate(req).then(
      (user) => {
        res.locals.auth = { mode: authenticator.mode, user } satisfies RequestAuth;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

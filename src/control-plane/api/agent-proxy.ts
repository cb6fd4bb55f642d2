/**
 * The console's way to a deployment's agent server: `/v2/deployments/{id}/agent/<path>` forwards
 * to `<deployment URL>/<path>` with the caller's own credential, streaming both ways (SSE runs).
 *
 * Why a proxy and not the browser calling the agent server itself: the console's policy allows
 * connections to its own origin only (CSP `connect-src 'self'`); a deployment on Kubernetes is
 * served on a cluster address no browser reaches; and the agent server would need CORS for the
 * console's origin. Through here the page holds nothing but its session: the key it signed in
 * with travels as it does to every other API, and the agent server checks it again (the same
 * tenant's keys), so the proxy grants nothing the key could not do directly.
 *
 * A loopback-open request (`berth dev`, the person at this machine, no key) has no credential to
 * pass on; it is forwarded with `loopbackKey` (the admin key of the default tenant, the only
 * tenant such a request may act for).
 */
import http, { type IncomingHttpHeaders } from "node:http";
import https from "node:https";
import type express from "express";
import { principalOf, requestKey } from "../../shared/auth/index.js";
import { ApiError } from "../../shared/errors.js";
import { outboundUrlProblem, parseOutboundPolicy } from "../../shared/outbound.js";
import type { DeploymentStore } from "../storage/deployments.js";

/** The console route's path, in express 5 syntax; the tail is everything after `/agent`. */
export const AGENT_PROXY_ROUTE = "/v2/deployments/:deployment_id/agent{/*rest}";

/** Hop-by-hop headers (RFC 9110 §7.6.1) are each hop's own business. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"]);
/**
 * Not passed on: the host is the target's; the browser's origin and cookies belong to the console
 * (the agent server would refuse a foreign Origin, and needs no cookie); the tenant header and
 * credentials are set below from what the control plane accepted.
 */
const DROPPED = new Set(["host", "origin", "referer", "cookie", "x-api-key", "authorization", "x-tenant-id", "content-length"]);

/** The target URL of a proxied request (pure): the deployment URL joined with the tail and query. */
export function agentTargetUrl(base: string, tail: string, search: string): URL {
  const url = new URL(base);
  const prefix = url.pathname.replace(/\/+$/, "");
  url.pathname = `${prefix}/${tail.replace(/^\/+/, "")}`;
  url.search = search;
  return url;
}

/** The headers sent to the agent server (pure): the caller's, minus hop-by-hop and console-only ones, plus the credential. */
export function forwardedHeaders(incoming: IncomingHttpHeaders, credential: { apiKey?: string; authorization?: string }, tenantId: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_BY_HOP.has(name) || DROPPED.has(name)) continue;
    out[name] = value;
  }
  if (credential.authorization) out.authorization = credential.authorization;
  else if (credential.apiKey) out["x-api-key"] = credential.apiKey;
  out["x-tenant-id"] = tenantId;
  return out;
}

export interface AgentProxyDeps {
  deployments: DeploymentStore;
  /** The credential for a loopback-open request that came without one (the default tenant's admin key). */
  loopbackKey?: string;
}

export function agentProxy(deps: AgentProxyDeps): express.RequestHandler {
  // a URL the tenant chose itself (external_container's custom_url) must not reach into private ranges
  const policy = parseOutboundPolicy(process.env.BERTH_ALLOW_PRIVATE_WEBHOOKS);
  return async (req, res, next) => {
    try {
      const principal = principalOf(res);
      const id = String(req.params.deployment_id);
      const deployment = await deps.deployments.get(principal.tenantId, id);
      const base = deployment.config.source_config.custom_url;
      if (!base) throw new ApiError(409, `deployment ${id} is not served yet (it has no URL): wait for a revision to be DEPLOYED`);
      if (deployment.config.source === "external_container") {
        const problem = await outboundUrlProblem(base, policy);
        if (problem) throw new ApiError(409, `deployment ${id}'s custom_url is not reachable through the console: ${problem}`);
      }
      const key = requestKey(req);
      const credential = key
        ? req.headers.authorization?.startsWith("Bearer ")
          ? { authorization: req.headers.authorization }
          : { apiKey: key }
        : { apiKey: deps.loopbackKey };
      const rest = (req.params as { rest?: string[] | string }).rest;
      const tail = Array.isArray(rest) ? rest.map(encodeURIComponent).join("/") : (rest ?? "");
      const search = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?")) : "";
      forward(req, res, agentTargetUrl(base, tail, search), forwardedHeaders(req.headers, credential, principal.tenantId));
    } catch (err) {
      next(err);
    }
  };
}

function forward(req: express.Request, res: express.Response, target: URL, headers: Record<string, string | string[]>): void {
  const client = target.protocol === "https:" ? https : http;
  if (req.headers["content-length"]) headers["content-length"] = req.headers["content-length"];
  const upstream = client.request(target, { method: req.method, headers }, (answer) => {
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
    res.writeHead(answer.statusCode ?? 502, out);
    // an event stream must reach the page event by event
    res.flushHeaders();
    answer.pipe(res);
    answer.on("error", () => res.destroy());
  });
  upstream.on("error", (err) => {
    if (res.headersSent) return void res.destroy();
    res.status(502).json({ detail: `the deployment's agent server did not answer: ${err.message}` });
  });
  // the page closed the stream (or navigated away): stop reading from the agent server too
  res.on("close", () => {
    if (!res.writableFinished) upstream.destroy();
  });
  req.pipe(upstream);
}

/**
 * Keyless access from this machine (`berth dev`, `berth tracing` without a key, `berth serve` on
 * loopback) trusts the socket's address, and a web browser on this machine is also on loopback.
 * Two browser attacks reach such a server: DNS rebinding (a page on `rebind.attacker.example`
 * whose name now resolves to 127.0.0.1: the request carries that name in `Host`) and cross-site
 * requests (any page POSTing to `http://127.0.0.1:8080`: the request carries the page's `Origin`).
 * So a keyless request must name this machine in `Host` and, when a browser sent it, come from a
 * page on this machine (the console, or the console's Vite dev server on another local port).
 */
import type { Request, RequestHandler } from "express";
import { ApiError } from "./errors.js";

/** Whether `hostname` (as in a URL: IPv6 in brackets) names this machine for a browser. */
export function isLocalHostname(hostname: string, localAddress?: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (name === "[::1]") return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true;
  // the address the server answers on, when a client names it literally
  const local = localAddress?.replace(/^::ffff:/, "");
  return Boolean(local && (name === local || name === `[${local}]`));
}

/**
 * Host and Origin values seen → their hostname (null: unparseable). A keyless server parsed a URL
 * per request for the same one or two values (about 1% of a run's CPU at c=1). Bounded: the
 * values come from clients, so a flood of distinct ones empties the map instead of growing it.
 */
const hostnames = new Map<string, string | null>();
const MAX_HOSTNAMES = 256;

function hostnameOf(value: string, withScheme: boolean): string | undefined {
  const key = withScheme ? value : `http://${value}`;
  let hostname = hostnames.get(key);
  if (hostname === undefined) {
    try {
      hostname = new URL(key).hostname;
    } catch {
      hostname = null;
    }
    if (hostnames.size >= MAX_HOSTNAMES) hostnames.clear();
    hostnames.set(key, hostname);
  }
  return hostname ?? undefined;
}

/** Why a keyless request from this machine is refused (421 or 403), or undefined when it may pass. */
export function localRequestProblem(
  headers: { host?: string; origin?: string },
  options: { localAddress?: string; allowedOrigins?: (origin: string) => boolean } = {},
): ApiError | undefined {
  // HTTP/1.1 clients always send Host; only a non-browser client can leave it out
  if (headers.host !== undefined) {
    const hostname = hostnameOf(headers.host, false);
    if (!hostname || !isLocalHostname(hostname, options.localAddress)) {
      return new ApiError(421, `requests without an API key must address this machine (localhost or 127.0.0.1), not ${JSON.stringify(headers.host)}`);
    }
  }
  const origin = headers.origin;
  if (origin !== undefined && !options.allowedOrigins?.(origin)) {
    const hostname = origin === "null" ? undefined : hostnameOf(origin, true);
    if (!hostname || !isLocalHostname(hostname, options.localAddress)) {
      return new ApiError(403, `requests without an API key are accepted only from pages on this machine, not from origin ${JSON.stringify(origin)}`);
    }
  }
  return undefined;
}

/** `localRequestProblem` for an express request. */
export function localRequestError(req: Request, allowedOrigins?: (origin: string) => boolean): ApiError | undefined {
  return localRequestProblem({ host: req.headers.host, origin: req.headers.origin }, { localAddress: req.socket.localAddress, allowedOrigins });
}

/** Middleware refusing every request that `localRequestProblem` refuses (a server without keys). */
export function localOnly(allowedOrigins?: (origin: string) => boolean): RequestHandler {
  return (req, _res, next) => next(localRequestError(req, allowedOrigins));
}

/** Whether a listen address keeps a server on this machine (`berth serve`'s default 127.0.0.1). */
export function isLoopbackListenHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

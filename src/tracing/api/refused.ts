/**
 * Refused ingest requests are logged at warn with the reason. The SDKs upload in the background and
 * swallow failures, so without this a trace lost to a wrong key (typically a LangSmith key left in
 * `LANGSMITH_API_KEY` when pointing the SDK at Berth) leaves no trace on either side.
 */
import type { ErrorRequestHandler, Request } from "express";
import { requestKey } from "../../shared/auth/index.js";
import type { Logger } from "../../shared/logging.js";
import { OTLP_TRACE_PATHS } from "./otlp-routes.js";

const INGEST_POSTS = ["/runs", "/runs/batch", "/runs/multipart", ...OTLP_TRACE_PATHS];

/** Whether a request is one of the ingestion endpoints (what a scoped tracing key may call). */
export const isIngestPath = (req: { method: string; path: string }) =>
  (req.method === "POST" && INGEST_POSTS.includes(req.path)) || (req.method === "PATCH" && /^\/runs\/[^/]+$/.test(req.path));

/** What the key looks like, without revealing it: its kind and first characters. */
export function describeKey(key: string | undefined): { key?: string; hint?: string } {
  if (!key) return { hint: "no API key was sent: send the Berth key in X-Api-Key (LANGSMITH_API_KEY for the SDKs)" };
  const shown = `${key.slice(0, Math.min(8, Math.floor(key.length / 3)))}…`;
  if (/^lsv2_(pt|sk)_/.test(key)) {
    return { key: shown, hint: "this is a LangSmith API key (lsv2_…), not a Berth key: set LANGSMITH_API_KEY to a Berth key, or unset it for `berth dev` on this machine" };
  }
  return { key: shown, hint: "the API key is not one of this server's keys" };
}

export function logRefusedIngest(logger: Logger): ErrorRequestHandler {
  return (err, req: Request, _res, next) => {
    const status = typeof (err as { status?: unknown }).status === "number" ? (err as { status: number }).status : 500;
    if (isIngestPath(req) && status >= 400 && status < 500) {
      const auth = status === 401 || status === 403 ? describeKey(requestKey(req)) : {};
      logger.warn(
        { method: req.method, path: req.originalUrl.split("?")[0], status, reason: (err as Error).message, ...auth, client: req.socket.remoteAddress, userAgent: req.headers["user-agent"] },
        `ingest refused (${status}): ${(err as Error).message}${auth.hint ? ` — ${auth.hint}` : ""}`,
      );
    }
    next(err);
  };
}

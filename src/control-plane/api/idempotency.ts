/**
 * `Idempotency-Key` on POST and PATCH (draft-ietf-httpapi-idempotency-key-header): a CI job that
 * retries a create after a timeout gets the first answer again instead of a second deployment.
 * Same key + same request → the stored answer (with `Idempotent-Replayed: true`); same key +
 * another request → 422; a first request still running → 409. 5xx answers are not kept, so the
 * retry really retries. Keys live 24 hours.
 */
import { createHash } from "node:crypto";
import type { RequestHandler } from "express";
import type pg from "pg";
import { principalOf } from "../../shared/auth/index.js";
import { ApiError, ValidationError } from "../../shared/errors.js";

const TTL = "24 hours";

export function idempotency(pool: pg.Pool): RequestHandler {
  let lastSweep = 0;
  return (req, res, next) => {
    const key = req.header("idempotency-key");
    if (!key || (req.method !== "POST" && req.method !== "PATCH")) return next();
    void (async () => {
      if (key.length > 255) throw ValidationError.field(["header", "Idempotency-Key"], "must be at most 255 characters");
      const tenantId = principalOf(res).tenantId;
      const hash = createHash("sha256").update(`${req.method} ${req.originalUrl}\n${JSON.stringify(req.body ?? null)}`).digest("hex");
      if (Date.now() - lastSweep > 3_600_000) {
        lastSweep = Date.now();
        await pool.query(`DELETE FROM cp_idempotency WHERE created_at < now() - interval '${TTL}'`);
      }
      const inserted = await pool.query("INSERT INTO cp_idempotency (tenant_id, key, request_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [tenantId, key, hash]);
      if (!inserted.rowCount) {
        const { rows } = await pool.query("SELECT request_hash, status, response FROM cp_idempotency WHERE tenant_id = $1 AND key = $2", [tenantId, key]);
        const prior = rows[0];
        if (!prior) throw new ApiError(409, "a request with this Idempotency-Key is in progress: retry shortly");
        if (prior.request_hash !== hash) throw ValidationError.field(["header", "Idempotency-Key"], "this key was used for a different request", "idempotency_key_reused");
        if (prior.status === null) throw new ApiError(409, "a request with this Idempotency-Key is in progress: retry shortly", { "Retry-After": "1" });
        res.status(prior.status).set("Idempotent-Replayed", "true");
        if (prior.response === null) res.end();
        else res.json(prior.response);
        return;
      }
      // Store the answer before it leaves: a client that has seen it and retries must get the
      // replay, not "in progress". 5xx answers are forgotten so the retry really retries.
      const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
      res.end = ((...args: unknown[]) => {
        const chunk = typeof args[0] === "function" ? undefined : args[0];
        const status = res.statusCode;
        const sql =
          status >= 500
            ? pool.query("DELETE FROM cp_idempotency WHERE tenant_id = $1 AND key = $2", [tenantId, key])
            : pool.query("UPDATE cp_idempotency SET status = $3, response = $4 WHERE tenant_id = $1 AND key = $2", [tenantId, key, status, jsonBody(chunk)]);
        sql.catch(() => undefined).finally(() => end(...args));
        return res;
      }) as typeof res.end;
      next();
    })().catch(next);
  };
}

/** The response body as stored JSON text (answers here are JSON or empty). */
function jsonBody(chunk: unknown): string | null {
  if (chunk === undefined || chunk === null || chunk === "") return null;
  const text = Buffer.isBuffer(chunk) ? chunk.toString("utf8") : String(chunk);
  try {
    JSON.parse(text);
    return text;
  } catch {
    return null;
  }
}

/**
 * OTLP/HTTP trace ingestion: `POST /otel/v1/traces` (LangSmith's path: point
 * `OTEL_EXPORTER_OTLP_ENDPOINT` at `<tracing URL>/otel`), `/api/v1/otel/v1/traces` (LangSmith
 * self-hosted's) and `/v1/traces` (the endpoint itself as the OTLP base). Protobuf or JSON, gzip
 * allowed; answers as the OTLP/HTTP specification says: 200 with an ExportTraceServiceResponse
 * (partial_success when some spans were refused), 400 with a google.rpc.Status for a body that
 * cannot be decoded (nothing stored), 415 for other media types; each in the request's encoding.
 * Spans become runs through the ingest service, so they merge, are accounted and rolled up like
 * SDK runs.
 */
import type { ErrorRequestHandler, Request, Response, Router } from "express";
import { ApiError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logging.js";
import { readBody } from "../ingest/body.js";
import type { IngestService } from "../ingest/service.js";
import { decodeJson, decodeProtobuf, encodeResponseProtobuf, encodeStatusProtobuf, OtlpDecodeError, type DecodedSpans, type ExportResponse } from "../otlp/decode.js";
import { spanRunId, spanToRun } from "../otlp/span-to-run.js";
import { scopeOf, tenantOf, type Admit, type IngestRouteOptions } from "./ingest-routes.js";

export const OTLP_TRACE_PATHS = ["/otel/v1/traces", "/api/v1/otel/v1/traces", "/v1/traces"];

type Encoding = "protobuf" | "json";

function encodingOf(req: Request): Encoding | undefined {
  const type = String(req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  return undefined;
}

/** gRPC status codes used in google.rpc.Status bodies. */
const GRPC_CODE: Record<number, number> = { 400: 3, 401: 16, 403: 7, 404: 5, 413: 8, 415: 3, 422: 3, 429: 8, 503: 14 };

function sendStatus(res: Response, encoding: Encoding, status: number, message: string): void {
  const code = GRPC_CODE[status] ?? 13;
  if (encoding === "protobuf") res.status(status).type("application/x-protobuf").send(Buffer.from(encodeStatusProtobuf(code, message)));
  else res.status(status).json({ code, message });
}

function sendResponse(res: Response, encoding: Encoding, response: ExportResponse): void {
  if (encoding === "protobuf") res.status(200).type("application/x-protobuf").send(Buffer.from(encodeResponseProtobuf(response)));
  else res.status(200).json(response);
}

export function mountOtlpRoutes(router: Router, ingest: IngestService, options: IngestRouteOptions, logger: Logger, admit: Admit): void {
  router.post(OTLP_TRACE_PATHS, async (req, res) => {
    const encoding = encodingOf(req);
    if (!encoding) {
      req.resume();
      throw new ApiError(415, `unsupported Content-Type "${req.headers["content-type"] ?? ""}": send OTLP as application/x-protobuf or application/json`);
    }
    await admit(req, async () => {
      const body = await readBody(req, options.maxBodyBytes);
      let decoded: DecodedSpans;
      try {
        if (encoding === "protobuf") decoded = decodeProtobuf(body);
        else {
          let parsed: unknown;
          try {
            parsed = body.length ? JSON.parse(body.toString("utf8")) : {};
          } catch (err) {
            throw new OtlpDecodeError(`the body is not valid JSON: ${(err as Error).message}`);
          }
          decoded = decodeJson(parsed);
        }
      } catch (err) {
        if (err instanceof OtlpDecodeError) throw new ApiError(400, err.message);
        throw err;
      }
      const tenantId = tenantOf(res);
      const header = req.headers["langsmith-project"];
      const project = typeof header === "string" && header.trim() ? header.trim() : undefined;
      const runIdOf = new Map<string, string>();
      const rejected = [...decoded.rejected.map((r) => r.error)];
      const ops = [];
      // every span's run id first: a child may come before its parent in the export
      for (const span of decoded.spans) runIdOf.set(span.spanId, spanRunId(span));
      for (const span of decoded.spans) {
        try {
          ops.push({ kind: "post" as const, raw: spanToRun(span, { project, runIdOf }) });
        } catch (err) {
          rejected.push(`span ${span.spanId}: ${(err as Error).message}`);
        }
      }
      if (ops.length) {
        // merged before the dotted orders are filled from the stored tree
        const result = await ingest.ingest(tenantId, ops, [], scopeOf(res), { wait: true });
        for (const e of result.errors) rejected.push(e.run_id ? `run ${e.run_id}: ${e.error}` : e.error);
        await ingest.fillDottedOrders(tenantId, ops.map((o) => o.raw.trace_id as string));
      }
      if (rejected.length) logger.warn({ tenantId, rejected: rejected.length, errors: rejected.slice(0, 5) }, "OTLP export: some spans were refused");
      sendResponse(res, encoding, rejected.length ? { partialSuccess: { rejectedSpans: rejected.length, errorMessage: rejected.slice(0, 20).join("; ") } } : {});
    });
  });
}

/** Errors of the OTLP routes (auth, size, media type, decoding) in OTLP's shape and encoding. */
export const otlpErrorHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (res.headersSent) return next(err);
  const status = typeof (err as { status?: unknown }).status === "number" ? (err as { status: number }).status : 500;
  if (status >= 500 && status !== 503) return next(err);
  const headers = (err as { headers?: Record<string, string> }).headers;
  if (headers) for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  sendStatus(res, encodingOf(req) ?? "json", status, (err as Error).message);
};

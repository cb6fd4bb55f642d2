/**
 * The LangSmith ingestion endpoints, wire-compatible with the `langsmith` SDKs:
 * `GET /info`, `POST /runs/multipart`, `POST /runs/batch`, `POST /runs`, `PATCH /runs/{id}`.
 * Bodies are read here (gzip allowed, large limit) rather than by the JSON body parser.
 * Status codes are chosen for the SDKs' retry rules: overload and database trouble answer
 * 429/503 (retried); a request that cannot be used answers 4xx (not retried); a batch with some
 * bad runs stores the rest and answers 202 with the problems listed.
 */
import type { Request, Response, Router } from "express";
import { principalOf } from "../../shared/auth/index.js";
import { ApiError, ValidationError } from "../../shared/errors.js";
import { isUuid, jsonContentTypeOnly } from "../../shared/http.js";
import type { Logger } from "../../shared/logging.js";
import { readBody } from "../ingest/body.js";
import { parseMultipart } from "../ingest/multipart.js";
import type { IngestOp, IngestResult, IngestService } from "../ingest/service.js";
import { BERTH_VERSION } from "../../shared/version.js";

export interface IngestRouteOptions {
  maxBodyBytes: number;
  maxConcurrentIngests: number;
}

/** Stores multipart feedback parts after their runs; returns the problems, one per refused part. */
export type FeedbackSink = (tenantId: string, items: Record<string, unknown>[], scopeProject?: string) => Promise<IngestResult["errors"]>;

/**
 * The LangSmith API version Berth's answers match. The SDK compares `version` with the minimum its
 * resources need and warns "backend version older" below it (langsmith 0.12 asks up to 0.18.0).
 */
export const LANGSMITH_API_VERSION = "0.18.0";

/** What `GET /info` answers: the SDK sizes its batches and picks compression from it. */
export function infoBody(options: IngestRouteOptions) {
  return {
    version: LANGSMITH_API_VERSION,
    berth_version: BERTH_VERSION,
    license_expiration_time: null,
    tenant_handle: null,
    batch_ingest_config: {
      use_multipart_endpoint: true,
      scale_up_qsize_trigger: 1000,
      scale_up_nthreads_limit: 16,
      scale_down_nempty_trigger: 4,
      size_limit: 100,
      size_limit_bytes: options.maxBodyBytes,
    },
    instance_flags: {
      gzip_body_enabled: true,
      zstd_compression_enabled: false,
      dataset_examples_multipart_enabled: true,
      examples_multipart_enabled: false,
      search_enabled: false,
      s3_storage_enabled: false,
    },
    customer_info: { customer_id: "berth", customer_name: "Berth" },
  };
}

/** Postgres states that mean "try again shortly", not "your request is wrong". */
const RETRYABLE_PG = new Set(["40001", "40P01", "53300", "57P01", "57P03", "08000", "08003", "08006"]);
const RETRYABLE_NET = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE"]);

function asRetryable(err: unknown): ApiError | undefined {
  const e = err as { code?: string; message?: string };
  if ((e?.code && (RETRYABLE_PG.has(e.code) || RETRYABLE_NET.has(e.code))) || /timeout exceeded when trying to connect|Connection terminated/i.test(e?.message ?? "")) {
    return new ApiError(503, "the trace store is temporarily unavailable: retry shortly", { "Retry-After": "2" });
  }
  return undefined;
}

function reply(res: Response, result: IngestResult, parseErrors: IngestResult["errors"] = []): void {
  const errors = [...parseErrors, ...result.errors];
  if (!result.accepted && errors.length) {
    throw new ValidationError(errors.map((e) => ({ loc: ["body", ...(e.run_id ? [e.run_id] : [])], msg: e.error, type: "invalid_run" })));
  }
  res.status(202).json({ accepted: result.accepted, errors, warnings: result.warnings });
}

/** Admission control shared by every ingest route: past the limit the client is told to back off (429 is retried). */
export type Admit = (req: Request, work: () => Promise<void>) => Promise<void>;

export function createAdmission(options: IngestRouteOptions, logger: Logger): Admit {
  let inFlight = 0;
  return async (req, work) => {
    if (inFlight >= options.maxConcurrentIngests) {
      // drain the body so the connection can be reused, then refuse
      req.resume();
      throw new ApiError(429, `too many ingest requests in progress (${options.maxConcurrentIngests}): retry shortly`, { "Retry-After": "1" });
    }
    inFlight++;
    try {
      await work();
    } catch (err) {
      const retry = asRetryable(err);
      if (retry) logger.warn({ err }, "ingest failed: asking the client to retry");
      throw retry ?? err;
    } finally {
      inFlight--;
    }
  };
}

export const tenantOf = (res: Response) => principalOf(res).tenantId;
/** A deployment's key writes only into its project. */
export const scopeOf = (res: Response) => {
  const project = principalOf(res).restricted?.project;
  return project ? { project } : undefined;
};

export function mountIngestRoutes(
  router: Router,
  ingest: IngestService,
  options: IngestRouteOptions,
  logger: Logger,
  admit: Admit = createAdmission(options, logger),
  storeFeedback?: FeedbackSink,
): void {
  const admitted = (req: Request, _res: Response, work: () => Promise<void>) => admit(req, work);
  const tenant = tenantOf;
  const scope = scopeOf;
  const json = async (req: Request) => {
    const buf = await readBody(req, options.maxBodyBytes);
    if (!buf.length) throw new ApiError(400, "the request body is empty: send a JSON run");
    try {
      return JSON.parse(buf.toString("utf8")) as unknown;
    } catch (err) {
      throw new ApiError(400, `the request body is not valid JSON: ${(err as Error).message}`);
    }
  };

  router.get("/info", (_req, res) => {
    res.json(infoBody(options));
  });

  router.post("/runs/multipart", (req, res) =>
    admitted(req, res, async () => {
      const raw: Buffer[] = [];
      const parsed = await parseMultipart(req, options.maxBodyBytes, raw);
      if (!parsed.ops.length && !parsed.attachments.length && !parsed.errors.length && !parsed.feedback.length) throw new ApiError(400, "the multipart body holds no runs");
      // staged as sent (read again only if this process dies before merging it); answered once
      // staged, unless feedback rides along: it is stored after its runs are merged, so it finds them
      const source = { format: "multipart" as const, contentType: req.headers["content-type"], contentEncoding: req.headers["content-encoding"], body: Buffer.concat(raw) };
      const result =
        parsed.ops.length || parsed.attachments.length
          ? await ingest.ingest(tenant(res), parsed.ops, parsed.attachments, scope(res), { source, wait: parsed.feedback.length > 0 })
          : { accepted: 0, errors: [], warnings: [] };
      const feedbackErrors = parsed.feedback.length && storeFeedback ? await storeFeedback(tenant(res), parsed.feedback, scope(res)?.project) : [];
      if (feedbackErrors.length) logger.warn({ errors: feedbackErrors }, "multipart feedback refused");
      if (!result.accepted && parsed.feedback.length > feedbackErrors.length) {
        res.status(202).json({ accepted: 0, errors: [...parsed.errors, ...result.errors, ...feedbackErrors], warnings: result.warnings });
        return;
      }
      reply(res, result, [...parsed.errors, ...feedbackErrors]);
    }),
  );

  // JSON routes take JSON only: a plain-text POST is what any web page may send without asking
  const jsonOnly = jsonContentTypeOnly();
  router.post("/runs/batch", jsonOnly, (req, res) =>
    admitted(req, res, async () => {
      const body = await json(req);
      if (!body || typeof body !== "object" || Array.isArray(body)) throw ValidationError.field(["body"], "expected {post: [...], patch: [...]}", "object_type");
      const { post = [], patch = [] } = body as { post?: unknown; patch?: unknown };
      if (!Array.isArray(post) || !Array.isArray(patch)) throw ValidationError.field(["body", !Array.isArray(post) ? "post" : "patch"], "must be an array of runs", "list_type");
      const ops: IngestOp[] = [...post.map((raw) => ({ kind: "post" as const, raw })), ...patch.map((raw) => ({ kind: "patch" as const, raw }))];
      if (!ops.length) {
        res.status(202).json({ accepted: 0, errors: [], warnings: [] });
        return;
      }
      // the JSON routes answer after the merge, with its outcome for each run
      reply(res, await ingest.ingest(tenant(res), ops, [], scope(res), { wait: true }));
    }),
  );

  router.post("/runs", jsonOnly, (req, res) =>
    admitted(req, res, async () => {
      reply(res, await ingest.ingest(tenant(res), [{ kind: "post", raw: await json(req) }], [], scope(res), { wait: true }));
    }),
  );

  router.patch("/runs/:run_id", jsonOnly, (req, res) =>
    admitted(req, res, async () => {
      const id = req.params.run_id as string;
      if (!isUuid(id)) throw ValidationError.field(["path", "run_id"], `must be a UUID, got ${JSON.stringify(id)}`, "uuid_parsing");
      const body = await json(req);
      if (!body || typeof body !== "object" || Array.isArray(body)) throw ValidationError.field(["body"], "expected a JSON object", "object_type");
      reply(res, await ingest.ingest(tenant(res), [{ kind: "patch", raw: { ...body, id } }], [], scope(res), { wait: true }));
    }),
  );
}

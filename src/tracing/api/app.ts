/**
 * The tracing facility as one express router, to be mounted under any prefix (the control plane
 * mounts it at `/tracing`; `berth tracing` at the root). `/info` and `/ok` are public, as the
 * SDKs expect; everything else is authenticated.
 */
import express from "express";
import { authenticate, principalOf, TRACING_WRITE, type AuthMode, type AuthService, type RestrictedAccess } from "../../shared/auth/index.js";
import { mountDocs } from "../../shared/docs.js";
import { ApiRouter, errorHandler, jsonBody, notFoundHandler } from "../../shared/http.js";
import type { Logger } from "../../shared/logging.js";
import { BERTH_VERSION } from "../../shared/version.js";
import type { IngestService } from "../ingest/service.js";
import { createAdmission, infoBody, mountIngestRoutes, type IngestRouteOptions } from "./ingest-routes.js";
import { isIngestPath, logRefusedIngest } from "./refused.js";
import { mountOtlpRoutes, OTLP_TRACE_PATHS, otlpErrorHandler } from "./otlp-routes.js";
import { queryRoutes, type QueryDeps } from "./query-routes.js";
import { feedbackRoutes, multipartFeedbackSink } from "./feedback-routes.js";
import { langsmithRoutes } from "./langsmith-routes.js";
import { datasetRoutes } from "./dataset-routes.js";
import { comparativeRoutes } from "./comparative-routes.js";
import { exampleRoutes, exampleUploadRoutes } from "./example-routes.js";
import { datasetUploadRoutes } from "./dataset-upload-routes.js";
import { langsmithV2Routes } from "./langsmith-v2-routes.js";
import { datasetV2Routes } from "./dataset-v2-routes.js";
import { publicRoutes, sdkSharedRunsUrl } from "./public-routes.js";
import { exampleAttachmentRoutes } from "./example-attachment-links.js";
import * as Responses from "./response-schemas.js";

export interface TracingRouterDeps extends QueryDeps {
  auth: AuthService;
  authMode: AuthMode;
  ingest: IngestService;
  options: IngestRouteOptions;
  logger: Logger;
  /** Liveness of the store behind the API. */
  ping(): Promise<void>;
}

const DOC_INFO = { title: "Berth tracing", version: BERTH_VERSION, description: "LangSmith-compatible trace ingestion and the query API" };

/** The public routes. Dependencies are used only when a request is handled. */
function systemRoutes(deps: TracingRouterDeps): ApiRouter {
  const api = new ApiRouter();
  api.add({ method: "get", path: "/info", tag: "System", summary: "Server version and ingestion settings (read by the LangSmith SDKs)", response: Responses.ServerInfo }, () => infoBody(deps.options));
  api.add({ method: "get", path: "/ok", tag: "System", summary: "Liveness and database check", response: Responses.Health }, async () => {
    await deps.ping();
    return { ok: true };
  });
  publicRoutes(api, deps);
  exampleAttachmentRoutes(api, deps.blobs);
  return api;
}

/** The OpenAPI document of the tracing API; built without a database (scripts/gen-console-api.ts). */
export function tracingOpenApi(deps: TracingRouterDeps = {} as TracingRouterDeps): Record<string, unknown> {
  return withQueryRoutes(systemRoutes(deps), deps).openapi(DOC_INFO);
}

export function createTracingRouter(deps: TracingRouterDeps): express.Router {
  const router = express.Router();
  router.use(langsmithV1Alias);
  const api = systemRoutes(deps);
  const publicRoutes = express.Router();
  api.mount(publicRoutes);
  router.use(sdkSharedRunsUrl, publicRoutes);
  mountDocs(router, withQueryRoutes(api, deps), DOC_INFO);

  router.use(authenticate(deps.auth, deps.authMode, undefined, isIngestRequest));
  // Ingestion reads its own bodies (multipart, gzip, large limits) before any JSON parser.
  const admit = createAdmission(deps.options, deps.logger);
  mountIngestRoutes(router, deps.ingest, deps.options, deps.logger, admit, multipartFeedbackSink(deps.feedback, deps.projects));
  mountOtlpRoutes(router, deps.ingest, deps.options, deps.logger, admit);
  // Example uploads are multipart too: they read their own bodies.
  const uploads = new ApiRouter();
  exampleUploadRoutes(uploads, deps, deps.options.maxBodyBytes);
  datasetUploadRoutes(uploads, deps, deps.options.maxBodyBytes);
  uploads.mount(router);
  router.use(logRefusedIngest(deps.logger));
  router.use(OTLP_TRACE_PATHS, otlpErrorHandler);
  // The SDK's shareRun sends its JSON body as text/plain. PUT is never a simple cross-site request
  // (browsers preflight it), so taking text/plain as JSON there opens nothing to other pages.
  const strictJson = express.Router().use(jsonBody(1024 * 1024));
  const lenientJson = express.Router().use(jsonBody(1024 * 1024, { textPlainAsJson: true }));
  router.use((req, res, next) => (req.method === "PUT" ? lenientJson : strictJson)(req, res, next));
  // Read-your-writes: what this process accepted for the caller's tenant before a read is merged
  // before it (bounded wait); other tenants' pending requests never hold it up.
  router.use((_req, res, next) => {
    deps.ingest.merger.drain(principalOf(res).tenantId).then(() => next(), next);
  });
  const query = new ApiRouter();
  addQueryRoutes(query, deps);
  query.mount(router);
  router.use(notFoundHandler);
  router.use(errorHandler(deps.logger));
  return router;
}

/**
 * LangSmith's paths carry `/api/v1` (the SDK 0.12's resource clients call `<base>/api/v1/sessions`,
 * `/api/v1/info`…): the same routes answer there. `/api/v2` has routes of its own. The "platform"
 * routes keep their `/v1` (`/api/v1/platform/…` is `/v1/platform/…`): the resource clients call
 * them so, and so does the SDK's Client when its endpoint ends in `/api/v1`.
 */
function langsmithV1Alias(req: express.Request, _res: express.Response, next: express.NextFunction): void {
  if (req.url.startsWith("/api/v1/platform/")) req.url = req.url.slice("/api".length);
  else if (req.url.startsWith("/api/v1/")) req.url = req.url.slice("/api/v1".length);
  next();
}

/** What a scoped key with tracing:write may do: the ingestion endpoints, nothing that reads. */
const isIngestRequest: RestrictedAccess = (req, restriction) =>
  restriction.scopes.includes(TRACING_WRITE) && isIngestPath(req);

/** One router holding every route, for the OpenAPI document (ingestion endpoints included). */
function withQueryRoutes(system: ApiRouter, deps: QueryDeps): ApiRouter {
  const all = new ApiRouter();
  all.routes.push(...system.routes);
  const ingestDoc = (method: "post" | "patch", path: string, summary: string) =>
    all.add({ method, path, tag: "Ingestion", summary, response: Responses.IngestResult, responses: { "202": "Accepted (per-run problems listed)", "413": "Too large", "422": "No usable run", "429": "Busy: retry" } }, () => undefined);
  ingestDoc("post", "/runs/multipart", "Ingest runs as multipart/form-data (the LangSmith SDKs' default path; gzip allowed)");
  ingestDoc("post", "/runs/batch", "Ingest runs as JSON {post: [...], patch: [...]}");
  ingestDoc("post", "/runs", "Create one run");
  ingestDoc("patch", "/runs/:run_id", "Update one run");
  all.add({ method: "post", path: "/otel/v1/traces", tag: "Ingestion", summary: "OTLP/HTTP traces (protobuf or JSON, gzip allowed); also served at /api/v1/otel/v1/traces and /v1/traces", responses: { "200": "ExportTraceServiceResponse (partial_success lists refused spans)", "400": "Undecodable body (google.rpc.Status)", "413": "Too large", "415": "Not protobuf or JSON" } }, () => undefined);
  exampleUploadRoutes(all, deps, 0);
  datasetUploadRoutes(all, deps, 0);
  addQueryRoutes(all, deps);
  return all;
}

/** Berth's query API and the LangSmith-compatible one, over the same stores. */
function addQueryRoutes(router: ApiRouter, deps: QueryDeps): void {
  queryRoutes(router, deps);
  langsmithRoutes(router, deps);
  langsmithV2Routes(router, deps);
  feedbackRoutes(router, deps.feedback);
  datasetRoutes(router, deps);
  datasetV2Routes(router, deps);
  comparativeRoutes(router, deps);
  exampleRoutes(router, deps);
}

/** The agent server's express app: every route group, CORS, body parsing and error rendering. */
import express from "express";
import { ApiRouter, errorHandler, jsonBody, jsonContentTypeOnly, notFoundHandler } from "../../shared/http.js";
import { isLoopbackListenHost, localOnly } from "../../shared/local-access.js";
import type { AgentServerContext } from "../context.js";
import type { RunService } from "../runs/service.js";
import { mountA2A } from "../a2a/routes.js";
import { requireAuth } from "../auth/index.js";
import { mountMcp } from "../mcp/routes.js";
import { customAppMiddleware, type CustomApp } from "./custom-app.js";
import { assistantRoutes } from "./routes/assistants.js";
import { cronRoutes } from "./routes/crons.js";
import { metaRoutes } from "./routes/meta.js";
import { mountDocs } from "../../shared/docs.js";
import { BERTH_VERSION } from "../version.js";
import { runRoutes } from "./routes/runs.js";
import { storeRoutes } from "./routes/store.js";
import { threadRoutes } from "./routes/threads.js";
import { isUiFileRequest, uiRoutes } from "../ui/routes.js";
import { defaultStudioDir, studioEnabled, studioRouter } from "../studio.js";

export interface AppExtension {
  /** Extra routes (A2A, custom apps) mounted before the built-in ones. */
  (app: express.Express, ctx: AgentServerContext): void;
}

/** The origins the operator listed (CORS_ALLOW_ORIGINS, or http.cors in langgraph.json). */
function configuredOrigins(ctx: AgentServerContext): { allowed: string[]; originRe?: RegExp } {
  const cfg = ctx.config.raw.http?.cors;
  const allowed = ctx.settings.corsAllowOrigins?.split(",").map((s) => s.trim()) ?? cfg?.allow_origins ?? ["*"];
  return { allowed, originRe: cfg?.allow_origin_regex ? new RegExp(cfg.allow_origin_regex) : undefined };
}

/**
 * An agent server listening on loopback has no keys: every request from this machine is trusted,
 * so browsers' requests are held to pages on this machine (see src/shared/local-access.ts) and to
 * JSON bodies. Origins the operator listed by name pass too (a hosted studio, say); the default
 * `*` does not count.
 */
function loopbackGuard(ctx: AgentServerContext): express.RequestHandler[] {
  const { allowed, originRe } = configuredOrigins(ctx);
  const listed = (origin: string) => allowed.includes(origin) || Boolean(originRe?.test(origin));
  return [localOnly(listed), jsonContentTypeOnly()];
}

function cors(ctx: AgentServerContext): express.RequestHandler {
  const cfg = ctx.config.raw.http?.cors;
  const { allowed, originRe } = configuredOrigins(ctx);
  return (req, res, next) => {
    const origin = req.header("origin");
    if (origin && (allowed.includes("*") || allowed.includes(origin) || originRe?.test(origin))) {
      res.set("Access-Control-Allow-Origin", allowed.includes("*") && !cfg?.allow_credentials ? "*" : origin);
      res.set("Vary", "Origin");
      if (cfg?.allow_credentials) res.set("Access-Control-Allow-Credentials", "true");
      res.set(
        "Access-Control-Expose-Headers",
        (cfg?.expose_headers ?? ["Content-Location", "Location", "X-Pagination-Total", "X-Pagination-Next"]).join(", "),
      );
    }
    if (req.method === "OPTIONS") {
      res.set("Access-Control-Allow-Methods", (cfg?.allow_methods ?? ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]).join(", "));
      res.set("Access-Control-Allow-Headers", (cfg?.allow_headers ?? [req.header("access-control-request-headers") ?? "*"]).join(", "));
      if (cfg?.max_age) res.set("Access-Control-Max-Age", String(cfg.max_age));
      res.status(204).end();
      return;
    }
    next();
  };
}

export function createAgentServerApp(
  ctx: AgentServerContext,
  runs: RunService,
  extensions: AppExtension[] = [],
  /** The user's `http.app`: before body parsing, so its routes get the raw request. */
  customApp?: CustomApp,
): express.Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.set("query parser", "extended");
  const loopback = isLoopbackListenHost(ctx.settings.host);
  if (loopback) app.use(loopbackGuard(ctx));
  app.use(cors(ctx));
  // the Studio's page and assets: public static files, behind the Host/Origin rules above
  if (studioEnabled(ctx.settings)) app.use(studioRouter(ctx.settings.studioDir ?? defaultStudioDir()));
  // every route group below (the API, A2A, MCP, custom routes) sees the same authenticated user
  const ui = ctx.ui;
  app.use(requireAuth(ctx.auth, ui ? (method, path) => isUiFileRequest(ui, method, path) : undefined));
  // A2A reads its own bodies: a JSON-RPC client gets a JSON-RPC error even for unparseable JSON.
  if (!ctx.config.disableA2a) mountA2A(app, ctx, runs);
  // MCP's transport reads and bounds its own bodies too, answering JSON-RPC errors
  if (!ctx.config.raw.http?.disable_mcp) mountMcp(app, ctx, runs);
  if (customApp) app.use(customAppMiddleware(customApp));
  app.use(jsonBody(ctx.settings.maxBodyBytes, { textPlainAsJson: !loopback }));

  const router = new ApiRouter();
  const http = ctx.config.raw.http ?? {};
  if (!http.disable_meta) metaRoutes(router, ctx);
  if (!http.disable_assistants) assistantRoutes(router, ctx);
  if (!http.disable_threads) threadRoutes(router, ctx);
  if (!http.disable_runs) {
    cronRoutes(router, ctx); // before /runs/:run_id routes
    runRoutes(router, ctx, runs);
  }
  if (!http.disable_store) storeRoutes(router, ctx);
  if (ui) uiRoutes(router, ui);

  for (const extend of extensions) extend(app, ctx);
  router.mount(app);
  mountDocs(app, router, { title: "Berth agent server", version: BERTH_VERSION, description: "Berth agent server: LangGraph Platform compatible API" });
  app.use(notFoundHandler);
  app.use(errorHandler(ctx.logger));
  return app;
}

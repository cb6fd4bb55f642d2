/** The control plane as one express router: `/ok` and docs public, everything else authenticated. */
import express from "express";
import type pg from "pg";
import { authenticate, type AuthMode, type AuthService, type JwtVerifier } from "../../shared/auth/index.js";
import { mountDocs } from "../../shared/docs.js";
import { ApiRouter, errorHandler, jsonBody, notFoundHandler } from "../../shared/http.js";
import type { Logger } from "../../shared/logging.js";
import { BERTH_VERSION } from "../../shared/version.js";
import { controlPlaneRoutes, type ControlPlaneDeps } from "./routes.js";
import { integrationRoutes, mountWebhook } from "./integration-routes.js";
import { keyRoutes } from "./key-routes.js";
import { allowDeploymentAuthKey, platformAuthRoutes } from "./platform-auth-routes.js";
import { tenantRoutes } from "./tenant-routes.js";
import { AGENT_PROXY_ROUTE, agentProxy } from "./agent-proxy.js";
import { idempotency } from "./idempotency.js";
import * as Responses from "./response-schemas.js";

export interface ControlPlaneRouterDeps extends ControlPlaneDeps {
  pool: pg.Pool;
  jwt?: JwtVerifier;
  auth: AuthService;
  authMode: AuthMode;
  logger: Logger;
  ping(): Promise<void>;
  /** The credential the agent-server proxy passes on for a loopback-open request without one. */
  agentProxyKey?: string;
}

// spec §9: the control plane interface description carries version 0.1.0
const DOC_INFO = { title: "Berth control plane", version: "0.1.0", description: `Berth ${BERTH_VERSION}: deployments, revisions and listeners` };

/** The routes: `system` is public, `api` authenticated. Dependencies are used only when a request is handled. */
function apiRouters(deps: ControlPlaneRouterDeps): { system: ApiRouter; api: ApiRouter } {
  const system = new ApiRouter();
  system.add({ method: "get", path: "/ok", tag: "System", summary: "Liveness and database check", response: Responses.Health }, async () => {
    await deps.ping();
    return { ok: true };
  });
  const api = new ApiRouter();
  controlPlaneRoutes(api, deps);
  integrationRoutes(api, deps.integrations);
  keyRoutes(api, deps.auth);
  platformAuthRoutes(api, deps);
  tenantRoutes(api, deps);
  return { system, api };
}

/** The OpenAPI document of the control plane; built without a database (scripts/gen-console-api.ts). */
export function controlPlaneOpenApi(deps: ControlPlaneRouterDeps = {} as ControlPlaneRouterDeps): Record<string, unknown> {
  const { system, api } = apiRouters(deps);
  return documentOf(system, api).openapi(DOC_INFO);
}

function documentOf(system: ApiRouter, api: ApiRouter): ApiRouter {
  const doc = new ApiRouter();
  doc.routes.push(...system.routes, ...api.routes);
  return doc;
}

export function createControlPlaneRouter(deps: ControlPlaneRouterDeps): express.Router {
  const router = express.Router();
  const { system, api } = apiRouters(deps);
  system.mount(router);
  mountDocs(router, documentOf(system, api), DOC_INFO);
  mountWebhook(router, deps);
  router.use(authenticate(deps.auth, deps.authMode, deps.jwt, allowDeploymentAuthKey));
  // before the body parser: the body streams through to the agent server untouched
  router.all(AGENT_PROXY_ROUTE, agentProxy({ deployments: deps.deployments, loopbackKey: deps.agentProxyKey }));
  router.use(jsonBody(1024 * 1024));
  router.use(idempotency(deps.pool));
  api.mount(router);
  router.use(notFoundHandler);
  router.use(errorHandler(deps.logger));
  return router;
}

/**
 * The endpoint a deployment's agent server refreshes its platform auth from: its tenant's key
 * snapshot (hashes and a version, see shared/auth/platform-keys.ts). Only that deployment's own
 * credential (scope `deployment-auth:<id>`) may read it; tenant keys are refused too, since nothing
 * but the agent server has a use for it.
 */
import { deploymentAuthScope, keySnapshotSchema, principalOf, type AuthService, type RestrictedAccess } from "../../shared/auth/index.js";
import { ApiError } from "../../shared/errors.js";
import type { ApiRouter } from "../../shared/http.js";
import type { DeploymentStore } from "../storage/deployments.js";

const PATH_RE = /^\/v2\/deployments\/[^/]+\/platform-auth\/keys\/?$/;

/** Scoped keys that may pass the authentication middleware: a deployment-auth key, only to read a snapshot. */
export const allowDeploymentAuthKey: RestrictedAccess = (req, restriction) =>
  (req.method === "GET" || req.method === "HEAD") && PATH_RE.test(req.path) && restriction.scopes.some((s) => s.startsWith("deployment-auth:"));

export function platformAuthRoutes(router: ApiRouter, deps: { auth: AuthService; deployments: DeploymentStore }): void {
  router.add(
    {
      method: "get",
      path: "/v2/deployments/:deployment_id/platform-auth/keys",
      tag: "Deployments (v2)",
      summary: "The key snapshot of a deployment's agent server (hashes of its tenant's keys); only for that deployment's own credential",
      uuidParams: ["deployment_id"],
      response: keySnapshotSchema.meta({ id: "PlatformKeySnapshot" }),
      responses: { "403": "Not this deployment's credential" },
    },
    async ({ params, res }) => {
      const principal = principalOf(res);
      const id = params.deployment_id!;
      if (!principal.restricted?.scopes.includes(deploymentAuthScope(id))) {
        throw new ApiError(403, "only the deployment's own platform-auth credential may read its key snapshot");
      }
      await deps.deployments.get(principal.tenantId, id); // 404 once the deployment is gone
      return deps.auth.platformKeySnapshot(principal.tenantId);
    },
  );
}


/**
 * Tenants through the API (admin keys only): create, list, read, delete. A tenant's own keys are
 * then made with `POST /v2/api-keys` and `tenant_ids` (an admin key may name any tenant there).
 * The default tenant cannot be deleted, nor a tenant that still has deployments.
 */
import { z } from "zod";
import { AuthError, DEFAULT_TENANT_ID, principalOf, type AuthService } from "../../shared/auth/index.js";
import { ConflictError, NotFoundError } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import type { DeploymentListQuery } from "../rules/index.js";
import type { DeploymentStore } from "../storage/deployments.js";
import * as Responses from "./response-schemas.js";

const tenantCreateSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, { error: "must not be empty" })
    .max(100)
    .regex(/^[^\p{Cc}]+$/u, { error: "must not contain control characters" }),
});

export interface TenantRouteDeps {
  auth: AuthService;
  deployments: Pick<DeploymentStore, "list">;
}

export function tenantRoutes(router: ApiRouter, deps: TenantRouteDeps): void {
  const { auth } = deps;
  const tag = "Tenants (v2)";
  const adminOnly = { "403": "Not an admin key" };
  const requireAdmin = (res: Parameters<typeof principalOf>[0]) => {
    if (!principalOf(res).admin) throw new AuthError(403, "managing tenants needs an admin API key (the one the server was configured with)");
  };
  router.add({ method: "get", path: "/v2/tenants", tag, summary: "Every tenant (admin)", response: Responses.TenantList, responses: adminOnly }, async ({ res }) => {
    requireAdmin(res);
    return { resources: await auth.allTenants() };
  });
  router.add(
    { method: "post", path: "/v2/tenants", tag, summary: "Create a tenant (admin); then create its keys with POST /v2/api-keys", body: tenantCreateSchema, response: Responses.TenantRecord, responses: { "201": "Created", "409": "Name taken", ...adminOnly } },
    async ({ body, res }) => {
      requireAdmin(res);
      const tenant = await auth.addTenant(body.name);
      if (!tenant) throw new ConflictError(`a tenant named "${body.name}" already exists`);
      return new Reply(201, tenant);
    },
  );
  router.add({ method: "get", path: "/v2/tenants/:tenant_id", tag, summary: "A tenant (admin)", uuidParams: ["tenant_id"], response: Responses.TenantRecord, responses: adminOnly }, async ({ params, res }) => {
    requireAdmin(res);
    const tenant = await auth.tenant(params.tenant_id!);
    if (!tenant) throw new NotFoundError(`Tenant ID ${params.tenant_id} not found.`);
    return tenant;
  });
  router.add(
    { method: "delete", path: "/v2/tenants/:tenant_id", tag, summary: "Delete a tenant without deployments, and revoke its keys (admin)", uuidParams: ["tenant_id"], responses: { "204": "Deleted", "409": "Default tenant, or deployments left", ...adminOnly } },
    async ({ params, res }) => {
      requireAdmin(res);
      const id = params.tenant_id!;
      if (id === DEFAULT_TENANT_ID) throw new ConflictError("the default tenant cannot be deleted");
      if (!(await auth.tenant(id))) throw new NotFoundError(`Tenant ID ${id} not found.`);
      const left = await deps.deployments.list(id, { limit: 1, offset: 0 } as DeploymentListQuery);
      if (left.length) throw new ConflictError(`tenant ${id} still has deployments (e.g. ${left[0]!.name}): delete them first`);
      if (!(await auth.deleteTenant(id))) throw new NotFoundError(`Tenant ID ${id} not found.`);
      return Reply.noContent();
    },
  );
}

/** API keys through the API: create (the key is shown once), list, revoke. */
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import type { AuthService } from "../../shared/auth/index.js";
import { ApiError, NotFoundError } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import * as Responses from "./response-schemas.js";

const keyCreateSchema = z.object({
  name: z.string().max(100).default(""),
  /** Tenants the new key may act for; default: the tenant of this request. Only the caller's own (an admin key: any). */
  tenant_ids: z.array(z.guid({ error: "must be a UUID" })).min(1).optional(),
});

export function keyRoutes(router: ApiRouter, auth: AuthService): void {
  const tag = "API keys (v2)";
  router.add({ method: "get", path: "/v2/whoami", tag, summary: "Who this request acts as: its tenant, every tenant it may act for, its key", response: Responses.Whoami }, async ({ res }) => {
    const p = principalOf(res);
    return {
      tenant_id: p.tenantId,
      tenants: await auth.tenants(p.tenantIds),
      key_id: p.keyId ?? null,
      via: p.keyId ? "api_key" : "scopes" in p ? "jwt" : "loopback",
      admin: Boolean(p.admin),
    };
  });
  router.add({ method: "get", path: "/v2/api-keys", tag, summary: "Keys of this tenant (without their secret)", response: Responses.ApiKeyList }, async ({ res }) => ({
    resources: await auth.listKeys(principalOf(res).tenantId),
  }));
  router.add({ method: "post", path: "/v2/api-keys", tag, summary: "Create a key; its value is shown only in this response", body: keyCreateSchema, response: Responses.ApiKeyCreated, responses: { "201": "Created", "403": "Tenant not allowed", "404": "Unknown tenant" } }, async ({ body, res }) => {
    const principal = principalOf(res);
    const tenants = body.tenant_ids ?? [principal.tenantId];
    const foreign = tenants.find((t) => !principal.tenantIds.includes(t));
    if (foreign && !principal.admin) throw new ApiError(403, `this API key may not act for tenant ${foreign}`);
    const known = new Set((await auth.tenants(tenants)).map((t) => t.id));
    const unknown = tenants.find((t) => !known.has(t));
    if (unknown) throw new NotFoundError(`Tenant ID ${unknown} not found.`);
    const { id, key } = await auth.createKey(tenants, body.name);
    return new Reply(201, { id, key, name: body.name, tenant_ids: tenants });
  });
  router.add({ method: "delete", path: "/v2/api-keys/:key_id", tag, summary: "Revoke a key", uuidParams: ["key_id"], responses: { "204": "Revoked" } }, async ({ params, res }) => {
    if (!(await auth.revokeKey(principalOf(res).tenantId, params.key_id!))) throw new NotFoundError(`API key ID ${params.key_id} not found.`);
    return Reply.noContent();
  });
}

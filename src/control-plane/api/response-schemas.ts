/**
 * What the control plane's routes answer, as zod schemas: they document each route's 2xx JSON body
 * in the OpenAPI document (the console's types are generated from it) and, while tests run, every
 * answer is checked against them (src/shared/http.ts). Schemas with an `id` become named
 * components (`#/components/schemas/<id>`); the resources reuse the rules' schemas.
 *
 * Objects are closed (an undocumented key fails the check) except where the server passes data
 * through that it does not own.
 */
import { z } from "zod";
import {
  deploymentPatchRequestSchema,
  deploymentSchema,
  revisionStatusSchema,
  listSchema,
  listenerSchema,
  logEntrySchema,
  logsResponseSchema,
  revisionSchema,
} from "../rules/index.js";
import { INTEGRATION_KINDS } from "../storage/integrations.js";

const uuid = z.guid();
const timestamp = z.iso.datetime({ offset: true });

export const Health = z.object({ ok: z.literal(true) }).meta({ id: "Health" });

// ---------- identity and keys ----------

export const Tenant = z.object({ id: uuid, name: z.string() }).meta({ id: "Tenant" });
export const TenantRecord = Tenant.extend({ created_at: timestamp }).meta({ id: "TenantRecord" });
export const TenantList = z.object({ resources: z.array(TenantRecord) }).meta({ id: "TenantList" });

export const Whoami = z
  .object({
    tenant_id: uuid.describe("The tenant this request acts for"),
    tenants: z.array(Tenant).describe("Every tenant the credentials may act for (a tenant picker when more than one)"),
    key_id: uuid.nullable().describe("The API key's id; null when signed in another way"),
    via: z.enum(["api_key", "jwt", "loopback"]),
    admin: z.boolean().describe("An admin key: may also manage tenants (/v2/tenants)"),
  })
  .meta({ id: "Whoami" });

export const ApiKey = z
  .object({
    id: uuid,
    name: z.string(),
    tenant_ids: z.array(uuid),
    admin: z.boolean().describe("An admin key (configured on the server): may also manage tenants"),
    scopes: z.array(z.string()).describe("Empty: every API of its tenants. tracing:write: trace ingestion only (a deployment's key)"),
    project: z.string().nullable().describe("The only tracing project a scoped key may write to"),
    deployment_id: uuid.nullable().describe("The deployment the key was issued for; revoked when it is deleted"),
    created_at: timestamp,
  })
  .meta({ id: "ApiKey" });
export const ApiKeyList = z.object({ resources: z.array(ApiKey) }).meta({ id: "ApiKeyList" });
export const ApiKeyCreated = z
  .object({ id: uuid, key: z.string().describe("The key itself: shown only in this response"), name: z.string(), tenant_ids: z.array(uuid) })
  .meta({ id: "ApiKeyCreated" });

// ---------- deployments, revisions, logs ----------

export const Deployment = deploymentSchema.meta({ id: "Deployment" });
export const DeploymentList = listSchema(Deployment).meta({ id: "DeploymentList" });
export const DeploymentPatchRequest = deploymentPatchRequestSchema.meta({ id: "DeploymentPatchRequest" });

export const RevisionStatusChange = z
  .object({ status: revisionStatusSchema, at: timestamp, reason: z.string().nullable() })
  .meta({ id: "RevisionStatusChange" });

export const Revision = revisionSchema
  .extend({
    status_reason: z.string().nullable().describe("Why the revision failed or was skipped; the logs have the detail"),
    status_history: z.array(RevisionStatusChange).describe("Every status the revision went through, oldest first"),
    is_active: z.boolean().describe("It is the deployment's active_revision_id: the revision serving traffic"),
    superseded: z
      .boolean()
      .describe("It reached DEPLOYED (and keeps that status) but a newer revision serves traffic now: after a rollback, every older DEPLOYED revision"),
  })
  .meta({ id: "Revision" });
export const RevisionList = listSchema(Revision).meta({ id: "RevisionList" });

// closed here: the store writes exactly these four fields
export const LogEntry = z.object(logEntrySchema.shape).meta({ id: "LogEntry" });
export const LogPage = logsResponseSchema.extend({ logs: z.array(LogEntry) }).meta({ id: "LogPage" });

// ---------- listeners ----------

export const Listener = listenerSchema.meta({ id: "Listener" });
export const ListenerList = listSchema(Listener).meta({ id: "ListenerList" });

// ---------- hosted-git integrations ----------

export const Integration = z
  .object({
    id: uuid,
    name: z.string(),
    kind: z.enum(INTEGRATION_KINDS),
    base_url: z.string().nullable(),
    installation_id: z.null(),
    has_token: z.boolean(),
    has_webhook_secret: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: "Integration" });
export const IntegrationList = z.array(Integration).meta({ id: "IntegrationList" });

export const Repository = z
  .object({ host_integration_id: uuid, id: z.string(), name: z.string(), owner: z.string(), url: z.string(), default_branch: z.string().nullable() })
  .meta({ id: "Repository" });
export const RepositoryList = z.array(Repository).meta({ id: "RepositoryList" });

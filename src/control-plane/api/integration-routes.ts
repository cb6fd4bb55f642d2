/**
 * Hosted-git integrations (`/v1/integrations/hosted_git/…`) and their push webhook. The webhook is
 * not API-key authenticated: it proves itself with the integration's HMAC secret, like GitHub's.
 */
import type { Response, Router } from "express";
import express from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { ApiError } from "../../shared/errors.js";
import { type ApiRouter, isUuid, Reply } from "../../shared/http.js";
import type { Logger } from "../../shared/logging.js";
import { listRepos, pushOf, sameRepo, validSignature } from "../git-hosts.js";
import { revisionSnapshot } from "../rules/index.js";
import type { DeploymentStore } from "../storage/deployments.js";
import { INTEGRATION_KINDS, type Integration, type IntegrationStore } from "../storage/integrations.js";
import * as Responses from "./response-schemas.js";
import type { ControlPlaneHooks } from "./routes.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;

/** What the API shows of an integration: never its token or webhook secret. */
export const presentIntegration = (i: Integration) => ({
  id: i.id,
  name: i.name,
  kind: i.kind,
  base_url: i.base_url,
  installation_id: null,
  has_token: i.token !== null,
  has_webhook_secret: i.webhook_secret !== null,
  created_at: i.created_at,
});

const integrationCreateSchema = z.object({
  name: z.string().min(1).max(100),
  kind: z.enum(INTEGRATION_KINDS),
  base_url: z.string().min(1).nullish(),
  token: z.string().min(1).nullish(),
  webhook_secret: z.string().min(16, "use at least 16 characters").nullish(),
});

export function integrationRoutes(router: ApiRouter, integrations: IntegrationStore): void {
  const tag = "Integrations (v1)";
  router.add({ method: "get", path: "/v1/integrations/hosted_git/install", tag, summary: "The tenant's hosted-git integrations", response: Responses.IntegrationList }, async ({ res }) =>
    (await integrations.list(tenantOf(res))).map(presentIntegration),
  );
  router.add({ method: "post", path: "/v1/integrations/hosted_git", tag, summary: "Add a hosted-git integration (a git host: local, github or git)", body: integrationCreateSchema, response: Responses.Integration, responses: { "201": "Created", "409": "Name taken" } }, async ({ body, res }) =>
    new Reply(201, presentIntegration(await integrations.create(tenantOf(res), body))),
  );
  router.add({ method: "delete", path: "/v1/integrations/hosted_git/:integration_id", tag, summary: "Remove an integration", uuidParams: ["integration_id"], responses: { "204": "Deleted" } }, async ({ params, res }) => {
    await integrations.delete(tenantOf(res), params.integration_id!);
    return Reply.noContent();
  });
  router.add({ method: "get", path: "/v1/integrations/hosted_git/:integration_id/repos", tag, summary: "Repositories the integration can build from", uuidParams: ["integration_id"], response: Responses.RepositoryList }, async ({ params, res }) => {
    const integration = await integrations.get(tenantOf(res), params.integration_id!);
    try {
      return await listRepos(integration);
    } catch (err) {
      throw new ApiError(502, `could not list repositories: ${(err as Error).message}`);
    }
  });
}

/**
 * `POST /v1/integrations/hosted_git/webhook?integration_id=…`: a signed push creates a revision of
 * every build_on_push deployment of that repository and branch. Mounted before auth and JSON parsing
 * (the signature covers the raw bytes).
 */
export function mountWebhook(router: Router, deps: { integrations: IntegrationStore; deployments: DeploymentStore; hooks: ControlPlaneHooks; logger: Logger }): void {
  router.post("/v1/integrations/hosted_git/webhook", express.raw({ type: () => true, limit: "5mb" }), async (req, res) => {
    const id = String(req.query.integration_id ?? req.header("x-berth-integration") ?? "");
    const integration = isUuid(id) ? await deps.integrations.getById(id) : undefined;
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    // one answer for unknown integration, no secret and bad signature: nothing to learn by probing
    if (!integration?.webhook_secret || !validSignature(integration.webhook_secret, raw, req.header("x-hub-signature-256"))) {
      throw new ApiError(401, "invalid webhook signature");
    }
    const event = req.header("x-github-event") ?? "push";
    if (event === "ping") {
      res.json({ ok: true });
      return;
    }
    let payload: unknown;
    try {
      payload = JSON.parse(raw.toString("utf8"));
    } catch {
      throw new ApiError(400, "the webhook body is not JSON");
    }
    const push = event === "push" ? pushOf(payload) : undefined;
    if (!push) {
      res.status(202).json({ revisions: [], ignored: `event '${event}' creates no revision` });
      return;
    }
    const created: { deployment_id: string; revision_id: string }[] = [];
    for (const d of await deps.deployments.buildOnPush(integration.tenant_id, integration.id)) {
      const cfg = d.config;
      if (cfg.source_revision_config.repo_ref !== push.branch) continue;
      if (!push.repoUrls.some((u) => cfg.source_config.repo_url && sameRepo(u, cfg.source_config.repo_url))) continue;
      const { deployment, revision, superseded } = await deps.deployments.addRevision(integration.tenant_id, d.id, (current) => revisionSnapshot({ ...current.config, secrets: current.secrets }));
      deps.hooks.revisionCreated?.(deployment, revision, superseded);
      created.push({ deployment_id: d.id, revision_id: revision.id });
    }
    deps.logger.info({ integration: integration.id, branch: push.branch, revisions: created.length }, "push webhook");
    res.status(202).json({ revisions: created });
  });
}

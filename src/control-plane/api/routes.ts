/**
 * The control plane's REST API (spec §4.1, reference §1.2): deployments, revisions, logs and
 * listeners, with the reference's status codes and `{detail}` bodies. Validation and planning are
 * the rules module's; this file only wires them to storage and to the runtime hooks.
 */
import type { Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { BadRequestError, NotFoundError } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import {
  deploymentCreateRequestSchema,
  deploymentListQuerySchema,
  listenerCreateRequestSchema,
  listenerListQuerySchema,
  listenerPatchRequestSchema,
  logsQuerySchema,
  planPatch,
  revisionListQuerySchema,
  isTerminal,
  revisionSnapshot,
  validateCreate,
  validateListenerCreate,
  validateListenerPatch,
  validateListenerPlacement,
  type DeploymentConfig,
  type Listener,
} from "../rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../storage/deployments.js";
import type { ListenerStore } from "../storage/listeners.js";
import type { IntegrationStore } from "../storage/integrations.js";
import { repoUrlProblem } from "../git-hosts.js";
import { presentDeployment, presentRevision } from "./present.js";
import * as Responses from "./response-schemas.js";

const revisionGetQuerySchema = z.object({ wait: z.coerce.number().min(0).max(300).default(0) });

/** What the rest of the system does when the API changes something (runtime, tracing). */
export interface ControlPlaneHooks {
  /** Refuse (throw a 400) a deployment the runtime cannot run, before it is stored; `listener` is the one it names. */
  checkDeployable?(config: DeploymentConfig, context?: { tenantId: string; listener?: Listener }): void | Promise<void>;
  /** After a deployment is created (e.g. create its tracing project). */
  deploymentCreated?(tenantId: string, deployment: DeploymentRow): Promise<void>;
  /** A revision to build and deploy; `superseded` were SKIPPED by it. */
  revisionCreated?(deployment: DeploymentRow, revision: RevisionRow, superseded: RevisionRow[]): void;
  /** Tear the deployment down, then `store.remove` it. Without a runtime it is removed at once. */
  deleteRequested?(deployment: DeploymentRow): void;
}

export interface ControlPlaneDeps {
  deployments: DeploymentStore;
  listeners: ListenerStore;
  integrations: IntegrationStore;
  hooks: ControlPlaneHooks;
}

const tenantOf = (res: Response) => principalOf(res).tenantId;

export function controlPlaneRoutes(router: ApiRouter, deps: ControlPlaneDeps): void {
  const { deployments, listeners, integrations, hooks } = deps;
  const tag = "Deployments (v2)";
  const one = async (d: DeploymentRow) => presentDeployment(d, (await deployments.latestRevisions([d.id])).get(d.id));

  /** Listener references must exist for this tenant and fit the listener (namespace rules). */
  const checkListener = async (tenantId: string, config: DeploymentConfig): Promise<Listener | undefined> => {
    const id = config.source_config.listener_id;
    if (!id) return undefined;
    const listener = await listeners.get(tenantId, id).catch((err) => {
      if (err instanceof NotFoundError) throw new BadRequestError(`Listener ID ${id} not found.`);
      throw err;
    });
    validateListenerPlacement(listener, config.source_config.listener_config);
    return listener;
  };

  /** A hosted_git deployment names an integration of this tenant that accepts its repository. */
  const checkIntegration = async (tenantId: string, config: DeploymentConfig) => {
    const id = config.source_config.integration_id;
    if (config.source !== "hosted_git" || !id) return;
    const integration = await integrations.get(tenantId, id).catch((err) => {
      if (err instanceof NotFoundError) throw new BadRequestError(`Integration ID ${id} not found.`);
      throw err;
    });
    const problem = config.source_config.repo_url ? repoUrlProblem(integration, config.source_config.repo_url) : undefined;
    if (problem) throw new BadRequestError(`Source configuration error: ${problem}`);
  };

  router.add(
    { method: "post", path: "/v2/deployments", tag, summary: "Create a deployment (and its first revision)", body: deploymentCreateRequestSchema, response: Responses.Deployment, responses: { "201": "Created", "400": "Source configuration error", "409": "Name taken" } },
    async ({ body, res }) => {
      const tenantId = tenantOf(res);
      const config = validateCreate(body);
      const listener = await checkListener(tenantId, config);
      await checkIntegration(tenantId, config);
      await hooks.checkDeployable?.(config, { tenantId, listener });
      const { deployment, revision } = await deployments.create(tenantId, config, revisionSnapshot(config));
      await hooks.deploymentCreated?.(tenantId, deployment);
      hooks.revisionCreated?.(deployment, revision, []);
      return new Reply(201, presentDeployment(deployment, revision));
    },
  );

  router.add({ method: "get", path: "/v2/deployments", tag, summary: "List deployments", query: deploymentListQuerySchema, response: Responses.DeploymentList }, async ({ query, res }) => {
    const rows = await deployments.list(tenantOf(res), query);
    const latest = await deployments.latestRevisions(rows.map((r) => r.id));
    // `offset` is where the next page starts (upstream: "pass this value to fetch the next page")
    return { resources: rows.map((d) => presentDeployment(d, latest.get(d.id))), offset: query.offset + rows.length };
  });

  router.add({ method: "get", path: "/v2/deployments/:deployment_id", tag, summary: "Get a deployment", uuidParams: ["deployment_id"], response: Responses.Deployment }, async ({ params, res }) =>
    one(await deployments.get(tenantOf(res), params.deployment_id!)),
  );

  router.add(
    { method: "patch", path: "/v2/deployments/:deployment_id", tag, summary: "Update a deployment (a new revision when revision fields, secrets or resource_spec are sent)", uuidParams: ["deployment_id"], body: Responses.DeploymentPatchRequest, response: Responses.Deployment },
    async ({ params, body, res }) => {
      const tenantId = tenantOf(res);
      const { deployment, revision, superseded } = await deployments.update(tenantId, params.deployment_id!, (current) => {
        const plan = planPatch(current, body);
        return { next: plan.next, revision: plan.revision };
      });
      if (revision) hooks.revisionCreated?.(deployment, revision, superseded);
      return one(deployment);
    },
  );

  router.add(
    { method: "delete", path: "/v2/deployments/:deployment_id", tag, summary: "Delete a deployment (AWAITING_DELETE until torn down; traces are kept)", uuidParams: ["deployment_id"], responses: { "204": "Deletion started" } },
    async ({ params, res }) => {
      const d = await deployments.requestDelete(tenantOf(res), params.deployment_id!);
      if (hooks.deleteRequested) hooks.deleteRequested(d);
      else await deployments.remove(d.id);
      return Reply.noContent();
    },
  );

  const rtag = "Revisions (v2)";
  router.add(
    { method: "get", path: "/v2/deployments/:deployment_id/revisions", tag: rtag, summary: "List revisions, newest first", uuidParams: ["deployment_id"], query: revisionListQuerySchema, response: Responses.RevisionList },
    async ({ params, query, res }) => {
      const rows = await deployments.revisions(tenantOf(res), params.deployment_id!, query);
      return { resources: rows.map((r) => presentRevision(r, r.serving)), offset: query.offset + rows.length };
    },
  );

  router.add(
    {
      method: "get",
      path: "/v2/deployments/:deployment_id/revisions/:revision_id",
      tag: rtag,
      summary: "Get a revision; ?wait=N returns as soon as its status is terminal (at most N seconds)",
      uuidParams: ["deployment_id", "revision_id"],
      query: revisionGetQuerySchema,
      response: Responses.Revision,
    },
    async ({ params, query, res, req }) => {
      const read = () => deployments.revision(tenantOf(res), params.deployment_id!, params.revision_id!);
      let revision = await read();
      // server-side wait (as Fly's machine wait): CI polls once instead of every few seconds
      const until = Date.now() + query.wait * 1000;
      while (!isTerminal(revision.status) && Date.now() < until && !req.socket.destroyed) {
        await new Promise((r) => setTimeout(r, Math.min(250, Math.max(0, until - Date.now()))));
        revision = await read();
      }
      return presentRevision(revision, revision.serving);
    },
  );

  router.add(
    {
      method: "post",
      path: "/v2/deployments/:deployment_id/revisions",
      tag: rtag,
      summary: "Create a revision (always), optionally changing the deployment like PATCH",
      uuidParams: ["deployment_id"],
      body: Responses.DeploymentPatchRequest,
      optionalBody: true,
      response: Responses.Revision,
      responses: { "201": "Created" },
    },
    async ({ params, body, res }) => {
      const tenantId = tenantOf(res);
      const { deployment, revision, superseded } = await deployments.update(tenantId, params.deployment_id!, (current) => {
        const plan = planPatch(current, body);
        return { next: plan.next, revision: revisionSnapshot(plan.next) };
      });
      hooks.revisionCreated?.(deployment, revision!, superseded);
      // just created, so the newest: it serves nothing yet and nothing replaced it
      return new Reply(201, presentRevision(revision!, { is_active: false, superseded: false }));
    },
  );

  router.add(
    {
      method: "post",
      path: "/v2/deployments/:deployment_id/revisions/:revision_id/redeploy",
      tag: rtag,
      summary: "Roll back: a new revision with that revision's configuration",
      uuidParams: ["deployment_id", "revision_id"],
      response: Responses.Deployment,
    },
    async ({ params, res }) => {
      const tenantId = tenantOf(res);
      const old = await deployments.revision(tenantId, params.deployment_id!, params.revision_id!);
      const { deployment, revision, superseded } = await deployments.update(tenantId, params.deployment_id!, (current) => {
        // the deployment's config follows the revision it now runs (its values refer to the latest revision)
        const next: DeploymentConfig = {
          ...current,
          source_revision_config: { ...old.snapshot.source_revision_config },
          secrets: old.secrets,
          source_config: { ...current.source_config, resource_spec: old.snapshot.resource_spec },
        };
        return { next, revision: revisionSnapshot(next) };
      });
      hooks.revisionCreated?.(deployment, revision!, superseded);
      return one(deployment);
    },
  );

  router.add(
    { method: "get", path: "/v2/deployments/:deployment_id/revisions/:revision_id/logs", tag: rtag, summary: "Build or deploy logs of a revision (cursor pages)", uuidParams: ["deployment_id", "revision_id"], query: logsQuerySchema, response: Responses.LogPage },
    async ({ params, query, res }) => {
      const revision = await deployments.revision(tenantOf(res), params.deployment_id!, params.revision_id!);
      return deployments.logs(revision.id, query);
    },
  );

  const ltag = "Listeners (v2)";
  router.add({ method: "get", path: "/v2/listeners", tag: ltag, summary: "List listeners", query: listenerListQuerySchema, response: Responses.ListenerList }, async ({ query, res }) => {
    const rows = await listeners.list(tenantOf(res), query.limit, query.offset);
    return { resources: rows, offset: query.offset + rows.length };
  });
  router.add({ method: "post", path: "/v2/listeners", tag: ltag, summary: "Create a listener", body: listenerCreateRequestSchema, response: Responses.Listener, responses: { "201": "Created", "409": "compute_id taken" } }, async ({ body, res }) => {
    validateListenerCreate(body);
    return new Reply(201, await listeners.create(tenantOf(res), body));
  });
  router.add({ method: "get", path: "/v2/listeners/:listener_id", tag: ltag, summary: "Get a listener", uuidParams: ["listener_id"], response: Responses.Listener }, async ({ params, res }) =>
    listeners.get(tenantOf(res), params.listener_id!),
  );
  router.add({ method: "patch", path: "/v2/listeners/:listener_id", tag: ltag, summary: "Update a listener", uuidParams: ["listener_id"], body: listenerPatchRequestSchema, response: Responses.Listener }, async ({ params, body, res }) => {
    const tenantId = tenantOf(res);
    validateListenerPatch((await listeners.get(tenantId, params.listener_id!)).compute_type, body);
    return listeners.patch(tenantId, params.listener_id!, body);
  });
  router.add(
    { method: "delete", path: "/v2/listeners/:listener_id", tag: ltag, summary: "Delete a listener", uuidParams: ["listener_id"], responses: { "204": "Deleted", "409": "In use" } },
    async ({ params, res }) => {
      await listeners.delete(tenantOf(res), params.listener_id!);
      return Reply.noContent();
    },
  );
}

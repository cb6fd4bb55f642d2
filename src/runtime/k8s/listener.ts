/**
 * The k8s listener (compute type `k8s`): the control plane's hooks for deployments that run on a
 * Kubernetes cluster. It writes, per revision, the deployment's Secret and its AgentDeployment
 * custom resource (the operator renders that into pods), builds hosted_git revisions with a Kaniko
 * Job first, and reads the AgentDeployment's status back into revision statuses, the deployment's
 * database flag, URL and deploy logs.
 *
 *   external_container  QUEUED → AWAITING_DEPLOY → DEPLOYING (CR applied) → DEPLOYED | DEPLOY_FAILED
 *   hosted_git          QUEUED → AWAITING_BUILD → BUILDING (Job) → AWAITING_DEPLOY → DEPLOYING → …
 *                       the Job fails → BUILD_FAILED (with the log's tail)
 *
 * Every step of one deployment runs in order on one chain (KeyedSerial): applying a revision, a
 * status the informer saw, a finished build, a delete. Builds run beside the chain; only their end
 * is a step. Superseding: a newer revision cancels an older one's build (Job deleted, INTERRUPTED);
 * an older revision still rolling out is INTERRUPTED when the newer one's spec replaces it in the CR
 * (the store has already SKIPPED revisions that had not started). Status writes go through the
 * revision state machine: a terminal revision never moves.
 *
 * Restart: `resume()` finishes deletes, re-reads every live deployment (the informer's first list
 * replays each CR's status) and re-drives the revisions left in flight — a build whose Job still
 * exists is followed again, one whose Job is gone is started again.
 *
 * This module drives a revision from start to its rollout and owns the hooks and the life cycle; its
 * parts: steps.ts (the chains, retries and waits), revisions.ts (store reads and status writes),
 * build-runner.ts (the Kaniko Jobs), observer.ts (CR status → revision transitions) and teardown.ts
 * (deleting a deployment's objects from the cluster).
 */
import type { ControlPlaneHooks } from "../../control-plane/api/routes.js";
import { isTerminal, type DeploymentConfig, type Listener, type RevisionStatus } from "../../control-plane/rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../../control-plane/storage/deployments.js";
import type { IntegrationStore } from "../../control-plane/storage/integrations.js";
import type { ListenerStore } from "../../control-plane/storage/listeners.js";
import type { KubeRest } from "../../operator/kube/index.js";
import { API_VERSION, KIND } from "../../operator/types.js";
import { TRACING_WRITE, deploymentAuthScope, platformAuthEnv, type AuthService, type JwtSettings } from "../../shared/auth/index.js";
import { BadRequestError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logging.js";
import { agentDeploymentFor, agentDeploymentProblem, apiKeyOf, authKeyOf, deploymentSecretFor } from "./agent-deployment.js";
import { gitContextProblem } from "./build.js";
import { BuildRunner } from "./build-runner.js";
import { smartHttpLsRemote, type ResolveCommit } from "./commit.js";
import { FIELD_MANAGER, secretName } from "./names.js";
import { StatusObserver, type AdObject } from "./observer.js";
import { buildPlacement, deploymentNamespace, type BuildDefaults } from "./placement.js";
import { Revisions } from "./revisions.js";
import { passOn, Steps } from "./steps.js";
import { deleteFromNamespace } from "./teardown.js";

export interface K8sListenerOptions {
  store: DeploymentStore;
  listeners: Pick<ListenerStore, "get">;
  integrations: Pick<IntegrationStore, "get">;
  /** Mints the tracing API key of each deployment (scoped: trace ingestion into its project) and revokes it on delete. */
  auth: Pick<AuthService, "createDeploymentKey" | "key" | "revokeKey" | "revokeDeploymentKeys" | "createDeploymentAuthKey" | "platformKeySnapshot">;
  /** How often agent servers refresh their tenant's key snapshot (platform auth; default 30 s). */
  authRefreshSeconds?: number;
  /** Bearer JWT verification of the control plane; deployments get its public part. */
  jwt?: JwtSettings;
  rest: KubeRest;
  /** BERTH_K8S_DEFAULT_NAMESPACE. */
  defaultNamespace: string;
  /** BERTH_PUBLIC_URL: deployments trace to `<publicUrl>/tracing`. */
  publicUrl: string;
  /** BERTH_AGENT_BASE_IMAGE: what hosted_git images extend. */
  agentBaseImage: string;
  /** Registry, push secret and Kaniko image when the deployment's listener names none. */
  build: BuildDefaults;
  /** A revision DEPLOYING longer than this is DEPLOY_FAILED. */
  deployDeadlineMs: number;
  /** Watch AgentDeployments only in these namespaces (all when empty or absent). */
  watchNamespaces?: string[];
  /** How often builds and deletes are checked on (default 2 s). */
  pollMs?: number;
  /** How often DEPLOYING revisions are checked against the deadline (default: a quarter of it, at most 5 s). */
  sweepMs?: number;
  /** Kaniko Job limits (defaults 30 min, and 1 h kept after it finished if the listener could not delete it). */
  buildTimeoutSeconds?: number;
  buildTtlSeconds?: number;
  /** The commit of a ref (default: the git host's smart-HTTP ref advertisement; undefined when unknown). */
  resolveCommit?: ResolveCommit;
  logger: Logger;
}
const IN_FLIGHT: RevisionStatus[] = ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING"];

export class K8sListener implements Required<Pick<ControlPlaneHooks, "revisionCreated" | "deleteRequested">> {
  readonly computeType = "k8s" as const;
  private readonly closing = new AbortController();
  private readonly pollMs: number;
  private readonly steps: Steps;
  private readonly revisions: Revisions;
  private readonly builds: BuildRunner;
  private readonly observer: StatusObserver;

  constructor(private readonly o: K8sListenerOptions) {
    this.pollMs = o.pollMs ?? 2000;
    this.steps = new Steps(o.logger, this.closing.signal);
    this.revisions = new Revisions(o.store, o.logger);
    const { steps, revisions } = this;
    this.observer = new StatusObserver({ ...o, steps, revisions });
    this.builds = new BuildRunner({
      ...o,
      pollMs: this.pollMs,
      resolveCommit: o.resolveCommit ?? smartHttpLsRemote,
      steps,
      revisions,
      listenerOf: (d) => this.listenerOf(d),
      namespaceOf: (d, listener) => this.namespaceOf(d, listener),
      onBuilt: (d, r, image) => this.applyRevision(d, r, image),
    });
  }

  // ---------- hooks ----------

  /** hosted_git needs a repository the cluster can clone and a registry to push to. */
  checkDeployable(config: DeploymentConfig, listener?: Listener): void {
    if (config.source !== "hosted_git") return;
    const problem = gitContextProblem(config.source_config.repo_url ?? "");
    if (problem) throw new BadRequestError(`Source configuration error: ${problem}`);
    if (!buildPlacement(listener?.compute_config, this.o.build).imageRegistry) {
      throw new BadRequestError(
        "Source configuration error: hosted_git builds on Kubernetes push to an image registry and none is configured: set BERTH_IMAGE_REGISTRY on the control plane (or compute_config.image_registry of the k8s listener)",
      );
    }
  }

  revisionCreated(deployment: DeploymentRow, revision: RevisionRow): void {
    this.steps.queue(deployment.id, () => this.startRevision(deployment, revision.id));
  }

  deleteRequested(deployment: DeploymentRow): void {
    // a build of the deployment stops at once, not after the steps queued before the delete
    this.builds.abort(deployment.id);
    this.steps.queue(deployment.id, () => this.remove(deployment));
  }

  // ---------- life cycle ----------

  /** Watch AgentDeployments, finish deletes, and pick up every live deployment where it was left. */
  async resume(): Promise<void> {
    this.observer.start();
    for (const d of await this.o.store.pendingDeletes()) this.deleteRequested(d);
    for (const { deployment } of await this.o.store.allLive()) {
      this.steps.queue(deployment.id, () => this.resumeDeployment(deployment));
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.builds.abortAll();
    await this.observer.stop();
    await this.steps.idle();
  }

  /** Resolves once every step queued so far has run (tests, shutdown). */
  idle(): Promise<void> {
    return this.steps.idle();
  }

  // ---------- where ----------

  private async listenerOf(d: DeploymentRow): Promise<Listener | undefined> {
    const id = d.config.source_config.listener_id;
    return id ? this.o.listeners.get(d.tenant_id, id) : undefined;
  }

  /**
   * Where the deployment's objects go: where its AgentDeployment already is (a listener whose
   * namespace list was edited must not move a running deployment), else where its configuration says.
   */
  private async namespaceOf(d: DeploymentRow, listener?: Listener): Promise<string> {
    const existing = this.observer.seenCrs(d.id)[0]?.metadata.namespace;
    return existing ?? deploymentNamespace(listener ?? (await this.listenerOf(d)), d.config.source_config.listener_config, this.o.defaultNamespace);
  }

  // ---------- revisions ----------

  private async startRevision(deployment: DeploymentRow, revisionId: string): Promise<void> {
    const d = await this.revisions.live(deployment);
    const r = await this.revisions.revision(d, revisionId);
    if (!r || isTerminal(r.status)) return;
    await this.builds.cancelOlder(d, r.id);
    if (r.snapshot.source === "external_container") {
      if (!(await this.revisions.advance(r, "AWAITING_DEPLOY"))) return;
      await this.applyRevision(d, r, r.snapshot.source_revision_config.image_uri ?? "");
    } else {
      await this.builds.start(d, r);
    }
  }

  /**
   * Write the Secret and the AgentDeployment of `r` (AWAITING_DEPLOY → DEPLOYING), and interrupt
   * older revisions whose rollout this replaces.
   */
  private async applyRevision(d: DeploymentRow, r: RevisionRow, image: string): Promise<void> {
    const { rest } = this.o;
    const { steps, revisions } = this;
    try {
      const listener = await this.listenerOf(d);
      const namespace = await this.namespaceOf(d, listener);
      const existing = await steps.kube(() => rest.get<AdObject & { spec: { deploymentId?: string } }>(API_VERSION, KIND, namespace, d.name));
      if (existing && existing.spec?.deploymentId && existing.spec.deploymentId !== d.id) {
        return await revisions.fail(r, `AgentDeployment ${namespace}/${d.name} already exists and belongs to another deployment (${existing.spec.deploymentId}): use another name or namespace`, "deploy");
      }
      const secret = secretName(d.name);
      const current = await steps.kube(() => rest.get("v1", "Secret", namespace, secret));
      const apiKey = await this.tracingKeyOf(d, apiKeyOf(current));
      const authKey = await this.authKeyOf(d, authKeyOf(current));
      const publicUrl = this.o.publicUrl.replace(/\/+$/, "");
      const platformAuth = platformAuthEnv({
        tenantId: d.tenant_id,
        snapshot: await this.o.auth.platformKeySnapshot(d.tenant_id),
        controlPlaneUrl: publicUrl,
        deploymentId: d.id,
        deploymentKey: authKey.key,
        refreshSeconds: this.o.authRefreshSeconds,
        jwt: this.o.jwt,
      });
      const ad = agentDeploymentFor(d, r, { image, namespace, tracingEndpoint: `${this.o.publicUrl.replace(/\/+$/, "")}/tracing`, secretName: secret });
      const problem = agentDeploymentProblem(ad);
      if (problem) return await revisions.fail(r, `invalid AgentDeployment: ${problem}`, "deploy");
      await steps.kube(() => rest.apply(deploymentSecretFor(d, { name: secret, namespace, secrets: r.secrets, apiKey, authKey, platformAuth }), FIELD_MANAGER));
      const applied = await steps.kube(() => rest.apply<AdObject>(ad, FIELD_MANAGER));
      const fresh = await revisions.revision(d, r.id);
      if (!fresh || !(await revisions.advance(fresh, "DEPLOYING"))) return;
      await revisions.log(r.id, "deploy", [
        `Secret ${namespace}/${secret} applied (${r.secrets.length} secret${r.secrets.length === 1 ? "" : "s"}, the tracing key and platform auth)`,
        `AgentDeployment ${namespace}/${d.name} applied (generation ${applied.metadata.generation ?? "?"}): image ${image}`,
      ]);
      await this.interruptOlder(d, r.id);
      this.observer.track(d, r.id, namespace);
      const deploying = await revisions.revision(d, r.id);
      if (deploying) await this.observer.apply(d, deploying, applied);
    } catch (err) {
      if (passOn(err)) throw err;
      await revisions.fail(r, `could not apply the AgentDeployment: ${(err as Error).message}`, "deploy");
    }
  }

  /**
   * The deployment's tracing key: the one on its Secret, kept across revisions, unless it was
   * revoked or is an unscoped key of an older version (which could use every API of the tenant):
   * then a new scoped one, the old one revoked.
   */
  private async tracingKeyOf(d: DeploymentRow, current: { id: string; key: string } | undefined): Promise<{ id: string; key: string }> {
    const record = current && (await this.o.auth.key(d.tenant_id, current.id));
    if (current && record?.scopes.includes(TRACING_WRITE) && record.deployment_id === d.id) return current;
    if (current && record) await this.o.auth.revokeKey(d.tenant_id, current.id);
    return this.o.auth.createDeploymentKey(d.tenant_id, d);
  }

  /** The deployment's platform-auth credential: the one on its Secret while it is still its own, else a new one. */
  private async authKeyOf(d: DeploymentRow, current: { id: string; key: string } | undefined): Promise<{ id: string; key: string }> {
    const record = current && (await this.o.auth.key(d.tenant_id, current.id));
    if (current && record?.scopes.includes(deploymentAuthScope(d.id)) && record.deployment_id === d.id) return current;
    return this.o.auth.createDeploymentAuthKey(d.tenant_id, d);
  }

  /** Older revisions still in a deploy stage lose their rollout when a newer one is applied. */
  private async interruptOlder(d: DeploymentRow, newerId: string): Promise<void> {
    const older = await this.o.store.revisions(d.tenant_id, d.id, { status: ["AWAITING_DEPLOY", "DEPLOYING"], limit: 100, offset: 0 });
    for (const o of older) {
      if (o.id === newerId) continue;
      if (await this.revisions.advance(o, "INTERRUPTED", { reason: `replaced by revision ${newerId} before it became ready` })) {
        await this.revisions.log(o.id, "deploy", [`replaced by revision ${newerId} before it became ready`]);
      }
      this.observer.forgetRevision(d.id, o.id);
    }
  }

  // ---------- resume ----------

  private async resumeDeployment(deployment: DeploymentRow): Promise<void> {
    const d = await this.revisions.live(deployment);
    const inFlight = await this.o.store.revisions(d.tenant_id, d.id, { status: IN_FLIGHT, limit: 100, offset: 0 });
    if (inFlight.length === 0) return; // settled: the informer's first list brings its status
    const namespace = await this.namespaceOf(d);
    const cr = this.observer.cached(namespace, d.name) ?? (await this.steps.kube(() => this.o.rest.get<AdObject>(API_VERSION, KIND, namespace, d.name)));
    const latest = d.latest_revision_id;
    for (const r of inFlight) {
      if (r.id === latest) continue;
      if (r.status === "DEPLOYING" && cr?.spec.revisionId === r.id) {
        // still the CR's revision (the newest one is building): keep watching it
        this.observer.track(d, r.id, namespace);
        await this.observer.apply(d, r, cr);
        continue;
      }
      if (["AWAITING_BUILD", "BUILDING"].includes(r.status)) await this.builds.discard(d, r.id, namespace);
      const next = ["CREATING", "QUEUED"].includes(r.status) ? "SKIPPED" : "INTERRUPTED";
      await this.revisions.advance(r, next, { reason: `superseded by revision ${latest} while the control plane was down` });
    }
    const r = inFlight.find((x) => x.id === latest);
    if (!r) return;
    switch (r.status) {
      case "CREATING":
      case "QUEUED":
        return this.startRevision(d, r.id);
      case "AWAITING_BUILD":
        return this.builds.start(d, r);
      case "BUILDING":
        return this.builds.resume(d, r, namespace);
      case "AWAITING_DEPLOY": {
        const image = r.snapshot.source === "external_container" ? r.snapshot.source_revision_config.image_uri : await this.builds.destinationOf(d, r);
        if (!image) return this.revisions.fail(r, "no image to deploy: the image registry is no longer configured", "deploy");
        return this.applyRevision(d, r, image);
      }
      case "DEPLOYING":
        this.observer.track(d, r.id, namespace);
        return this.observer.apply(d, r, cr);
    }
  }

  // ---------- delete ----------

  /**
   * Tear a deployment down: in every namespace where it may have objects, its AgentDeployment and
   * then everything else of it (teardown.ts); then the record. Idempotent: a restart runs it again
   * from the start.
   */
  private async remove(deployment: DeploymentRow): Promise<void> {
    this.builds.abort(deployment.id);
    const d = await this.revisions.deployment(deployment.tenant_id, deployment.id);
    if (!d) return;
    this.observer.untrack(d.id);
    const namespaces = new Set<string>();
    try {
      namespaces.add(await this.namespaceOf(d));
    } catch (err) {
      this.o.logger.warn({ err, deployment: d.id }, "could not read the deployment's listener; deleting where its AgentDeployment is seen");
    }
    for (const cr of this.observer.seenCrs(d.id)) if (cr.metadata.namespace) namespaces.add(cr.metadata.namespace);
    for (const namespace of namespaces) await deleteFromNamespace(d, namespace, { ...this.o, steps: this.steps, pollMs: this.pollMs });
    // also a key whose Secret is gone or was never written (a failed apply)
    await this.o.auth.revokeDeploymentKeys(d.id);
    this.observer.forgetDeployment(d.id);
    await this.o.store.remove(d.id);
    this.o.logger.info({ deployment: d.name }, "deployment deleted from the cluster");
  }
}

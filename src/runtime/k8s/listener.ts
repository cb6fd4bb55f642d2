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
 */
import type { ControlPlaneHooks } from "../../control-plane/api/routes.js";
import { isTerminal, transition, type DeploymentConfig, type Listener, type RevisionStatus } from "../../control-plane/rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../../control-plane/storage/deployments.js";
import type { IntegrationStore } from "../../control-plane/storage/integrations.js";
import type { ListenerStore } from "../../control-plane/storage/listeners.js";
import { Informer, isConflict, isTransient, type KubeObject, type KubeRest } from "../../operator/kube/index.js";
import { API_VERSION, KIND, type AgentDeploymentStatus } from "../../operator/types.js";
import type { AuthService } from "../../shared/auth/index.js";
import { BadRequestError, NotFoundError } from "../../shared/errors.js";
import type { Logger } from "../../shared/logging.js";
import { agentDeploymentFor, agentDeploymentProblem, apiKeyOf, deploymentSecretFor } from "./agent-deployment.js";
import {
  buildJobFor,
  dockerfileConfigMapFor,
  dockerfileFor,
  gitContext,
  gitContextProblem,
  gitCredentialsSecretFor,
  imageFor,
  jobOutcome,
  pinnedImage,
  type JobOutcome,
} from "./build.js";
import { smartHttpLsRemote, type ResolveCommit } from "./commit.js";
import {
  DEPLOYMENT_ID_LABEL,
  FIELD_MANAGER,
  MANAGED_SELECTOR,
  TENANT_ID_LABEL,
  buildName,
  deploymentSelector,
  gitSecretName,
  secretName,
} from "./names.js";
import { buildPlacement, deploymentNamespace, type BuildDefaults } from "./placement.js";
import { BuildLog, buildPod, lastBuildLines, terminatedMessage } from "./build-log.js";
import { KeyedSerial } from "./serial.js";
import { conditionChanges, observe, observedCurrent, type ObservedAgentDeployment } from "./status.js";

export interface K8sListenerOptions {
  store: DeploymentStore;
  listeners: Pick<ListenerStore, "get">;
  integrations: Pick<IntegrationStore, "get">;
  /** Mints the tracing API key of each deployment (and revokes it on delete). */
  auth: Pick<AuthService, "createKey" | "revokeKey">;
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

interface Build {
  deploymentId: string;
  revisionId: string;
  namespace: string;
  name: string;
  controller: AbortController;
}

interface Tracked {
  tenantId: string;
  revisionId: string;
  namespace: string;
  name: string;
}

type AdObject = KubeObject & ObservedAgentDeployment;

const IN_FLIGHT: RevisionStatus[] = ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING"];
/** Postgres deadlock_detected and serialization_failure: the transaction was rolled back, try again. */
const DB_RETRY_CODES = new Set(["40P01", "40001"]);
const retryable = (err: unknown) => DB_RETRY_CODES.has((err as { code?: string } | undefined)?.code ?? "");
class Aborted extends Error {}

/** A step that cannot go on (the revision is terminal, the deployment is being deleted…): not an error. */
class Stop extends Error {}

export class K8sListener implements Required<Pick<ControlPlaneHooks, "revisionCreated" | "deleteRequested">> {
  readonly computeType = "k8s" as const;
  private readonly serial: KeyedSerial;
  private readonly builds = new Map<string, Build>();
  private readonly tracked = new Map<string, Tracked>();
  private readonly sweeping = new Set<string>();
  /** The status last logged, per deployment/revision (a change of condition is logged once). */
  private readonly logged = new Map<string, AgentDeploymentStatus | undefined>();
  private readonly informers: Informer<AdObject>[] = [];
  private readonly closing = new AbortController();
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly pollMs: number;
  private readonly resolveCommit: ResolveCommit;

  constructor(private readonly o: K8sListenerOptions) {
    this.serial = new KeyedSerial((key, err) => o.logger.error({ err, deployment: key }, "k8s listener step failed"));
    this.pollMs = o.pollMs ?? 2000;
    this.resolveCommit = o.resolveCommit ?? smartHttpLsRemote;
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
    void this.serial.run(deployment.id, () => this.step(() => this.startRevision(deployment, revision.id)));
  }

  deleteRequested(deployment: DeploymentRow): void {
    // a build of the deployment stops at once, not after the steps queued before the delete
    for (const b of this.buildsOf(deployment.id)) b.controller.abort();
    void this.serial.run(deployment.id, () => this.step(() => this.remove(deployment)));
  }

  // ---------- life cycle ----------

  /** Watch AgentDeployments, finish deletes, and pick up every live deployment where it was left. */
  async resume(): Promise<void> {
    this.startWatching();
    for (const d of await this.o.store.pendingDeletes()) this.deleteRequested(d);
    for (const { deployment } of await this.o.store.allLive()) {
      void this.serial.run(deployment.id, () => this.step(() => this.resumeDeployment(deployment)));
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    clearInterval(this.sweepTimer);
    for (const b of this.builds.values()) b.controller.abort();
    await Promise.all(this.informers.map((i) => i.stop()));
    await this.serial.idle();
  }

  /** Resolves once every step queued so far has run (tests, shutdown). */
  idle(): Promise<void> {
    return this.serial.idle();
  }

  private startWatching(): void {
    if (this.informers.length > 0) return;
    const scopes = this.o.watchNamespaces?.length ? this.o.watchNamespaces : [undefined];
    for (const namespace of scopes) {
      const inf = new Informer<AdObject>(this.o.rest.kubeConfig, this.o.rest, { apiVersion: API_VERSION, kind: KIND, namespace, labelSelector: MANAGED_SELECTOR, logger: this.o.logger });
      inf.on("add", (cr) => this.saw(cr));
      inf.on("update", (cr) => this.saw(cr));
      this.informers.push(inf);
      inf.start();
    }
    const sweep = this.o.sweepMs ?? Math.max(50, Math.min(5000, this.o.deployDeadlineMs / 4));
    this.sweepTimer = setInterval(() => this.sweep(), sweep);
    this.sweepTimer.unref();
  }

  /** A CR as the informer saw it: its status goes to the revision in its spec. */
  private saw(cr: AdObject): void {
    const deploymentId = cr.metadata.labels?.[DEPLOYMENT_ID_LABEL];
    const tenantId = cr.metadata.labels?.[TENANT_ID_LABEL];
    if (!deploymentId || !tenantId || this.closing.signal.aborted) return;
    void this.serial.run(deploymentId, () => this.step(() => this.observeCr(tenantId, deploymentId, cr)));
  }

  /** DEPLOYING revisions are judged against the deadline even when their CR does not change. */
  private sweep(): void {
    for (const [deploymentId, t] of this.tracked) {
      // one pending check per deployment: a busy chain does not pile them up
      if (this.sweeping.has(deploymentId)) continue;
      this.sweeping.add(deploymentId);
      void this.serial.run(deploymentId, () =>
        this.step(async () => {
          this.sweeping.delete(deploymentId);
          if (this.tracked.get(deploymentId)?.revisionId !== t.revisionId) return;
          const d = await this.deployment(t.tenantId, deploymentId);
          const r = d && (await this.revision(d, t.revisionId));
          if (!d || !r) return void this.tracked.delete(deploymentId);
          await this.applyObservation(d, r, this.cached(t.namespace, t.name));
        }),
      );
    }
  }

  private cached(namespace: string, name: string): AdObject | undefined {
    for (const inf of this.informers) {
      const hit = inf.get(name, namespace);
      if (hit) return hit;
    }
    return undefined;
  }

  /**
   * Run a step; `Stop` ends it quietly, anything else is logged by the chain. A step that lost a
   * database deadlock or serialization conflict (its transaction was rolled back) runs again: steps
   * re-read what they act on, so running one twice is safe.
   */
  private async step(fn: () => Promise<void>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (err instanceof Stop || err instanceof Aborted) return;
        if (attempt >= 4 || !retryable(err)) throw err;
        this.o.logger.debug({ err, attempt }, "k8s listener step lost a database conflict; running it again");
        await this.sleep(50 * attempt);
      }
    }
  }

  // ---------- store access ----------

  private async deployment(tenantId: string, id: string): Promise<DeploymentRow | undefined> {
    try {
      return await this.o.store.get(tenantId, id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  private async revision(d: DeploymentRow, id: string): Promise<RevisionRow | undefined> {
    try {
      return await this.o.store.revision(d.tenant_id, d.id, id);
    } catch (err) {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
  }

  /** The deployment, fresh; `Stop` when it is gone or being deleted. */
  private async live(d: { tenant_id: string; id: string }): Promise<DeploymentRow> {
    const fresh = await this.deployment(d.tenant_id, d.id);
    if (!fresh || fresh.delete_requested_at) throw new Stop();
    return fresh;
  }

  /**
   * Move a revision if the state machine allows it from where it is now; false (and no write) when
   * it does not — a newer revision skipped or interrupted it meanwhile.
   */
  private async advance(r: RevisionRow, next: RevisionStatus, detail: { reason?: string; commitSha?: string } = {}): Promise<boolean> {
    const buildless = r.snapshot.source === "external_container";
    const current = (await this.o.store.revision(r.tenant_id, r.deployment_id, r.id).catch(() => undefined)) ?? r;
    const t = transition(current.status, next, { buildless });
    if (!t.ok) return false;
    if (!t.changed) return true;
    try {
      await this.o.store.setRevisionStatus(r.id, next, { ...detail, buildless });
      return true;
    } catch (err) {
      // lost a race with another writer (the API superseding it): the state machine refused
      if (/illegal revision status transition/.test((err as Error).message)) return false;
      throw err;
    }
  }

  private log(revisionId: string, type: "build" | "deploy", lines: string[], level = "INFO"): Promise<void> {
    return this.o.store.appendLogs(revisionId, type, lines.map((message) => ({ level, message }))).catch((err) => {
      this.o.logger.warn({ err, revision: revisionId }, "could not write revision logs");
    });
  }

  private async listenerOf(d: DeploymentRow): Promise<Listener | undefined> {
    const id = d.config.source_config.listener_id;
    return id ? this.o.listeners.get(d.tenant_id, id) : undefined;
  }

  /**
   * Where the deployment's objects go: where its AgentDeployment already is (a listener whose
   * namespace list was edited must not move a running deployment), else where its configuration says.
   */
  private async namespaceOf(d: DeploymentRow, listener?: Listener): Promise<string> {
    const existing = this.seenCrs(d.id)[0]?.metadata.namespace;
    return existing ?? deploymentNamespace(listener ?? (await this.listenerOf(d)), d.config.source_config.listener_config, this.o.defaultNamespace);
  }

  /** The deployment's AgentDeployments in the informers' caches (normally one). */
  private seenCrs(deploymentId: string): AdObject[] {
    return this.informers.flatMap((inf) => inf.list().filter((cr) => cr.metadata.labels?.[DEPLOYMENT_ID_LABEL] === deploymentId && (cr.spec as { deploymentId?: string }).deploymentId === deploymentId));
  }

  /** Kubernetes calls retried on conflicts, throttling, 5xx and network errors. */
  private async kube<T>(fn: () => Promise<T>): Promise<T> {
    let delay = 200;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        if (attempt >= 5 || !isTransient(err) || this.closing.signal.aborted) throw err;
        await this.sleep(delay);
        delay *= 2;
      }
    }
  }

  private sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const signals = [this.closing.signal, ...(signal ? [signal] : [])];
      if (signals.some((s) => s.aborted)) return reject(new Aborted());
      const done = () => {
        clearTimeout(timer);
        for (const s of signals) s.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        done();
        reject(new Aborted());
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      for (const s of signals) s.addEventListener("abort", onAbort, { once: true });
    });
  }

  // ---------- revisions ----------

  private async startRevision(deployment: DeploymentRow, revisionId: string): Promise<void> {
    const d = await this.live(deployment);
    const r = await this.revision(d, revisionId);
    if (!r || isTerminal(r.status)) return;
    await this.cancelBuilds(d, r.id);
    if (r.snapshot.source === "external_container") {
      if (!(await this.advance(r, "AWAITING_DEPLOY"))) return;
      await this.applyRevision(d, r, r.snapshot.source_revision_config.image_uri ?? "");
    } else {
      await this.startBuild(d, r);
    }
  }

  /** Fail a revision from whatever in-flight status it has (BUILD_FAILED while building, else DEPLOY_FAILED). */
  private async fail(r: RevisionRow, reason: string, type: "build" | "deploy"): Promise<void> {
    await this.log(r.id, type, [reason], "ERROR");
    const current = await this.o.store.revision(r.tenant_id, r.deployment_id, r.id);
    const next = ["AWAITING_BUILD", "BUILDING"].includes(current.status) ? "BUILD_FAILED" : "DEPLOY_FAILED";
    await this.advance(current, next, { reason });
    this.o.logger.warn({ deployment: r.deployment_id, revision: r.id, reason }, `revision ${next}`);
  }

  /**
   * Write the Secret and the AgentDeployment of `r` (AWAITING_DEPLOY → DEPLOYING), and interrupt
   * older revisions whose rollout this replaces.
   */
  private async applyRevision(d: DeploymentRow, r: RevisionRow, image: string): Promise<void> {
    try {
      const listener = await this.listenerOf(d);
      const namespace = await this.namespaceOf(d, listener);
      const existing = await this.kube(() => this.o.rest.get<AdObject & { spec: { deploymentId?: string } }>(API_VERSION, KIND, namespace, d.name));
      if (existing && existing.spec?.deploymentId && existing.spec.deploymentId !== d.id) {
        return await this.fail(r, `AgentDeployment ${namespace}/${d.name} already exists and belongs to another deployment (${existing.spec.deploymentId}): use another name or namespace`, "deploy");
      }
      const secret = secretName(d.name);
      const apiKey = apiKeyOf(await this.kube(() => this.o.rest.get("v1", "Secret", namespace, secret))) ?? (await this.o.auth.createKey([d.tenant_id], `deployment ${d.name} (${d.id})`));
      const ad = agentDeploymentFor(d, r, { image, namespace, tracingEndpoint: `${this.o.publicUrl.replace(/\/+$/, "")}/tracing`, secretName: secret });
      const problem = agentDeploymentProblem(ad);
      if (problem) return await this.fail(r, `invalid AgentDeployment: ${problem}`, "deploy");
      await this.kube(() => this.o.rest.apply(deploymentSecretFor(d, { name: secret, namespace, secrets: r.secrets, apiKey }), FIELD_MANAGER));
      const applied = await this.kube(() => this.o.rest.apply<AdObject>(ad, FIELD_MANAGER));
      const fresh = await this.revision(d, r.id);
      if (!fresh || !(await this.advance(fresh, "DEPLOYING"))) return;
      await this.log(r.id, "deploy", [
        `Secret ${namespace}/${secret} applied (${r.secrets.length} secret${r.secrets.length === 1 ? "" : "s"} and the tracing key)`,
        `AgentDeployment ${namespace}/${d.name} applied (generation ${applied.metadata.generation ?? "?"}): image ${image}`,
      ]);
      await this.interruptOlder(d, r.id);
      this.tracked.set(d.id, { tenantId: d.tenant_id, revisionId: r.id, namespace, name: d.name });
      const deploying = await this.revision(d, r.id);
      if (deploying) await this.applyObservation(d, deploying, applied);
    } catch (err) {
      if (err instanceof Stop || err instanceof Aborted || retryable(err)) throw err;
      await this.fail(r, `could not apply the AgentDeployment: ${(err as Error).message}`, "deploy");
    }
  }

  /** Older revisions still in a deploy stage lose their rollout when a newer one is applied. */
  private async interruptOlder(d: DeploymentRow, newerId: string): Promise<void> {
    const older = await this.o.store.revisions(d.tenant_id, d.id, { status: ["AWAITING_DEPLOY", "DEPLOYING"], limit: 100, offset: 0 });
    for (const o of older) {
      if (o.id === newerId) continue;
      if (await this.advance(o, "INTERRUPTED", { reason: `replaced by revision ${newerId} before it became ready` })) {
        await this.log(o.id, "deploy", [`replaced by revision ${newerId} before it became ready`]);
      }
      this.logged.delete(`${d.id}/${o.id}`);
    }
  }

  // ---------- status ----------

  private async observeCr(tenantId: string, deploymentId: string, cr: AdObject): Promise<void> {
    const d = await this.deployment(tenantId, deploymentId);
    if (!d || d.delete_requested_at || cr.spec?.revisionId === undefined) return;
    if ((cr.spec as { deploymentId?: string }).deploymentId !== d.id) return;
    const r = await this.revision(d, cr.spec.revisionId);
    if (!r) return;
    await this.applyObservation(d, r, cr);
  }

  private async applyObservation(d: DeploymentRow, r: RevisionRow, cr: AdObject | undefined): Promise<void> {
    const own = cr && cr.spec.revisionId === r.id ? cr : undefined;
    // conditions are logged once they describe this revision's spec (not the previous one's, still in the status)
    if (own && !isTerminal(r.status) && observedCurrent(own)) {
      const key = `${d.id}/${r.id}`;
      const lines = conditionChanges(this.logged.get(key), own.status);
      this.logged.set(key, own.status);
      if (lines.length > 0) await this.log(r.id, "deploy", lines);
    }
    const result = observe(own, r, { now: new Date(), deadlineMs: this.o.deployDeadlineMs });
    if (own && result.databaseReady !== d.database_ready) await this.o.store.setDatabaseReady(d.id, result.databaseReady);
    const outcome = result.revision;
    if (!outcome) return;
    if (outcome.status === "DEPLOYED") {
      // the URL first: a client that sees DEPLOYED also sees where it is served
      const userUrl = d.config.source === "external_container" && d.config.source_config.custom_url;
      if (outcome.url && !userUrl) await this.o.store.assignUrl(d.id, outcome.url);
      if (await this.advance(r, "DEPLOYED")) {
        await this.log(r.id, "deploy", [`Ready: True at revision ${r.id}${outcome.url ? ` (${outcome.url})` : ""}`]);
      }
    } else {
      await this.log(r.id, "deploy", [outcome.reason], "ERROR");
      await this.advance(r, "DEPLOY_FAILED", { reason: outcome.reason });
    }
    if (this.tracked.get(d.id)?.revisionId === r.id) this.tracked.delete(d.id);
    this.logged.delete(`${d.id}/${r.id}`);
  }

  // ---------- builds ----------

  private buildsOf(deploymentId: string): Build[] {
    return [...this.builds.values()].filter((b) => b.deploymentId === deploymentId);
  }

  /** A newer revision cancels the builds of older ones: Job deleted, revision INTERRUPTED. */
  private async cancelBuilds(d: DeploymentRow, newerId: string): Promise<void> {
    for (const b of this.buildsOf(d.id)) {
      if (b.revisionId === newerId) continue;
      b.controller.abort();
      this.builds.delete(b.revisionId);
      await this.deleteBuildObjects(b.namespace, b.name);
      const r = await this.revision(d, b.revisionId);
      if (r && (await this.advance(r, "INTERRUPTED", { reason: `superseded by revision ${newerId}: its build was cancelled` }))) {
        await this.log(r.id, "build", [`build cancelled: superseded by revision ${newerId}`]);
      }
    }
  }

  private async deleteBuildObjects(namespace: string, name: string): Promise<void> {
    await this.kube(() => this.o.rest.remove({ apiVersion: "batch/v1", kind: "Job", namespace, name }, "Background")).catch((err) => this.o.logger.warn({ err, name }, "could not delete a build job"));
    await this.kube(() => this.o.rest.remove({ apiVersion: "v1", kind: "ConfigMap", namespace, name })).catch((err) => this.o.logger.warn({ err, name }, "could not delete a build config map"));
  }

  private async startBuild(d: DeploymentRow, r: RevisionRow): Promise<void> {
    if (r.status === "CREATING" && !(await this.advance(r, "QUEUED"))) return;
    if (["CREATING", "QUEUED"].includes(r.status) && !(await this.advance(r, "AWAITING_BUILD"))) return;
    try {
      await this.launchBuild(d, r, true);
    } catch (err) {
      if (err instanceof Stop || err instanceof Aborted || retryable(err)) throw err;
      await this.fail(r, `could not start the build: ${(err as Error).message}`, "build");
    }
  }

  /** Where a revision's build pushes, or undefined when no registry is configured. */
  private async destinationOf(d: DeploymentRow, r: RevisionRow, listener?: Listener): Promise<string | undefined> {
    const registry = buildPlacement((listener ?? (await this.listenerOf(d)))?.compute_config, this.o.build).imageRegistry;
    return registry ? imageFor(registry, d.name, r.id) : undefined;
  }

  /**
   * Create the Dockerfile ConfigMap, the git credentials and the Kaniko Job of `r` (AWAITING_BUILD →
   * BUILDING), then follow the Job. `fresh` false: the revision is BUILDING already (a restart whose
   * Job is gone) and keeps its status.
   */
  private async launchBuild(d: DeploymentRow, r: RevisionRow, fresh: boolean): Promise<void> {
    const listener = await this.listenerOf(d);
    const namespace = await this.namespaceOf(d, listener);
    const placement = buildPlacement(listener?.compute_config, this.o.build);
    const destination = await this.destinationOf(d, r, listener);
    if (!destination) return this.fail(r, "no image registry to push to: set BERTH_IMAGE_REGISTRY (or compute_config.image_registry of the listener)", "build");
    const repoUrl = d.config.source_config.repo_url ?? "";
    const ref = r.snapshot.source_revision_config.repo_ref ?? "main";
    const problem = gitContextProblem(repoUrl);
    if (problem) return this.fail(r, problem, "build");
    const integrationId = d.config.source_config.integration_id;
    const token = integrationId ? (await this.o.integrations.get(d.tenant_id, integrationId)).token : null;
    let sha = r.repo_commit_sha ?? undefined;
    if (!sha) {
      sha = await this.resolveCommit(repoUrl, ref, token).catch((err) => {
        void this.log(r.id, "build", [`could not resolve ${ref} to a commit (${(err as Error).message.split("\n")[0]}): building the ref's head`]);
        return undefined;
      });
    }
    const git = gitContext(repoUrl, ref, sha);
    const credentials = token ? { username: "x-access-token", password: token } : git.credentials;
    const name = buildName(d.name, r.id);
    const dockerfile = dockerfileFor({
      baseImage: this.o.agentBaseImage,
      agentConfigPath: r.snapshot.source_revision_config.agent_config_path ?? "langgraph.json",
      installCommand: d.config.source_config.install_command,
      buildCommand: d.config.source_config.build_command,
      deploymentName: d.name,
      revisionId: r.id,
    });
    // BUILDING before the Job exists: if a newer revision skipped this one meanwhile, nothing is created
    if (fresh && !(await this.advance(r, "BUILDING", sha ? { commitSha: sha } : {}))) return;
    await this.kube(() => this.o.rest.apply(dockerfileConfigMapFor(d, r.id, { name, namespace, dockerfile }), FIELD_MANAGER));
    const gitSecret = credentials ? gitSecretName(d.name) : undefined;
    if (gitSecret && credentials) await this.kube(() => this.o.rest.apply(gitCredentialsSecretFor(d, { name: gitSecret, namespace, ...credentials }), FIELD_MANAGER));
    const job = buildJobFor(d, {
      name,
      namespace,
      revisionId: r.id,
      kanikoImage: placement.kanikoImage,
      git,
      destination,
      configMap: name,
      pushSecret: placement.registryPushSecret,
      gitSecret,
      ttlSecondsAfterFinished: this.o.buildTtlSeconds ?? 3600,
      activeDeadlineSeconds: this.o.buildTimeoutSeconds ?? 1800,
    });
    await this.kube(() => this.o.rest.create(job)).catch((err) => {
      if (!isConflict(err)) throw err; // already there: created before a restart
    });
    await this.log(r.id, "build", [
      sha ? `building ${repoUrl} at ${ref} (commit ${sha})` : `building ${repoUrl} at ${ref}`,
      `Job ${namespace}/${name} created: ${placement.kanikoImage} → ${destination}`,
      "Dockerfile:",
      ...dockerfile.trimEnd().split("\n").map((l) => `  ${l}`),
    ]);
    this.follow(d, r, { namespace, name, destination });
  }

  /** Follow a build Job beside the chain; its end is a step of the chain. */
  private follow(d: DeploymentRow, r: RevisionRow, job: { namespace: string; name: string; destination: string }, resumeMarker?: string[]): void {
    const build: Build = { deploymentId: d.id, revisionId: r.id, namespace: job.namespace, name: job.name, controller: new AbortController() };
    this.builds.get(r.id)?.controller.abort();
    this.builds.set(r.id, build);
    const signal = build.controller.signal;
    void (async () => {
      const logs = new BuildLog(this.o.rest, this.o.store, r.id, resumeMarker, this.o.logger);
      let outcome: JobOutcome = { done: false };
      let digest: string | undefined;
      while (!outcome.done) {
        await this.sleep(this.pollMs, signal);
        const current = await this.o.rest.get("batch/v1", "Job", job.namespace, job.name).catch((err) => {
          this.o.logger.debug({ err, job: job.name }, "reading a build job failed; retrying");
          return null;
        });
        if (current === null) continue;
        if (current === undefined) {
          outcome = { done: true, succeeded: false, reason: "the build job was deleted" };
          break;
        }
        outcome = jobOutcome(current);
        const pod = await buildPod(this.o.rest, job.namespace, r.id).catch(() => undefined);
        if (pod) {
          await logs.copy(job.namespace, pod, outcome.done);
          digest = terminatedMessage(pod);
        }
      }
      if (signal.aborted) return;
      const result = outcome.succeeded ? { ok: true as const, image: pinnedImage(job.destination, digest) } : { ok: false as const, reason: outcome.reason, tail: logs.tail };
      void this.serial.run(d.id, () => this.step(() => this.finishBuild(d, r.id, job, result)));
    })()
      .catch((err) => {
        if (!(err instanceof Aborted)) this.o.logger.error({ err, revision: r.id }, "following a build failed");
      })
      .finally(() => {
        if (this.builds.get(r.id) === build) this.builds.delete(r.id);
      });
  }

  private async finishBuild(deployment: DeploymentRow, revisionId: string, job: { namespace: string; name: string }, result: { ok: true; image: string } | { ok: false; reason: string; tail: string[] }): Promise<void> {
    const d = await this.live(deployment);
    const r = await this.revision(d, revisionId);
    if (!r || r.status !== "BUILDING") return;
    await this.deleteBuildObjects(job.namespace, job.name);
    if (!result.ok) {
      const tail = result.tail.length > 0 ? `\n${result.tail.join("\n")}` : "";
      await this.log(r.id, "build", [`build failed: ${result.reason}`], "ERROR");
      await this.advance(r, "BUILD_FAILED", { reason: `build failed: ${result.reason}${tail}` });
      return;
    }
    await this.log(r.id, "build", [`image pushed: ${result.image}`]);
    if (!(await this.advance(r, "AWAITING_DEPLOY"))) return;
    await this.applyRevision(d, r, result.image);
  }

  // ---------- resume ----------

  private async resumeDeployment(deployment: DeploymentRow): Promise<void> {
    const d = await this.live(deployment);
    const inFlight = await this.o.store.revisions(d.tenant_id, d.id, { status: IN_FLIGHT, limit: 100, offset: 0 });
    if (inFlight.length === 0) return; // settled: the informer's first list brings its status
    const namespace = await this.namespaceOf(d);
    const cr = this.cached(namespace, d.name) ?? (await this.kube(() => this.o.rest.get<AdObject>(API_VERSION, KIND, namespace, d.name)));
    const latest = d.latest_revision_id;
    for (const r of inFlight) {
      if (r.id === latest) continue;
      if (r.status === "DEPLOYING" && cr?.spec.revisionId === r.id) {
        // still the CR's revision (the newest one is building): keep watching it
        this.tracked.set(d.id, { tenantId: d.tenant_id, revisionId: r.id, namespace, name: d.name });
        await this.applyObservation(d, r, cr);
        continue;
      }
      if (["AWAITING_BUILD", "BUILDING"].includes(r.status)) await this.deleteBuildObjects(namespace, buildName(d.name, r.id));
      const next = ["CREATING", "QUEUED"].includes(r.status) ? "SKIPPED" : "INTERRUPTED";
      await this.advance(r, next, { reason: `superseded by revision ${latest} while the control plane was down` });
    }
    const r = inFlight.find((x) => x.id === latest);
    if (!r) return;
    switch (r.status) {
      case "CREATING":
      case "QUEUED":
        return this.startRevision(d, r.id);
      case "AWAITING_BUILD":
        return this.startBuild(d, r);
      case "BUILDING": {
        const name = buildName(d.name, r.id);
        const job = await this.kube(() => this.o.rest.get("batch/v1", "Job", namespace, name));
        const destination = await this.destinationOf(d, r);
        if (job && destination) {
          const marker = await lastBuildLines(this.o.store, r.id);
          await this.log(r.id, "build", ["the control plane restarted: following the build again"]);
          return this.follow(d, r, { namespace, name, destination }, marker);
        }
        await this.log(r.id, "build", ["the control plane restarted and the build job is gone: building again"]);
        return this.launchBuild(d, r, false).catch((err) => {
          if (err instanceof Aborted || retryable(err)) throw err;
          return this.fail(r, `could not start the build: ${(err as Error).message}`, "build");
        });
      }
      case "AWAITING_DEPLOY": {
        const image = r.snapshot.source === "external_container" ? r.snapshot.source_revision_config.image_uri : await this.destinationOf(d, r);
        if (!image) return this.fail(r, "no image to deploy: the image registry is no longer configured", "deploy");
        return this.applyRevision(d, r, image);
      }
      case "DEPLOYING":
        this.tracked.set(d.id, { tenantId: d.tenant_id, revisionId: r.id, namespace, name: d.name });
        return this.applyObservation(d, r, cr);
    }
  }

  // ---------- delete ----------

  /**
   * Tear a deployment down: the AgentDeployment (the operator's finalizer removes its pods and
   * volumes; we wait until it is gone), then everything else labelled with the deployment's id, the
   * tracing key, and finally the record. Idempotent: a restart runs it again from the start.
   */
  private async remove(deployment: DeploymentRow): Promise<void> {
    for (const b of this.buildsOf(deployment.id)) b.controller.abort();
    const d = await this.deployment(deployment.tenant_id, deployment.id);
    if (!d) return;
    this.tracked.delete(d.id);
    const namespaces = new Set<string>();
    try {
      namespaces.add(await this.namespaceOf(d));
    } catch (err) {
      this.o.logger.warn({ err, deployment: d.id }, "could not read the deployment's listener; deleting where its AgentDeployment is seen");
    }
    for (const cr of this.seenCrs(d.id)) if (cr.metadata.namespace) namespaces.add(cr.metadata.namespace);
    for (const namespace of namespaces) {
      const ref = { apiVersion: API_VERSION, kind: KIND, namespace, name: d.name };
      const ours = (cr: KubeObject | undefined) => cr !== undefined && (cr.spec as { deploymentId?: string } | undefined)?.deploymentId === d.id;
      let cr = await this.kube(() => this.o.rest.get(API_VERSION, KIND, namespace, d.name));
      if (ours(cr)) await this.kube(() => this.o.rest.remove(ref, "Background"));
      let waited = 0;
      while (ours(cr)) {
        await this.sleep(this.pollMs);
        waited += this.pollMs;
        if (waited % 60_000 < this.pollMs) this.o.logger.warn({ deployment: d.name, namespace }, "waiting for the AgentDeployment to be deleted (is the operator running?)");
        cr = await this.kube(() => this.o.rest.get(API_VERSION, KIND, namespace, d.name));
      }
      for (const [apiVersion, kind] of [["batch/v1", "Job"], ["v1", "ConfigMap"], ["v1", "Secret"]] as const) {
        const list = await this.kube(() => this.o.rest.list(apiVersion, kind, namespace, deploymentSelector(d.id)));
        for (const obj of list.items) {
          const keyId = kind === "Secret" ? apiKeyOf(obj)?.id : undefined;
          if (keyId) await this.o.auth.revokeKey(d.tenant_id, keyId);
          await this.kube(() => this.o.rest.remove({ apiVersion, kind, namespace, name: obj.metadata.name }, "Background"));
        }
      }
    }
    for (const key of this.logged.keys()) if (key.startsWith(`${d.id}/`)) this.logged.delete(key);
    await this.o.store.remove(d.id);
    this.o.logger.info({ deployment: d.name }, "deployment deleted from the cluster");
  }
}


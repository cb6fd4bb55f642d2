/**
 * AgentDeployment status → control-plane state: watches the listener's AgentDeployments (one
 * informer per watched namespace), and turns what each one's status says about the revision in its
 * spec into that revision's transition (DEPLOYED with the URL, DEPLOY_FAILED), the deployment's
 * database flag and deploy-log lines for each change of condition. A DEPLOYING revision is also
 * judged against the deploy deadline on a timer, since a stuck rollout changes no CR.
 *
 * Kept apart from the listener because it is the reading half: the listener writes CRs, this reads
 * them back (the pure rules are in status.ts). Every observation is a step of the deployment's chain.
 */
import { isTerminal } from "../../control-plane/rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../../control-plane/storage/deployments.js";
import { Informer, type KubeObject, type KubeRest } from "../../operator/kube/index.js";
import { API_VERSION, KIND, type AgentDeploymentStatus } from "../../operator/types.js";
import type { Logger } from "../../shared/logging.js";
import { DEPLOYMENT_ID_LABEL, MANAGED_SELECTOR, TENANT_ID_LABEL } from "./names.js";
import type { Revisions } from "./revisions.js";
import { conditionChanges, observe, observedCurrent, type ObservedAgentDeployment } from "./status.js";
import type { Steps } from "./steps.js";

export type AdObject = KubeObject & ObservedAgentDeployment;

export interface StatusObserverOptions {
  rest: KubeRest;
  store: Pick<DeploymentStore, "setDatabaseReady" | "assignUrl">;
  /** A revision DEPLOYING longer than this is DEPLOY_FAILED. */
  deployDeadlineMs: number;
  /** Watch AgentDeployments only in these namespaces (all when empty or absent). */
  watchNamespaces?: string[];
  /** How often DEPLOYING revisions are checked against the deadline (default: a quarter of it, at most 5 s). */
  sweepMs?: number;
  logger: Logger;
  steps: Steps;
  revisions: Revisions;
}

/** The revision a deployment is rolling out (DEPLOYING), and where its CR is. */
interface Tracked {
  tenantId: string;
  revisionId: string;
  namespace: string;
  name: string;
}

export class StatusObserver {
  private readonly tracked = new Map<string, Tracked>();
  private readonly sweeping = new Set<string>();
  /** The status last logged, per deployment/revision (a change of condition is logged once). */
  private readonly logged = new Map<string, AgentDeploymentStatus | undefined>();
  private readonly informers: Informer<AdObject>[] = [];
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: StatusObserverOptions) {}

  /** Watch AgentDeployments (their first list replays every CR's status) and start the deadline sweep. */
  start(): void {
    if (this.informers.length > 0) return;
    const scopes = this.o.watchNamespaces?.length ? this.o.watchNamespaces : [undefined];
    for (const namespace of scopes) {
      // Without BERTH_K8S_NAMESPACES it lists every namespace, which a namespaced Role (the chart's
      // k8sListener.namespaces) forbids: no status would ever reach a revision, so say what to change.
      const forbiddenHint = namespace
        ? `grant the control plane's service account list and watch on agentdeployments.berth.dev in namespace ${namespace}`
        : "the control plane watches AgentDeployments in every namespace: grant its service account a ClusterRole for that, or set BERTH_K8S_NAMESPACES to the namespaces it has a Role in";
      const inf = new Informer<AdObject>(this.o.rest.kubeConfig, this.o.rest, { apiVersion: API_VERSION, kind: KIND, namespace, labelSelector: MANAGED_SELECTOR, logger: this.o.logger, forbiddenHint });
      inf.on("add", (cr) => this.saw(cr));
      inf.on("update", (cr) => this.saw(cr));
      this.informers.push(inf);
      inf.start();
    }
    const sweep = this.o.sweepMs ?? Math.max(50, Math.min(5000, this.o.deployDeadlineMs / 4));
    this.sweepTimer = setInterval(() => this.sweep(), sweep);
    this.sweepTimer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** `revisionId` is the one the deployment's CR now rolls out: judge it (against the deadline too) until it settles. */
  track(d: DeploymentRow, revisionId: string, namespace: string): void {
    this.tracked.set(d.id, { tenantId: d.tenant_id, revisionId, namespace, name: d.name });
  }

  /** The deployment is being deleted: no more deadline checks. */
  untrack(deploymentId: string): void {
    this.tracked.delete(deploymentId);
  }

  /** Forget the conditions logged for a revision (it was replaced: its next status is logged afresh). */
  forgetRevision(deploymentId: string, revisionId: string): void {
    this.logged.delete(`${deploymentId}/${revisionId}`);
  }

  /** Forget the conditions logged for every revision of a deleted deployment. */
  forgetDeployment(deploymentId: string): void {
    for (const key of this.logged.keys()) if (key.startsWith(`${deploymentId}/`)) this.logged.delete(key);
  }

  /** A CR in the informers' caches. */
  cached(namespace: string, name: string): AdObject | undefined {
    for (const inf of this.informers) {
      const hit = inf.get(name, namespace);
      if (hit) return hit;
    }
    return undefined;
  }

  /** The deployment's AgentDeployments in the informers' caches (normally one). */
  seenCrs(deploymentId: string): AdObject[] {
    return this.informers.flatMap((inf) => inf.list().filter((cr) => cr.metadata.labels?.[DEPLOYMENT_ID_LABEL] === deploymentId && (cr.spec as { deploymentId?: string }).deploymentId === deploymentId));
  }

  /** A CR as the informer saw it: its status goes to the revision in its spec. */
  private saw(cr: AdObject): void {
    const deploymentId = cr.metadata.labels?.[DEPLOYMENT_ID_LABEL];
    const tenantId = cr.metadata.labels?.[TENANT_ID_LABEL];
    if (!deploymentId || !tenantId || this.o.steps.closing.aborted) return;
    this.o.steps.queue(deploymentId, () => this.observeCr(tenantId, deploymentId, cr));
  }

  /** DEPLOYING revisions are judged against the deadline even when their CR does not change. */
  private sweep(): void {
    for (const [deploymentId, t] of this.tracked) {
      // one pending check per deployment: a busy chain does not pile them up
      if (this.sweeping.has(deploymentId)) continue;
      this.sweeping.add(deploymentId);
      this.o.steps.queue(deploymentId, async () => {
        this.sweeping.delete(deploymentId);
        if (this.tracked.get(deploymentId)?.revisionId !== t.revisionId) return;
        const d = await this.o.revisions.deployment(t.tenantId, deploymentId);
        const r = d && (await this.o.revisions.revision(d, t.revisionId));
        if (!d || !r) return void this.tracked.delete(deploymentId);
        await this.apply(d, r, this.cached(t.namespace, t.name));
      });
    }
  }

  private async observeCr(tenantId: string, deploymentId: string, cr: AdObject): Promise<void> {
    const d = await this.o.revisions.deployment(tenantId, deploymentId);
    if (!d || d.delete_requested_at || cr.spec?.revisionId === undefined) return;
    if ((cr.spec as { deploymentId?: string }).deploymentId !== d.id) return;
    const r = await this.o.revisions.revision(d, cr.spec.revisionId);
    if (!r) return;
    await this.apply(d, r, cr);
  }

  /** What `cr` (the deployment's CR, if any) says about revision `r`, written to the store. */
  async apply(d: DeploymentRow, r: RevisionRow, cr: AdObject | undefined): Promise<void> {
    const { revisions, store } = this.o;
    const own = cr && cr.spec.revisionId === r.id ? cr : undefined;
    // conditions are logged once they describe this revision's spec (not the previous one's, still in the status)
    if (own && !isTerminal(r.status) && observedCurrent(own)) {
      const key = `${d.id}/${r.id}`;
      const lines = conditionChanges(this.logged.get(key), own.status);
      this.logged.set(key, own.status);
      if (lines.length > 0) await revisions.log(r.id, "deploy", lines);
    }
    const result = observe(own, r, { now: new Date(), deadlineMs: this.o.deployDeadlineMs });
    if (own && result.databaseReady !== d.database_ready) await store.setDatabaseReady(d.id, result.databaseReady);
    const outcome = result.revision;
    if (!outcome) return;
    if (outcome.status === "DEPLOYED") {
      // the URL first: a client that sees DEPLOYED also sees where it is served
      const userUrl = d.config.source === "external_container" && d.config.source_config.custom_url;
      if (outcome.url && !userUrl) await store.assignUrl(d.id, outcome.url);
      if (await revisions.advance(r, "DEPLOYED")) {
        await revisions.log(r.id, "deploy", [`Ready: True at revision ${r.id}${outcome.url ? ` (${outcome.url})` : ""}`]);
      }
    } else {
      await revisions.log(r.id, "deploy", [outcome.reason], "ERROR");
      await revisions.advance(r, "DEPLOY_FAILED", { reason: outcome.reason });
    }
    if (this.tracked.get(d.id)?.revisionId === r.id) this.tracked.delete(d.id);
    this.logged.delete(`${d.id}/${r.id}`);
  }
}

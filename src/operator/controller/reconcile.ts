/**
 * One reconcile of one AgentDeployment, level-triggered: whatever event woke it, it reads the CR
 * and its children as they are now (from the informer caches), renders what they should be, applies
 * the difference with server-side apply under one field manager, and writes the status only when
 * it changed.
 *
 * Unchanged children cost no API call: each carries a hash of what was last applied
 * (`berth.dev/spec-hash`); when the cached child has the hash of the new render, and has not been
 * changed by anyone since our last apply, it is left alone. "Changed since" is its generation for
 * kinds that have one (status updates do not move it) and its resourceVersion for the others, as
 * our apply's response left it; so a child edited by hand is put back on the next reconcile. A child
 * this controller has not applied yet (after a start, or a new leader taking over) is applied once:
 * the hash alone cannot tell a hand edit made since the previous leader's apply (a `kubectl scale`
 * leaves the annotation as it was), and an apply of an unchanged object is a no-op on the server.
 */
import { randomBytes } from "node:crypto";
import type { Logger } from "../../shared/logging.js";
import { isNotFound, refOf, type KubeObject, type KubeRest } from "../kube/index.js";
import { childNames, render, shortHash, url } from "../render/index.js";
import { DEPLOYMENT_ID_LABEL } from "../render/meta.js";
import { POSTGRES_PASSWORD_KEY } from "../render/postgres.js";
import { parseAgentDeploymentSpec, type AgentDeployment, type AgentDeploymentStatus, type KubernetesObject } from "../types.js";
import type { EventRecorder } from "./events.js";
import { ALL_FEATURES, type ClusterCapabilities } from "../kube/capabilities.js";
import { SPEC_HASH_ANNOTATION, computeStatus, readyTransition, sameJson, supportTransition, type ObservedChildren, type Seen } from "./status.js";

export const FIELD_MANAGER = "berth-operator";
export const FINALIZER = "berth.dev/cleanup";

/** What the reconciler reads: the informer caches. */
export interface ObjectCache {
  get(apiVersion: string, kind: string, namespace: string, name: string): KubeObject | undefined;
}

export interface ReconcilerDeps {
  rest: KubeRest;
  cache: ObjectCache;
  events: EventRecorder;
  logger: Logger;
  now?: () => Date;
  /** What the cluster supports (discovery at start); everything when absent. */
  capabilities?: ClusterCapabilities;
}

export interface ReconcileResult {
  /** Check again after this long even without events. */
  requeueAfterMs?: number;
  /** API writes made (applies, patches, deletes): 0 in steady state. */
  writes: number;
}

type AdObject = KubeObject & { spec?: unknown; status?: AgentDeploymentStatus };

export class Reconciler {
  private readonly now: () => Date;
  /** Per child uid: its generation (or resourceVersion) right after our last apply. */
  private readonly appliedAt = new Map<string, string>();

  constructor(private readonly d: ReconcilerDeps) {
    this.now = d.now ?? (() => new Date());
  }

  async reconcile(namespace: string, name: string): Promise<ReconcileResult> {
    const cached = this.d.cache.get("berth.dev/v1alpha1", "AgentDeployment", namespace, name) as AdObject | undefined;
    // gone: garbage collection removes the children (they carry owner references)
    if (!cached) return { writes: 0 };
    const counter = { writes: 0 };
    if (cached.metadata.deletionTimestamp) {
      await this.finalize(cached, counter);
      return counter;
    }
    const parsed = parseAgentDeploymentSpec(cached.spec);
    if (!parsed.success) {
      const problem = parsed.error.issues.map((i) => `spec.${i.path.join(".")}: ${i.message}`).join("; ");
      await this.writeStatus(cached, computeStatus({ generation: cached.metadata.generation ?? 1, revisionId: "", url: "", previous: cached.status, children: {}, now: this.now().toISOString(), invalid: problem }), counter);
      return counter;
    }
    if (!(cached.metadata.finalizers ?? []).includes(FINALIZER)) await this.addFinalizer(cached, counter);
    const ad: AgentDeployment = {
      apiVersion: "berth.dev/v1alpha1",
      kind: "AgentDeployment",
      metadata: { ...cached.metadata, namespace, uid: cached.metadata.uid ?? "" },
      spec: parsed.data,
      status: cached.status,
    };
    const children = await this.applyChildren(ad, counter);
    await this.deleteStale(ad, counter);
    const status = computeStatus({
      generation: cached.metadata.generation ?? 1,
      revisionId: ad.spec.revisionId,
      url: url(ad),
      previous: cached.status,
      children,
      now: this.now().toISOString(),
      unsupported: this.unsupported(ad),
    });
    await this.writeStatus(cached, status, counter);
    return counter;
  }

  private get features() {
    return this.d.capabilities?.features ?? ALL_FEATURES;
  }

  /** The cluster's gaps that this deployment runs into (reported, never a stall). */
  private unsupported(ad: AgentDeployment): string[] {
    const c = this.d.capabilities;
    if (!c) return [];
    const r = ad.spec.resourceSpec;
    const out: string[] = [];
    if (!c.features.hpa && (r.min_scale >= 1 || r.queue_min_scale >= 1) && c.reasons.hpa) out.push(c.reasons.hpa);
    if (!c.features.nativeSidecars && r.sidecars.some((s) => s.restartPolicy === "Always") && c.reasons.nativeSidecars) out.push(c.reasons.nativeSidecars);
    if (!c.features.pvcRetentionPolicy && c.reasons.pvcRetentionPolicy) out.push(c.reasons.pvcRetentionPolicy);
    return out;
  }

  // ---------- children ----------

  private async applyChildren(ad: AgentDeployment, counter: { writes: number }): Promise<ObservedChildren> {
    const names = childNames(ad);
    const ns = ad.metadata.namespace;
    const desired = render(ad, { postgresPassword: await this.postgresPassword(ad, names.postgresSecret), features: this.features });
    const hpaFor = new Set(desired.filter((o) => o.kind === "HorizontalPodAutoscaler").map((o) => o.metadata.name));
    const seen = new Map<string, Seen>();
    await Promise.all(
      desired.map(async (want) => {
        const existing = this.d.cache.get(want.apiVersion, want.kind, ns, want.metadata.name);
        const payload = withReplicasKept(want, existing, hpaFor.has(want.metadata.name));
        const hash = shortHash(JSON.stringify(payload), 16);
        payload.metadata.annotations = { ...payload.metadata.annotations, [SPEC_HASH_ANNOTATION]: hash };
        if (existing && existing.metadata.annotations?.[SPEC_HASH_ANNOTATION] === hash && !existing.metadata.deletionTimestamp && this.untouched(existing)) {
          seen.set(`${want.kind}/${want.metadata.name}`, { object: existing, current: true });
          return;
        }
        counter.writes++;
        const applied = await this.d.rest.apply(payload as KubeObject, FIELD_MANAGER, { force: true });
        if (applied.metadata.uid) this.appliedAt.set(applied.metadata.uid, changeMarker(applied));
        seen.set(`${want.kind}/${want.metadata.name}`, { object: applied, current: true });
      }),
    );
    return {
      api: seen.get(`Deployment/${names.api}`),
      queue: seen.get(`Deployment/${names.queue}`),
      redis: seen.get(`Deployment/${names.redis}`),
      postgres: seen.get(`StatefulSet/${names.postgres}`),
    };
  }

  /** Nobody changed the child since this controller's last apply of it (unknown when it has not applied it yet). */
  private untouched(child: KubeObject): boolean {
    const at = child.metadata.uid ? this.appliedAt.get(child.metadata.uid) : undefined;
    return at !== undefined && at === changeMarker(child);
  }

  /** Forget what was applied to the children of a deleted AgentDeployment. */
  forgetChildren(uids: Iterable<string>): void {
    for (const uid of uids) this.appliedAt.delete(uid);
  }

  /** Children that the spec no longer asks for: an HPA after min_scale went to 0. */
  private async deleteStale(ad: AgentDeployment, counter: { writes: number }): Promise<void> {
    const names = childNames(ad);
    if (!this.features.hpa) return; // no HPA informer, nothing of ours to find
    const wanted = new Set(render(ad, { postgresPassword: "x".repeat(16), features: this.features }).filter((o) => o.kind === "HorizontalPodAutoscaler").map((o) => o.metadata.name));
    for (const name of new Set([names.api, names.queue])) {
      if (wanted.has(name)) continue;
      const hpa = this.d.cache.get("autoscaling/v2", "HorizontalPodAutoscaler", ad.metadata.namespace, name);
      if (!hpa || !ownedBy(hpa, ad.metadata.uid)) continue;
      counter.writes++;
      await this.d.rest.remove(refOf(hpa));
    }
  }

  /**
   * The Postgres password is generated once and then read back from its Secret. The cache can lag
   * behind our own first write, so a miss is confirmed with a GET before a new password is made —
   * a second password would lock the agent out of the database initialised with the first.
   */
  private async postgresPassword(ad: AgentDeployment, secretName: string): Promise<string> {
    const ns = ad.metadata.namespace;
    const secret = this.d.cache.get("v1", "Secret", ns, secretName) ?? (await this.d.rest.get("v1", "Secret", ns, secretName));
    const existing = (secret?.data as Record<string, string> | undefined)?.[POSTGRES_PASSWORD_KEY];
    if (existing) return Buffer.from(existing, "base64").toString("utf8");
    return randomBytes(24).toString("base64").replace(/[^A-Za-z0-9]/g, "").padEnd(24, "0").slice(0, 24);
  }

  // ---------- status ----------

  private async writeStatus(ad: AdObject, status: AgentDeploymentStatus, counter: { writes: number }): Promise<void> {
    if (sameJson(ad.status ?? {}, status)) return;
    counter.writes++;
    try {
      await this.d.rest.mergePatch(refOf(ad), { status }, "status");
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    const transition = readyTransition(ad.status, status);
    if (transition) this.d.events.record(ad, transition.type, transition.reason, transition.message);
    const support = supportTransition(ad.status, status);
    if (support) this.d.events.record(ad, support.type, support.reason, support.message);
  }

  // ---------- finalizer ----------

  private async addFinalizer(ad: AdObject, counter: { writes: number }): Promise<void> {
    const finalizers = ad.metadata.finalizers;
    // guarded patches: another controller's finalizer, added meanwhile, is never overwritten
    const ops = finalizers
      ? [
          { op: "test", path: "/metadata/finalizers", value: finalizers },
          { op: "add", path: "/metadata/finalizers/-", value: FINALIZER },
        ]
      : [
          { op: "test", path: "/metadata/resourceVersion", value: ad.metadata.resourceVersion },
          { op: "add", path: "/metadata/finalizers", value: [FINALIZER] },
        ];
    counter.writes++;
    await this.d.rest.jsonPatch(refOf(ad), ops);
  }

  /**
   * Cleanup that garbage collection cannot do: the Postgres volume claims. A StatefulSet's PVCs are
   * not owned by it unless the cluster applies `persistentVolumeClaimRetentionPolicy`; delete them
   * by label so a deleted deployment leaves no disk behind. Then let the CR go.
   */
  private async finalize(ad: AdObject, counter: { writes: number }): Promise<void> {
    const finalizers = ad.metadata.finalizers ?? [];
    const i = finalizers.indexOf(FINALIZER);
    if (i < 0) return;
    const deploymentId = (ad.spec as { deploymentId?: string } | undefined)?.deploymentId;
    if (deploymentId) {
      counter.writes++;
      await this.d.rest.removeCollection("v1", "PersistentVolumeClaim", ad.metadata.namespace!, `${DEPLOYMENT_ID_LABEL}=${deploymentId},app.kubernetes.io/component=postgres`);
    }
    counter.writes++;
    try {
      await this.d.rest.jsonPatch(refOf(ad), [
        { op: "test", path: `/metadata/finalizers/${i}`, value: FINALIZER },
        { op: "remove", path: `/metadata/finalizers/${i}` },
      ]);
      this.d.events.record(ad, "Normal", "CleanedUp", "deleted the Postgres volume claims; releasing the AgentDeployment");
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
  }
}

/** What moves when someone else changes the object: its generation if it has one, else its resourceVersion. */
const changeMarker = (o: KubeObject): string => (typeof o.metadata.generation === "number" ? `g${o.metadata.generation}` : `rv${o.metadata.resourceVersion ?? ""}`);

const ownedBy = (o: KubeObject, uid: string) => (o.metadata.ownerReferences ?? []).some((r) => r.uid === uid);

/**
 * Once an HPA manages a Deployment, its replica count is the HPA's: send the current count (within
 * min..max) instead of `min_scale`, so a reconcile neither resets the autoscaler's decision nor
 * drops the field (which server-side apply would take as "remove", falling back to 1).
 */
function withReplicasKept(want: KubernetesObject, existing: KubeObject | undefined, hasHpa: boolean): KubernetesObject {
  const copy = structuredClone(want);
  if (copy.kind !== "Deployment" || !hasHpa || !existing) return copy;
  const spec = copy.spec as { replicas?: number };
  const current = (existing.spec as { replicas?: number } | undefined)?.replicas;
  const hpaMin = spec.replicas ?? 1;
  if (typeof current === "number" && current > hpaMin) spec.replicas = current;
  return copy;
}

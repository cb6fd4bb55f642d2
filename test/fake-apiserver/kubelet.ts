/**
 * Simulated kubelet and built-in controllers, so that workloads report progress like on a real
 * cluster. Triggered by every new `metadata.generation` of a Deployment, StatefulSet, Job or HPA
 * (create or spec change); status writes go through the REST layer (`/status` semantics), bump
 * the resourceVersion and produce MODIFIED watch events.
 *
 * - Deployment: right away `observedGeneration` + Progressing=True/ReplicaSetUpdated with 0
 *   updated replicas; after `delayMs` the fate decides: "ready" (all replicas available,
 *   Available=True, Progressing=True/NewReplicaSetAvailable), "stall" (Progressing=False/
 *   ProgressDeadlineExceeded), "pending" (nothing becomes available).
 * - StatefulSet: one PVC per volumeClaimTemplate per replica (`<template>-<sts>-<ordinal>`, not
 *   owned by the StatefulSet unless persistentVolumeClaimRetentionPolicy.whenDeleted=Delete —
 *   like Kubernetes), then after `delayMs` all replicas ready ("ready") or none ("pending").
 * - Job: a Pod `<job>-<5 chars>` owned by the Job, Running, then after `delayMs` Succeeded or
 *   Failed with logs from `options.job`; the Job gets succeeded/failed counts and a Complete or
 *   Failed condition.
 * - HPA: currentReplicas = desiredReplicas = minReplicas after `delayMs`.
 *
 * Approximations: no Pods for Deployments/StatefulSets, no ReplicaSets, no rolling-update
 * arithmetic, no scaling by the HPA, one Pod per Job (no retries, parallelism or indexes), zero
 * replica counts are omitted like the apiserver's omitempty does. Option changes apply to the
 * next generation.
 */
import type { Registry, ResourceType } from "./resources.js";
import type { Rest } from "./rest.js";
import type { Store, StoreEvent } from "./store.js";
import { isObject, randomSuffix, shortHash, timestamp } from "./util.js";

export interface KubeletOptions {
  enabled: boolean;
  delayMs: number;
  deployment?: (obj: any) => "ready" | "stall" | "pending";
  statefulSet?: (obj: any) => "ready" | "pending";
  job?: (obj: any) => { succeeded: boolean; logs: string };
}

export const DEFAULT_KUBELET: KubeletOptions = { enabled: true, delayMs: 20 };

interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

/** Merge conditions, keeping lastTransitionTime when a condition's status did not change. */
function conditions(previous: any[] | undefined, next: Condition[], withUpdateTime: boolean): any[] {
  const now = timestamp();
  return next.map((c) => {
    const old = (previous ?? []).find((p) => p.type === c.type);
    const out: any = { type: c.type, status: c.status };
    if (withUpdateTime) out.lastUpdateTime = now;
    out.lastTransitionTime = old && old.status === c.status ? old.lastTransitionTime : now;
    if (c.reason) out.reason = c.reason;
    if (c.message !== undefined) out.message = c.message;
    return out;
  });
}

/** Drop zero and undefined counters, like Go's omitempty on int32 fields. */
function omitEmpty(status: Record<string, any>): Record<string, any> {
  for (const [k, v] of Object.entries(status)) if (v === undefined || v === 0) delete status[k];
  return status;
}

export class Kubelet {
  private readonly timers = new Map<string, Set<NodeJS.Timeout>>();
  private readonly seen = new Map<string, number>();
  /** `${namespace}/${pod}` → log text (the same for every container). */
  readonly logs = new Map<string, string>();
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly rest: Rest,
    private readonly registry: Registry,
    public options: KubeletOptions,
  ) {
    store.onEvent((e) => this.observe(e));
  }

  stop(): void {
    this.stopped = true;
    for (const set of this.timers.values()) for (const t of set) clearTimeout(t);
    this.timers.clear();
  }

  private type(group: string, version: string, plural: string): ResourceType {
    return this.registry.byPlural(group, version, plural)!;
  }

  private observe(e: StoreEvent): void {
    const md = e.object.metadata;
    if (e.type === "DELETED") {
      this.cancel(md.uid);
      this.seen.delete(md.uid);
      if (e.rt.kind === "Pod" && e.rt.group === "") this.logs.delete(`${e.namespace}/${e.name}`);
      return;
    }
    const kind = `${e.rt.group}/${e.rt.kind}`;
    if (kind !== "apps/Deployment" && kind !== "apps/StatefulSet" && kind !== "batch/Job" && kind !== "autoscaling/HorizontalPodAutoscaler") return;
    if (this.stopped || !this.options.enabled || md.deletionTimestamp) return;
    const generation: number = md.generation ?? 1;
    if (this.seen.get(md.uid) === generation) return;
    this.seen.set(md.uid, generation);
    this.cancel(md.uid);
    const ref = { rt: e.rt, namespace: e.namespace, name: e.name, uid: md.uid, generation };
    switch (kind) {
      case "apps/Deployment":
        this.deployment(ref);
        break;
      case "apps/StatefulSet":
        this.statefulSet(ref);
        break;
      case "batch/Job":
        if (generation === 1) this.job(ref);
        break;
      default:
        this.later(ref.uid, this.options.delayMs, () => this.hpa(ref));
    }
  }

  private cancel(uid: string): void {
    const set = this.timers.get(uid);
    if (!set) return;
    for (const t of set) clearTimeout(t);
    this.timers.delete(uid);
  }

  private later(uid: string, ms: number, fn: () => void): void {
    let set = this.timers.get(uid);
    if (!set) this.timers.set(uid, (set = new Set()));
    const timer = setTimeout(() => {
      set.delete(timer);
      if (set.size === 0 && this.timers.get(uid) === set) this.timers.delete(uid);
      if (!this.stopped && this.options.enabled) fn();
    }, ms);
    set.add(timer);
  }

  /** Write status if the object still has the generation we acted on. */
  private writeStatus(ref: Ref, build: (obj: any) => Record<string, any>): void {
    this.rest.mutate(
      ref.rt,
      ref.namespace,
      ref.name,
      (obj) => {
        if (obj.metadata.uid !== ref.uid || (obj.metadata.generation ?? 1) !== ref.generation) return undefined;
        obj.status = build(obj);
        return obj;
      },
      "status",
    );
  }

  // ---------------------------------------------------------------- Deployment

  private deployment(ref: Ref): void {
    const obj = this.store.get(ref.rt, ref.namespace, ref.name);
    const fate = this.options.deployment?.(obj) ?? "ready";
    const rsName = `${ref.name}-${shortHash(obj?.spec?.template)}`;
    const progressing = (obj: any) => {
      const replicas: number = obj.spec?.replicas ?? 1;
      const prev = obj.status ?? {};
      const available = Math.min(prev.availableReplicas ?? 0, replicas);
      return omitEmpty({
        observedGeneration: ref.generation,
        replicas,
        updatedReplicas: 0,
        readyReplicas: Math.min(prev.readyReplicas ?? 0, replicas),
        availableReplicas: available,
        unavailableReplicas: replicas - available,
        conditions: conditions(
          prev.conditions,
          [
            available >= replicas
              ? { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." }
              : { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "Deployment does not have minimum availability." },
            { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `ReplicaSet "${rsName}" is progressing.` },
          ],
          true,
        ),
      });
    };
    setImmediate(() => {
      if (!this.stopped) this.writeStatus(ref, progressing);
    });
    this.later(ref.uid, this.options.delayMs, () =>
      this.writeStatus(ref, (obj) => {
        const replicas: number = obj.spec?.replicas ?? 1;
        const prev = obj.status ?? {};
        const unavailable = { type: "Available", status: "False", reason: "MinimumReplicasUnavailable", message: "Deployment does not have minimum availability." };
        if (fate === "ready") {
          return omitEmpty({
            observedGeneration: ref.generation,
            replicas,
            updatedReplicas: replicas,
            readyReplicas: replicas,
            availableReplicas: replicas,
            conditions: conditions(
              prev.conditions,
              [
                { type: "Available", status: "True", reason: "MinimumReplicasAvailable", message: "Deployment has minimum availability." },
                { type: "Progressing", status: "True", reason: "NewReplicaSetAvailable", message: `ReplicaSet "${rsName}" has successfully progressed.` },
              ],
              true,
            ),
          });
        }
        return omitEmpty({
          observedGeneration: ref.generation,
          replicas,
          updatedReplicas: replicas,
          unavailableReplicas: replicas,
          conditions: conditions(
            prev.conditions,
            [
              unavailable,
              fate === "stall"
                ? { type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: `ReplicaSet "${rsName}" has timed out progressing.` }
                : { type: "Progressing", status: "True", reason: "ReplicaSetUpdated", message: `ReplicaSet "${rsName}" is progressing.` },
            ],
            true,
          ),
        });
      }),
    );
  }

  // ---------------------------------------------------------------- StatefulSet

  private statefulSet(ref: Ref): void {
    const obj = this.store.get(ref.rt, ref.namespace, ref.name);
    const fate = this.options.statefulSet?.(obj) ?? "ready";
    const revision = `${ref.name}-${shortHash(obj?.spec?.template)}`;
    setImmediate(() => {
      if (this.stopped) return;
      const sts = this.store.get(ref.rt, ref.namespace, ref.name);
      if (!sts || sts.metadata.uid !== ref.uid) return;
      this.createClaims(sts);
      this.writeStatus(ref, (o) =>
        omitEmpty({
          observedGeneration: ref.generation,
          replicas: o.spec?.replicas ?? 1,
          readyReplicas: o.status?.readyReplicas,
          availableReplicas: o.status?.availableReplicas,
          currentReplicas: o.status?.currentReplicas,
          updatedReplicas: 0,
          currentRevision: o.status?.currentRevision ?? revision,
          updateRevision: revision,
          collisionCount: o.status?.collisionCount,
        }),
      );
    });
    if (fate !== "ready") return;
    this.later(ref.uid, this.options.delayMs, () =>
      this.writeStatus(ref, (o) => {
        const replicas: number = o.spec?.replicas ?? 1;
        return omitEmpty({
          observedGeneration: ref.generation,
          replicas,
          readyReplicas: replicas,
          availableReplicas: replicas,
          currentReplicas: replicas,
          updatedReplicas: replicas,
          currentRevision: revision,
          updateRevision: revision,
        });
      }),
    );
  }

  private createClaims(sts: any): void {
    const pvcType = this.type("", "v1", "persistentvolumeclaims");
    const replicas: number = sts.spec?.replicas ?? 1;
    const selectorLabels = sts.spec?.selector?.matchLabels ?? {};
    const owned = sts.spec?.persistentVolumeClaimRetentionPolicy?.whenDeleted === "Delete";
    for (const template of sts.spec?.volumeClaimTemplates ?? []) {
      const base = template?.metadata?.name;
      if (!base) continue;
      for (let i = 0; i < replicas; i++) {
        const name = `${base}-${sts.metadata.name}-${i}`;
        if (this.store.get(pvcType, sts.metadata.namespace, name)) continue;
        const metadata: any = {
          name,
          namespace: sts.metadata.namespace,
          labels: { ...(template.metadata.labels ?? {}), ...selectorLabels },
        };
        if (template.metadata.annotations) metadata.annotations = { ...template.metadata.annotations };
        if (owned) {
          metadata.ownerReferences = [
            { apiVersion: "apps/v1", kind: "StatefulSet", name: sts.metadata.name, uid: sts.metadata.uid, controller: true, blockOwnerDeletion: true },
          ];
        }
        const spec = isObject(template.spec) ? { ...template.spec } : {};
        try {
          this.rest.create(
            pvcType,
            sts.metadata.namespace,
            {
              apiVersion: "v1",
              kind: "PersistentVolumeClaim",
              metadata,
              spec,
              status: { phase: "Bound", accessModes: spec.accessModes, capacity: spec.resources?.requests },
            },
            {},
            true,
          );
        } catch {
          // raced with another writer: keep theirs
        }
      }
    }
  }

  // ---------------------------------------------------------------- Job

  private job(ref: Ref): void {
    const podType = this.type("", "v1", "pods");
    let podName: string | undefined;
    const started = timestamp();
    setImmediate(() => {
      if (this.stopped) return;
      const job = this.store.get(ref.rt, ref.namespace, ref.name);
      if (!job || job.metadata.uid !== ref.uid || job.spec?.suspend) return;
      const template = job.spec?.template ?? {};
      const labels = {
        ...(template.metadata?.labels ?? {}),
        "job-name": ref.name,
        "batch.kubernetes.io/job-name": ref.name,
        "controller-uid": ref.uid,
        "batch.kubernetes.io/controller-uid": ref.uid,
      };
      try {
        const pod = this.rest.create(
          podType,
          ref.namespace,
          {
            apiVersion: "v1",
            kind: "Pod",
            metadata: {
              name: `${ref.name}-${randomSuffix()}`,
              namespace: ref.namespace,
              labels,
              annotations: template.metadata?.annotations,
              ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: ref.name, uid: ref.uid, controller: true, blockOwnerDeletion: true }],
            },
            spec: { ...(template.spec ?? {}), nodeName: "fake-node" },
            status: { phase: "Running", startTime: started, podIP: "10.244.0.10", hostIP: "10.0.0.1" },
          },
          {},
          true,
        );
        podName = pod.metadata.name;
      } catch {
        return;
      }
      this.writeStatus(ref, () => ({ startTime: started, active: 1, ready: 0, terminating: 0, uncountedTerminatedPods: {} }));
      this.later(ref.uid, this.options.delayMs, () => {
        const current = this.store.get(ref.rt, ref.namespace, ref.name);
        if (!current || !podName) return;
        const result = this.options.job?.(current) ?? {
          succeeded: true,
          logs: `built ${((current.spec?.template?.spec?.containers?.[0]?.args ?? []) as string[]).join(" ")}`,
        };
        this.logs.set(`${ref.namespace}/${podName}`, result.logs);
        const finished = timestamp();
        const containers: any[] = current.spec?.template?.spec?.containers ?? [];
        this.rest.mutate(
          podType,
          ref.namespace,
          podName,
          (pod) => {
            pod.status = {
              ...pod.status,
              phase: result.succeeded ? "Succeeded" : "Failed",
              containerStatuses: containers.map((c) => ({
                name: c.name,
                image: c.image,
                ready: false,
                restartCount: 0,
                state: { terminated: { exitCode: result.succeeded ? 0 : 1, reason: result.succeeded ? "Completed" : "Error", startedAt: started, finishedAt: finished } },
              })),
            };
            return pod;
          },
          "status",
        );
        this.writeStatus(ref, () =>
          result.succeeded
            ? {
                startTime: started,
                completionTime: finished,
                succeeded: 1,
                ready: 0,
                terminating: 0,
                uncountedTerminatedPods: {},
                conditions: [
                  { type: "SuccessCriteriaMet", status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods", lastProbeTime: finished, lastTransitionTime: finished },
                  { type: "Complete", status: "True", reason: "CompletionsReached", message: "Reached expected number of succeeded pods", lastProbeTime: finished, lastTransitionTime: finished },
                ],
              }
            : {
                startTime: started,
                failed: 1,
                ready: 0,
                terminating: 0,
                uncountedTerminatedPods: {},
                conditions: [
                  { type: "FailureTarget", status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit", lastProbeTime: finished, lastTransitionTime: finished },
                  { type: "Failed", status: "True", reason: "BackoffLimitExceeded", message: "Job has reached the specified backoff limit", lastProbeTime: finished, lastTransitionTime: finished },
                ],
              },
        );
      });
    });
  }

  // ---------------------------------------------------------------- HPA

  private hpa(ref: Ref): void {
    this.writeStatus(ref, (obj) => {
      const replicas: number = obj.spec?.minReplicas ?? 1;
      return { observedGeneration: ref.generation, currentReplicas: replicas, desiredReplicas: replicas, lastScaleTime: obj.status?.lastScaleTime };
    });
  }
}

interface Ref {
  rt: ResourceType;
  namespace: string;
  name: string;
  uid: string;
  generation: number;
}

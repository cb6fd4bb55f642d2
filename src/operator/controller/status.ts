/**
 * The AgentDeployment's status as a pure function of the CR and its children as last seen:
 * conditions (metav1.Condition, KEP-1623), latest created/ready revision, URL and replica counts.
 *
 * A child counts only when it reflects the current render (its spec-hash annotation matches what
 * this reconcile wanted): a Deployment that is still available from the previous revision says
 * nothing about the new one. A rollout is done when the Deployment controller has observed the
 * child's generation and every replica is updated and available — `kubectl rollout status`'s rule.
 */
import type { AgentDeploymentStatus, Condition, ConditionType } from "../types.js";
import type { KubeObject } from "../kube/index.js";

export const SPEC_HASH_ANNOTATION = "berth.dev/spec-hash";

export interface ObservedChildren {
  /** Each child as last seen, and whether it carries the spec hash this reconcile rendered. */
  api?: Seen;
  queue?: Seen;
  redis?: Seen;
  postgres?: Seen;
}

export interface Seen {
  object: KubeObject | undefined;
  current: boolean;
}

type Verdict = Pick<Condition, "status" | "reason" | "message">;

interface WorkloadStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  conditions?: { type: string; status: string; reason?: string; message?: string }[];
}

const spec = (o: KubeObject) => (o.spec ?? {}) as { replicas?: number };
const statusOf = (o: KubeObject) => (o.status ?? {}) as WorkloadStatus;

/** A Deployment's rollout, as `kubectl rollout status` judges it. */
export function deploymentVerdict(seen: Seen | undefined, what: string): Verdict {
  if (!seen?.object) return { status: "Unknown", reason: "Creating", message: `${what} Deployment not created yet` };
  if (!seen.current) return { status: "Unknown", reason: "Updating", message: `${what} Deployment is being updated` };
  const o = seen.object;
  const s = statusOf(o);
  const want = spec(o).replicas ?? 1;
  const progressing = s.conditions?.find((c) => c.type === "Progressing");
  if (progressing?.status === "False" && progressing.reason === "ProgressDeadlineExceeded") {
    return { status: "False", reason: "ProgressDeadlineExceeded", message: progressing.message ?? `${what} rollout exceeded its progress deadline` };
  }
  if ((s.observedGeneration ?? 0) < (o.metadata.generation ?? 1)) return { status: "Unknown", reason: "RollingOut", message: `${what} Deployment: waiting for the rollout to start` };
  const updated = s.updatedReplicas ?? 0;
  const available = s.availableReplicas ?? 0;
  const total = s.replicas ?? 0;
  if (updated < want) return { status: "Unknown", reason: "RollingOut", message: `${what}: ${updated} of ${want} replicas updated` };
  if (total > updated) return { status: "Unknown", reason: "RollingOut", message: `${what}: ${total - updated} old replicas pending termination` };
  if (available < updated) return { status: "Unknown", reason: "RollingOut", message: `${what}: ${available} of ${updated} updated replicas available` };
  return { status: "True", reason: "RolloutComplete", message: `${what}: ${available} of ${want} replicas available` };
}

export function statefulSetVerdict(seen: Seen | undefined): Verdict {
  if (!seen?.object) return { status: "Unknown", reason: "Creating", message: "Postgres StatefulSet not created yet" };
  if (!seen.current) return { status: "Unknown", reason: "Updating", message: "Postgres StatefulSet is being updated" };
  const o = seen.object;
  const s = statusOf(o) as WorkloadStatus & { currentRevision?: string; updateRevision?: string };
  const want = spec(o).replicas ?? 1;
  if ((s.observedGeneration ?? 0) < (o.metadata.generation ?? 1)) return { status: "Unknown", reason: "Provisioning", message: "Postgres: waiting for the StatefulSet controller" };
  if ((s.readyReplicas ?? 0) < want) return { status: "Unknown", reason: "Provisioning", message: `Postgres: ${s.readyReplicas ?? 0} of ${want} replicas ready` };
  return { status: "True", reason: "DatabaseReady", message: "Postgres is ready" };
}

/**
 * The next conditions: a condition keeps its lastTransitionTime while its status stays the same
 * (KEP-1623), so an unchanged status compares equal and is not written again.
 */
export function nextConditions(previous: Condition[] | undefined, verdicts: Record<ConditionType, Verdict>, generation: number, now: string): Condition[] {
  const prior = new Map((previous ?? []).map((c) => [c.type, c]));
  return (Object.keys(verdicts) as ConditionType[]).map((type) => {
    const v = verdicts[type];
    const before = prior.get(type);
    const lastTransitionTime = before && before.status === v.status ? before.lastTransitionTime : now;
    return { type, status: v.status, reason: v.reason, message: v.message, lastTransitionTime, observedGeneration: generation };
  });
}

export interface StatusInput {
  generation: number;
  revisionId: string;
  url: string;
  previous: AgentDeploymentStatus | undefined;
  children: ObservedChildren;
  now: string;
  /** A reason the spec cannot be rendered (invalid CR): Ready False with it. */
  invalid?: string;
  /** What the cluster lacks that this deployment would use (ClusterSupported False with them). */
  unsupported?: string[];
}

/** ClusterSupported: the cluster's gaps this deployment runs into, or True. */
export function supportVerdict(unsupported: string[] | undefined): Verdict {
  if (!unsupported?.length) return { status: "True", reason: "AllFeaturesAvailable", message: "the cluster serves everything this deployment uses" };
  return { status: "False", reason: "FeaturesUnavailable", message: unsupported.join("; ") };
}

export function computeStatus(input: StatusInput): AgentDeploymentStatus {
  const { children: c } = input;
  let verdicts: Record<ConditionType, Verdict>;
  if (input.invalid) {
    const bad: Verdict = { status: "False", reason: "InvalidSpec", message: input.invalid };
    verdicts = { DatabaseReady: bad, KVStoreReady: bad, APIServerReady: bad, QueueReady: bad, Ready: bad, ClusterSupported: bad };
  } else {
    const parts = {
      DatabaseReady: statefulSetVerdict(c.postgres),
      KVStoreReady: deploymentVerdict(c.redis, "Redis"),
      APIServerReady: deploymentVerdict(c.api, "API server"),
      QueueReady: deploymentVerdict(c.queue, "Queue workers"),
    };
    const failed = Object.values(parts).find((v) => v.status === "False");
    const waiting = Object.entries(parts).find(([, v]) => v.status !== "True");
    const ready: Verdict = failed
      ? failed
      : waiting
        ? { status: "Unknown", reason: "Reconciling", message: `waiting for ${waiting[0]}: ${waiting[1].message}` }
        : { status: "True", reason: "AllComponentsReady", message: `revision ${input.revisionId} is ready` };
    verdicts = { ...parts, Ready: ready, ClusterSupported: supportVerdict(input.unsupported) };
  }
  const conditions = nextConditions(input.previous?.conditions, verdicts, input.generation, input.now);
  const isReady = verdicts.Ready.status === "True";
  const replicas = (seen: Seen | undefined) => (seen?.object ? statusOf(seen.object) : {});
  const status: AgentDeploymentStatus = {
    observedGeneration: input.generation,
    conditions,
    latestCreatedRevision: input.revisionId,
    url: input.url,
    replicas: {
      api: replicas(c.api).replicas ?? 0,
      queue: replicas(c.queue).replicas ?? 0,
      readyApi: replicas(c.api).readyReplicas ?? 0,
      readyQueue: replicas(c.queue).readyReplicas ?? 0,
    },
  };
  const latestReady = isReady ? input.revisionId : input.previous?.latestReadyRevision;
  if (latestReady) status.latestReadyRevision = latestReady;
  return status;
}

/** Deep equality of JSON values (statuses are small). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A new or changed ClusterSupported=False, worth a Warning Event. */
export function supportTransition(before: AgentDeploymentStatus | undefined, after: AgentDeploymentStatus): { type: "Warning"; reason: string; message: string } | undefined {
  const was = before?.conditions?.find((c) => c.type === "ClusterSupported");
  const now = after.conditions?.find((c) => c.type === "ClusterSupported");
  if (!now || now.status !== "False" || (was && was.status === now.status && was.message === now.message)) return undefined;
  return { type: "Warning", reason: now.reason, message: now.message };
}

/** The Ready transition worth an Event, if any. */
export function readyTransition(before: AgentDeploymentStatus | undefined, after: AgentDeploymentStatus): { type: "Normal" | "Warning"; reason: string; message: string } | undefined {
  const was = before?.conditions?.find((c) => c.type === "Ready");
  const now = after.conditions?.find((c) => c.type === "Ready");
  if (!now || (was && was.status === now.status && was.reason === now.reason)) return undefined;
  if (now.status === "True") return { type: "Normal", reason: "Ready", message: now.message };
  if (now.status === "False") return { type: "Warning", reason: now.reason, message: now.message };
  return undefined;
}

/**
 * Reading an AgentDeployment's status back into the control plane, as pure functions: what the
 * operator reports (conditions, latest ready revision, URL) becomes the deployment's database flag
 * and the revision's next status. The listener applies the result through the revision state
 * machine, so a terminal revision never moves.
 *
 * | CR (for the revision in `spec.revisionId`, at generation G)                        | control plane                                  |
 * |------------------------------------------------------------------------------------|------------------------------------------------|
 * | DatabaseReady not True (or no status yet)                                          | database_ready false → AWAITING_DATABASE       |
 * | DatabaseReady True                                                                 | database_ready true                            |
 * | Ready True, latestReadyRevision = revision, observedGeneration >= G                | revision DEPLOYED, URL = status.url            |
 * | a condition False with reason ProgressDeadlineExceeded or InvalidSpec, at >= G,    | revision DEPLOY_FAILED, reason = its message   |
 * |   latestCreatedRevision = revision                                                 |                                                |
 * | revision DEPLOYING for at least the deploy deadline (none of the above)            | revision DEPLOY_FAILED "Timeout: …"            |
 * | anything else (rolling out, an older generation, another revision's status)        | no change                                      |
 */
import { deadlineOutcome, type RevisionStatus } from "../../control-plane/rules/index.js";
import { CONDITION_TYPES, type AgentDeploymentStatus, type Condition } from "../../operator/types.js";

/** Condition reasons that end a rollout: waiting longer will not make it ready. */
export const FAILURE_REASONS: ReadonlySet<string> = new Set(["ProgressDeadlineExceeded", "InvalidSpec"]);

/** The parts of an AgentDeployment the mapping reads (as the informer hands it out: plain JSON). */
export interface ObservedAgentDeployment {
  metadata: { generation?: number; deletionTimestamp?: string };
  spec: { revisionId: string };
  status?: AgentDeploymentStatus;
}

export interface ObservedRevision {
  id: string;
  status: RevisionStatus;
  /** When it entered DEPLOYING (the deadline counts from there). */
  deploying_since: string | Date | null;
}

export type RevisionOutcome = { status: "DEPLOYED"; url: string | undefined; message: string } | { status: "DEPLOY_FAILED"; reason: string };

export interface Observation {
  /** The CR's DatabaseReady is True. */
  databaseReady: boolean;
  /** The revision's next status; absent when it stays as it is. */
  revision?: RevisionOutcome;
}

const conditionOf = (status: AgentDeploymentStatus | undefined, type: Condition["type"]) => status?.conditions?.find((c) => c.type === type);

/** Whether the status describes generation `generation` of the spec (the operator has seen it). */
export function observedCurrent(cr: ObservedAgentDeployment): boolean {
  const generation = cr.metadata.generation ?? 0;
  return (cr.status?.observedGeneration ?? -1) >= generation;
}

/**
 * The control-plane transition for `revision` given the CR as last seen (undefined: there is none,
 * e.g. deleted behind our back; only the deadline can then fail the revision).
 */
export function observe(cr: ObservedAgentDeployment | undefined, revision: ObservedRevision, options: { now: Date; deadlineMs: number }): Observation {
  const status = cr?.status;
  const databaseReady = conditionOf(status, "DatabaseReady")?.status === "True";
  if (revision.status !== "DEPLOYING") return { databaseReady };
  if (cr && cr.spec.revisionId === revision.id && !cr.metadata.deletionTimestamp) {
    const generation = cr.metadata.generation ?? 0;
    const current = observedCurrent(cr);
    const ready = conditionOf(status, "Ready");
    if (current && ready?.status === "True" && status?.latestReadyRevision === revision.id) {
      return { databaseReady, revision: { status: "DEPLOYED", url: status.url || undefined, message: ready.message } };
    }
    if (current && (status?.latestCreatedRevision ?? revision.id) === revision.id) {
      const failed = failedCondition(status, generation);
      if (failed) return { databaseReady, revision: { status: "DEPLOY_FAILED", reason: failed.message || `${failed.type}: ${failed.reason}` } };
    }
  }
  const since = revision.deploying_since === null ? null : new Date(revision.deploying_since);
  const timedOut = deadlineOutcome({ status: revision.status, deploying_since: since }, options.now, options.deadlineMs);
  if (timedOut) {
    const ready = cr?.spec.revisionId === revision.id ? conditionOf(status, "Ready") : undefined;
    const last = ready ? ` Last status: Ready ${ready.status} (${ready.reason}${ready.message ? `: ${ready.message}` : ""}).` : "";
    return { databaseReady, revision: { status: "DEPLOY_FAILED", reason: `${timedOut.reason}${last}` } };
  }
  return { databaseReady };
}

/** The first condition (component conditions before Ready) that reports a rollout that cannot finish. */
function failedCondition(status: AgentDeploymentStatus | undefined, generation: number): Condition | undefined {
  const order = [...CONDITION_TYPES.filter((t) => t !== "Ready"), "Ready" as const];
  for (const type of order) {
    const c = conditionOf(status, type);
    if (c && c.status === "False" && FAILURE_REASONS.has(c.reason) && (c.observedGeneration ?? status?.observedGeneration ?? -1) >= generation) return c;
  }
  return undefined;
}

/** Deploy-log lines for the conditions that changed since `previous` (every condition when there is none). */
export function conditionChanges(previous: AgentDeploymentStatus | undefined, next: AgentDeploymentStatus | undefined): string[] {
  const lines: string[] = [];
  for (const type of CONDITION_TYPES) {
    const now = conditionOf(next, type);
    if (!now) continue;
    const was = conditionOf(previous, type);
    if (was && was.status === now.status && was.reason === now.reason && was.message === now.message) continue;
    lines.push(`${type}: ${now.status} (${now.reason}${now.message ? `: ${now.message}` : ""})`);
  }
  return lines;
}

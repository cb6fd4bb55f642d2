/**
 * The deployment status (spec §2.1), derived from facts the control plane records rather than
 * stored and edited by hand, so it cannot drift from them. Pure: no I/O.
 */

export const DEPLOYMENT_STATUSES = ["AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const;

export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export interface DeploymentFacts {
  /** DELETE was accepted; teardown is asynchronous and the record stays until it is done. */
  deleteRequested: boolean;
  /** The deployment's own database has been provisioned. */
  databaseReady: boolean;
  /** The listener that runs the deployment is reporting. */
  listenerReachable: boolean;
  /** `active_revision_id` is set: some revision is serving traffic. */
  hasActiveRevision: boolean;
}

/**
 * Precedence, first match wins:
 * 1. AWAITING_DELETE: a delete is irrevocable user intent; a client polling after DELETE must see
 *    it whatever else is going on (a listener that is down must not hide it).
 * 2. AWAITING_DATABASE: without its database nothing of the deployment can run; this is known to
 *    the control plane without asking the listener, and happens once, at creation.
 * 3. UNKNOWN: the listener cannot report, so we must not claim READY (or UNUSED) from stale data.
 * 4. UNUSED: nothing serves traffic, e.g. the first revision is still rolling out or every revision failed.
 * 5. READY.
 */
export function deriveDeploymentStatus(facts: DeploymentFacts): DeploymentStatus {
  if (facts.deleteRequested) return "AWAITING_DELETE";
  if (!facts.databaseReady) return "AWAITING_DATABASE";
  if (!facts.listenerReachable) return "UNKNOWN";
  if (!facts.hasActiveRevision) return "UNUSED";
  return "READY";
}

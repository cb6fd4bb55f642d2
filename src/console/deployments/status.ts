/**
 * What the console reads from a deployment's and a revision's status: is something still moving
 * (so the page keeps polling), did the newest revision fail, where is it served. The revision
 * state machine is the server's own (control-plane/rules/revision-status.ts has no imports, so it is
 * safe in the browser): the console never keeps a second list of terminal statuses.
 */
import { isFailed, isRevisionStatus, isTerminal } from "../../control-plane/rules/revision-status";
import type { DeploymentStatus } from "../../control-plane/rules/deployment-status";

/** How often a page asks again while something is in progress. */
export const POLL_MS = 2_000;

/**
 * AWAITING_DELETE changes by itself (teardown runs until the deployment is gone). AWAITING_DATABASE
 * does not: the runtime creates the database while it deploys a revision, so it only moves with a
 * rollout (a deployment whose every revision failed stays AWAITING_DATABASE for good). READY,
 * UNUSED and UNKNOWN change with a revision or the listener.
 */
export function isDeploymentTransitional(status: string | null | undefined): boolean {
  return status === ("AWAITING_DELETE" satisfies DeploymentStatus);
}

/**
 * A revision that may still change status: every non-terminal status, UNKNOWN included (the
 * listener may report again). A status this console does not know is treated as settled, so a new
 * server status never makes a page poll forever.
 */
export function isRevisionInProgress(status: string | null | undefined): boolean {
  return isRevisionStatus(status) && !isTerminal(status);
}

export function isRevisionFailed(status: string | null | undefined): boolean {
  return isRevisionStatus(status) && isFailed(status);
}

/**
 * Where the newest revision stands against the one serving traffic:
 * - `current`: the newest revision serves traffic (or there is none at all: `none`);
 * - `rolling-out`: a newer revision is still on its way;
 * - `failed`: the newer revision failed, the older one keeps serving;
 * - `stopped`: the newer revision was skipped or interrupted;
 * - `unchecked`: they differ but the newer revision's status is not known yet.
 */
export type Rollout = "none" | "current" | "rolling-out" | "failed" | "stopped" | "unchecked";

export function rolloutOf(
  d: { latest_revision_id: string | null; active_revision_id: string | null },
  latestStatus: string | null | undefined,
): Rollout {
  if (!d.latest_revision_id) return "none";
  if (d.latest_revision_id === d.active_revision_id) return "current";
  if (latestStatus == null) return "unchecked";
  if (isRevisionFailed(latestStatus)) return "failed";
  if (latestStatus === "SKIPPED" || latestStatus === "INTERRUPTED") return "stopped";
  // DEPLOYED but not yet active is the moment between the two writes: still a rollout
  return "rolling-out";
}

/** Whether a deployment should keep the page polling: teardown, or a newer revision on its way. */
export function deploymentNeedsPolling(status: string | null | undefined, rollout: Rollout): boolean {
  return isDeploymentTransitional(status) || rollout === "rolling-out" || rollout === "unchecked";
}

/** Revision ids are UUIDs; the first 8 hex digits tell revisions of one deployment apart. */
export function shortId(id: string | null | undefined): string {
  return id ? id.slice(0, 8) : "—";
}

/**
 * The deployment's URL: `source_config.custom_url` (set by the user for external_container,
 * assigned by the runtime for hosted_git once it serves the deployment; reference §1.3, the CLI
 * reads it as "the deployment URL"). Only http(s) is ever turned into a link.
 */
export function deploymentUrl(d: { source_config?: { custom_url?: string | null } | null }): string | null {
  const url = d.source_config?.custom_url;
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/** One line describing what a deployment runs: the image, or the repository with ref and config path. */
export function describeSource(d: {
  source: string;
  source_config?: { repo_url?: string | null } | null;
  source_revision_config?: { repo_ref?: string | null; agent_config_path?: string | null; image_uri?: string | null } | null;
}): string {
  const rc = d.source_revision_config ?? {};
  if (d.source === "external_container") return rc.image_uri ?? "(no image)";
  const repo = d.source_config?.repo_url ?? "(no repository)";
  const ref = rc.repo_ref ? `@${rc.repo_ref}` : "";
  const cfg = rc.agent_config_path ? ` · ${rc.agent_config_path}` : "";
  return `${repo}${ref}${cfg}`;
}

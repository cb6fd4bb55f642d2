/**
 * A deployment's revisions as timeline rows: newest first, each with the statuses it went through
 * and when, which one serves traffic, which ones it replaced and which is the newest.
 *
 * A revision's steps are its `status_history` (every status with when and why, recorded by the
 * server). A revision without one (none should remain: the migration that added it backfilled
 * what was known) falls back to "created" at `created_at` and the current status at `updated_at`,
 * marked as incomplete.
 */
import type { Deployment, Revision } from "../api/types";
import { isRevisionFailed, isRevisionInProgress, shortId } from "./status";

export interface TimelineStep {
  /** A revision status, or "created" for the moment the revision was made. */
  status: string;
  at: string;
  reason?: string | null;
}

export interface TimelineRow {
  id: string;
  shortId: string;
  status: string;
  statusReason: string | null;
  createdAt: string;
  updatedAt: string;
  steps: TimelineStep[];
  /** False when steps between "created" and the current status may be missing (no server history). */
  historyComplete: boolean;
  commitSha: string | null;
  repoRef: string | null;
  agentConfigPath: string | null;
  imageUri: string | null;
  /** It serves traffic (the server's `is_active`, read in the same statement as its status). */
  isActive: boolean;
  /** DEPLOYED, but a newer revision serves traffic now: after a rollback every older row still reads DEPLOYED. */
  isSuperseded: boolean;
  isLatest: boolean;
  inProgress: boolean;
  failed: boolean;
  /** An older revision can be redeployed (a new revision with its configuration); the newest one gets "New revision" instead. */
  canRedeploy: boolean;
}

/** The server's status history, oldest first; null when it has none. */
function recordedHistory(r: Revision): TimelineStep[] | null {
  const history = r.status_history ?? [];
  if (history.length === 0) return null;
  return history.map((h) => ({ status: h.status, at: h.at, reason: h.reason })).sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

export function revisionSteps(r: Revision): { steps: TimelineStep[]; complete: boolean } {
  const recorded = recordedHistory(r);
  if (recorded) return { steps: recorded, complete: true };
  const steps: TimelineStep[] = [{ status: "created", at: r.created_at }];
  // a revision is stored QUEUED; if that is still its status, "created" says it all
  if (r.status !== "QUEUED" || r.updated_at !== r.created_at) steps.push({ status: r.status, at: r.updated_at, reason: r.status_reason ?? null });
  return { steps, complete: false };
}

type Pointers = Pick<Deployment, "latest_revision_id">;

export function revisionTimeline(revisions: readonly Revision[], deployment: Pointers | undefined): TimelineRow[] {
  const newestFirst = [...revisions].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
  return newestFirst.map((r) => {
    const { steps, complete } = revisionSteps(r);
    const rc = r.source_revision_config ?? {};
    const isLatest = deployment?.latest_revision_id === r.id;
    return {
      id: r.id,
      shortId: shortId(r.id),
      status: r.status,
      statusReason: r.status_reason ?? null,
      createdAt: r.created_at,
      updatedAt: r.updated_at,
      steps,
      historyComplete: complete,
      commitSha: rc.repo_commit_sha ?? null,
      repoRef: rc.repo_ref ?? null,
      agentConfigPath: rc.agent_config_path ?? null,
      imageUri: rc.image_uri ?? null,
      isActive: r.is_active,
      isSuperseded: r.superseded,
      isLatest,
      inProgress: isRevisionInProgress(r.status),
      failed: isRevisionFailed(r.status),
      canRedeploy: !isLatest,
    };
  });
}

/** Milliseconds between two steps, for "took 42 s" (null when a time does not parse). */
export function stepGap(from: TimelineStep, to: TimelineStep): number | null {
  const ms = Date.parse(to.at) - Date.parse(from.at);
  return Number.isFinite(ms) ? ms : null;
}

/**
 * The revision status state machine (reference §1.5), plus the two revision pointers of a deployment
 * (`latest_revision_id`, `active_revision_id`, Knative's latestCreated / latestReady). Pure: the
 * control plane, the local runtime and the operator all call these before they write a status, so
 * an impossible write (say DEPLOYED → BUILDING) is refused in one place instead of in three.
 */

/** The full enum, in the order of the upstream spec (other modules build their zod enum from it). */
export const REVISION_STATUSES = [
  "CREATING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILDING",
  "AWAITING_DEPLOY",
  "DEPLOYING",
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
  "UNKNOWN",
] as const;

export type RevisionStatus = (typeof REVISION_STATUSES)[number];

export function isRevisionStatus(value: unknown): value is RevisionStatus {
  return typeof value === "string" && (REVISION_STATUSES as readonly string[]).includes(value);
}

/**
 * Statuses a revision never leaves. INTERRUPTED is terminal although the upstream CLI's list omits
 * it: nothing resumes an interrupted revision (a new revision or a redeploy is the way forward).
 * A superseded revision keeps DEPLOYED; "replaced" is derived from `active_revision_id`, not stored.
 */
const TERMINAL: ReadonlySet<RevisionStatus> = new Set<RevisionStatus>([
  "DEPLOYED",
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "SKIPPED",
  "INTERRUPTED",
]);

/** Only the three *_FAILED statuses: clients test `"FAILED" in status`, and SKIPPED/INTERRUPTED are not errors of the revision. */
const FAILED: ReadonlySet<RevisionStatus> = new Set<RevisionStatus>(["CREATE_FAILED", "BUILD_FAILED", "DEPLOY_FAILED"]);

/**
 * Statuses in which no work has started, so a newer revision can overtake them (→ SKIPPED). The
 * build-on-push rule upstream: "the queued ones in between are skipped". AWAITING_BUILD counts as
 * not started (it waits for a builder slot). AWAITING_DEPLOY does not: its image is built, and
 * finishing it may still give the deployment a healthy revision if the newer one fails.
 */
const NOT_STARTED: ReadonlySet<RevisionStatus> = new Set<RevisionStatus>(["CREATING", "QUEUED", "AWAITING_BUILD"]);

/** The statuses that only exist for sources that build an image (hosted_git). */
const BUILD_STAGES: ReadonlySet<RevisionStatus> = new Set<RevisionStatus>(["AWAITING_BUILD", "BUILDING", "BUILD_FAILED"]);

export function isTerminal(status: RevisionStatus): boolean {
  return TERMINAL.has(status);
}

export function isFailed(status: RevisionStatus): boolean {
  return FAILED.has(status);
}

export function isNotStarted(status: RevisionStatus): boolean {
  return NOT_STARTED.has(status);
}

/** Every non-terminal status except UNKNOWN can be interrupted (the "stuck revision" escape hatch) or lose its listener. */
const LIVE_EXITS = ["INTERRUPTED", "UNKNOWN"] as const satisfies readonly RevisionStatus[];

/**
 * Allowed moves (a status to itself is handled separately, see `transition`).
 * - Happy path CREATING → QUEUED → AWAITING_BUILD → BUILDING → AWAITING_DEPLOY → DEPLOYING → DEPLOYED.
 * - QUEUED → AWAITING_DEPLOY skips the build: external_container has none, and a redeploy can reuse a built image.
 * - Each failure only from its own stage (CREATE_FAILED from CREATING, BUILD_FAILED from the build
 *   stages, DEPLOY_FAILED from the deploy stages: the readiness deadline can fire in either).
 * - SKIPPED only from not-started statuses.
 * - UNKNOWN (listener cannot report) returns to any status once the listener reports again; we do
 *   not know what happened meanwhile, so nothing is ruled out.
 */
export const REVISION_TRANSITIONS: Readonly<Record<RevisionStatus, readonly RevisionStatus[]>> = {
  CREATING: ["QUEUED", "CREATE_FAILED", "SKIPPED", ...LIVE_EXITS],
  QUEUED: ["AWAITING_BUILD", "AWAITING_DEPLOY", "SKIPPED", ...LIVE_EXITS],
  AWAITING_BUILD: ["BUILDING", "BUILD_FAILED", "SKIPPED", ...LIVE_EXITS],
  BUILDING: ["AWAITING_DEPLOY", "BUILD_FAILED", ...LIVE_EXITS],
  AWAITING_DEPLOY: ["DEPLOYING", "DEPLOY_FAILED", ...LIVE_EXITS],
  DEPLOYING: ["DEPLOYED", "DEPLOY_FAILED", ...LIVE_EXITS],
  CREATE_FAILED: [],
  BUILD_FAILED: [],
  DEPLOY_FAILED: [],
  DEPLOYED: [],
  SKIPPED: [],
  INTERRUPTED: [],
  UNKNOWN: REVISION_STATUSES.filter((s) => s !== "UNKNOWN"),
};

/** The statuses a successful revision passes through, in order. */
export function happyPath(opts: { buildless?: boolean } = {}): RevisionStatus[] {
  return opts.buildless
    ? ["CREATING", "QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"]
    : ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"];
}

export type TransitionResult = { ok: true; changed: boolean } | { ok: false; error: string };

/**
 * Whether `current → next` is a legal write. The same status again is accepted as a no-op
 * (`changed: false`) because listeners re-report what they see on every reconcile; callers skip the
 * write then. `buildless` (external_container) additionally refuses the build statuses, which such
 * a revision can never be in.
 */
export function transition(current: RevisionStatus, next: RevisionStatus, opts: { buildless?: boolean } = {}): TransitionResult {
  if (current === next) return { ok: true, changed: false };
  if (opts.buildless && BUILD_STAGES.has(next)) {
    return { ok: false, error: `illegal revision status transition ${current} -> ${next}: this source has no build stage` };
  }
  const allowed = REVISION_TRANSITIONS[current];
  if (allowed.includes(next)) return { ok: true, changed: true };
  const why = isTerminal(current) ? `${current} is terminal` : `allowed from ${current}: ${allowed.join(", ")}`;
  return { ok: false, error: `illegal revision status transition ${current} -> ${next} (${why})` };
}

/**
 * A status write that found the revision no longer where its writer last saw it (compare-and-set
 * failed), because the control plane moved it meanwhile — typically SKIPPED by a PATCH that created
 * a newer revision while a runtime was about to start this one. Not a bug: the writer is stale and
 * should stop working on the revision.
 */
export class StaleRevisionStatusError extends Error {
  constructor(
    readonly revisionId: string,
    readonly expected: RevisionStatus,
    readonly stored: RevisionStatus,
    readonly storedReason: string | null,
  ) {
    super(`revision ${revisionId} is ${stored}, no longer ${expected}${storedReason ? `: ${storedReason}` : ""}`);
    this.name = "StaleRevisionStatusError";
  }
}

/**
 * What an older revision becomes when a newer one is created: not-started work is skipped (no
 * point building a commit that is already outdated); anything already running keeps going, and
 * terminal or UNKNOWN statuses stay (we cannot skip work the listener may be doing).
 */
export function nextForSupersede(status: RevisionStatus): RevisionStatus {
  return isNotStarted(status) ? "SKIPPED" : status;
}

/** Upstream default readiness deadline, and its wording (langgraph #3393, #4620). */
export const DEFAULT_DEPLOY_DEADLINE_MS = 300_000;

export function deployTimeoutReason(deadlineMs: number): string {
  return `Timeout: Deployment is not ready after ${deadlineMs / 1000} seconds.`;
}

export interface DeadlineInput {
  status: RevisionStatus;
  /** When the revision first entered DEPLOYING; see `stampDeployingSince`. */
  deploying_since: Date | null;
}

/**
 * The deadline counts from the moment the revision first entered DEPLOYING, i.e. it measures what
 * LangSmith's message says: the time the new server had to become ready. Time spent queued, building
 * or in AWAITING_DEPLOY (e.g. behind database provisioning) is not the agent's fault and is not counted.
 * The stamp is set once and never reset, so a listener flapping through UNKNOWN cannot extend it.
 */
export function stampDeployingSince(since: Date | null, next: RevisionStatus, now: Date): Date | null {
  return since ?? (next === "DEPLOYING" ? now : null);
}

/**
 * DEPLOY_FAILED with its reason once a DEPLOYING revision is still not ready `deadlineMs` after it
 * started deploying (at exactly the deadline it has had its full time); otherwise null. Only
 * DEPLOYING is judged: UNKNOWN means we cannot see the revision, and failing what may be healthy
 * would be a lie; the check resumes once the listener reports DEPLOYING again.
 */
export function deadlineOutcome(
  revision: DeadlineInput,
  now: Date,
  deadlineMs: number = DEFAULT_DEPLOY_DEADLINE_MS,
): { status: "DEPLOY_FAILED"; reason: string } | null {
  if (revision.status !== "DEPLOYING") return null;
  if (!revision.deploying_since) {
    // A bug in the caller would silently disable the deadline; make it loud instead.
    throw new TypeError("revision is DEPLOYING but has no deploying_since stamp");
  }
  if (now.getTime() - revision.deploying_since.getTime() < deadlineMs) return null;
  return { status: "DEPLOY_FAILED", reason: deployTimeoutReason(deadlineMs) };
}

export interface RevisionRef {
  id: string;
  status: RevisionStatus;
}

/** `latest_revision_id`: the newest revision, whatever its status (`revisions` newest first). */
export function pickLatestRevision(revisions: readonly RevisionRef[]): string | null {
  return revisions[0]?.id ?? null;
}

/**
 * `active_revision_id`: the revision serving traffic. `revisions` must be sorted newest first.
 * Traffic moves only forward and only to a revision whose rollout completed (DEPLOYED = it became
 * healthy): the newest DEPLOYED revision newer than the current active one takes over; a newer
 * revision that failed, was skipped or is still rolling out leaves the current one in place; an
 * older revision that finishes late never takes traffic back. If the current active revision is not
 * in the list (e.g. a page of the newest revisions), it stays.
 */
export function pickActiveRevision(revisions: readonly RevisionRef[], currentActiveId: string | null): string | null {
  for (const revision of revisions) {
    if (revision.id === currentActiveId) return currentActiveId;
    if (revision.status === "DEPLOYED") return revision.id;
  }
  return currentActiveId;
}

/** What a revision's row says about traffic, beside its status (which never changes once DEPLOYED). */
export interface RevisionServing {
  /** It is the deployment's `active_revision_id`: the one serving traffic. */
  is_active: boolean;
  /**
   * It reached DEPLOYED and a newer revision took traffic over since (the upstream CLI shows such
   * rows as "REPLACED"). After a rollback every revision of a deployment may read DEPLOYED; this
   * tells the one serving apart from those it replaced.
   */
  superseded: boolean;
}

/**
 * A revision's part in serving its deployment, from the active revision's id and position (`seq`,
 * creation order). A DEPLOYED revision newer than the active one is not superseded: it is the
 * moment before it takes over (pickActiveRevision moves traffic forward only).
 */
export function revisionServing(
  revision: { id: string; seq: number; status: RevisionStatus },
  active: { id: string; seq: number } | null,
): RevisionServing {
  const isActive = active !== null && revision.id === active.id;
  return { is_active: isActive, superseded: !isActive && active !== null && revision.status === "DEPLOYED" && revision.seq < active.seq };
}

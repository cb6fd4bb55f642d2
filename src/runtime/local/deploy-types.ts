/** What the local deploy pipeline (deployer.ts) takes and gives: the control plane's side of it. */
import type { RevisionStatus } from "../../control-plane/rules/index.js";
import type { RunAs } from "./isolation.js";

/** Where a revision's status and logs go; implemented by the control plane (storage). */
export interface RevisionSink {
  /**
   * `from` is the status the deployer last wrote: storage refuses the write with a
   * `StaleRevisionStatusError` when the control plane has since ended the revision (SKIPPED by a
   * newer one), and the deployer then drops it quietly.
   */
  setStatus(status: RevisionStatus, detail?: { reason?: string; commitSha?: string; from?: RevisionStatus }): Promise<void>;
  /** Buffered by the implementation; must not throw. */
  log(type: "build" | "deploy", line: string, level?: "INFO" | "ERROR"): void;
}

export interface LocalRevisionSpec {
  deploymentId: string;
  deploymentName: string;
  revisionId: string;
  source: "hosted_git";
  repoUrl: string;
  repoRef: string;
  agentConfigPath: string;
  installCommand?: string | null;
  buildCommand?: string | null;
  /** Plaintext; they become environment variables. */
  secrets: { name: string; value: string }[];
  /** Extra environment from the control plane (tracing: LANGSMITH_*; DATABASE_URI when it has Postgres). */
  env: Record<string, string>;
  /** Environment of the agent server only, never of install/build commands: its tracing key. */
  agentEnv?: Record<string, string>;
  /** This deployment's directory: checkouts under `revisions/`, the shared PGlite under `db/`, HOME under `home/`. */
  dataDir: string;
  /**
   * The revision's number in its deployment (newer is larger). When given, a deploy() only
   * supersedes older revisions: calls may arrive out of order, and an older revision arriving late
   * must not skip a newer one (storage has skipped the older one already).
   */
  seq?: number;
  /** The user its processes run as (the control plane runs as root); else the control plane's. */
  user?: RunAs;
}

export interface DeployOptions {
  /** Readiness deadline, counted from DEPLOYING (default 300 s). */
  deadlineMs?: number;
  /** Aborting interrupts the revision (→ INTERRUPTED) and stops its work. */
  signal?: AbortSignal;
  /** The status the revision has in storage now: CREATING (default) or QUEUED. */
  initialStatus?: "CREATING" | "QUEUED";
}

export interface DeployResult {
  revisionId: string;
  status: RevisionStatus;
  commitSha?: string;
  reason?: string;
  /** The deployer was stopped (deployment deleted) while this revision was in progress; the sink was not told. */
  stopped?: boolean;
}

export interface LocalDeployerOptions {
  deploymentId: string;
  /** Address of the proxy and the agent processes (default 127.0.0.1). */
  host?: string;
  /** The proxy's port: 0 (default) picks one; pass the remembered one to keep the URL across control plane restarts. */
  port?: number;
  /** How long the proxy holds a request while no process is ready (swap, restart), default 30 s. */
  holdMs?: number;
  /** SIGTERM → SIGKILL grace when stopping an agent process (default 30 s). */
  stopGraceMs?: number;
  /** How long a replaced process may finish requests in flight through the proxy before SIGTERM (default 10 s). */
  drainMs?: number;
  /** Limit of each build step: checkout, install, build (default 30 min). */
  buildTimeoutMs?: number;
  restartBackoff?: { initialMs?: number; maxMs?: number; resetAfterMs?: number };
  /** The command that runs berth (default: this package's bin/berth.js with this Node). */
  command?: { file: string; args: string[] };
  /** The environment deployments inherit from (default: an allowlist of process.env, see env.ts). */
  inheritEnv?: NodeJS.ProcessEnv;
}

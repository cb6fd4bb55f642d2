/**
 * PATCH planning (spec §2.3-2.6, §3; reference §1.4), pure: given the stored config and a parsed
 * patch, compute the next config and whether it needs a new revision, or throw 422/400.
 *
 * - Absent or null means "unchanged" (a field-level partial update, not RFC 7396: null never clears).
 * - Immutable fields (name, source, integration_id, repo_url, deployment_type, listener_id,
 *   listener_config.k8s_namespace): a different non-null value is a 400 naming the field. The same
 *   value is accepted as a no-op, so clients can send back what they read (GET, edit, PATCH) and
 *   retry safely. Setting one where none is stored is a change too.
 * - A non-null value in any source_revision_config field, in `secrets` or in `resource_spec` creates
 *   a revision, even when equal to the stored value: re-sending the same `image_uri` is how a client
 *   redeploys a moving tag such as `:latest`.
 * - `secrets` and `resource_spec` replace the stored ones wholesale; a secret sent back as MASK keeps
 *   its stored value.
 * - Other source_config fields (build_on_push, install_command, build_command, custom_url) apply
 *   without a revision.
 * - The merged config must still pass the create rules (e.g. a tag repo_ref with build_on_push true).
 */
import { BadRequestError, ValidationError, zodIssuesToValidation, type ValidationIssue } from "../../shared/errors.js";
import {
  normalizeSourceConfig,
  normalizeSourceRevisionConfig,
  revisionSnapshot,
  sameJson,
  type DeploymentConfig,
  type NormalizedSourceConfig,
  type RevisionSnapshot,
} from "./config.js";
import { unmaskSecrets } from "./masking.js";
import { deploymentPatchRequestSchema, type DeploymentPatchRequest, type Secret, type Source } from "./schemas.js";
import { resourceSpecIssues, secretIssues, valueError } from "./structure.js";
import { attempt, sourceError, sourceProblems, type CheckResult } from "./validate.js";

export interface PatchPlan {
  next: DeploymentConfig;
  createsRevision: boolean;
  /** The sent fields that cause the new revision, e.g. ["source_revision_config.image_uri", "secrets"]. */
  revisionTriggers: string[];
  /** What the new revision is built from; null when no revision is created. */
  revision: RevisionSnapshot | null;
  /** Dotted paths whose stored value actually changes, e.g. "source_config.build_on_push". */
  changedFields: string[];
}

interface Immutable {
  path: string;
  current: (c: DeploymentConfig) => unknown;
  sent: (p: DeploymentPatchRequest) => unknown;
  /**
   * Only checked for the source the field applies to: for the other source the merged-config rules
   * answer with the more useful "is not allowed for '<source>' source".
   */
  source?: Source;
}

const IMMUTABLE: readonly Immutable[] = [
  { path: "name", current: (c) => c.name, sent: (p) => p.name },
  { path: "source", current: (c) => c.source, sent: (p) => p.source },
  { path: "source_config.integration_id", current: (c) => c.source_config.integration_id, sent: (p) => p.source_config?.integration_id, source: "hosted_git" },
  { path: "source_config.repo_url", current: (c) => c.source_config.repo_url, sent: (p) => p.source_config?.repo_url, source: "hosted_git" },
  { path: "source_config.deployment_type", current: (c) => c.source_config.deployment_type, sent: (p) => p.source_config?.deployment_type, source: "hosted_git" },
  { path: "source_config.listener_id", current: (c) => c.source_config.listener_id, sent: (p) => p.source_config?.listener_id, source: "external_container" },
  {
    path: "source_config.listener_config.k8s_namespace",
    current: (c) => c.source_config.listener_config?.k8s_namespace ?? null,
    sent: (p) => p.source_config?.listener_config?.k8s_namespace,
    source: "external_container",
  },
];

/** Mutable source_config fields that never cause a revision. */
const PLAIN_FIELDS = ["build_on_push", "install_command", "build_command", "custom_url"] as const;

export function planPatch(stored: DeploymentConfig, patch: DeploymentPatchRequest): PatchPlan {
  const current = normalizeStored(stored);

  // 422 first, as for create: the new resource_spec and secrets on their own.
  const resourceSpec = patch.source_config?.resource_spec ?? null;
  const issues: ValidationIssue[] = resourceSpecIssues(resourceSpec, ["body", "source_config", "resource_spec"]);
  let secrets: Secret[] | null = null;
  if (patch.secrets != null) {
    issues.push(...secretIssues(patch.secrets, ["body", "secrets"], { allowMask: true }));
    const unmasked = unmaskSecrets(current.secrets, patch.secrets);
    for (const i of unmasked.unresolved) {
      issues.push(valueError(["body", "secrets", i, "value"], `the masked value of '${patch.secrets[i]!.name}' can only be sent back for an existing secret of that name; send the real value`));
    }
    secrets = unmasked.secrets;
  }
  if (issues.length > 0) throw new ValidationError(issues);

  const violations = IMMUTABLE.filter((f) => {
    if (f.source && f.source !== current.source) return false;
    const sent = f.sent(patch);
    return sent != null && !sameJson(sent, f.current(current));
  }).map((f) => `'${f.path}' cannot be changed after the deployment is created`);
  if (violations.length > 0) throw new BadRequestError(violations.join("; "));

  const next = merge(current, patch, secrets);
  const problems = sourceProblems(next, { assignedCustomUrl: current.source === "hosted_git" ? current.source_config.custom_url : null });
  if (problems.length > 0) throw sourceError(problems);

  const revisionTriggers = [
    ...Object.entries(patch.source_revision_config ?? {}).filter(([, v]) => v != null).map(([k]) => `source_revision_config.${k}`),
    ...(patch.secrets != null ? ["secrets"] : []),
    ...(resourceSpec != null ? ["source_config.resource_spec"] : []),
  ];
  const createsRevision = revisionTriggers.length > 0;
  return { next, createsRevision, revisionTriggers, revision: createsRevision ? revisionSnapshot(next) : null, changedFields: diff(current, next) };
}

function merge(current: DeploymentConfig, patch: DeploymentPatchRequest, secrets: Secret[] | null): DeploymentConfig {
  const sc = patch.source_config;
  const source_config: NormalizedSourceConfig = { ...current.source_config };
  if (sc) {
    for (const key of PLAIN_FIELDS) if (sc[key] != null) (source_config as Record<string, unknown>)[key] = sc[key];
    if (sc.resource_spec != null) source_config.resource_spec = sc.resource_spec;
    // Immutable fields: equal to the stored value when this source uses them (checked above); for the
    // other source they are merged so that the source rules report them as not allowed.
    for (const key of ["integration_id", "repo_url", "deployment_type", "listener_id"] as const) {
      if (sc[key] != null) (source_config as Record<string, unknown>)[key] = sc[key];
    }
    const ns = sc.listener_config?.k8s_namespace;
    if (ns != null) source_config.listener_config = { k8s_namespace: ns };
  }
  const source_revision_config = { ...current.source_revision_config };
  for (const [key, value] of Object.entries(patch.source_revision_config ?? {})) {
    if (value != null) (source_revision_config as Record<string, unknown>)[key] = value;
  }
  return { name: current.name, source: current.source, source_config, source_revision_config, secrets: secrets ?? current.secrets };
}

function diff(a: DeploymentConfig, b: DeploymentConfig): string[] {
  const out: string[] = [];
  for (const key of Object.keys(b.source_config) as (keyof NormalizedSourceConfig)[]) {
    if (!sameJson(a.source_config[key], b.source_config[key])) out.push(`source_config.${key}`);
  }
  for (const key of Object.keys(b.source_revision_config) as (keyof DeploymentConfig["source_revision_config"])[]) {
    if (!sameJson(a.source_revision_config[key], b.source_revision_config[key])) out.push(`source_revision_config.${key}`);
  }
  if (!sameJson(a.secrets, b.secrets)) out.push("secrets");
  return out;
}

/** Stored configs come from JSON columns: re-normalize so a missing key reads as null. */
function normalizeStored(c: DeploymentConfig): DeploymentConfig {
  return {
    name: c.name,
    source: c.source,
    source_config: normalizeSourceConfig(c.source_config),
    source_revision_config: normalizeSourceRevisionConfig(c.source_revision_config),
    secrets: c.secrets ?? [],
  };
}

/** The whole PATCH validation of a raw body against the stored config: schema (422) then planPatch. */
export function checkPatch(current: DeploymentConfig, body: unknown): CheckResult<PatchPlan> {
  const parsed = deploymentPatchRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, error: new ValidationError(zodIssuesToValidation("body", parsed.error)) };
  return attempt(() => planPatch(current, parsed.data));
}

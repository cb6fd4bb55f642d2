/**
 * Create validation beyond the schema. Order as in the reference (FastAPI): the schema and the
 * shape rules of structure.ts give 422 `{detail:[{loc,msg,type}]}` first; then the rules that depend
 * on `source` give 400 `{detail: "Source configuration error: …"}` (wording of reference §1.4).
 * When several source rules fail, one message lists them all, separated by "; ".
 */
import { BadRequestError, ValidationError, zodIssuesToValidation } from "../../shared/errors.js";
import { normalizeCreate, type DeploymentConfig } from "./config.js";
import { deploymentCreateRequestSchema, type DeploymentCreateRequest, type Source } from "./schemas.js";
import { resourceSpecIssues, secretIssues } from "./structure.js";

export type CheckResult<T> = { ok: true; value: T } | { ok: false; error: BadRequestError | ValidationError };

export const SOURCE_ERROR_PREFIX = "Source configuration error: ";
export const TAG_REF_PREFIX = "refs/tags/";

export function isTagRef(ref: string | null | undefined): boolean {
  return ref != null && ref.startsWith(TAG_REF_PREFIX);
}

interface FieldRule {
  path: string;
  get: (c: DeploymentConfig) => unknown;
  /** The source the field applies to (spec §2.3/§2.4 "Applies to"); a non-null value under the other source is an error. */
  source: Source;
  required?: boolean;
}

/**
 * `install_command` / `build_command` ("JS deployments only") apply to builds from source, so they
 * belong to `hosted_git`: an external container is never built. `custom_url` is special-cased: for
 * `hosted_git` it is assigned by the control plane, not settable.
 */
const FIELD_RULES: readonly FieldRule[] = [
  { path: "source_config.integration_id", get: (c) => c.source_config.integration_id, source: "hosted_git", required: true },
  { path: "source_config.repo_url", get: (c) => c.source_config.repo_url, source: "hosted_git", required: true },
  { path: "source_revision_config.repo_ref", get: (c) => c.source_revision_config.repo_ref, source: "hosted_git", required: true },
  { path: "source_revision_config.agent_config_path", get: (c) => c.source_revision_config.agent_config_path, source: "hosted_git", required: true },
  { path: "source_config.deployment_type", get: (c) => c.source_config.deployment_type, source: "hosted_git" },
  { path: "source_config.build_on_push", get: (c) => c.source_config.build_on_push, source: "hosted_git" },
  { path: "source_config.install_command", get: (c) => c.source_config.install_command, source: "hosted_git" },
  { path: "source_config.build_command", get: (c) => c.source_config.build_command, source: "hosted_git" },
  { path: "source_revision_config.image_uri", get: (c) => c.source_revision_config.image_uri, source: "external_container", required: true },
  { path: "source_config.resource_spec", get: (c) => c.source_config.resource_spec, source: "external_container" },
  { path: "source_config.listener_id", get: (c) => c.source_config.listener_id, source: "external_container" },
  { path: "source_config.listener_config", get: (c) => c.source_config.listener_config, source: "external_container" },
];

export interface SourceRuleOptions {
  /**
   * For PATCH of a `hosted_git` deployment: the custom_url the control plane assigned. Sending it back
   * unchanged is not an attempt to set it.
   */
  assignedCustomUrl?: string | null;
}

/** The source rule violations of a (normalized) config, as message fragments; empty when valid. */
export function sourceProblems(config: DeploymentConfig, options: SourceRuleOptions = {}): string[] {
  const { source } = config;
  const missing: string[] = [];
  const notAllowed: string[] = [];
  for (const rule of FIELD_RULES) {
    const value = rule.get(config);
    if (rule.source === source) {
      if (rule.required && value == null) missing.push(`'${rule.path}' is required for '${source}' source`);
    } else if (value != null) {
      notAllowed.push(`'${rule.path}' is not allowed for '${source}' source`);
    }
  }
  const customUrl = config.source_config.custom_url;
  if (source === "hosted_git" && customUrl != null && customUrl !== (options.assignedCustomUrl ?? null)) {
    notAllowed.push(`'source_config.custom_url' is not allowed for 'hosted_git' source: it is assigned automatically`);
  }
  const problems = [...missing, ...notAllowed];
  const ref = config.source_revision_config.repo_ref;
  if (source === "hosted_git" && config.source_config.build_on_push === true && isTagRef(ref)) {
    problems.push(`'source_config.build_on_push' must be false when 'source_revision_config.repo_ref' is a tag ('${ref}')`);
  }
  return problems;
}

export function sourceError(problems: readonly string[]): BadRequestError {
  return new BadRequestError(SOURCE_ERROR_PREFIX + problems.join("; "));
}

/** Rules beyond the schema for a parsed create body. Throws ValidationError (422) or BadRequestError (400). */
export function validateCreate(req: DeploymentCreateRequest): DeploymentConfig {
  const config = normalizeCreate(req);
  const issues = [
    ...resourceSpecIssues(config.source_config.resource_spec, ["body", "source_config", "resource_spec"]),
    ...secretIssues(config.secrets, ["body", "secrets"], { allowMask: false }),
  ];
  if (issues.length > 0) throw new ValidationError(issues);
  const problems = sourceProblems(config);
  if (problems.length > 0) throw sourceError(problems);
  return config;
}

/** The whole create validation of a raw body: schema (422) then rules (422/400). Never throws an ApiError. */
export function checkCreate(body: unknown): CheckResult<DeploymentConfig> {
  const parsed = deploymentCreateRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, error: new ValidationError(zodIssuesToValidation("body", parsed.error)) };
  return attempt(() => validateCreate(parsed.data));
}

/** Runs `fn`, turning the 400/422 it throws into a result; anything else is a bug and propagates. */
export function attempt<T>(fn: () => T): CheckResult<T> {
  try {
    return { ok: true, value: fn() };
  } catch (err) {
    if (err instanceof BadRequestError || err instanceof ValidationError) return { ok: false, error: err };
    throw err;
  }
}

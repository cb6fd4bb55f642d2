/**
 * The control plane rules: schemas, validation, PATCH planning, masking and resource defaults.
 * Pure (no I/O), shared by the control plane API, the local runtime and the Kubernetes operator.
 */
export * from "./schemas.js";
export * from "./queries.js";
export * from "./revision-status.js";
export * from "./deployment-status.js";
export * from "./secrets.js";
export {
  DNS_LABEL_RE,
  DNS_SUBDOMAIN_RE,
  ENV_NAME_RE,
  VOLUME_SOURCES,
  qualifiedKeyProblem,
  type Container,
  type EnvVar,
  type ResourceRequirements,
  type Volume,
  type VolumeMount,
} from "./k8s.js";
export {
  normalizeCreate,
  normalizeSourceConfig,
  normalizeSourceRevisionConfig,
  revisionSnapshot,
  sameJson,
  type DeploymentConfig,
  type NormalizedSourceConfig,
  type NormalizedSourceRevisionConfig,
  type RevisionSnapshot,
} from "./config.js";
export { MASK, unmaskSecrets, type UnmaskResult } from "./masking.js";
export { RESOURCE_DEFAULTS, RESOURCE_PAIRS, effectiveResourceSpec, resourceDefaults, type EffectiveResourceSpec, type ResourceDefaults } from "./resources.js";
export { resourceSpecIssues, secretIssues } from "./structure.js";
export {
  SOURCE_ERROR_PREFIX,
  TAG_REF_PREFIX,
  attempt,
  checkCreate,
  isTagRef,
  sourceError,
  sourceProblems,
  validateCreate,
  type CheckResult,
  type SourceRuleOptions,
} from "./validate.js";
export { checkPatch, planPatch, type PatchPlan } from "./patch.js";
export {
  LISTENER_ERROR_PREFIX,
  checkListenerCreate,
  checkListenerPatch,
  targetNamespace,
  validateListenerCreate,
  validateListenerPatch,
  validateListenerPlacement,
  type ListenerTarget,
} from "./listeners.js";

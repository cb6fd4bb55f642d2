/**
 * zod schemas of the control plane resources, field names exactly as spec §2. They drive request
 * validation (422) and the generated OpenAPI document, so they stay representable as JSON Schema:
 * cross-field rules are not here but in validate.ts.
 *
 * Unknown fields in request bodies are ignored (zod's default "strip"), as the reference API
 * (FastAPI/pydantic) does: clients send extras such as `revision_source` or `tracked_packages`, and
 * `repo_commit_sha` copied from a response. The one exception is the reserved `orchestrator_*` /
 * `executor_*` ResourceSpec fields: they are declared as null-only, so any other value is a 422 on
 * that field instead of being silently dropped.
 */
import { z } from "zod";
import { DEPLOYMENT_STATUSES } from "./deployment-status.js";
import { annotationsSchema, containerSchema, dnsLabel, dnsSubdomain, envName, imagePullSecretSchema, labelsSchema, volumeMountSchema, volumeSchema } from "./k8s.js";
import { REVISION_STATUSES } from "./revision-status.js";

// ---------- enums (spec §2, §3). The status lists live with their state logic, one definition each. ----------

export const SOURCES = ["hosted_git", "external_container"] as const;
export const DEPLOYMENT_TYPES = ["dev_free", "dev", "prod"] as const;
export const COMPUTE_TYPES = ["local", "k8s"] as const;

export const sourceSchema = z.enum(SOURCES);
export const deploymentTypeSchema = z.enum(DEPLOYMENT_TYPES);
export const deploymentStatusSchema = z.enum(DEPLOYMENT_STATUSES);
export const revisionStatusSchema = z.enum(REVISION_STATUSES);
export const computeTypeSchema = z.enum(COMPUTE_TYPES);

export type Source = z.output<typeof sourceSchema>;
export type DeploymentType = z.output<typeof deploymentTypeSchema>;
export type ComputeType = z.output<typeof computeTypeSchema>;

// ---------- scalars ----------

/**
 * Deployment names: lowercase letters, digits and hyphens, starting with a letter (reference §1.4).
 * They become Kubernetes object names and label values, hence also "not ending with a hyphen" and at
 * most 63 characters (a DNS label). The operator must hash-shorten names it derives by adding suffixes.
 */
export const DEPLOYMENT_NAME_MAX = 63;
export const DEPLOYMENT_NAME_RE = /^[a-z]([a-z0-9-]*[a-z0-9])?$/;
export const deploymentNameSchema = z
  .string()
  .max(DEPLOYMENT_NAME_MAX, `must be at most ${DEPLOYMENT_NAME_MAX} characters`)
  .regex(DEPLOYMENT_NAME_RE, "must contain only lowercase letters, digits and hyphens, start with a letter and not end with a hyphen");

/** Any 8-4-4-4-12 hex id, the same leniency as the path-parameter check in src/shared/http.ts. */
const uuid = z.guid({ error: "must be a UUID" });
const timestamp = z.iso.datetime({ offset: true });
const noSpaces = (what: string) => z.string().min(1).regex(/^\S+$/, `${what} must not contain whitespace`);
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/** A path inside the repository: relative, and never escaping the checkout with `..`. */
const repoPath = z
  .string()
  .min(1)
  .refine((p) => !p.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(p) && !p.split(/[\\/]/).includes(".."), {
    message: "must be a relative path inside the repository (no leading '/' and no '..')",
  });

const posInt = z.number().int().min(1);
const nonNegInt = z.number().int().min(0);
const posNumber = z.number().positive();

// ---------- ResourceSpec (spec §2.6) ----------

export const RESERVED_RESOURCE_FIELDS = [
  "orchestrator_cpu", "orchestrator_cpu_limit", "orchestrator_memory_mb", "orchestrator_memory_limit_mb",
  "orchestrator_min_scale", "orchestrator_max_scale",
  "executor_cpu", "executor_cpu_limit", "executor_memory_mb", "executor_memory_limit_mb",
] as const;

const reserved = (field: string) =>
  z
    .null({ error: `'${field}' is reserved and must not be used` })
    .optional()
    .describe("Reserved; must not be used (only null is accepted).");

type ReservedShape = { [K in (typeof RESERVED_RESOURCE_FIELDS)[number]]: ReturnType<typeof reserved> };
const reservedShape = Object.fromEntries(RESERVED_RESOURCE_FIELDS.map((f) => [f, reserved(f)])) as ReservedShape;

export const resourceSpecSchema = z.object({
  min_scale: nonNegInt.nullish(),
  max_scale: posInt.nullish(),
  cpu: posInt.nullish(),
  cpu_limit: posInt.nullish(),
  memory_mb: posInt.nullish(),
  memory_limit_mb: posInt.nullish(),
  queue_min_scale: nonNegInt.nullish(),
  queue_max_scale: posInt.nullish(),
  queue_cpu: posInt.nullish(),
  queue_cpu_limit: posInt.nullish(),
  queue_memory_mb: posInt.nullish(),
  queue_memory_limit_mb: posInt.nullish(),
  ...reservedShape,
  kvstore_memory_mb: posInt.nullish(),
  labels: labelsSchema.nullish(),
  annotations: annotationsSchema.nullish(),
  service_account_name: dnsSubdomain.nullish(),
  image_pull_secrets: z.array(imagePullSecretSchema).nullish(),
  volumes: z.array(volumeSchema).nullish(),
  volume_mounts: z.array(volumeMountSchema).nullish(),
  init_containers: z.array(containerSchema).nullish(),
  sidecars: z.array(containerSchema).nullish(),
  db_cpu: posNumber.nullish(),
  db_cpu_limit: posNumber.nullish(),
  db_memory_mb: posInt.nullish(),
  db_memory_limit_mb: posInt.nullish(),
  db_storage_gi: posInt.nullish(),
  db_max_connections: posInt.nullish(),
});
export type ResourceSpec = z.output<typeof resourceSpecSchema>;

// ---------- SourceConfig / SourceRevisionConfig / Secret (spec §2.3-2.5) ----------

export const listenerConfigSchema = z.object({ k8s_namespace: dnsLabel.nullish() });
export type ListenerConfig = z.output<typeof listenerConfigSchema>;

/** All nullable; which fields apply depends on `source` (validate.ts). Request and response share it. */
export const sourceConfigSchema = z.object({
  integration_id: uuid.nullish(),
  repo_url: z.string().min(1).nullish(),
  deployment_type: deploymentTypeSchema.nullish(),
  build_on_push: z.boolean().nullish(),
  custom_url: httpUrl.nullish(),
  resource_spec: resourceSpecSchema.nullish(),
  listener_id: uuid.nullish(),
  listener_config: listenerConfigSchema.nullish(),
  install_command: z.string().nullish(),
  build_command: z.string().nullish(),
});
export const sourceConfigRequestSchema = sourceConfigSchema;
export type SourceConfigRequest = z.output<typeof sourceConfigRequestSchema>;

export const sourceRevisionConfigRequestSchema = z.object({
  repo_ref: noSpaces("a git ref").nullish(),
  agent_config_path: repoPath.nullish(),
  image_uri: noSpaces("an image URI").nullish(),
});
/** The response variant adds the read-only commit the revision was built from. */
export const sourceRevisionConfigSchema = sourceRevisionConfigRequestSchema.extend({
  repo_commit_sha: z.string().nullish(),
});
export type SourceRevisionConfigRequest = z.output<typeof sourceRevisionConfigRequestSchema>;
export type SourceRevisionConfig = z.output<typeof sourceRevisionConfigSchema>;

export const secretSchema = z.object({ name: envName, value: z.string() });
export type Secret = z.output<typeof secretSchema>;

// ---------- Deployment (spec §2.1, §2.2) ----------

export const deploymentCreateRequestSchema = z.object({
  name: deploymentNameSchema,
  source: sourceSchema,
  source_config: sourceConfigRequestSchema,
  source_revision_config: sourceRevisionConfigRequestSchema,
  secrets: z.array(secretSchema),
});
export type DeploymentCreateRequest = z.output<typeof deploymentCreateRequestSchema>;

/** PATCH: every field optional and nullable; absent or null leaves the stored value unchanged (patch.ts). */
export const deploymentPatchRequestSchema = z.object({
  name: deploymentNameSchema.nullish(),
  source: sourceSchema.nullish(),
  source_config: sourceConfigRequestSchema.nullish(),
  source_revision_config: sourceRevisionConfigRequestSchema.nullish(),
  secrets: z.array(secretSchema).nullish(),
});
export type DeploymentPatchRequest = z.output<typeof deploymentPatchRequestSchema>;

export const deploymentSchema = z.object({
  name: z.string(),
  source: sourceSchema,
  source_config: sourceConfigSchema,
  source_revision_config: sourceRevisionConfigSchema,
  /** Values are masked in responses (masking.ts). */
  secrets: z.array(secretSchema),
  id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  status: deploymentStatusSchema,
  latest_revision_id: uuid.nullable(),
  active_revision_id: uuid.nullable(),
  image_version: z.string().nullish(),
});
export type Deployment = z.output<typeof deploymentSchema>;

// ---------- Revision (spec §2.7, reference §1.3) ----------

export const revisionSchema = z.object({
  id: uuid,
  deployment_id: uuid,
  created_at: timestamp,
  updated_at: timestamp,
  status: revisionStatusSchema,
  source: sourceSchema,
  source_revision_config: sourceRevisionConfigSchema,
});
export type Revision = z.output<typeof revisionSchema>;

// ---------- Listener (reference §1.3) ----------

/**
 * A registry repository prefix images are pushed to, as Docker names it: `host[:port][/path]`,
 * lowercase, no scheme, no tag, no trailing slash (the image becomes `<prefix>/<name>:<tag>`).
 */
export const IMAGE_REGISTRY_RE = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(\/[a-z0-9]+([._-]+[a-z0-9]+)*)*$/;
const imageRegistry = z
  .string()
  .max(200, "must be at most 200 characters")
  .refine((v) => !v.includes("://"), { message: "must be a registry path like registry.example.com/berth, without a scheme (no https://)" })
  .refine((v) => v.includes("://") || IMAGE_REGISTRY_RE.test(v), {
    message: "must be a registry path like registry.example.com/berth: a lowercase host[:port] and optional path, no tag and no trailing '/'",
  });

/**
 * `k8s` listeners: the namespaces they may deploy to, and how hosted_git builds run on them (the
 * registry images are pushed to, the `kubernetes.io/dockerconfigjson` Secret to push with, the
 * Kaniko executor image). None of it applies to `local` listeners (listeners.ts).
 */
export const computeConfigSchema = z.object({
  k8s_namespaces: z.array(dnsLabel).nullish(),
  image_registry: imageRegistry.nullish(),
  registry_push_secret: dnsSubdomain.nullish(),
  kaniko_image: noSpaces("an image reference").nullish(),
});
export type ComputeConfig = z.output<typeof computeConfigSchema>;

export const listenerSchema = z.object({
  id: uuid,
  compute_type: computeTypeSchema,
  compute_id: z.string(),
  compute_config: computeConfigSchema,
  version: z.string().nullish(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type Listener = z.output<typeof listenerSchema>;

export const listenerCreateRequestSchema = z.object({
  compute_type: computeTypeSchema,
  /** User-assigned, unique per tenant (409 on a duplicate, checked by the store). */
  compute_id: z.string().min(1).max(255),
  /** Optional here (upstream requires it): `{}` is the only sensible value for a `local` listener. */
  compute_config: computeConfigSchema.default({}),
  version: z.string().nullish(),
});
export type ListenerCreateRequest = z.output<typeof listenerCreateRequestSchema>;

export const listenerPatchRequestSchema = z.object({
  version: z.string().nullish(),
  compute_config: computeConfigSchema.nullish(),
});
export type ListenerPatchRequest = z.output<typeof listenerPatchRequestSchema>;

// ---------- list wrappers (reference §1.3: `{resources, offset}`, no total) ----------

export function listSchema<T extends z.ZodType>(item: T) {
  return z.object({ resources: z.array(item), offset: z.number().int().min(0) });
}
export const deploymentsListSchema = listSchema(deploymentSchema);
export const revisionsListSchema = listSchema(revisionSchema);
export const listenersListSchema = listSchema(listenerSchema);

export const logEntrySchema = z.looseObject({
  id: z.string(),
  timestamp: z.string(),
  level: z.string(),
  message: z.string(),
});
/** `GET …/revisions/{rid}/logs` (reference §1.8): log lines plus an opaque cursor. */
export const logsResponseSchema = z.object({ logs: z.array(logEntrySchema), next_offset: z.string().nullable() });

/**
 * The `AgentDeployment` custom resource (group `berth.dev`, version `v1alpha1`): what the k8s listener
 * of the control plane writes and what the operator renders into pods.
 *
 * The spec carries the EFFECTIVE resource spec (defaults already applied by `effectiveResourceSpec`
 * of the shared rules module): the operator never applies defaults of its own. The zod schema below
 * validates CRs read from the API server and is the single source of the CRD's openAPIV3Schema
 * (crd.ts), so the TypeScript types, the runtime validation and the CRD cannot drift.
 */
import { z } from "zod";
import type { EffectiveResourceSpec } from "../control-plane/rules/index.js";
import {
  annotationsSchema,
  containerSchema,
  dnsLabel,
  dnsSubdomain,
  imagePullSecretSchema,
  labelsSchema,
  volumeMountSchema,
  volumeSchema,
} from "../control-plane/rules/k8s.js";
import { deploymentNameSchema, deploymentTypeSchema, resourceSpecSchema } from "../control-plane/rules/schemas.js";

export const GROUP = "berth.dev";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}` as const;
export const KIND = "AgentDeployment" as const;
export const PLURAL = "agentdeployments";
export const SINGULAR = "agentdeployment";
export const SHORT_NAMES = ["ad"];
export const CRD_NAME = `${PLURAL}.${GROUP}`;

// ---------- spec ----------

/** The numeric request/limit/scale fields: the same constraints as the user-facing ResourceSpec, but required. */
const shape = resourceSpecSchema.shape;
const req = <K extends keyof typeof shape>(k: K) => shape[k];
const numeric = {
  min_scale: req("min_scale").unwrap().unwrap(),
  max_scale: req("max_scale").unwrap().unwrap(),
  cpu: req("cpu").unwrap().unwrap(),
  cpu_limit: req("cpu_limit").unwrap().unwrap(),
  memory_mb: req("memory_mb").unwrap().unwrap(),
  memory_limit_mb: req("memory_limit_mb").unwrap().unwrap(),
  queue_min_scale: req("queue_min_scale").unwrap().unwrap(),
  queue_max_scale: req("queue_max_scale").unwrap().unwrap(),
  queue_cpu: req("queue_cpu").unwrap().unwrap(),
  queue_cpu_limit: req("queue_cpu_limit").unwrap().unwrap(),
  queue_memory_mb: req("queue_memory_mb").unwrap().unwrap(),
  queue_memory_limit_mb: req("queue_memory_limit_mb").unwrap().unwrap(),
  kvstore_memory_mb: req("kvstore_memory_mb").unwrap().unwrap(),
  db_cpu: req("db_cpu").unwrap().unwrap(),
  db_cpu_limit: req("db_cpu_limit").unwrap().unwrap(),
  db_memory_mb: req("db_memory_mb").unwrap().unwrap(),
  db_memory_limit_mb: req("db_memory_limit_mb").unwrap().unwrap(),
  db_storage_gi: req("db_storage_gi").unwrap().unwrap(),
  db_max_connections: req("db_max_connections").unwrap().unwrap(),
};

/** The output of `effectiveResourceSpec`: every numeric field present, lists and maps defaulted to empty. */
export const effectiveResourceSpecSchema = z.object({
  ...numeric,
  labels: labelsSchema,
  annotations: annotationsSchema,
  service_account_name: dnsSubdomain.nullable(),
  image_pull_secrets: z.array(imagePullSecretSchema),
  volumes: z.array(volumeSchema),
  volume_mounts: z.array(volumeMountSchema),
  init_containers: z.array(containerSchema),
  sidecars: z.array(containerSchema),
});

/** A key of a Secret in the CR's namespace. */
export const secretKeyRefSchema = z.object({ name: dnsSubdomain, key: z.string().min(1).regex(/^[-._a-zA-Z0-9]+$/) });

export const tracingSchema = z.object({
  endpoint: z.string().min(1),
  project: z.string().min(1),
  apiKeySecretRef: secretKeyRefSchema.optional(),
});

export const agentDeploymentSpecSchema = z.object({
  deploymentName: deploymentNameSchema,
  deploymentId: z.guid(),
  revisionId: z.guid(),
  image: z.string().min(1).regex(/^\S+$/, "an image reference must not contain whitespace"),
  /** Absent for `external_container` deployments, which have no deployment type (they get the `dev` defaults). */
  deploymentType: deploymentTypeSchema.optional(),
  resourceSpec: effectiveResourceSpecSchema,
  /** The Secret (written by the k8s listener) whose keys become the agent's environment. */
  secretRef: z.object({ name: dnsSubdomain }),
  tracing: tracingSchema.optional(),
  /** The listener's `k8s_namespace`; the CR and all its children live there (owner references need one namespace). */
  listenerNamespace: dnsLabel.optional(),
});

export type AgentDeploymentSpec = z.output<typeof agentDeploymentSpecSchema>;
export type EffectiveSpec = z.output<typeof effectiveResourceSpecSchema>;

// The schema and the rules module's type describe the same value, in both directions.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameEffective: Same<EffectiveSpec, EffectiveResourceSpec> = true;
void _sameEffective;

// ---------- status ----------

/** ClusterSupported: False when the cluster lacks something this deployment would use (an older Kubernetes). */
export const CONDITION_TYPES = ["DatabaseReady", "KVStoreReady", "APIServerReady", "QueueReady", "Ready", "ClusterSupported"] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];

/** metav1.Condition (KEP-1623), restricted to our condition types. */
export const conditionSchema = z.object({
  type: z.enum(CONDITION_TYPES),
  status: z.enum(["True", "False", "Unknown"]),
  reason: z.string().min(1).max(1024).regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/),
  message: z.string().max(32768),
  lastTransitionTime: z.iso.datetime({ offset: true }),
  observedGeneration: z.number().int().min(0).optional(),
});
export type Condition = z.output<typeof conditionSchema>;

export const agentDeploymentStatusSchema = z.object({
  observedGeneration: z.number().int().min(0).optional(),
  conditions: z.array(conditionSchema).optional(),
  latestCreatedRevision: z.string().optional(),
  latestReadyRevision: z.string().optional(),
  url: z.string().optional(),
  replicas: z
    .object({
      api: z.number().int().min(0),
      queue: z.number().int().min(0),
      readyApi: z.number().int().min(0),
      readyQueue: z.number().int().min(0),
    })
    .optional(),
});
export type AgentDeploymentStatus = z.output<typeof agentDeploymentStatusSchema>;

// ---------- objects ----------

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  generation?: number;
  resourceVersion?: string;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

/** Any Kubernetes object the render produces (typed loosely: kubernetes-models validates the shapes in tests). */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

export interface AgentDeployment {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  /** A CR read from the API server always has a namespace and a uid; the render needs both. */
  metadata: ObjectMeta & { namespace: string; uid: string };
  spec: AgentDeploymentSpec;
  status?: AgentDeploymentStatus;
}

/** Validate a CR's spec as read from the API server (the CRD checks most of it; this is the full check). */
export function parseAgentDeploymentSpec(spec: unknown): z.ZodSafeParseResult<AgentDeploymentSpec> {
  return agentDeploymentSpecSchema.safeParse(absentAsNull(spec));
}

/**
 * Kubernetes stores no nulls: a merge patch or an apply that sends `null` deletes the field. So a
 * nullable field of the spec may arrive absent; read it as null again.
 */
function absentAsNull(spec: unknown): unknown {
  const r = (spec as { resourceSpec?: Record<string, unknown> } | null)?.resourceSpec;
  if (typeof r !== "object" || r === null || Array.isArray(r) || r.service_account_name !== undefined) return spec;
  return { ...(spec as object), resourceSpec: { ...r, service_account_name: null } };
}

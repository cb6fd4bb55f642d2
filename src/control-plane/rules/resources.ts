/**
 * The effective resource spec: the one place where ResourceSpec defaults are computed (spec §2.6,
 * §8). The control plane shows it, the local runtime and the operator consume it; none of them
 * apply defaults of their own.
 *
 * Rules, in order:
 * - a value the user gave is kept exactly as given;
 * - a limit defaults to 2x its request (cpu, memory, queue cpu/memory, db cpu/memory);
 * - queue scale/cpu/memory default to the (effective) non-queue values;
 * - everything else defaults to the base values of the deployment type (RESOURCE_DEFAULTS);
 * - a default never contradicts an explicit value: a defaulted request is capped at an explicit
 *   limit (as Kubernetes does when only a limit is set) and a defaulted upper bound is raised to an
 *   explicit lower bound. So only two explicit values can conflict, and validate.ts rejects that.
 */
import type { Container, Volume, VolumeMount } from "./k8s.js";
import type { DeploymentType, ResourceSpec } from "./schemas.js";

export interface ResourceDefaults {
  min_scale: number;
  max_scale: number;
  cpu: number;
  memory_mb: number;
  kvstore_memory_mb: number;
  db_cpu: number;
  db_memory_mb: number;
  db_storage_gi: number;
  db_max_connections: number;
}

/**
 * Base values when neither a request nor a limit is given. `dev` follows reference §1.7
 * "Development: 1 CPU, 1 GB, up to 1 replica, 10 GB DB"; `prod` follows "Production: 2 CPU, 2 GB,
 * up to 10 replicas", starting at one replica and scaling up. The reference gives no database or
 * key-value-store sizes: those are modest guesses (Postgres' own default of 100 connections).
 * `dev_free` is the free tier of `dev`. `external_container` deployments have no deployment type and
 * get the `dev` values: the smallest footprint, raised by sending a resource_spec.
 */
export const RESOURCE_DEFAULTS: Readonly<Record<"dev" | "prod", Readonly<ResourceDefaults>>> = {
  dev: { min_scale: 1, max_scale: 1, cpu: 1, memory_mb: 1024, kvstore_memory_mb: 256, db_cpu: 0.5, db_memory_mb: 512, db_storage_gi: 10, db_max_connections: 100 },
  prod: { min_scale: 1, max_scale: 10, cpu: 2, memory_mb: 2048, kvstore_memory_mb: 512, db_cpu: 1, db_memory_mb: 2048, db_storage_gi: 10, db_max_connections: 100 },
};

export function resourceDefaults(deploymentType?: DeploymentType | null): Readonly<ResourceDefaults> {
  return deploymentType === "prod" ? RESOURCE_DEFAULTS.prod : RESOURCE_DEFAULTS.dev;
}

type Numeric = "min_scale" | "max_scale" | "cpu" | "cpu_limit" | "memory_mb" | "memory_limit_mb"
  | "queue_min_scale" | "queue_max_scale" | "queue_cpu" | "queue_cpu_limit" | "queue_memory_mb" | "queue_memory_limit_mb"
  | "kvstore_memory_mb" | "db_cpu" | "db_cpu_limit" | "db_memory_mb" | "db_memory_limit_mb" | "db_storage_gi" | "db_max_connections";

/** Every numeric field filled in; reserved fields dropped; lists and maps default to empty. */
export type EffectiveResourceSpec = Record<Numeric, number> & {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  service_account_name: string | null;
  image_pull_secrets: { name: string }[];
  volumes: Volume[];
  volume_mounts: VolumeMount[];
  init_containers: Container[];
  sidecars: Container[];
};

/** [lower, upper] field pairs whose explicit values must be ordered (validate.ts reports violations on the upper one). */
export const RESOURCE_PAIRS = [
  ["min_scale", "max_scale"],
  ["cpu", "cpu_limit"],
  ["memory_mb", "memory_limit_mb"],
  ["queue_min_scale", "queue_max_scale"],
  ["queue_cpu", "queue_cpu_limit"],
  ["queue_memory_mb", "queue_memory_limit_mb"],
  ["db_cpu", "db_cpu_limit"],
  ["db_memory_mb", "db_memory_limit_mb"],
] as const satisfies readonly (readonly [Numeric, Numeric])[];

/**
 * One lower/upper pair. `lowFallback` is used when the lower value is unset (capped at an explicit
 * upper value); `highDefault` computes the upper value from the lower one when it is unset (raised to
 * at least the lower value).
 */
function pair(
  low: number | null | undefined,
  high: number | null | undefined,
  lowFallback: number,
  highDefault: (low: number) => number,
): [number, number] {
  const l = low ?? (high != null ? Math.min(lowFallback, high) : lowFallback);
  const h = high ?? Math.max(highDefault(l), l);
  return [l, h];
}

const double = (x: number) => x * 2;

export function effectiveResourceSpec(spec?: ResourceSpec | null, deploymentType?: DeploymentType | null): EffectiveResourceSpec {
  const s = spec ?? {};
  const base = resourceDefaults(deploymentType);
  const [min_scale, max_scale] = pair(s.min_scale, s.max_scale, base.min_scale, () => base.max_scale);
  const [cpu, cpu_limit] = pair(s.cpu, s.cpu_limit, base.cpu, double);
  const [memory_mb, memory_limit_mb] = pair(s.memory_mb, s.memory_limit_mb, base.memory_mb, double);
  const [queue_min_scale, queue_max_scale] = pair(s.queue_min_scale, s.queue_max_scale, min_scale, () => max_scale);
  const [queue_cpu, queue_cpu_limit] = pair(s.queue_cpu, s.queue_cpu_limit, cpu, double);
  const [queue_memory_mb, queue_memory_limit_mb] = pair(s.queue_memory_mb, s.queue_memory_limit_mb, memory_mb, double);
  const [db_cpu, db_cpu_limit] = pair(s.db_cpu, s.db_cpu_limit, base.db_cpu, double);
  const [db_memory_mb, db_memory_limit_mb] = pair(s.db_memory_mb, s.db_memory_limit_mb, base.db_memory_mb, double);
  return {
    min_scale, max_scale, cpu, cpu_limit, memory_mb, memory_limit_mb,
    queue_min_scale, queue_max_scale, queue_cpu, queue_cpu_limit, queue_memory_mb, queue_memory_limit_mb,
    kvstore_memory_mb: s.kvstore_memory_mb ?? base.kvstore_memory_mb,
    db_cpu, db_cpu_limit, db_memory_mb, db_memory_limit_mb,
    db_storage_gi: s.db_storage_gi ?? base.db_storage_gi,
    db_max_connections: s.db_max_connections ?? base.db_max_connections,
    labels: s.labels ?? {},
    annotations: s.annotations ?? {},
    service_account_name: s.service_account_name ?? null,
    image_pull_secrets: s.image_pull_secrets ?? [],
    volumes: s.volumes ?? [],
    volume_mounts: s.volume_mounts ?? [],
    init_containers: s.init_containers ?? [],
    sidecars: s.sidecars ?? [],
  };
}

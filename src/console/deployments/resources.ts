/**
 * The effective resource spec of a deployment: what the runtime applies, with every default filled
 * in, each value marked as given by the user or defaulted. The defaults are the server's own
 * (control-plane/rules/resources.ts: pure, type-only imports, so safe in the browser); the console
 * computes nothing of its own here.
 */
import { effectiveResourceSpec } from "../../control-plane/rules/resources";
import type { Deployment } from "../api/types";

export interface SpecRow {
  field: string;
  /** Numbers as numbers; lists and maps as compact JSON; null for "none". */
  value: number | string | null;
  given: boolean;
}

export interface SpecGroup {
  title: string;
  rows: SpecRow[];
}

const GROUPS: readonly { title: string; fields: readonly string[] }[] = [
  { title: "Server", fields: ["min_scale", "max_scale", "cpu", "cpu_limit", "memory_mb", "memory_limit_mb"] },
  { title: "Queue", fields: ["queue_min_scale", "queue_max_scale", "queue_cpu", "queue_cpu_limit", "queue_memory_mb", "queue_memory_limit_mb"] },
  { title: "Key-value store", fields: ["kvstore_memory_mb"] },
  { title: "Database", fields: ["db_cpu", "db_cpu_limit", "db_memory_mb", "db_memory_limit_mb", "db_storage_gi", "db_max_connections"] },
  {
    title: "Kubernetes",
    fields: ["labels", "annotations", "service_account_name", "image_pull_secrets", "volumes", "volume_mounts", "init_containers", "sidecars"],
  },
];

function isEmpty(v: unknown): boolean {
  return v == null || (Array.isArray(v) && v.length === 0) || (typeof v === "object" && !Array.isArray(v) && Object.keys(v as object).length === 0);
}

function show(v: unknown): number | string | null {
  if (isEmpty(v)) return null;
  if (typeof v === "number" || typeof v === "string") return v;
  return JSON.stringify(v);
}

type SpecSource = Pick<Deployment, "source_config">;

/** The spec grouped for display; `given` marks values sent by the user (everything else is a default). */
export function effectiveSpecGroups(d: SpecSource): SpecGroup[] {
  const given = (d.source_config?.resource_spec ?? {}) as Record<string, unknown>;
  const effective = effectiveResourceSpec(d.source_config?.resource_spec, d.source_config?.deployment_type) as unknown as Record<string, unknown>;
  return GROUPS.map((g) => ({
    title: g.title,
    rows: g.fields.map((field) => ({ field, value: show(effective[field]), given: !isEmpty(given[field]) })),
  }));
}

/** The deployment type the defaults come from (external_container has none and gets the `dev` values). */
export function defaultsBasis(d: SpecSource): string {
  return d.source_config?.deployment_type === "prod" ? "prod" : "dev";
}

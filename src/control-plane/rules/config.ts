/**
 * The stored form of a deployment's configuration: the create request with every nullable field
 * present (null when unset), so that stores, the patch planner and the runtimes never have to tell
 * "absent" from "null". Also the snapshot a revision is built from.
 */
import type { DeploymentCreateRequest, ResourceSpec, Secret, Source, SourceConfigRequest, SourceRevisionConfigRequest } from "./schemas.js";

type Nulled<T> = { [K in keyof T]-?: Exclude<T[K], undefined> | null };

export type NormalizedSourceConfig = Omit<Nulled<SourceConfigRequest>, "listener_config"> & {
  /** null when no namespace is set: `{k8s_namespace: null}` says nothing, so it is stored as null. */
  listener_config: { k8s_namespace: string } | null;
};
export type NormalizedSourceRevisionConfig = Nulled<SourceRevisionConfigRequest>;

export interface DeploymentConfig {
  name: string;
  source: Source;
  source_config: NormalizedSourceConfig;
  source_revision_config: NormalizedSourceRevisionConfig;
  secrets: Secret[];
}

/** What a revision is built from: its own source_revision_config plus the secrets and resource_spec of that moment. */
export interface RevisionSnapshot {
  source: Source;
  source_revision_config: NormalizedSourceRevisionConfig;
  secrets: Secret[];
  resource_spec: ResourceSpec | null;
}

export function normalizeSourceConfig(c: SourceConfigRequest | null | undefined): NormalizedSourceConfig {
  const k8sNamespace = c?.listener_config?.k8s_namespace ?? null;
  return {
    integration_id: c?.integration_id ?? null,
    repo_url: c?.repo_url ?? null,
    deployment_type: c?.deployment_type ?? null,
    build_on_push: c?.build_on_push ?? null,
    custom_url: c?.custom_url ?? null,
    resource_spec: c?.resource_spec ?? null,
    listener_id: c?.listener_id ?? null,
    listener_config: k8sNamespace === null ? null : { k8s_namespace: k8sNamespace },
    install_command: c?.install_command ?? null,
    build_command: c?.build_command ?? null,
  };
}

export function normalizeSourceRevisionConfig(c: SourceRevisionConfigRequest | null | undefined): NormalizedSourceRevisionConfig {
  return {
    repo_ref: c?.repo_ref ?? null,
    agent_config_path: c?.agent_config_path ?? null,
    image_uri: c?.image_uri ?? null,
  };
}

export function normalizeCreate(req: DeploymentCreateRequest): DeploymentConfig {
  return {
    name: req.name,
    source: req.source,
    source_config: normalizeSourceConfig(req.source_config),
    source_revision_config: normalizeSourceRevisionConfig(req.source_revision_config),
    secrets: req.secrets.map((s) => ({ name: s.name, value: s.value })),
  };
}

export function revisionSnapshot(config: DeploymentConfig): RevisionSnapshot {
  return {
    source: config.source,
    source_revision_config: { ...config.source_revision_config },
    secrets: config.secrets.map((s) => ({ ...s })),
    resource_spec: config.source_config.resource_spec,
  };
}

/** JSON equality (key order and absent-vs-undefined ignored): stored values come back from JSON columns. */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x ?? null)).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

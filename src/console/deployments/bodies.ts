/** Request bodies built from what was typed in the deployment forms (pure). */
import type { Deployment } from "../api/types";
import type { CreateBody, PatchBody } from "./api";

export type Source = CreateBody["source"];

export interface NewDeploymentFields {
  name: string;
  source: Source;
  integrationId: string;
  repoUrl: string;
  repoRef: string;
  agentConfigPath: string;
  installCommand: string;
  imageUri: string;
}

/** The create body for what was typed: blank optional fields are left out, not sent empty. */
export function createBody(f: NewDeploymentFields): CreateBody {
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  if (f.source === "external_container") {
    return { name: f.name.trim(), source: f.source, source_config: {}, source_revision_config: { image_uri: opt(f.imageUri) }, secrets: [] };
  }
  return {
    name: f.name.trim(),
    source: f.source,
    source_config: { integration_id: opt(f.integrationId), repo_url: opt(f.repoUrl), install_command: opt(f.installCommand) },
    source_revision_config: { repo_ref: opt(f.repoRef), agent_config_path: opt(f.agentConfigPath) },
    secrets: [],
  };
}

export type RevisionConfig = NonNullable<PatchBody["source_revision_config"]>;

/** The fields of this source, prefilled from the deployment (the latest revision's values). */
export function revisionFields(d: Pick<Deployment, "source" | "source_revision_config">): RevisionConfig {
  const rc = d.source_revision_config ?? {};
  return d.source === "external_container" ? { image_uri: rc.image_uri ?? "" } : { repo_ref: rc.repo_ref ?? "", agent_config_path: rc.agent_config_path ?? "" };
}

/** Blank fields are left out (null would mean "unchanged" anyway). */
export function revisionPatch(fields: RevisionConfig): PatchBody {
  const out: RevisionConfig = {};
  for (const [k, v] of Object.entries(fields) as [keyof RevisionConfig, string | null | undefined][]) if (v && v.trim()) out[k] = v.trim();
  return { source_revision_config: out };
}


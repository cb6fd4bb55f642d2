/** Stored deployments and revisions → the API's shapes (spec §2.1, reference §1.3). Pure. */
import { maskSecrets, type Deployment, type Revision, type RevisionServing } from "../rules/index.js";
import type { DeploymentRow, RevisionRow } from "../storage/deployments.js";

/** `serving` is derived from the deployment's active revision (rules/revision-status.ts), not stored with the revision. */
export function presentRevision(
  r: RevisionRow,
  serving: RevisionServing,
): Revision & { status_reason: string | null; status_history: RevisionRow["status_history"] } & RevisionServing {
  return {
    id: r.id,
    deployment_id: r.deployment_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    status: r.status,
    source: r.snapshot.source,
    source_revision_config: { ...r.snapshot.source_revision_config, repo_commit_sha: r.repo_commit_sha },
    // why a revision failed or was skipped; the logs have the detail
    status_reason: r.status_reason,
    // every status it went through, with when and why (oldest first): the console's timeline
    status_history: r.status_history,
    // which DEPLOYED revision serves traffic and which it replaced (a replaced one keeps DEPLOYED)
    is_active: serving.is_active,
    superseded: serving.superseded,
  };
}

/** `latest` is the deployment's newest revision: its commit is the deployment's (spec: values refer to the latest revision). */
export function presentDeployment(d: DeploymentRow, latest: RevisionRow | undefined): Deployment {
  return {
    name: d.name,
    source: d.config.source,
    source_config: d.config.source_config,
    source_revision_config: { ...d.config.source_revision_config, repo_commit_sha: latest?.repo_commit_sha ?? null },
    secrets: maskSecrets(d.secrets),
    id: d.id,
    created_at: d.created_at,
    updated_at: d.updated_at,
    status: d.status,
    latest_revision_id: d.latest_revision_id,
    active_revision_id: d.active_revision_id,
    image_version: null,
  };
}

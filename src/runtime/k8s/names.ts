/**
 * Names, labels and annotations of what the k8s listener writes into a cluster. Every object carries
 * `app.kubernetes.io/managed-by: berth-control-plane` and the deployment's id, so the listener can
 * find (and delete) everything of a deployment by label, whatever its name.
 */
import { childName } from "../../operator/render/names.js";

/** The server-side-apply field manager of every write of the control plane. */
export const FIELD_MANAGER = "berth-control-plane";
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "berth-control-plane";
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
export const DEPLOYMENT_ID_LABEL = "berth.dev/deployment-id";
export const TENANT_ID_LABEL = "berth.dev/tenant-id";
export const REVISION_ID_LABEL = "berth.dev/revision-id";
export const COMPONENT_LABEL = "app.kubernetes.io/component";
/** On the deployment's Secret: the id of the API key minted for it (revoked on delete). */
export const API_KEY_ID_ANNOTATION = "berth.dev/api-key-id";
/** On the deployment's Secret: the id of its platform-auth credential (BERTH_AUTH_DEPLOYMENT_KEY). */
export const AUTH_KEY_ID_ANNOTATION = "berth.dev/auth-key-id";
/** The key of the deployment's Secret holding its tracing API key. */
export const TRACING_KEY = "LANGSMITH_API_KEY";

export interface Named {
  id: string;
  name: string;
  tenant_id: string;
}

/** The labels of everything written for a deployment (plus `extra`). */
export function deploymentLabels(d: Named, extra: Record<string, string> = {}): Record<string, string> {
  return {
    [MANAGED_BY_LABEL]: MANAGED_BY,
    "app.kubernetes.io/part-of": "berth",
    "app.kubernetes.io/instance": d.name,
    [DEPLOYMENT_ID_LABEL]: d.id,
    [TENANT_ID_LABEL]: d.tenant_id,
    ...extra,
  };
}

export const deploymentSelector = (deploymentId: string) => `${MANAGED_SELECTOR},${DEPLOYMENT_ID_LABEL}=${deploymentId}`;

/** The Secret whose keys become the agent's environment (kept across revisions). */
export const secretName = (deploymentName: string) => childName(deploymentName, "secrets");
/** The git credentials of the deployment's builds (from its integration's token). */
export const gitSecretName = (deploymentName: string) => childName(deploymentName, "git-credentials");
/** The build Job of a revision, and the ConfigMap holding its Dockerfile (same name). */
export const buildName = (deploymentName: string, revisionId: string) => childName(deploymentName, `build-${revisionId.replace(/-/g, "").slice(0, 8)}`);

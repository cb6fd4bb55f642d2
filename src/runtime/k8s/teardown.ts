/**
 * Deleting a deployment's objects from one namespace of the cluster, in the order its teardown
 * needs: the AgentDeployment first (the operator's finalizer removes its pods and volumes; we wait
 * until the CR is gone), then everything else labelled with the deployment's id — build Jobs,
 * ConfigMaps, Secrets — revoking the tracing API key recorded on its Secret. Idempotent.
 *
 * Kept apart from the listener because it is a self-contained, slow cluster procedure (it polls
 * until the operator is done); the listener decides where to run it and removes the record after.
 */
import type { DeploymentRow } from "../../control-plane/storage/deployments.js";
import type { KubeObject, KubeRest } from "../../operator/kube/index.js";
import { API_VERSION, KIND } from "../../operator/types.js";
import type { AuthService } from "../../shared/auth/index.js";
import type { Logger } from "../../shared/logging.js";
import { apiKeyOf } from "./agent-deployment.js";
import { deploymentSelector } from "./names.js";
import type { Steps } from "./steps.js";

export interface TeardownOptions {
  rest: KubeRest;
  auth: Pick<AuthService, "revokeKey">;
  logger: Logger;
  steps: Steps;
  /** How often the AgentDeployment is checked on while the operator deletes it. */
  pollMs: number;
}

export async function deleteFromNamespace(d: DeploymentRow, namespace: string, o: TeardownOptions): Promise<void> {
  const { rest, steps, pollMs } = o;
  const ref = { apiVersion: API_VERSION, kind: KIND, namespace, name: d.name };
  const ours = (cr: KubeObject | undefined) => cr !== undefined && (cr.spec as { deploymentId?: string } | undefined)?.deploymentId === d.id;
  let cr = await steps.kube(() => rest.get(API_VERSION, KIND, namespace, d.name));
  if (ours(cr)) await steps.kube(() => rest.remove(ref, "Background"));
  let waited = 0;
  while (ours(cr)) {
    await steps.sleep(pollMs);
    waited += pollMs;
    if (waited % 60_000 < pollMs) o.logger.warn({ deployment: d.name, namespace }, "waiting for the AgentDeployment to be deleted (is the operator running?)");
    cr = await steps.kube(() => rest.get(API_VERSION, KIND, namespace, d.name));
  }
  for (const [apiVersion, kind] of [["batch/v1", "Job"], ["v1", "ConfigMap"], ["v1", "Secret"]] as const) {
    const list = await steps.kube(() => rest.list(apiVersion, kind, namespace, deploymentSelector(d.id)));
    for (const obj of list.items) {
      const keyId = kind === "Secret" ? apiKeyOf(obj)?.id : undefined;
      if (keyId) await o.auth.revokeKey(d.tenant_id, keyId);
      await steps.kube(() => rest.remove({ apiVersion, kind, namespace, name: obj.metadata.name }, "Background"));
    }
  }
}

/**
 * render(ad): every child object of an AgentDeployment, as a pure function of the CR (no I/O, no
 * clock, no randomness). The controller applies the result with server-side apply; all objects are
 * in the CR's namespace and owned by it (controller owner reference), so garbage collection deletes
 * them with the CR.
 *
 * The deployment's own Secret (`spec.secretRef`, the user's secrets as env) is written by the k8s
 * listener, not rendered here: the CR carries only its name, never secret values.
 */
import { ALL_FEATURES, type ClusterFeatures } from "../kube/capabilities.js";
import type { AgentDeployment, KubernetesObject } from "../types.js";
import { apiDeployment, apiService, hpa, queueDeployment, serviceUrl } from "./agent.js";
import { childNames } from "./names.js";
import { derivedPostgresPassword, postgresSecret, postgresService, postgresStatefulSet } from "./postgres.js";
import { redisDeployment, redisService } from "./redis.js";

export interface RenderOptions {
  /** The Postgres password to put in the credentials Secret; default: derived from the CR's uid (see postgres.ts). */
  postgresPassword?: string;
  /** What the cluster supports (default: everything): HPAs, native sidecars, PVC retention policy. */
  features?: ClusterFeatures;
}

export function render(ad: AgentDeployment, options: RenderOptions = {}): KubernetesObject[] {
  const names = childNames(ad);
  const f = options.features ?? ALL_FEATURES;
  const out: (KubernetesObject | null)[] = [
    postgresSecret(ad, names, options.postgresPassword ?? derivedPostgresPassword(ad)),
    postgresService(ad, names),
    postgresStatefulSet(ad, names, f),
    redisDeployment(ad, names),
    redisService(ad, names),
    apiDeployment(ad, names, f),
    apiService(ad, names),
    f.hpa ? hpa(ad, names, "api") : null,
    queueDeployment(ad, names, f),
    f.hpa ? hpa(ad, names, "queue") : null,
  ];
  return out.filter((o): o is KubernetesObject => o !== null);
}

export function url(ad: AgentDeployment): string {
  return serviceUrl(ad, childNames(ad));
}

export { childName, childNames, shortHash } from "./names.js";
export { cpuQuantity, ownerReference } from "./meta.js";

/** Metadata shared by every child: labels, annotations, owner reference, namespace; and quantity formatting. */
import { API_VERSION, KIND, type AgentDeployment, type ObjectMeta, type OwnerReference } from "../types.js";

export const MANAGED_BY = "berth-operator";
export const DEPLOYMENT_ID_LABEL = "berth.dev/deployment-id";
export const REVISION_ID_ANNOTATION = "berth.dev/revision-id";

export type Component = "api" | "queue" | "redis" | "postgres";

const APP_NAME: Record<Component, string> = { api: "agent-server", queue: "agent-server", redis: "redis", postgres: "postgres" };

export function ownerReference(ad: AgentDeployment): OwnerReference {
  return { apiVersion: API_VERSION, kind: KIND, name: ad.metadata.name, uid: ad.metadata.uid, controller: true, blockOwnerDeletion: true };
}

/** The labels a component's pods are selected by (immutable on Deployments: keep it small and stable). */
export function selectorLabels(ad: AgentDeployment, component: Component): Record<string, string> {
  return { "app.kubernetes.io/instance": ad.spec.deploymentName, "app.kubernetes.io/component": component };
}

/** The user's labels first, ours on top (ours decide the selectors, so a user label cannot break them). */
export function labels(ad: AgentDeployment, component: Component): Record<string, string> {
  return {
    ...ad.spec.resourceSpec.labels,
    "app.kubernetes.io/name": APP_NAME[component],
    ...selectorLabels(ad, component),
    "app.kubernetes.io/part-of": "berth",
    "app.kubernetes.io/managed-by": MANAGED_BY,
    [DEPLOYMENT_ID_LABEL]: ad.spec.deploymentId,
  };
}

export function annotations(ad: AgentDeployment): Record<string, string> {
  return { ...ad.spec.resourceSpec.annotations };
}

export function metadata(ad: AgentDeployment, name: string, component: Component): ObjectMeta {
  const meta: ObjectMeta = {
    name,
    namespace: ad.metadata.namespace,
    labels: labels(ad, component),
    ownerReferences: [ownerReference(ad)],
  };
  const a = annotations(ad);
  if (Object.keys(a).length > 0) meta.annotations = a;
  return meta;
}

/** CPU cores as a Kubernetes quantity: whole cores as "2", fractions in millicores ("500m"). */
export function cpuQuantity(cores: number): string {
  if (Number.isInteger(cores)) return String(cores);
  return `${Math.max(1, Math.round(cores * 1000))}m`;
}

export const mi = (mb: number): string => `${mb}Mi`;
export const gi = (gb: number): string => `${gb}Gi`;

/** Drop null and undefined fields recursively (the rules' zod output keeps `null`s; Kubernetes models want them absent). */
export function dropNulls<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v) => dropNulls(v)) as T;
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = dropNulls(v);
    return out as T;
  }
  return value;
}

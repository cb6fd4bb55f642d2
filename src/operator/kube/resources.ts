/**
 * The Kubernetes resources Berth touches, by apiVersion and kind: their plural, whether they are
 * namespaced, and REST paths. A fixed table instead of discovery: every kind here is stable API
 * (or our own CRD), and skipping discovery saves a round trip per kind on every start.
 */
import { API_VERSION, KIND, PLURAL } from "../types.js";

export interface ResourceType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

const TABLE: ResourceType[] = [
  { apiVersion: "v1", kind: "Namespace", plural: "namespaces", namespaced: false },
  { apiVersion: "v1", kind: "Secret", plural: "secrets", namespaced: true },
  { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  { apiVersion: "v1", kind: "Service", plural: "services", namespaced: true },
  { apiVersion: "v1", kind: "ServiceAccount", plural: "serviceaccounts", namespaced: true },
  { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true },
  { apiVersion: "v1", kind: "PersistentVolumeClaim", plural: "persistentvolumeclaims", namespaced: true },
  { apiVersion: "v1", kind: "Event", plural: "events", namespaced: true },
  { apiVersion: "apps/v1", kind: "Deployment", plural: "deployments", namespaced: true },
  { apiVersion: "apps/v1", kind: "StatefulSet", plural: "statefulsets", namespaced: true },
  { apiVersion: "autoscaling/v2", kind: "HorizontalPodAutoscaler", plural: "horizontalpodautoscalers", namespaced: true },
  { apiVersion: "batch/v1", kind: "Job", plural: "jobs", namespaced: true },
  { apiVersion: "coordination.k8s.io/v1", kind: "Lease", plural: "leases", namespaced: true },
  { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", namespaced: false },
  { apiVersion: API_VERSION, kind: KIND, plural: PLURAL, namespaced: true },
];

const BY_KIND = new Map(TABLE.map((t) => [`${t.apiVersion}/${t.kind}`, t]));

export function resourceType(apiVersion: string, kind: string): ResourceType {
  const t = BY_KIND.get(`${apiVersion}/${kind}`);
  if (!t) throw new Error(`unknown Kubernetes resource ${apiVersion} ${kind}`);
  return t;
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
function groupPrefix(apiVersion: string): string {
  return apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** The collection path; without a namespace, a namespaced kind lists across all namespaces. */
export function collectionPath(t: ResourceType, namespace?: string): string {
  const ns = t.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${groupPrefix(t.apiVersion)}${ns}/${t.plural}`;
}

export function objectPath(t: ResourceType, namespace: string | undefined, name: string, subresource?: string): string {
  if (t.namespaced && !namespace) throw new Error(`${t.kind} ${name}: a namespace is required`);
  return `${collectionPath(t, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ""}`;
}

/**
 * What the cluster the operator talks to can do, found at start (and again from time to time): the
 * server version, whether the optional kinds are served (API discovery) and whether RBAC lets the
 * operator use them (SelfSubjectAccessReview, which every authenticated user may create).
 *
 * The operator renders only what the cluster accepts, and reports what it left out (a status
 * condition and an Event on each AgentDeployment that would have used it) — an optional kind that
 * is not served or not allowed must never stall its caches (0 reconciles, silently).
 */
import type { KubeRest } from "./rest.js";

export interface ServerVersion {
  major: number;
  minor: number;
  gitVersion: string;
}

/** Features the render uses only when the cluster has them. */
export interface ClusterFeatures {
  /** autoscaling/v2 HorizontalPodAutoscaler served (Kubernetes >= 1.23) and allowed. */
  hpa: boolean;
  /** Init containers with restartPolicy: Always run as sidecars (beta, on by default, in 1.29). */
  nativeSidecars: boolean;
  /** StatefulSet persistentVolumeClaimRetentionPolicy honoured (beta, on by default, in 1.27). */
  pvcRetentionPolicy: boolean;
}

export const ALL_FEATURES: ClusterFeatures = { hpa: true, nativeSidecars: true, pvcRetentionPolicy: true };

export interface ClusterCapabilities {
  version: ServerVersion;
  features: ClusterFeatures;
  /** Why each missing feature is missing (for the condition and the Event). */
  reasons: Partial<Record<keyof ClusterFeatures, string>>;
}

/** "1", "20+" (GKE style) → 20. */
const num = (s: unknown): number => Number.parseInt(String(s ?? "0").replace(/\D.*$/, ""), 10) || 0;

export function parseVersion(v: { major?: string; minor?: string; gitVersion?: string }): ServerVersion {
  return { major: num(v.major), minor: num(v.minor), gitVersion: v.gitVersion ?? `v${v.major}.${v.minor}` };
}

const atLeast = (v: ServerVersion, minor: number) => v.major > 1 || (v.major === 1 && v.minor >= minor);

/** The version-gated features, as a pure rule. */
export function versionFeatures(v: ServerVersion): Pick<ClusterFeatures, "nativeSidecars" | "pvcRetentionPolicy"> {
  return { nativeSidecars: atLeast(v, 29), pvcRetentionPolicy: atLeast(v, 27) };
}

/** Is `kind` of `groupVersion` in the discovery document of that group version? */
async function served(rest: KubeRest, groupVersion: string, plural: string): Promise<boolean> {
  const path = groupVersion.includes("/") ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
  const doc = await rest.request<{ resources?: { name: string }[] } | undefined>("GET", path, { allow404: true });
  return !!doc?.resources?.some((r) => r.name === plural);
}

/** May this identity do `verbs` on the resource in every one of `namespaces` (all namespaces when empty)? */
async function allowed(rest: KubeRest, group: string, resource: string, verbs: string[], namespaces: string[]): Promise<string | undefined> {
  for (const namespace of namespaces.length ? namespaces : [undefined]) {
    for (const verb of verbs) {
      const review = await rest.request<{ status?: { allowed?: boolean; reason?: string } }>("POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
        body: { apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes: { group, resource, verb, namespace } } },
      });
      if (!review.status?.allowed) return `${verb} ${resource}.${group}${namespace ? ` in namespace ${namespace}` : " cluster-wide"} is forbidden by RBAC`;
    }
  }
  return undefined;
}

export async function discoverCapabilities(rest: KubeRest, namespaces: string[]): Promise<ClusterCapabilities> {
  const version = parseVersion(await rest.request<{ major?: string; minor?: string; gitVersion?: string }>("GET", "/version"));
  const reasons: ClusterCapabilities["reasons"] = {};
  let hpa = await served(rest, "autoscaling/v2", "horizontalpodautoscalers");
  if (!hpa) reasons.hpa = `autoscaling/v2 HorizontalPodAutoscaler is not served by this cluster (${version.gitVersion}; needs >= 1.23): replicas stay at min_scale`;
  else {
    const denied = await allowed(rest, "autoscaling", "horizontalpodautoscalers", ["list", "watch", "patch"], namespaces);
    if (denied) {
      hpa = false;
      reasons.hpa = `${denied}: replicas stay at min_scale`;
    }
  }
  const v = versionFeatures(version);
  if (!v.nativeSidecars) reasons.nativeSidecars = `native sidecars (restartPolicy: Always) need Kubernetes >= 1.29 (this is ${version.gitVersion}): they run as regular containers`;
  if (!v.pvcRetentionPolicy) reasons.pvcRetentionPolicy = `persistentVolumeClaimRetentionPolicy needs Kubernetes >= 1.27 (this is ${version.gitVersion}): the operator's finalizer deletes the Postgres volume claims instead`;
  return { version, features: { hpa, ...v }, reasons };
}

/** Same features (a change restarts the controller with the new ones). */
export const sameFeatures = (a: ClusterFeatures, b: ClusterFeatures): boolean => a.hpa === b.hpa && a.nativeSidecars === b.nativeSidecars && a.pvcRetentionPolicy === b.pvcRetentionPolicy;

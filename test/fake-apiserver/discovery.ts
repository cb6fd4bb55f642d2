/**
 * Legacy (non-aggregated) discovery documents: `/api` (APIVersions), `/apis` (APIGroupList),
 * `/apis/<group>` (APIGroup), `/api/v1` and `/apis/<group>/<version>` (APIResourceList), plus
 * `/version`. client-node's KubernetesObjectApi reads the APIResourceList to map a kind to its
 * plural and scope: it takes the *first* entry whose `kind` matches, so main resources are listed
 * before their subresources (as kube-apiserver does, alphabetically).
 *
 * Approximations: the aggregated discovery format (`application/json;g=apidiscovery.k8s.io;v=v2`,
 * used by kubectl ≥ 1.26) is not served — clients fall back to this legacy format; no
 * storageVersionHash; no `/openapi`.
 */
import type { Registry, ResourceType } from "./resources.js";

const VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function entries(rt: ResourceType): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: rt.plural,
    singularName: rt.singular,
    namespaced: rt.namespaced,
    kind: rt.kind,
    verbs: VERBS,
  };
  if (rt.shortNames?.length) main.shortNames = rt.shortNames;
  if (rt.categories?.length) main.categories = rt.categories;
  const subs: Record<string, unknown>[] = [];
  for (const sub of [...(rt.extraSubresources ?? []), ...(rt.status ? ["status"] : [])].sort()) {
    subs.push({
      name: `${rt.plural}/${sub}`,
      singularName: "",
      namespaced: rt.namespaced,
      kind: sub === "log" ? "Pod" : rt.kind,
      verbs: sub === "status" ? ["get", "patch", "update"] : ["get"],
    });
  }
  return [main, ...subs];
}

export function apiResourceList(registry: Registry, group: string, version: string) {
  const resources = registry
    .resources(group, version)
    .sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0))
    .flatMap(entries);
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources,
  };
}

function apiGroup(name: string, versions: string[]) {
  const list = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: list, preferredVersion: list[0] };
}

export function apiGroupList(registry: Registry) {
  const groups = [...registry.groups().entries()].filter(([g]) => g !== "").map(([g, versions]) => apiGroup(g, versions));
  return { kind: "APIGroupList", apiVersion: "v1", groups };
}

export function apiGroupDocument(registry: Registry, group: string) {
  const versions = registry.groups().get(group);
  if (!versions) return undefined;
  return { kind: "APIGroup", apiVersion: "v1", ...apiGroup(group, versions) };
}

export function apiVersions(serverAddress: string) {
  return {
    kind: "APIVersions",
    versions: ["v1"],
    serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
  };
}

export const VERSION = {
  major: "1",
  minor: "34",
  gitVersion: "v1.34.0-berth-fake",
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2025-01-01T00:00:00Z",
  goVersion: "go1.24.0",
  compiler: "gc",
  platform: "linux/amd64",
};

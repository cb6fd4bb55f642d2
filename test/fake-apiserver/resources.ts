/**
 * The resource types the fake serves: built-in kinds plus custom resources registered from
 * CustomResourceDefinition objects (and AgentDeployment, pre-registered).
 *
 * A `ResourceType` is what discovery advertises and what the REST layer needs to know: plural,
 * scope, whether `/status` is a subresource, whether `metadata.generation` is tracked.
 *
 * Approximations: one version per group for built-ins (the one the brief names); core v1 Events
 * and events.k8s.io/v1 Events are separate stores (kube-apiserver converts between them); CRD
 * schemas are neither validated nor used for pruning; only `served` versions of a CRD are
 * registered and each version is its own store (no conversion between versions).
 */

export interface ResourceType {
  group: string; // "" for core
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /** Has a `/status` subresource (main writes ignore status, status writes ignore the rest). */
  status: boolean;
  /** kube-apiserver maintains `metadata.generation` for this kind. */
  generation: boolean;
  /** Served from a CRD: list items keep apiVersion/kind and DELETE answers the object. */
  custom: boolean;
  /** Extra read-only subresources served (pods/log). */
  extraSubresources?: string[];
  /** Field selectors accepted besides metadata.name / metadata.namespace. */
  fieldSelectors?: string[];
}

export const apiVersionOf = (rt: ResourceType) => (rt.group ? `${rt.group}/${rt.version}` : rt.version);
export const typeKey = (rt: ResourceType) => `${rt.group}/${rt.version}/${rt.plural}`;

interface Spec {
  kind: string;
  plural?: string;
  namespaced?: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  generation?: boolean;
  extraSubresources?: string[];
  fieldSelectors?: string[];
}

const BUILTINS: Record<string, Spec[]> = {
  v1: [
    { kind: "Namespace", namespaced: false, shortNames: ["ns"], status: true, fieldSelectors: ["status.phase"] },
    { kind: "Secret", fieldSelectors: ["type"] },
    { kind: "ConfigMap", shortNames: ["cm"] },
    { kind: "Service", shortNames: ["svc"], status: true, categories: ["all"] },
    { kind: "ServiceAccount", shortNames: ["sa"] },
    {
      kind: "Pod",
      shortNames: ["po"],
      status: true,
      categories: ["all"],
      extraSubresources: ["log"],
      fieldSelectors: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "status.phase", "status.podIP", "status.nominatedNodeName"],
    },
    { kind: "PersistentVolumeClaim", shortNames: ["pvc"], status: true },
    {
      kind: "Event",
      shortNames: ["ev"],
      fieldSelectors: [
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
      ],
    },
  ],
  "apps/v1": [
    { kind: "Deployment", shortNames: ["deploy"], status: true, generation: true, categories: ["all"] },
    { kind: "StatefulSet", shortNames: ["sts"], status: true, generation: true, categories: ["all"] },
    { kind: "ReplicaSet", shortNames: ["rs"], status: true, generation: true, categories: ["all"], fieldSelectors: ["status.replicas"] },
  ],
  "autoscaling/v2": [{ kind: "HorizontalPodAutoscaler", shortNames: ["hpa"], status: true, generation: true, categories: ["all"] }],
  "batch/v1": [{ kind: "Job", status: true, generation: true, categories: ["all"], fieldSelectors: ["status.successful"] }],
  "coordination.k8s.io/v1": [{ kind: "Lease" }],
  "events.k8s.io/v1": [{ kind: "Event", shortNames: ["ev"], fieldSelectors: ["reason", "regarding.kind", "regarding.name", "regarding.namespace", "regarding.uid", "type"] }],
  "networking.k8s.io/v1": [{ kind: "Ingress", shortNames: ["ing"], status: true, generation: true }],
  "policy/v1": [{ kind: "PodDisruptionBudget", shortNames: ["pdb"], status: true, generation: true }],
  "apiextensions.k8s.io/v1": [
    { kind: "CustomResourceDefinition", namespaced: false, shortNames: ["crd", "crds"], status: true, generation: true },
  ],
};

/** AgentDeployment as crds/berth.dev_agentdeployments.yaml declares it. */
export const AGENT_DEPLOYMENT: ResourceType = {
  group: "berth.dev",
  version: "v1alpha1",
  kind: "AgentDeployment",
  listKind: "AgentDeploymentList",
  plural: "agentdeployments",
  singular: "agentdeployment",
  namespaced: true,
  shortNames: ["ad"],
  categories: ["berth"],
  status: true,
  generation: true,
  custom: true,
};

function pluralize(kind: string): string {
  const lower = kind.toLowerCase();
  if (lower.endsWith("s")) return lower + "es";
  if (lower.endsWith("y")) return lower.slice(0, -1) + "ies";
  return lower + "s";
}

export class Registry {
  /** "group/version" → plural → type. */
  private readonly byGroupVersion = new Map<string, Map<string, ResourceType>>();
  /** "apiVersion|Kind" → type. */
  private readonly byKind = new Map<string, ResourceType>();
  /** Bumped on every change so discovery documents can be cached. */
  generation = 0;

  constructor() {
    for (const [apiVersion, specs] of Object.entries(BUILTINS)) {
      const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
      for (const s of specs) {
        const plural = s.plural ?? pluralize(s.kind);
        this.register({
          group,
          version,
          kind: s.kind,
          listKind: `${s.kind}List`,
          plural,
          singular: s.kind.toLowerCase(),
          namespaced: s.namespaced ?? true,
          shortNames: s.shortNames,
          categories: s.categories,
          status: s.status ?? false,
          generation: s.generation ?? false,
          custom: false,
          extraSubresources: s.extraSubresources,
          fieldSelectors: s.fieldSelectors,
        });
      }
    }
    this.register(AGENT_DEPLOYMENT);
  }

  register(rt: ResourceType): void {
    const gv = `${rt.group}/${rt.version}`;
    let plurals = this.byGroupVersion.get(gv);
    if (!plurals) this.byGroupVersion.set(gv, (plurals = new Map()));
    const previous = plurals.get(rt.plural);
    if (previous) this.byKind.delete(`${apiVersionOf(previous)}|${previous.kind}`);
    plurals.set(rt.plural, rt);
    this.byKind.set(`${apiVersionOf(rt)}|${rt.kind}`, rt);
    this.generation++;
  }

  unregister(group: string, version: string, plural: string): ResourceType | undefined {
    const gv = `${group}/${version}`;
    const plurals = this.byGroupVersion.get(gv);
    const rt = plurals?.get(plural);
    if (!plurals || !rt) return undefined;
    plurals.delete(plural);
    if (plurals.size === 0) this.byGroupVersion.delete(gv);
    this.byKind.delete(`${apiVersionOf(rt)}|${rt.kind}`);
    this.generation++;
    return rt;
  }

  byPlural(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byGroupVersion.get(`${group}/${version}`)?.get(plural);
  }

  byApiVersionKind(apiVersion: string, kind: string): ResourceType | undefined {
    return this.byKind.get(`${apiVersion}|${kind}`);
  }

  all(): ResourceType[] {
    return [...this.byGroupVersion.values()].flatMap((m) => [...m.values()]);
  }

  hasGroupVersion(group: string, version: string): boolean {
    return this.byGroupVersion.has(`${group}/${version}`);
  }

  resources(group: string, version: string): ResourceType[] {
    return [...(this.byGroupVersion.get(`${group}/${version}`)?.values() ?? [])];
  }

  /** group → versions, in registration order (first is preferred). Core ("") included. */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const gv of this.byGroupVersion.keys()) {
      const i = gv.indexOf("/");
      const group = gv.slice(0, i);
      const version = gv.slice(i + 1);
      const list = out.get(group) ?? [];
      list.push(version);
      out.set(group, list);
    }
    return out;
  }
}

/** The resource types a CustomResourceDefinition object declares (served versions only). */
export function typesFromCrd(crd: any): ResourceType[] {
  const spec = crd?.spec ?? {};
  const names = spec.names ?? {};
  if (!spec.group || !names.kind || !names.plural) return [];
  return (spec.versions ?? [])
    .filter((v: any) => v?.name && v.served !== false)
    .map(
      (v: any): ResourceType => ({
        group: spec.group,
        version: v.name,
        kind: names.kind,
        listKind: names.listKind ?? `${names.kind}List`,
        plural: names.plural,
        singular: names.singular ?? names.kind.toLowerCase(),
        namespaced: spec.scope !== "Cluster",
        shortNames: names.shortNames,
        categories: names.categories,
        status: Boolean(v.subresources?.status),
        generation: true,
        custom: true,
      }),
    );
}

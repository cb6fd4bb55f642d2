/**
 * The Helm chart (charts/berth), rendered by the real helm binary (test/helpers/helm.ts) for several value sets:
 * lint-clean, every object valid for Kubernetes (kubernetes-models) with DNS-valid names, RBAC exactly as
 * documented (Roles instead of ClusterRoles when namespaces are listed), env wired from values and Secrets,
 * clear failures for impossible values, the CRD copy identical to crds/, and `helm package`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { CustomResourceDefinition } from "kubernetes-models/apiextensions.k8s.io/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { Ingress } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { ConfigMap, Secret, Service, ServiceAccount } from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { keyFromConfig } from "../../src/control-plane/rules/secrets.js";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { resolveOperatorSettings } from "../../src/operator/settings.js";
import { helm, helmAvailability, helmOk } from "../helpers/helm.js";
import { readmeWithTable, valuesDoc, valuesTable } from "./values-doc.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CHART = path.join(ROOT, "charts", "berth");
const RELEASE = "berth";
const NS = "berth";
const KUBE_VERSION = "1.30.0";

const availability = helmAvailability();
if (!availability.ok) console.warn(`\n⚠ helm unavailable (${availability.reason}): the chart suite is SKIPPED on this machine.\n`);

// ---------- rendering ----------

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const tmp = mkdtempSync(path.join(os.tmpdir(), "berth-chart-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let fileCount = 0;

function valuesFile(values: object): string {
  const file = path.join(tmp, `values-${++fileCount}.json`);
  writeFileSync(file, JSON.stringify(values));
  return file;
}

function templateArgs(values: object, extra: string[] = [], release = RELEASE): string[] {
  return ["template", release, CHART, "--namespace", NS, "--kube-version", KUBE_VERSION, "-f", valuesFile(values), ...extra];
}

function parseObjects(text: string): K8sObject[] {
  const out: K8sObject[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) throw new Error(`helm output is not valid YAML: ${doc.errors[0]!.message}`);
    const obj = doc.toJS() as K8sObject | null;
    if (obj !== null) out.push(obj);
  }
  return out;
}

async function render(values: object = {}, extra: string[] = [], release = RELEASE): Promise<K8sObject[]> {
  return parseObjects(await helmOk(templateArgs(values, extra, release)));
}

const find = (objs: K8sObject[], kind: string, name?: string, namespace?: string) =>
  objs.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name) && (namespace === undefined || o.metadata.namespace === namespace));

function one(objs: K8sObject[], kind: string, name: string, namespace?: string): Any {
  const found = find(objs, kind, name, namespace);
  expect(found, `exactly one ${kind} ${name}`).toHaveLength(1);
  return found[0];
}

const containerOf = (workload: Any, name: string): Any => {
  const c = workload.spec.template.spec.containers.find((x: Any) => x.name === name);
  expect(c, `container ${name} of ${workload.metadata.name}`).toBeDefined();
  return c;
};

const envMap = (container: Any): Record<string, Any> => Object.fromEntries((container.env ?? []).map((e: Any) => [e.name, e.valueFrom ?? e.value]));
const b64 = (s: string) => Buffer.from(s, "base64").toString("utf8");

// ---------- value sets ----------

const NAMESPACED = {
  operator: {
    watchNamespaces: ["agents", "agents-2"],
    workers: 8,
    logLevel: "debug",
    port: 9090,
    leaderElection: { leaseName: "berth-leader" },
    metrics: { serviceMonitor: { enabled: true, labels: { release: "prometheus" } } },
    pdb: { enabled: true },
    extraEnv: [{ name: "EXTRA", value: "1" }],
  },
  controlPlane: {
    replicas: 2,
    k8sListener: { namespaces: ["agents", "agents-2"] },
    database: { externalUri: "postgres://berth:s3cret@db.example.com:5432/berth?sslmode=require" },
    ingress: {
      enabled: true,
      className: "nginx",
      annotations: { "nginx.ingress.kubernetes.io/proxy-body-size": "50m" },
      hosts: [{ host: "berth.example.com", paths: [{ path: "/", pathType: "Prefix" }] }],
      tls: [{ secretName: "berth-tls", hosts: ["berth.example.com"] }],
    },
    pdb: { enabled: true },
  },
  postgresql: { enabled: false },
  commonLabels: { team: "agents" },
  commonAnnotations: { "example.com/owner": "platform" },
  imagePullSecrets: [{ name: "regcred" }],
};

const EXISTING_SECRETS = {
  postgresql: { enabled: false },
  controlPlane: {
    database: { existingSecret: "my-db", existingSecretKey: "uri" },
    apiKey: { existingSecret: "my-keys", key: "admin" },
    secretsKey: { existingSecret: "my-keys", key: "encryption" },
    k8sListener: { enabled: false },
  },
  operator: { replicas: 1, leaderElection: { enabled: false } },
};

// ---------- RBAC, as documented in charts/berth/README.md ----------

/** What server-side apply of a watched kind needs: its informer (list, watch), a read, and the apply (patch; create). */
const APPLIED = ["get", "list", "watch", "create", "patch"];
type Rules = Record<string, string[]>;

const OPERATOR_RULES: Rules = {
  "berth.dev/agentdeployments": ["get", "list", "watch", "patch"],
  "berth.dev/agentdeployments/status": ["patch"],
  "berth.dev/agentdeployments/finalizers": ["update"],
  "apps/deployments": APPLIED,
  "apps/statefulsets": APPLIED,
  "core/services": APPLIED,
  "core/secrets": APPLIED,
  "autoscaling/horizontalpodautoscalers": [...APPLIED, "delete"],
  "core/persistentvolumeclaims": ["deletecollection"],
  "core/events": ["create"],
};
const LEADER_ELECTION_RULES: Rules = {
  "coordination.k8s.io/leases": ["get", "create", "update"],
};
const CONTROL_PLANE_RULES: Rules = {
  "berth.dev/agentdeployments": ["get", "list", "watch", "create", "patch", "delete"],
  "core/secrets": ["get", "list", "create", "patch", "delete"],
  "core/configmaps": ["get", "list", "create", "patch", "delete"],
  "batch/jobs": ["get", "list", "create", "delete"],
  "core/pods": ["list"],
  "core/pods/log": ["get"],
};

/** group/resource → sorted verbs; refuses wildcards, resourceNames and non-resource URLs. */
function ruleTable(role: Any): Rules {
  const table: Record<string, Set<string>> = {};
  for (const rule of role.rules as Any[]) {
    expect(rule.resourceNames, "resourceNames").toBeUndefined();
    expect(rule.nonResourceURLs, "nonResourceURLs").toBeUndefined();
    for (const group of rule.apiGroups as string[]) {
      for (const resource of rule.resources as string[]) {
        expect(`${group}/${resource}`).not.toContain("*");
        const key = `${group === "" ? "core" : group}/${resource}`;
        table[key] ??= new Set();
        for (const verb of rule.verbs as string[]) {
          expect(verb).not.toBe("*");
          table[key]!.add(verb);
        }
      }
    }
  }
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [k, [...v].sort()]));
}
const sorted = (rules: Rules): Rules => Object.fromEntries(Object.entries(rules).map(([k, v]) => [k, [...v].sort()]));

// ---------- object checks ----------

const MODELS: Record<string, new (data: Any) => { validate(): void }> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "rbac.authorization.k8s.io/v1/ClusterRole": ClusterRole,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": ClusterRoleBinding,
  "rbac.authorization.k8s.io/v1/Role": Role,
  "rbac.authorization.k8s.io/v1/RoleBinding": RoleBinding,
  "networking.k8s.io/v1/Ingress": Ingress,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "apiextensions.k8s.io/v1/CustomResourceDefinition": CustomResourceDefinition,
};

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const CLUSTER_SCOPED = new Set(["ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition"]);

function validateServiceMonitor(o: Any): void {
  expect(o.spec.selector.matchLabels).toBeTypeOf("object");
  expect(o.spec.namespaceSelector.matchNames).toEqual([NS]);
  for (const e of o.spec.endpoints as Any[]) {
    expect(e.port).toMatch(DNS_LABEL);
    expect(e.path).toBe("/metrics");
  }
}

/** Every object: a known model that validates, valid names and labels, in the release namespace unless RBAC. */
function checkObjects(objs: K8sObject[], allowedNamespaces: string[] = [NS]): void {
  expect(objs.length).toBeGreaterThan(0);
  const seen = new Set<string>();
  for (const o of objs) {
    const id = `${o.apiVersion}/${o.kind} ${o.metadata?.namespace ?? ""}/${o.metadata?.name}`;
    expect(seen.has(id), `duplicate ${id}`).toBe(false);
    seen.add(id);
    const Model = MODELS[`${o.apiVersion}/${o.kind}`];
    if (o.apiVersion === "monitoring.coreos.com/v1" && o.kind === "ServiceMonitor") validateServiceMonitor(o);
    else {
      expect(Model, `a kubernetes-models class for ${o.apiVersion} ${o.kind}`).toBeDefined();
      expect(() => new Model!(o).validate(), id).not.toThrow();
    }
    const name = o.metadata.name;
    if (o.kind === "Service") expect(name, id).toMatch(DNS_1035_LABEL);
    else if (o.kind.startsWith("Cluster") || o.kind.endsWith("Role") || o.kind.endsWith("RoleBinding") || o.kind === "CustomResourceDefinition")
      expect(name, id).toMatch(DNS_SUBDOMAIN);
    else expect(name, id).toMatch(DNS_LABEL);
    expect(name.length, id).toBeLessThanOrEqual(o.kind === "StatefulSet" ? 52 : CLUSTER_SCOPED.has(o.kind) || o.kind.includes("Role") ? 253 : 63);
    if (CLUSTER_SCOPED.has(o.kind)) expect(o.metadata.namespace, id).toBeUndefined();
    else expect(allowedNamespaces, id).toContain(o.metadata.namespace);
    if (o.kind === "CustomResourceDefinition") continue;
    for (const [k, v] of Object.entries(o.metadata.labels ?? {})) {
      expect(v.length, `${id} label ${k}`).toBeLessThanOrEqual(63);
      expect(v, `${id} label ${k}`).toMatch(LABEL_VALUE);
    }
    expect(o.metadata.labels?.["app.kubernetes.io/managed-by"], id).toBe("Helm");
    expect(o.metadata.labels?.["helm.sh/chart"], id).toMatch(/^berth-\d+\.\d+\.\d+/);
  }
  checkWorkloads(objs);
}

/** Pods: hardened, resourced, probes and Services pointing at declared ports, secrets and config maps that exist. */
function checkWorkloads(objs: K8sObject[]): void {
  const secrets = new Map(find(objs, "Secret").map((s: Any) => [s.metadata.name as string, s]));
  const configMaps = new Map(find(objs, "ConfigMap").map((c: Any) => [c.metadata.name as string, c]));
  const workloads = [...find(objs, "Deployment"), ...find(objs, "StatefulSet")] as Any[];
  for (const w of workloads) {
    const id = `${w.kind} ${w.metadata.name}`;
    const podLabels = w.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(w.spec.selector.matchLabels)) expect(podLabels[k], `${id} selector ${k}`).toBe(v);
    const pod = w.spec.template.spec;
    expect(pod.securityContext?.runAsNonRoot, `${id} runAsNonRoot`).toBe(true);
    expect(pod.securityContext?.runAsUser, `${id} runAsUser`).toBeGreaterThan(0);
    expect(pod.securityContext?.seccompProfile?.type, `${id} seccomp`).toBe("RuntimeDefault");
    for (const c of [...(pod.initContainers ?? []), ...pod.containers] as Any[]) {
      const cid = `${id} container ${c.name}`;
      expect(c.name, cid).toMatch(DNS_LABEL);
      expect(c.securityContext?.readOnlyRootFilesystem, cid).toBe(true);
      expect(c.securityContext?.allowPrivilegeEscalation, cid).toBe(false);
      expect(c.securityContext?.capabilities?.drop, cid).toEqual(["ALL"]);
      expect(c.securityContext?.runAsNonRoot, cid).toBe(true);
      expect(c.resources?.requests?.memory, `${cid} memory request`).toBeDefined();
      expect(c.resources?.limits?.memory, `${cid} memory limit`).toBeDefined();
      const portNames = new Set((c.ports ?? []).map((p: Any) => p.name));
      for (const p of c.ports ?? []) expect(p.name.length, `${cid} port name`).toBeLessThanOrEqual(15);
      for (const probe of [c.startupProbe, c.livenessProbe, c.readinessProbe].filter(Boolean))
        if (probe.httpGet) expect(portNames.has(probe.httpGet.port), `${cid} probe port ${probe.httpGet.port}`).toBe(true);
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && secrets.has(ref.name)) expect(Object.keys(secrets.get(ref.name).data), `${cid} ${e.name}`).toContain(ref.key);
      }
      for (const from of c.envFrom ?? []) if (from.configMapRef) expect(configMaps.has(from.configMapRef.name), `${cid} envFrom`).toBe(true);
    }
  }
  for (const svc of find(objs, "Service") as Any[]) {
    const target = workloads.find((w) => Object.entries(svc.spec.selector).every(([k, v]) => w.spec.template.metadata.labels[k] === v));
    expect(target, `a workload behind Service ${svc.metadata.name}`).toBeDefined();
    const ports = new Set(target.spec.template.spec.containers.flatMap((c: Any) => (c.ports ?? []).map((p: Any) => p.name)));
    for (const p of svc.spec.ports) expect(ports.has(p.targetPort), `Service ${svc.metadata.name} targetPort ${p.targetPort}`).toBe(true);
  }
}

// ---------- tests ----------

describe.skipIf(!availability.ok)("Helm chart charts/berth", () => {
  let defaults: K8sObject[];
  let namespaced: K8sObject[];
  let existing: K8sObject[];

  beforeAll(async () => {
    [defaults, namespaced, existing] = await Promise.all([render(), render(NAMESPACED), render(EXISTING_SECRETS)]);
  });

  describe("helm lint --strict", () => {
    it.each([
      ["default values", {}],
      ["namespaced RBAC + external database + ingress + ServiceMonitor", NAMESPACED],
      ["existing secrets, no listener, one operator", EXISTING_SECRETS],
    ])("is clean with %s", async (_label, values) => {
      const r = await helm(["lint", "--strict", CHART, "--namespace", NS, "--kube-version", KUBE_VERSION, "-f", valuesFile(values)]);
      expect(r.stderr + r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
      expect(r.code, r.stderr + r.stdout).toBe(0);
    });
  });

  describe("every rendered object", () => {
    it("is valid with default values", () => checkObjects(defaults));
    it("is valid with namespaced RBAC, an external database, ingress and a ServiceMonitor", () => checkObjects(namespaced, [NS, "agents", "agents-2"]));
    it("is valid with existing secrets and no listener", () => checkObjects(existing));
    it("is valid, with names within limits, for a 53-character release name", async () => {
      const release = "a-very-long-release-name-that-helm-still-accepts-1234";
      expect(release.length).toBeLessThanOrEqual(53);
      const objs = await render({}, [], release);
      checkObjects(objs);
      expect(find(objs, "StatefulSet")[0]!.metadata.name.length).toBeLessThanOrEqual(52);
    });
    it("is valid for the operator alone and for the control plane alone", async () => {
      const [operatorOnly, controlPlaneOnly] = await Promise.all([render({ controlPlane: { enabled: false } }), render({ operator: { enabled: false } })]);
      checkObjects(operatorOnly);
      checkObjects(controlPlaneOnly);
      expect(operatorOnly.map((o) => o.metadata.labels?.["app.kubernetes.io/component"]).every((c) => c === "operator")).toBe(true);
      expect(controlPlaneOnly.some((o) => o.metadata.labels?.["app.kubernetes.io/component"] === "operator")).toBe(false);
      expect(find(controlPlaneOnly, "StatefulSet")).toHaveLength(1);
    });
    it("names objects after the release: berth-operator, berth-control-plane, berth-postgresql", () => {
      one(defaults, "Deployment", "berth-operator", NS);
      one(defaults, "Deployment", "berth-control-plane", NS);
      one(defaults, "StatefulSet", "berth-postgresql", NS);
      one(defaults, "Service", "berth-control-plane", NS);
      one(defaults, "Service", "berth-postgresql", NS);
      one(defaults, "ServiceAccount", "berth-operator", NS);
      one(defaults, "ServiceAccount", "berth-control-plane", NS);
    });
    it("uses the chart's image, tagged with appVersion = package.json's version", () => {
      const chart = parse(readFileSync(path.join(CHART, "Chart.yaml"), "utf8")) as Any;
      const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string };
      expect(chart.appVersion).toBe(pkg.version);
      expect(chart.kubeVersion).toBe(">=1.20.0-0");
      expect(chart.apiVersion).toBe("v2");
      for (const name of ["berth-operator", "berth-control-plane"]) {
        const d = one(defaults, "Deployment", name);
        for (const c of d.spec.template.spec.containers) expect(c.image).toBe(`ghcr.io/berth-dev/berth:${pkg.version}`);
      }
    });
  });

  describe("RBAC", () => {
    it("cluster-wide by default: a ClusterRole per component, bound to its ServiceAccount", () => {
      const operator = one(defaults, "ClusterRole", "berth-berth-operator");
      expect(ruleTable(operator)).toEqual(sorted(OPERATOR_RULES));
      const controlPlane = one(defaults, "ClusterRole", "berth-berth-control-plane");
      expect(ruleTable(controlPlane)).toEqual(sorted(CONTROL_PLANE_RULES));
      for (const [role, sa] of [
        ["berth-berth-operator", "berth-operator"],
        ["berth-berth-control-plane", "berth-control-plane"],
      ]) {
        const binding = one(defaults, "ClusterRoleBinding", role!);
        expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role });
        expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: sa, namespace: NS }]);
      }
      expect(find(defaults, "Role").map((r) => r.metadata.name)).toEqual(["berth-operator-leader-election"]);
    });

    it("leases only in the release namespace, for leader election", () => {
      for (const objs of [defaults, namespaced]) {
        const role = one(objs, "Role", "berth-operator-leader-election", NS);
        expect(ruleTable(role)).toEqual(sorted(LEADER_ELECTION_RULES));
        const binding = one(objs, "RoleBinding", "berth-operator-leader-election", NS);
        expect(binding.roleRef.name).toBe("berth-operator-leader-election");
        expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "berth-operator", namespace: NS }]);
        const others = [...find(objs, "ClusterRole"), ...find(objs, "Role")].filter((r) => r.metadata.name !== "berth-operator-leader-election");
        for (const r of others) expect(Object.keys(ruleTable(r)).some((k) => k.includes("leases")), r.metadata.name).toBe(false);
      }
      expect(find(existing, "Role").filter((r) => r.metadata.name.includes("leader"))).toHaveLength(0);
    });

    it("a Role and RoleBinding in each listed namespace, and no ClusterRole, when namespaces are listed", () => {
      expect(find(namespaced, "ClusterRole")).toHaveLength(0);
      expect(find(namespaced, "ClusterRoleBinding")).toHaveLength(0);
      for (const ns of ["agents", "agents-2"]) {
        expect(ruleTable(one(namespaced, "Role", "berth-operator", ns))).toEqual(sorted(OPERATOR_RULES));
        expect(ruleTable(one(namespaced, "Role", "berth-control-plane", ns))).toEqual(sorted(CONTROL_PLANE_RULES));
        const op = one(namespaced, "RoleBinding", "berth-operator", ns);
        expect(op.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "berth-operator" });
        expect(op.subjects).toEqual([{ kind: "ServiceAccount", name: "berth-operator", namespace: NS }]);
        const cp = one(namespaced, "RoleBinding", "berth-control-plane", ns);
        expect(cp.subjects).toEqual([{ kind: "ServiceAccount", name: "berth-control-plane", namespace: NS }]);
      }
      // The release namespace gets only the leader-election Role.
      expect(find(namespaced, "Role", undefined, NS).map((r) => r.metadata.name)).toEqual(["berth-operator-leader-election"]);
    });

    it("no listener RBAC when the listener is off, none at all with rbac.create=false", async () => {
      expect(find(existing, "ClusterRole").map((r) => r.metadata.name)).toEqual(["berth-berth-operator"]);
      const none = await render({ operator: { rbac: { create: false } }, controlPlane: { rbac: { create: false } } });
      expect(none.filter((o) => o.apiVersion.startsWith("rbac."))).toHaveLength(0);
    });
  });

  describe("operator", () => {
    it("gets its settings from values, the pod identity from the downward API", () => {
      const d = one(namespaced, "Deployment", "berth-operator", NS);
      const c = containerOf(d, "operator");
      expect(c.args).toEqual(["operator"]);
      expect(d.spec.replicas).toBe(2);
      expect(envMap(c)).toEqual({
        POD_NAME: { fieldRef: { fieldPath: "metadata.name" } },
        POD_NAMESPACE: { fieldRef: { fieldPath: "metadata.namespace" } },
        BERTH_OPERATOR_NAMESPACES: "agents,agents-2",
        BERTH_OPERATOR_LEADER_ELECT: "true",
        BERTH_OPERATOR_LEASE_NAMESPACE: NS,
        BERTH_OPERATOR_LEASE_NAME: "berth-leader",
        BERTH_OPERATOR_PORT: "9090",
        BERTH_OPERATOR_WORKERS: "8",
        LOG_LEVEL: "debug",
        EXTRA: "1",
      });
      expect(c.ports).toEqual([{ name: "metrics", containerPort: 9090, protocol: "TCP" }]);
      expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "metrics" });
      expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "metrics" });
      expect(d.spec.template.spec.serviceAccountName).toBe("berth-operator");
      expect(d.spec.template.spec.imagePullSecrets).toEqual([{ name: "regcred" }]);
    });

    it("defaults: cluster-wide, leader election on a Lease named after the release, port 8081, 4 workers", () => {
      const c = containerOf(one(defaults, "Deployment", "berth-operator"), "operator");
      expect(envMap(c)).toMatchObject({
        BERTH_OPERATOR_NAMESPACES: "",
        BERTH_OPERATOR_LEADER_ELECT: "true",
        BERTH_OPERATOR_LEASE_NAME: "berth-operator",
        BERTH_OPERATOR_PORT: "8081",
        BERTH_OPERATOR_WORKERS: "4",
        LOG_LEVEL: "info",
      });
      expect(envMap(containerOf(one(existing, "Deployment", "berth-operator"), "operator")).BERTH_OPERATOR_LEADER_ELECT).toBe("false");
    });

    it("metrics: a Service and a ServiceMonitor selecting it only when asked", () => {
      expect(find(defaults, "ServiceMonitor")).toHaveLength(0);
      expect(find(defaults, "Service", "berth-operator-metrics")).toHaveLength(0);
      const svc = one(namespaced, "Service", "berth-operator-metrics", NS);
      expect(svc.spec.ports).toEqual([{ name: "metrics", port: 8081, targetPort: "metrics", protocol: "TCP" }]);
      const sm = one(namespaced, "ServiceMonitor", "berth-operator", NS);
      expect(sm.metadata.labels.release).toBe("prometheus");
      for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) expect(svc.metadata.labels[k]).toBe(v);
      expect(sm.spec.endpoints).toEqual([{ port: "metrics", path: "/metrics", interval: "30s" }]);
    });

    it("PodDisruptionBudgets only when enabled", () => {
      expect(find(defaults, "PodDisruptionBudget")).toHaveLength(0);
      expect(find(namespaced, "PodDisruptionBudget").map((p) => p.metadata.name).sort()).toEqual(["berth-control-plane", "berth-operator"]);
    });
  });

  describe("control plane", () => {
    it("gets DATABASE_URI from the bundled Postgres Secret, which the StatefulSet uses too", () => {
      const d = one(defaults, "Deployment", "berth-control-plane", NS);
      const c = containerOf(d, "control-plane");
      expect(c.args).toEqual(["control-plane"]);
      const env = envMap(c);
      expect(env.DATABASE_URI).toEqual({ secretKeyRef: { name: "berth-postgresql", key: "database-uri" } });
      const secret = one(defaults, "Secret", "berth-postgresql", NS);
      const password = b64(secret.data.password);
      expect(password).toMatch(/^[A-Za-z0-9]{32}$/);
      const uri = new URL(b64(secret.data["database-uri"]));
      expect(uri.protocol).toBe("postgres:");
      expect(uri.hostname).toBe("berth-postgresql.berth.svc.cluster.local");
      expect(uri.port).toBe("5432");
      expect(uri.username).toBe("berth");
      expect(uri.password).toBe(password);
      expect(uri.pathname).toBe("/berth");
      const sts = one(defaults, "StatefulSet", "berth-postgresql", NS);
      const pg = envMap(containerOf(sts, "postgresql"));
      expect(pg.POSTGRES_PASSWORD).toEqual({ secretKeyRef: { name: "berth-postgresql", key: "password" } });
      expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe("10Gi");
      expect(sts.spec.serviceName).toBe("berth-postgresql-hl");
      expect(one(defaults, "Service", "berth-postgresql-hl").spec.clusterIP).toBe("None");
      expect(secret.metadata.annotations["helm.sh/resource-policy"]).toBe("keep");
      expect(d.spec.template.spec.initContainers.map((i: Any) => i.name)).toEqual(["wait-for-database"]);
    });

    it("generates a BERTH_SECRETS_KEY the control plane accepts and an API key of at least 16 characters", () => {
      const c = containerOf(one(defaults, "Deployment", "berth-control-plane"), "control-plane");
      const env = envMap(c);
      expect(env.BERTH_SECRETS_KEY).toEqual({ secretKeyRef: { name: "berth-control-plane", key: "secrets-key" } });
      expect(env.BERTH_API_KEY).toEqual({ secretKeyRef: { name: "berth-control-plane", key: "api-key" } });
      const secret = one(defaults, "Secret", "berth-control-plane", NS);
      expect(keyFromConfig(b64(secret.data["secrets-key"])).length).toBe(32);
      expect(b64(secret.data["api-key"]).length).toBeGreaterThanOrEqual(16);
      expect(secret.metadata.annotations["helm.sh/resource-policy"]).toBe("keep");
      // Stable across upgrades: the generated values are read back from the live Secret.
      const template = readFileSync(path.join(CHART, "templates", "control-plane", "secret.yaml"), "utf8");
      expect(template).toContain('lookup "v1" "Secret" .Release.Namespace $name');
    });

    it("settings in a ConfigMap with defaults derived from the release, rolled by checksum/config", async () => {
      const cm = one(defaults, "ConfigMap", "berth-control-plane", NS);
      expect(cm.data).toEqual({
        HOST: "0.0.0.0",
        PORT: "8080",
        BERTH_AUTH_MODE: "required",
        BERTH_K8S: "true",
        BERTH_K8S_DEFAULT_NAMESPACE: NS,
        BERTH_K8S_NAMESPACES: "",
        BERTH_PUBLIC_URL: "http://berth-control-plane.berth.svc.cluster.local:8080",
        BERTH_AGENT_BASE_IMAGE: "ghcr.io/berth-dev/berth:0.1.0",
        BERTH_KANIKO_IMAGE: "gcr.io/kaniko-project/executor:v1.23.2",
        LOG_LEVEL: "info",
      });
      expect(one(namespaced, "ConfigMap", "berth-control-plane").data).toMatchObject({ BERTH_K8S_DEFAULT_NAMESPACE: "agents", BERTH_K8S_NAMESPACES: "agents,agents-2" });
      const registry = await render({ controlPlane: { k8sListener: { imageRegistry: "registry.example.com/berth", registryPushSecret: "push-creds", agentBaseImage: "acme/base:1" } } });
      expect(one(registry, "ConfigMap", "berth-control-plane").data).toMatchObject({
        BERTH_IMAGE_REGISTRY: "registry.example.com/berth",
        BERTH_REGISTRY_PUSH_SECRET: "push-creds",
        BERTH_AGENT_BASE_IMAGE: "acme/base:1",
      });
      const checksum = (objs: K8sObject[]) => one(objs, "Deployment", "berth-control-plane").spec.template.metadata.annotations["checksum/config"];
      const [same, changed] = await Promise.all([render({ operator: { workers: 9 } }), render({ controlPlane: { logLevel: "debug" } })]);
      expect(checksum(defaults)).toMatch(/^[0-9a-f]{64}$/);
      expect(checksum(same)).toBe(checksum(defaults));
      expect(checksum(changed)).not.toBe(checksum(defaults));
    });

    it("an external URI goes into the chart's Secret; an existing Secret is referenced as is", () => {
      expect(find(namespaced, "StatefulSet")).toHaveLength(0);
      const env = envMap(containerOf(one(namespaced, "Deployment", "berth-control-plane"), "control-plane"));
      expect(env.DATABASE_URI).toEqual({ secretKeyRef: { name: "berth-control-plane", key: "database-uri" } });
      expect(b64(one(namespaced, "Secret", "berth-control-plane").data["database-uri"])).toBe(NAMESPACED.controlPlane.database.externalUri);
      expect(one(namespaced, "Deployment", "berth-control-plane").spec.template.spec.initContainers).toBeUndefined();

      const e = envMap(containerOf(one(existing, "Deployment", "berth-control-plane"), "control-plane"));
      expect(e.DATABASE_URI).toEqual({ secretKeyRef: { name: "my-db", key: "uri" } });
      expect(e.BERTH_API_KEY).toEqual({ secretKeyRef: { name: "my-keys", key: "admin" } });
      expect(e.BERTH_SECRETS_KEY).toEqual({ secretKeyRef: { name: "my-keys", key: "encryption" } });
      expect(find(existing, "Secret")).toHaveLength(0);
      expect(one(existing, "ConfigMap", "berth-control-plane").data.BERTH_K8S).toBe("false");
    });

    it("an Ingress (networking.k8s.io/v1) with class, hosts and TLS when enabled", () => {
      expect(find(defaults, "Ingress")).toHaveLength(0);
      const ing = one(namespaced, "Ingress", "berth-control-plane", NS);
      expect(ing.spec.ingressClassName).toBe("nginx");
      expect(ing.spec.tls).toEqual([{ secretName: "berth-tls", hosts: ["berth.example.com"] }]);
      expect(ing.spec.rules).toEqual([
        {
          host: "berth.example.com",
          http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "berth-control-plane", port: { name: "http" } } } }] },
        },
      ]);
      expect(ing.metadata.annotations).toMatchObject({ "nginx.ingress.kubernetes.io/proxy-body-size": "50m", "example.com/owner": "platform" });
    });
  });

  describe("the environment the chart sets is what the commands read", () => {
    it("berth operator accepts it", () => {
      const c = containerOf(one(namespaced, "Deployment", "berth-operator"), "operator");
      const env: Record<string, string> = {};
      for (const e of c.env as Any[]) env[e.name] = e.value ?? (e.valueFrom.fieldRef.fieldPath === "metadata.name" ? "berth-operator-abc12" : NS);
      const s = resolveOperatorSettings({}, env);
      expect(s).toMatchObject({ namespaces: ["agents", "agents-2"], leaderElect: true, leaseNamespace: NS, leaseName: "berth-leader", identity: "berth-operator-abc12", port: 9090, workers: 8, logLevel: "debug" });
    });

    it("berth control-plane accepts it", () => {
      for (const objs of [defaults, namespaced]) {
        const env: Record<string, string> = { ...one(objs, "ConfigMap", "berth-control-plane").data };
        const c = containerOf(one(objs, "Deployment", "berth-control-plane"), "control-plane");
        const secrets = new Map(find(objs, "Secret").map((x: Any) => [x.metadata.name as string, x]));
        for (const e of c.env as Any[]) {
          const ref = e.valueFrom?.secretKeyRef;
          env[e.name] = ref ? b64(secrets.get(ref.name).data[ref.key]) : e.value;
        }
        const s = resolveControlPlaneSettings({}, env, "control-plane");
        expect(s.k8s).toBe(true);
        expect(s.host).toBe("0.0.0.0");
        expect(s.port).toBe(8080);
        expect(s.authMode).toBe("required");
        expect(s.databaseUri).toBe(env.DATABASE_URI);
        expect(s.publicUrl).toBe(env.BERTH_PUBLIC_URL);
      }
    });
  });

  describe("refuses impossible values with a clear message", () => {
    it.each([
      [{ postgresql: { enabled: false } }, "the control plane needs a PostgreSQL database: set postgresql.enabled=true (bundled), controlPlane.database.externalUri, or controlPlane.database.existingSecret"],
      [{ controlPlane: { database: { externalUri: "postgres://x@y/z" } } }, "choose one database for the control plane"],
      [{ operator: { leaderElection: { enabled: false } } }, "operator.replicas > 1 needs operator.leaderElection.enabled=true"],
      [{ operator: { watchNamespaces: ["a"] }, controlPlane: { k8sListener: { namespaces: ["a", "b"] } } }, 'namespace "b", which operator.watchNamespaces does not include'],
      [{ controlPlane: { k8sListener: { namespaces: ["a"], defaultNamespace: "b" } } }, 'defaultNamespace "b" is not in controlPlane.k8sListener.namespaces'],
      [{ postgresql: { auth: { password: "p@ss word" } } }, "postgresql.auth.password may only contain"],
      [{ controlPlane: { authMode: "open" } }, "controlPlane.authMode must be required or loopback-open"],
    ])("%j", async (values, message) => {
      const r = await helm(templateArgs(values));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain(message);
    });

    it("but not when the control plane, which alone needs the database, is off", async () => {
      const objs = await render({ controlPlane: { enabled: false }, postgresql: { enabled: false } });
      expect(find(objs, "Deployment").map((d) => d.metadata.name)).toEqual(["berth-operator"]);
    });
  });

  describe("CRD", () => {
    it("charts/berth/crds/ holds the same bytes as crds/", () => {
      const source = readFileSync(path.join(ROOT, "crds", "berth.dev_agentdeployments.yaml"));
      const copy = readFileSync(path.join(CHART, "crds", "berth.dev_agentdeployments.yaml"));
      expect(copy.equals(source), "charts/berth/crds is stale: cp crds/berth.dev_agentdeployments.yaml charts/berth/crds/").toBe(true);
      expect(readdirSync(path.join(CHART, "crds"))).toEqual(["berth.dev_agentdeployments.yaml"]);
    });

    it("helm template --include-crds renders it (and leaves it out otherwise)", async () => {
      const objs = await render({}, ["--include-crds"]);
      const crd = one(objs, "CustomResourceDefinition", "agentdeployments.berth.dev");
      expect(crd.spec.group).toBe("berth.dev");
      expect(crd.spec.names).toMatchObject({ kind: "AgentDeployment", plural: "agentdeployments", shortNames: ["ad"] });
      expect(crd.spec.versions.map((v: Any) => v.name)).toEqual(["v1alpha1"]);
      checkObjects(objs);
      expect(find(defaults, "CustomResourceDefinition")).toHaveLength(0);
    });
  });

  describe("packaging and docs", () => {
    it("helm package makes a chart that renders, with its CRD", async () => {
      const out = mkdtempSync(path.join(tmp, "package-"));
      await helmOk(["package", CHART, "--destination", out]);
      const tgz = path.join(out, "berth-0.1.0.tgz");
      expect(readdirSync(out)).toEqual(["berth-0.1.0.tgz"]);
      const crds = await helmOk(["show", "crds", tgz]);
      expect(crds.replace(/^---\n/, "").trim()).toBe(readFileSync(path.join(ROOT, "crds", "berth.dev_agentdeployments.yaml"), "utf8").trim());
      const objs = parseObjects(await helmOk(["template", RELEASE, tgz, "--namespace", NS, "--kube-version", KUBE_VERSION]));
      expect(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(defaults.map((o) => `${o.kind}/${o.metadata.name}`).sort());
    });

    it("documents every value with a `# --` comment, and the README's table is up to date", () => {
      const values = readFileSync(path.join(CHART, "values.yaml"), "utf8");
      const rows = valuesDoc(values);
      expect(rows.filter((r) => r.description === "").map((r) => r.key)).toEqual([]);
      expect(rows.length).toBeGreaterThan(80);
      const readme = readFileSync(path.join(CHART, "README.md"), "utf8");
      expect(readmeWithTable(readme, valuesTable(rows)) === readme, "stale values table: npx tsx test/chart/values-doc.ts --write").toBe(true);
    });

    it("NOTES.txt tells how to get the admin key and port-forward", async () => {
      const install = (values: object) => helmOk(["install", RELEASE, CHART, "--namespace", NS, "--dry-run=client", "-f", valuesFile(values)]);
      const notes = (await install({})).split("\nNOTES:\n")[1] ?? "";
      expect(notes).toContain("kubectl get secret -n berth berth-control-plane -o jsonpath='{.data.api-key}' | base64 -d");
      expect(notes).toContain("kubectl port-forward -n berth service/berth-control-plane 8080:8080");
      expect(notes).toContain('"k8s_namespaces":["berth"]');
      const ingress = (await install(NAMESPACED)).split("\nNOTES:\n")[1] ?? "";
      expect(ingress).toContain("export BERTH_URL=https://berth.example.com");
      expect(ingress).not.toContain("port-forward");
      const operatorOnly = (await install({ controlPlane: { enabled: false } })).split("\nNOTES:\n")[1] ?? "";
      expect(operatorOnly).toContain("deployment/berth-operator");
      expect(operatorOnly).not.toContain("BERTH_API_KEY");
    });
  });
});

/**
 * charts/berth against a REAL kube-apiserver: `helm install` (the chart's kubeVersion and capability checks),
 * server-side validation of what it renders for several value sets, and the RBAC it grants checked by the real
 * authorizer (`kubectl auth can-i --as`) for every verb and resource the operator and the k8s listener use.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../src/operator/kube/index.js";
import { eventually } from "../fake-apiserver/index.js";
import { helm } from "../helpers/helm.js";
import { realKube, type KubeControlPlane } from "../helpers/kube-apiserver.js";

const kube = realKube();
/**
 * helm's and kubectl's stderr without their warnings (helm 4 logs "level=WARN", kubectl "Warning: " for the 1.34/1.20
 * skew) and without client-go's discovery cache (memcache.go) complaining that our CRD's group version is not served
 * yet: helm creates the CRD, then refreshes discovery, and in the moment before kube-apiserver serves a new CRD's
 * version /apis already lists it (a real server's race, seen in some runs, harmless: discovery is retried).
 */
const quiet = (stderr: string) =>
  stderr
    .replace(/^(level=WARN|WARNING:|Warning:) .*\n?/gm, "")
    .replace(/^E\d{4} [\d:.]+\s+\d+ memcache\.go:\d+\] .*couldn't get resource list for berth\.dev\/v1alpha1: the server could not find the requested resource.*\n?/gm, "");
const CHART = new URL("../../charts/berth", import.meta.url).pathname;
const NS = "berth";
const AGENTS = ["agents", "agents-2"];

/**
 * What the operator and the k8s listener do, verb by resource, where: read off their code (src/operator/controller,
 * src/operator/kube/capabilities.ts, src/runtime/k8s). SSA creates and updates by PATCH; the informers list and watch.
 */
const OPERATOR_USES: [verb: string, resource: string][] = [
  ["get", "agentdeployments.berth.dev"],
  ["list", "agentdeployments.berth.dev"],
  ["watch", "agentdeployments.berth.dev"],
  ["patch", "agentdeployments.berth.dev"], // finalizer (JSON patch)
  ["patch", "agentdeployments.berth.dev/status"],
  ...["deployments.apps", "statefulsets.apps", "services", "secrets"].flatMap((r) => ["get", "list", "watch", "create", "patch"].map((v): [string, string] => [v, r])),
  ...["get", "list", "watch", "create", "patch", "delete"].map((v): [string, string] => [v, "horizontalpodautoscalers.autoscaling"]),
  ["deletecollection", "persistentvolumeclaims"],
  ["create", "events"],
];
const OPERATOR_LEASE_USES: [string, string][] = [
  ["get", "leases.coordination.k8s.io"],
  ["create", "leases.coordination.k8s.io"],
  ["update", "leases.coordination.k8s.io"],
];
const LISTENER_USES: [string, string][] = [
  ["get", "agentdeployments.berth.dev"],
  ["list", "agentdeployments.berth.dev"],
  ["watch", "agentdeployments.berth.dev"],
  ["create", "agentdeployments.berth.dev"],
  ["patch", "agentdeployments.berth.dev"],
  ["delete", "agentdeployments.berth.dev"],
  ...["secrets", "configmaps"].flatMap((r) => ["get", "list", "create", "patch", "delete"].map((v): [string, string] => [v, r])),
  ["get", "jobs.batch"],
  ["list", "jobs.batch"],
  ["create", "jobs.batch"],
  ["delete", "jobs.batch"],
  ["list", "pods"],
  ["get", "pods/log"],
];
/** Granted without being called: blockOwnerDeletion on children needs it where OwnerReferencesPermissionEnforcement is on. */
const OPERATOR_EXTRA: [string, string][] = [["update", "agentdeployments.berth.dev/finalizers"]];

/** Things neither may do (least privilege, also checked by the real authorizer). */
const NEVER: [verb: string, resource: string, namespace: string | undefined][] = [
  ["get", "secrets", "kube-system"],
  ["list", "secrets", "default"],
  ["create", "clusterrolebindings.rbac.authorization.k8s.io", undefined],
  ["create", "pods", AGENTS[0]!],
  ["delete", "nodes", undefined],
  ["escalate", "roles.rbac.authorization.k8s.io", AGENTS[0]!],
];

describe.skipIf(!kube.available)("real kube-apiserver: helm install, server-side validation, RBAC", () => {
  let cp: KubeControlPlane;
  let tmp: string;
  const values = (v: object) => {
    const f = path.join(tmp, `values-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(f, JSON.stringify(v));
    return f;
  };
  const helmK = (args: string[]) => helm([...args, "--kubeconfig", cp.kubeconfigPath], { timeoutMs: 240_000 });
  /**
   * The real authorizer's answer for a ServiceAccount (a SubjectAccessReview as admin, with the groups the token
   * authenticator gives it). `resource` is "plural[.group][/subresource]". (`kubectl auth can-i VERB a/b` would
   * read b as an object *name*, not a subresource: that hid two wrong answers here before.)
   */
  const canI = async (verb: string, resource: string, namespace: string | undefined, sa: string) => {
    const [typed, subresource] = resource.split("/") as [string, string | undefined];
    const dot = typed.indexOf(".");
    const [plural, group] = dot < 0 ? [typed, ""] : [typed.slice(0, dot), typed.slice(dot + 1)];
    const saNs = sa.split(":")[2]!;
    const review = await cp.rest.request<{ status: { allowed: boolean } }>("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
      body: {
        apiVersion: "authorization.k8s.io/v1",
        kind: "SubjectAccessReview",
        spec: { user: sa, groups: ["system:serviceaccounts", `system:serviceaccounts:${saNs}`, "system:authenticated"], resourceAttributes: { verb, group, resource: plural, subresource, namespace } },
      },
    });
    return review.status.allowed ? "yes" : "no";
  };

  beforeAll(async () => {
    cp = await kube.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), "berth-real-chart-"));
    for (const ns of AGENTS) await cp.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
  });
  afterAll(async () => {
    await cp?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it("installs with helm on this server version (CRD Established, every object created)", async () => {
    const r = await helmK([
      "install", "berth", CHART, "--namespace", NS, "--create-namespace",
      "-f", values({ operator: { watchNamespaces: AGENTS, replicas: 2, pdb: { enabled: true } }, controlPlane: { k8sListener: { namespaces: AGENTS }, pdb: { enabled: true } } }),
    ]);
    expect(quiet(r.stderr)).toBe("");
    expect(r.code).toBe(0);
    const crd = await eventually(async () => {
      const c = await cp.rest.request<KubeObject>("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/agentdeployments.berth.dev");
      return ((c.status as { conditions?: { type: string; status: string }[] }).conditions ?? []).some((x) => x.type === "Established" && x.status === "True") && c;
    }, 60_000);
    expect(crd.metadata.name).toBe("agentdeployments.berth.dev");
    const manifest = await helmK(["get", "manifest", "berth", "--namespace", NS]);
    const kinds = [...manifest.stdout.matchAll(/^kind: (\w+)$/gm)].map((m) => m[1]);
    expect(kinds).toEqual(expect.arrayContaining(["Deployment", "StatefulSet", "Role", "RoleBinding", "ServiceAccount", "PodDisruptionBudget"]));
    // everything helm says it installed is on the server
    const got = await cp.kubectl(["get", "deploy,sts,svc,sa,pdb,role,rolebinding", "-n", NS, "-o", "name"]);
    expect(got.stdout).toMatch(/deployment.apps\/berth-operator/);
    expect(got.stdout).toMatch(/statefulset.apps\/berth-postgresql/);
    expect(got.stdout).toMatch(/poddisruptionbudget.policy\/berth-operator/);
    // the real controller-manager acted on them: ReplicaSets for the Deployments
    await eventually(async () => /replicaset.apps\/berth-operator-/.test((await cp.kubectl(["get", "rs", "-n", NS, "-o", "name"])).stdout) || false, 60_000);
  });

  it.each([
    ["defaults", {}],
    ["cluster-wide, external database, ingress", { postgresql: { enabled: false }, controlPlane: { database: { externalUri: "postgres://u:p@db.example.com:5432/berth" }, ingress: { enabled: true, className: "nginx", hosts: [{ host: "berth.example.com", paths: [{ path: "/", pathType: "Prefix" }] }], tls: [{ secretName: "t", hosts: ["berth.example.com"] }] } } }],
    ["namespaced, PDBs, two operators", { operator: { watchNamespaces: AGENTS, replicas: 2, pdb: { enabled: true } }, controlPlane: { replicas: 2, k8sListener: { namespaces: AGENTS }, pdb: { enabled: true } }, commonLabels: { team: "x" }, imagePullSecrets: [{ name: "regcred" }] }],
  ])("renders objects the server accepts (dry-run=server): %s", async (_name, v) => {
    // --dry-run=server: helm asks the server for its capabilities (version, API versions) instead of assuming
    // defaults (helm 4's name for helm 3's --validate)
    const t = await helmK(["template", "dry", CHART, "--namespace", "dry-run", "--dry-run=server", "--skip-crds", "-f", values(v)]);
    expect(quiet(t.stderr)).toBe("");
    expect(t.code).toBe(0);
    const file = path.join(tmp, `rendered-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, t.stdout);
    await cp.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: "dry-run" } } }).catch(() => undefined);
    const r = await cp.kubectl(["apply", "--dry-run=server", "--server-side", "--field-manager", "helm", "-f", file]);
    expect(quiet(r.stderr)).toBe("");
    expect(r.code).toBe(0);
  });

  it("grants the operator exactly what it uses, checked by the real authorizer", async () => {
    const sa = `system:serviceaccount:${NS}:berth-operator`;
    const denied: string[] = [];
    for (const ns of AGENTS) for (const [verb, res] of OPERATOR_USES) if ((await canI(verb, res, ns, sa)) !== "yes") denied.push(`${verb} ${res} -n ${ns}`);
    for (const [verb, res] of OPERATOR_LEASE_USES) if ((await canI(verb, res, NS, sa)) !== "yes") denied.push(`${verb} ${res} -n ${NS}`);
    // discovery and SelfSubjectAccessReview (capabilities.ts): every authenticated identity may
    if ((await canI("create", "selfsubjectaccessreviews.authorization.k8s.io", undefined, sa)) !== "yes") denied.push("create selfsubjectaccessreviews");
    expect(denied).toEqual([]);
    const allowed: string[] = [];
    for (const [verb, res, ns] of NEVER) if ((await canI(verb, res, ns, sa)) === "yes") allowed.push(`${verb} ${res} ${ns ?? "cluster"}`);
    // an unwatched namespace is out of reach
    if ((await canI("list", "deployments.apps", "default", sa)) === "yes") allowed.push("list deployments -n default");
    expect(allowed).toEqual([]);
  });

  it("grants the control plane's k8s listener exactly what it uses, checked by the real authorizer", async () => {
    const sa = `system:serviceaccount:${NS}:berth-control-plane`;
    const denied: string[] = [];
    for (const ns of AGENTS) for (const [verb, res] of LISTENER_USES) if ((await canI(verb, res, ns, sa)) !== "yes") denied.push(`${verb} ${res} -n ${ns}`);
    expect(denied).toEqual([]);
    const allowed: string[] = [];
    for (const [verb, res, ns] of NEVER) if ((await canI(verb, res, ns, sa)) === "yes") allowed.push(`${verb} ${res} ${ns ?? "cluster"}`);
    // it writes CRs, never the operator's children
    for (const [verb, res] of [["patch", "deployments.apps"], ["patch", "agentdeployments.berth.dev/status"], ["update", "agentdeployments.berth.dev/status"]] as const) if ((await canI(verb, res, AGENTS[0], sa)) === "yes") allowed.push(`${verb} ${res}`);
    expect(allowed).toEqual([]);
  });

  it("grants nothing either does not use (the Roles on the server, rule by rule)", async () => {
    const granted = async (role: string, ns: string) => {
      const r = await cp.rest.request<{ rules: { apiGroups: string[]; resources: string[]; verbs: string[] }[] }>("GET", `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles/${role}`);
      return r.rules.flatMap((rule) =>
        rule.apiGroups.flatMap((g) =>
          rule.resources.flatMap((res) => {
            const [plural, sub] = res.split("/");
            return rule.verbs.map((v) => `${v} ${plural}${g ? `.${g}` : ""}${sub ? `/${sub}` : ""}`);
          }),
        ),
      );
    };
    const key = ([v, r]: [string, string]) => `${v} ${r}`;
    const unused = (got: string[], uses: [string, string][]) => got.filter((g) => !uses.map(key).includes(g));
    expect(unused(await granted("berth-operator", AGENTS[0]!), [...OPERATOR_USES, ...OPERATOR_EXTRA])).toEqual([]);
    expect(unused(await granted("berth-operator-leader-election", NS), OPERATOR_LEASE_USES)).toEqual([]);
    expect(unused(await granted("berth-control-plane", AGENTS[0]!), LISTENER_USES)).toEqual([]);
  });

  it("answers the same through kubectl auth can-i --as (subresources with --subresource)", async () => {
    const as = ["--as", `system:serviceaccount:${NS}:berth-control-plane`, "-n", AGENTS[0]!];
    const ask = async (...args: string[]) => (await cp.kubectl(["auth", "can-i", ...args, ...as])).stdout.trim();
    expect(await ask("get", "pods", "--subresource", "log")).toBe("yes");
    expect(await ask("patch", "agentdeployments.berth.dev", "--subresource", "status")).toBe("no");
    expect(await ask("create", "agentdeployments.berth.dev")).toBe("yes");
    expect(await ask("patch", "deployments.apps")).toBe("no");
  });
});

/**
 * The whole Kubernetes path on a REAL kube-apiserver and kube-controller-manager (Deployments → ReplicaSets → Pods,
 * StatefulSets → PVCs, garbage collection by owner references), each Berth component running as the ServiceAccount
 * the chart creates for it, so the chart's RBAC is what the real authorizer checks on every call:
 *
 *   control plane (k8s listener, as berth-control-plane) → Secret + AgentDeployment
 *   → two operators (as berth-operator, leader election on a Lease) → children → real controllers
 *   → the test's stand-in kubelet marks pods Running/Ready → operator status → listener → DEPLOYED.
 *
 * Then: a hand edit reverted, a new revision rolled out across a kube-apiserver restart (every watch breaks), the
 * leader stops and the other replica takes over, and a delete that leaves nothing behind (finalizer → PVCs).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import type { KubeObject } from "../../src/operator/kube/index.js";
import type { OperatorHandle } from "../../src/operator/operator.js";
import { silentLogger } from "../../src/shared/logging.js";
import { eventually } from "../fake-apiserver/index.js";
import { helm } from "../helpers/helm.js";
import { realKube, type KubeControlPlane } from "../helpers/kube-apiserver.js";
import { startTestOperator } from "../helpers/operator.js";
import { createTestDatabase, type TestDatabase } from "../helpers/server.js";

const kube = realKube();
const CHART = new URL("../../charts/berth", import.meta.url).pathname;
const KEY = "berth-real-e2e-admin-key-0123456789abcdef";
const RELEASE_NS = "berth";
const NS = "agents";
type Any = any; // eslint-disable-line @typescript-eslint/no-explicit-any

describe.skipIf(!kube.available)("Kubernetes end to end on a real API server", () => {
  let cp: KubeControlPlane;
  let db: TestDatabase;
  let server: ControlPlaneServerHandle;
  let tmp: string;
  const operators: OperatorHandle[] = [];
  const identities = new Map<OperatorHandle, string>();
  let kubelet: NodeJS.Timeout | undefined;
  let kubeletBusy = false;

  const kubeConfigFile = (file: string) => {
    const kc = new KubeConfig();
    kc.loadFromFile(file);
    return kc;
  };
  const get = (apiVersion: string, kind: string, name: string, ns = NS) => cp.rest.get<KubeObject & Any>(apiVersion, kind, ns, name);
  const list = async (p: string) => (await cp.rest.request<{ items: Any[] }>("GET", p)).items;

  beforeAll(async () => {
    cp = await kube.start();
    tmp = mkdtempSync(path.join(os.tmpdir(), "berth-real-e2e-"));
    await cp.rest.request("POST", "/api/v1/namespaces", { body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NS } } });
    // The chart's CRD, ServiceAccounts and RBAC, as a user installs them.
    const values = path.join(tmp, "values.json");
    writeFileSync(values, JSON.stringify({ operator: { watchNamespaces: [NS], replicas: 2 }, controlPlane: { k8sListener: { namespaces: [NS] } } }));
    const installed = await helm(["install", "berth", CHART, "--namespace", RELEASE_NS, "--create-namespace", "-f", values, "--kubeconfig", cp.kubeconfigPath], { timeoutMs: 240_000 });
    expect(installed.code, installed.stderr).toBe(0);
    await eventually(async () => {
      const c = await cp.rest.request<Any>("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/agentdeployments.berth.dev");
      return (c.status?.conditions ?? []).some((x: Any) => x.type === "Established" && x.status === "True");
    }, 60_000);

    // The stand-in kubelet: binds and "runs" the agents' pods the real controllers create.
    kubelet = setInterval(() => {
      if (kubeletBusy) return;
      kubeletBusy = true;
      cp.runPods(NS)
        .catch(() => undefined)
        .finally(() => (kubeletBusy = false));
    }, 200);

    db = await createTestDatabase("pglite");
    // The control plane's settings as the chart gives them to its pod (its ConfigMap as the environment: among
    // them BERTH_K8S_NAMESPACES, without which the listener lists AgentDeployments in every namespace, which its
    // namespaced Role forbids); only what a pod gets elsewhere (database, keys, port) comes from the test.
    const chartEnv = (await get("v1", "ConfigMap", "berth-control-plane", RELEASE_NS)).data as Record<string, string>;
    expect(chartEnv.BERTH_K8S_NAMESPACES).toBe(NS);
    const settings = resolveControlPlaneSettings(
      { host: "127.0.0.1", port: 0, dataDir: db.dataDir, databaseUri: db.uri, secretsKeys: keyToConfig(generateKey()), apiKey: KEY, logLevel: "silent" },
      chartEnv,
      "control-plane",
    );
    const listenerIdentity = kubeConfigFile(await cp.serviceAccountKubeconfig(RELEASE_NS, "berth-control-plane"));
    server = await startControlPlaneServer(settings, silentLogger, { kubeConfig: listenerIdentity, k8s: { pollMs: 100 } });
    const operatorIdentity = await cp.serviceAccountKubeconfig(RELEASE_NS, "berth-operator");
    for (const identity of ["operator-a", "operator-b"]) {
      const op = await startTestOperator(kubeConfigFile(operatorIdentity), { leaderElect: true, leaseNamespace: RELEASE_NS, leaseName: "berth-operator", identity, namespaces: [NS] }, { resyncMs: 0, discoveryMs: 0 });
      operators.push(op);
      identities.set(op, identity);
    }
  });

  afterAll(async () => {
    clearInterval(kubelet);
    for (const op of operators) await op.close();
    await server?.close();
    await db?.drop();
    await cp?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const api = async (method: string, p: string, body?: unknown): Promise<{ status: number; body: Any }> => {
    const res = await fetch(`${server.url}${p}`, {
      method,
      headers: { "x-api-key": KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const revisionStatus = async (d: string, r: string) => (await api("GET", `/v2/deployments/${d}/revisions/${r}`)).body.status as string;
  const leader = () => operators.find((o) => o.isLeader);

  let deployment: Any;
  let rev1: string;

  it("deploys through the listener and the operator, each as its ServiceAccount", async () => {
    await eventually(() => operators.filter((o) => o.isLeader).length === 1 || false, 60_000);
    const listener = await api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: "real-cluster", compute_config: { k8s_namespaces: [NS] } });
    expect(listener.status).toBe(201);
    const created = await api("POST", "/v2/deployments", {
      name: "support-bot",
      source: "external_container",
      source_config: { listener_id: listener.body.id, listener_config: { k8s_namespace: NS }, resource_spec: { min_scale: 1, max_scale: 3, cpu: 1, memory_mb: 1024 } },
      source_revision_config: { image_uri: "registry.example.com/acme/support-bot:1.0" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-real-1" }],
    });
    expect(created.status).toBe(201);
    deployment = created.body;
    rev1 = deployment.latest_revision_id;
    await eventually(async () => (await revisionStatus(deployment.id, rev1)) === "DEPLOYED" || false, 120_000);

    const ad = await get("berth.dev/v1alpha1", "AgentDeployment", "support-bot");
    expect(ad.spec).toMatchObject({ deploymentId: deployment.id, revisionId: rev1 });
    expect(ad.metadata.finalizers).toContain("berth.dev/cleanup");
    expect(ad.status.conditions.find((c: Any) => c.type === "Ready")).toMatchObject({ status: "True" });
    // the real Deployment controller made ReplicaSets, owned by the Deployments the operator applied
    const apiDep = await get("apps/v1", "Deployment", "support-bot-api");
    expect(apiDep.status.availableReplicas).toBe(1);
    const rss = (await list(`/apis/apps/v1/namespaces/${NS}/replicasets`)).filter((rs) => rs.metadata.ownerReferences?.[0]?.uid === apiDep.metadata.uid);
    expect(rss).toHaveLength(1);
    expect(rss[0].spec.template.spec.containers[0].image).toBe("registry.example.com/acme/support-bot:1.0");
    // the StatefulSet controller made the Postgres claim from the claim template
    const pvcs = await list(`/api/v1/namespaces/${NS}/persistentvolumeclaims`);
    expect(pvcs.map((p) => p.metadata.name)).toEqual(["data-support-bot-postgres-0"]);
    const secret = await get("v1", "Secret", ad.spec.secretRef.name);
    expect(Buffer.from(secret.data.OPENAI_API_KEY, "base64").toString()).toBe("sk-real-1");
    expect((await api("GET", `/v2/deployments/${deployment.id}`)).body).toMatchObject({ status: "READY", active_revision_id: rev1 });
  });

  it("puts back a child edited by hand", async () => {
    const patched = await cp.kubectl(["-n", NS, "set", "image", "deployment/support-bot-api", "agent-server=evil.example.com/miner:1"]);
    expect(patched.code, patched.stderr).toBe(0);
    await eventually(async () => (await get("apps/v1", "Deployment", "support-bot-api")).spec.template.spec.containers[0].image === "registry.example.com/acme/support-bot:1.0" || false, 60_000);
  });

  it("rolls out a new revision after kube-apiserver restarted under the watches", async () => {
    await cp.restartApiServer();
    const patched = await api("PATCH", `/v2/deployments/${deployment.id}`, { source_revision_config: { image_uri: "registry.example.com/acme/support-bot:1.1" }, secrets: [{ name: "OPENAI_API_KEY", value: "sk-real-2" }] });
    expect(patched.status).toBe(200);
    const rev2 = patched.body.latest_revision_id as string;
    expect(rev2).not.toBe(rev1);
    await eventually(async () => (await revisionStatus(deployment.id, rev2)) === "DEPLOYED" || false, 120_000);
    const ad = await get("berth.dev/v1alpha1", "AgentDeployment", "support-bot");
    expect(ad.status).toMatchObject({ latestCreatedRevision: rev2, latestReadyRevision: rev2 });
    const apiDep = await get("apps/v1", "Deployment", "support-bot-api");
    // a ReplicaSet for the new template; the old ones scaled to 0 by the real rollout — including the one the real
    // Deployment controller made for the hand edit above before the operator put the template back (the fake has
    // no ReplicaSets at all)
    const rss = (await list(`/apis/apps/v1/namespaces/${NS}/replicasets`)).filter((rs) => rs.metadata.ownerReferences?.[0]?.uid === apiDep.metadata.uid);
    const byImage = Object.fromEntries(rss.map((rs) => [rs.spec.template.spec.containers[0].image, rs.spec.replicas]));
    expect(byImage).toEqual({ "registry.example.com/acme/support-bot:1.0": 0, "registry.example.com/acme/support-bot:1.1": 1, "evil.example.com/miner:1": 0 });
    // No assertion on berth_operator_watch_restarts_total here: a kube-apiserver stopping gracefully ends its watch
    // streams cleanly, and client-node's ListWatch re-watches without an error, so the counter (errors only) may
    // stay 0 — the rollout above arriving through the re-established watches is the proof.
  });

  it("fails over to the other replica when the leader stops", async () => {
    const first = leader()!;
    const other = operators.find((o) => o !== first)!;
    await first.close();
    operators.splice(operators.indexOf(first), 1);
    await eventually(() => other.isLeader || false, 60_000);
    const lease = await get("coordination.k8s.io/v1", "Lease", "berth-operator", RELEASE_NS);
    expect(lease.spec.holderIdentity).toBe(identities.get(other));
    // the new leader acts: a hand edit made after it took over is reverted by it (its first apply of each child
    // does not trust the spec-hash annotation, which a `kubectl scale` leaves as the previous leader wrote it)
    await eventually(() => other.controller?.hasSynced || false, 60_000);
    const scaled = await cp.kubectl(["-n", NS, "scale", "deployment/support-bot-redis", "--replicas=3"]);
    expect(scaled.code, scaled.stderr).toBe(0);
    await eventually(async () => (await get("apps/v1", "Deployment", "support-bot-redis")).spec.replicas === 1 || false, 60_000);
    // a reconcile is counted once it returns, after its writes
    await eventually(() => other.controller!.stats.writes > 0 || false, 60_000);
  });

  it("deletes everything: the finalizer removes the Postgres claims, garbage collection the children", async () => {
    const ad = await get("berth.dev/v1alpha1", "AgentDeployment", "support-bot");
    expect((await api("DELETE", `/v2/deployments/${deployment.id}`)).status).toBe(204);
    await eventually(async () => (await api("GET", `/v2/deployments/${deployment.id}`)).status === 404 || false, 120_000);
    expect(await get("berth.dev/v1alpha1", "AgentDeployment", "support-bot")).toBeUndefined();
    expect(await get("v1", "Secret", ad.spec.secretRef.name)).toBeUndefined();
    // the real garbage collector removes what the CR owned, and what those owned (ReplicaSets, pods)
    await eventually(async () => {
      const left = [
        ...(await list(`/apis/apps/v1/namespaces/${NS}/deployments`)),
        ...(await list(`/apis/apps/v1/namespaces/${NS}/statefulsets`)),
        ...(await list(`/apis/apps/v1/namespaces/${NS}/replicasets`)),
        ...(await list(`/api/v1/namespaces/${NS}/pods`)),
        ...(await list(`/api/v1/namespaces/${NS}/persistentvolumeclaims`)),
        ...(await list(`/api/v1/namespaces/${NS}/services`)),
      ].map((o) => `${o.kind ?? ""}${o.metadata.name}`);
      expect(left).toEqual([]);
    }, 120_000);
  });
});

/**
 * The operator end to end against the in-process fake API server (real HTTP, client-node watches):
 * an AgentDeployment becomes its children and a Ready status; a new revision rolls out; a stalled
 * rollout fails with the reason; deletion runs the finalizer; dropped watches and 410s are survived;
 * only the leader of two replicas acts; probes and metrics answer.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KubeRest, type KubeObject } from "../../src/operator/kube/index.js";
import { FINALIZER } from "../../src/operator/controller/reconcile.js";
import type { OperatorHandle } from "../../src/operator/operator.js";
import { eventually, startFakeApiServer, type FakeApiServer } from "../fake-apiserver/index.js";
import { agentDeploymentObject, startTestOperator } from "../helpers/operator.js";

const NS = "agents";
const AD = ["berth.dev/v1alpha1", "AgentDeployment"] as const;

let fake: FakeApiServer;
let rest: KubeRest;
const operators: OperatorHandle[] = [];

beforeEach(async () => {
  fake = await startFakeApiServer({ kubelet: { delayMs: 10 } });
  rest = new KubeRest(fake.kubeConfig());
});

afterEach(async () => {
  for (const op of operators.splice(0)) await op.close();
  rest.close();
  await fake.close();
});

async function operator(overrides: Parameters<typeof startTestOperator>[1] = {}, options: Parameters<typeof startTestOperator>[2] = {}): Promise<OperatorHandle> {
  const op = await startTestOperator(fake.kubeConfig(), overrides, options);
  operators.push(op);
  return op;
}

const ad = (name: string) => fake.get(...AD, NS, name);
const condition = (obj: any, type: string) => obj?.status?.conditions?.find((c: any) => c.type === type);
const ready = (name: string) => eventually(() => {
  const o = ad(name);
  expect(condition(o, "Ready")?.status).toBe("True");
  return o;
}, 60_000);

describe("operator", () => {
  it("renders an AgentDeployment into owned children, adds its finalizer and reports Ready", async () => {
    await operator();
    const created = await rest.create(agentDeploymentObject("alpha", NS));
    const done = await ready("alpha");
    expect(done.metadata.finalizers).toContain(FINALIZER);
    expect(done.status).toMatchObject({
      observedGeneration: 1,
      latestCreatedRevision: (created.spec as any).revisionId,
      latestReadyRevision: (created.spec as any).revisionId,
      url: `http://alpha-api.${NS}.svc:8000`,
    });
    for (const [apiVersion, kind, name] of [
      ["apps/v1", "Deployment", "alpha-api"],
      ["apps/v1", "Deployment", "alpha-queue"],
      ["apps/v1", "Deployment", "alpha-redis"],
      ["apps/v1", "StatefulSet", "alpha-postgres"],
      ["v1", "Service", "alpha-api"],
      ["v1", "Service", "alpha-postgres"],
      ["v1", "Secret", "alpha-postgres-auth"],
      ["autoscaling/v2", "HorizontalPodAutoscaler", "alpha-api"],
    ] as const) {
      const child = fake.get(apiVersion, kind, NS, name);
      expect(child, `${kind} ${name}`).toBeDefined();
      expect(child.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "AgentDeployment", name: "alpha", uid: done.metadata.uid, controller: true })]);
    }
    const conds = done.status.conditions.map((c: any) => [c.type, c.status]);
    expect(conds).toEqual([["DatabaseReady", "True"], ["KVStoreReady", "True"], ["APIServerReady", "True"], ["QueueReady", "True"], ["Ready", "True"], ["ClusterSupported", "True"]]);
    await eventually(() => expect(fake.list("v1", "Event", NS).some((e) => e.reason === "Ready" && e.involvedObject.name === "alpha")).toBe(true));
  });

  it("rolls out a new revision, keeps the Postgres password, and reports the new revision ready", async () => {
    await operator();
    await rest.create(agentDeploymentObject("beta", NS));
    const first = await ready("beta");
    const password = fake.get("v1", "Secret", NS, "beta-postgres-auth").data.password;
    await rest.mergePatch({ apiVersion: AD[0], kind: AD[1], namespace: NS, name: "beta" }, { spec: { revisionId: "0b8c7a4e-1111-4a2b-9c3d-5e6f7a8b9c0d", image: "registry.example.com/agents/demo:2" } });
    const second = await eventually(() => {
      const o = ad("beta");
      expect(o.status.latestReadyRevision).toBe("0b8c7a4e-1111-4a2b-9c3d-5e6f7a8b9c0d");
      expect(o.status.observedGeneration).toBe(2);
      return o;
    }, 60_000);
    expect(second.status.latestCreatedRevision).toBe("0b8c7a4e-1111-4a2b-9c3d-5e6f7a8b9c0d");
    const api = fake.get("apps/v1", "Deployment", NS, "beta-api");
    expect(api.spec.template.spec.containers[0].image).toBe("registry.example.com/agents/demo:2");
    expect(api.spec.template.metadata.annotations["berth.dev/revision-id"]).toBe("0b8c7a4e-1111-4a2b-9c3d-5e6f7a8b9c0d");
    expect(fake.get("v1", "Secret", NS, "beta-postgres-auth").data.password).toBe(password);
    expect(first.metadata.uid).toBe(second.metadata.uid);
  });

  it("reports a rollout that exceeds its progress deadline as Ready=False with the reason, and a Warning event", async () => {
    fake.kubelet.deployment = (d) => (String(d.spec?.template?.spec?.containers?.[0]?.image).includes("broken") ? "stall" : "ready");
    await operator();
    await rest.create(agentDeploymentObject("gamma", NS, { image: "registry.example.com/agents/broken:1" }));
    const failed = await eventually(() => {
      const o = ad("gamma");
      expect(condition(o, "Ready")).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
      return o;
    }, 60_000);
    expect(condition(failed, "APIServerReady").message).toContain("timed out progressing");
    expect(failed.status.latestReadyRevision).toBeUndefined();
    await eventually(() => expect(fake.list("v1", "Event", NS).some((e) => e.type === "Warning" && e.reason === "ProgressDeadlineExceeded")).toBe(true));
  });

  it("on delete, removes the Postgres volume claims in its finalizer; garbage collection takes the children", async () => {
    await operator();
    await rest.create(agentDeploymentObject("delta", NS));
    await ready("delta");
    await eventually(() => expect(fake.list("v1", "PersistentVolumeClaim", NS).filter((p) => p.metadata.name.includes("delta")).length).toBe(1));
    await rest.remove({ apiVersion: AD[0], kind: AD[1], namespace: NS, name: "delta" });
    await eventually(() => {
      expect(ad("delta")).toBeUndefined();
      expect(fake.list("v1", "PersistentVolumeClaim", NS).filter((p) => p.metadata.name.includes("delta"))).toEqual([]);
      expect(fake.get("apps/v1", "Deployment", NS, "delta-api")).toBeUndefined();
      expect(fake.get("apps/v1", "StatefulSet", NS, "delta-postgres")).toBeUndefined();
      return true;
    }, 60_000);
  });

  it("drops the HPA when min_scale goes to 0 and keeps an autoscaled replica count", async () => {
    await operator();
    await rest.create(agentDeploymentObject("eps", NS, { resourceSpec: { min_scale: 1, max_scale: 5 } }));
    await ready("eps");
    // the HPA scaled the API up: a reconcile must not reset it
    await rest.mergePatch({ apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "eps-api" }, { spec: { replicas: 3 } });
    const current = ad("eps");
    await rest.mergePatch({ apiVersion: AD[0], kind: AD[1], namespace: NS, name: "eps" }, { spec: { image: "registry.example.com/agents/demo:3" } });
    await eventually(() => expect(ad("eps").status.observedGeneration).toBeGreaterThan(current.metadata.generation), 60_000);
    await eventually(() => expect(fake.get("apps/v1", "Deployment", NS, "eps-api").spec.template.spec.containers[0].image).toBe("registry.example.com/agents/demo:3"));
    expect(fake.get("apps/v1", "Deployment", NS, "eps-api").spec.replicas).toBe(3);
    const spec = structuredClone(ad("eps").spec);
    spec.resourceSpec.min_scale = 0;
    await rest.mergePatch({ apiVersion: AD[0], kind: AD[1], namespace: NS, name: "eps" }, { spec: { resourceSpec: spec.resourceSpec } });
    await eventually(() => expect(fake.get("autoscaling/v2", "HorizontalPodAutoscaler", NS, "eps-api")).toBeUndefined(), 60_000);
  });

  it("survives dropped watches and a 410 Gone: later changes are still reconciled", async () => {
    await operator();
    await rest.create(agentDeploymentObject("zeta", NS));
    await ready("zeta");
    fake.closeWatches();
    await rest.create(agentDeploymentObject("eta", NS));
    await ready("eta");
    fake.compact();
    fake.closeWatches();
    await rest.create(agentDeploymentObject("theta", NS));
    await ready("theta");
    // a child edited by hand is put back (its generation moved), and one deleted by hand comes back
    await rest.mergePatch({ apiVersion: "apps/v1", kind: "Deployment", namespace: NS, name: "zeta-api" }, { spec: { template: { spec: { containers: [{ name: "agent-server", image: "evil:latest" }] } } } });
    await eventually(() => expect(fake.get("apps/v1", "Deployment", NS, "zeta-api").spec.template.spec.containers[0].image).toBe("registry.example.com/agents/demo:1"), 60_000);
    // (deleted)
    await rest.remove({ apiVersion: "v1", kind: "Service", namespace: NS, name: "zeta-api" });
    await eventually(() => expect(fake.get("v1", "Service", NS, "zeta-api")).toBeDefined(), 60_000);
  });

  it("retries a failed apply with backoff until it succeeds", async () => {
    const op = await operator();
    fake.failNext({ verb: "patch", resource: "deployments" }, 500, 3);
    await rest.create(agentDeploymentObject("iota", NS));
    await ready("iota");
    expect(op.controller!.stats.errors).toBeGreaterThanOrEqual(1);
    const metrics = await (await fetch(`${op.url}/metrics`)).text();
    expect(metrics).toMatch(/controller_runtime_reconcile_total\{controller="agentdeployment",result="error"\} [1-9]/);
    expect(metrics).toMatch(/rest_client_requests_total\{verb="patch",code="500"\} 3/);
  });

  it("does nothing in steady state: a resync makes no writes", async () => {
    const op = await operator();
    for (const n of ["k1", "k2", "k3"]) await rest.create(agentDeploymentObject(n, NS));
    for (const n of ["k1", "k2", "k3"]) await ready(n);
    await eventually(() => expect(op.controller!.idle).toBe(true));
    const before = op.controller!.stats.writes;
    fake.resetRequests();
    op.controller!.resync();
    await eventually(() => expect(op.controller!.stats.reconciles).toBeGreaterThan(0));
    await eventually(() => expect(op.controller!.idle).toBe(true));
    expect(op.controller!.stats.writes).toBe(before);
    // (Events are fire-and-forget notes of earlier transitions and may land late: not writes of this pass)
    expect(fake.requests.filter((r) => !["get", "list", "watch"].includes(r.verb) && r.resource !== "events")).toEqual([]);
  });

  it("watches only its namespaces when told to", async () => {
    await operator({ namespaces: ["team-a"] });
    await rest.create(agentDeploymentObject("mine", "team-a"));
    await rest.create(agentDeploymentObject("theirs", "team-b"));
    await eventually(() => expect(condition(fake.get(...AD, "team-a", "mine"), "Ready")?.status).toBe("True"), 60_000);
    expect(fake.get(...AD, "team-b", "theirs").status).toBeUndefined();
    expect(fake.get("apps/v1", "Deployment", "team-b", "theirs-api")).toBeUndefined();
  });

  it("serves /healthz and /readyz", async () => {
    const op = await operator();
    expect((await fetch(`${op.url}/healthz`)).status).toBe(200);
    await eventually(async () => expect((await fetch(`${op.url}/readyz`)).status).toBe(200));
    expect((await fetch(`${op.url}/nope`)).status).toBe(404);
  });
});

describe("leader election", () => {
  it("lets only the leader of two replicas act, and the other take over when it stops", async () => {
    const a = await operator({ leaderElect: true, leaseNamespace: "berth", leaseName: "berth-operator", identity: "replica-a" });
    await eventually(() => expect(a.isLeader).toBe(true));
    const b = await operator({ leaderElect: true, leaseNamespace: "berth", leaseName: "berth-operator", identity: "replica-b" });
    await rest.create(agentDeploymentObject("lambda", NS));
    await ready("lambda");
    expect(b.isLeader).toBe(false);
    expect(b.controller).toBeUndefined();
    // the follower made no writes other than trying the lease
    const follower = await (await fetch(`${b.url}/metrics`)).text();
    expect(follower).not.toMatch(/rest_client_requests_total\{verb="patch"/);
    expect(fake.get("coordination.k8s.io/v1", "Lease", "berth", "berth-operator").spec.holderIdentity).toBe("replica-a");
    // the leader stops and releases the lease: the follower takes over and reconciles new work
    await a.close();
    operators.splice(operators.indexOf(a), 1);
    await eventually(() => expect(b.isLeader).toBe(true), 60_000);
    await rest.create(agentDeploymentObject("mu", NS));
    await ready("mu");
    const lease = fake.get("coordination.k8s.io/v1", "Lease", "berth", "berth-operator");
    expect(lease.spec).toMatchObject({ holderIdentity: "replica-b", leaseTransitions: 1 });
  });

  it("takes over from a leader that vanished without releasing, after the lease expires", async () => {
    const a = await operator({ leaderElect: true, leaseNamespace: "berth", leaseName: "l2", identity: "crashy" });
    await eventually(() => expect(a.isLeader).toBe(true));
    // simulate a crash: the API becomes unreachable for it (it stops renewing) but never releases
    await rest.mergePatch({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", namespace: "berth", name: "l2" }, { spec: { holderIdentity: "ghost", renewTime: new Date().toISOString().replace("Z", "000Z") } });
    const b = await operator({ leaderElect: true, leaseNamespace: "berth", leaseName: "l2", identity: "heir" });
    await a.close();
    operators.splice(operators.indexOf(a), 1);
    expect(b.isLeader).toBe(false);
    await eventually(() => expect(b.isLeader).toBe(true), 60_000);
  });
});

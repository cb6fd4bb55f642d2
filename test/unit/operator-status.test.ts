/**
 * The AgentDeployment status as a pure function of its children: rollout rules, progress-deadline
 * failures, conditions that keep their transition time, latest ready revision.
 */
import { describe, expect, it } from "vitest";
import { computeStatus, deploymentVerdict, nextConditions, readyTransition, sameJson, statefulSetVerdict, type ObservedChildren } from "../../src/operator/controller/status.js";
import type { KubeObject } from "../../src/operator/kube/index.js";

const dep = (generation: number, replicas: number, status: Record<string, unknown>): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "d", namespace: "ns", generation },
  spec: { replicas },
  status,
});
const done = (generation: number, n: number) => dep(generation, n, { observedGeneration: generation, replicas: n, updatedReplicas: n, readyReplicas: n, availableReplicas: n });
const sts = (ready: number, observed = 1): KubeObject => ({ apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "p", namespace: "ns", generation: 1 }, spec: { replicas: 1 }, status: { observedGeneration: observed, readyReplicas: ready } });

const all = (over: Partial<ObservedChildren> = {}): ObservedChildren => ({
  api: { object: done(2, 1), current: true },
  queue: { object: done(1, 1), current: true },
  redis: { object: done(1, 1), current: true },
  postgres: { object: sts(1), current: true },
  ...over,
});

const base = { generation: 3, revisionId: "rev-2", url: "http://x-api.ns.svc:8000", previous: undefined, now: "2026-11-21T10:00:00.000Z" };
const cond = (s: ReturnType<typeof computeStatus>, type: string) => s.conditions!.find((c) => c.type === type)!;

describe("rollout verdicts", () => {
  it("a Deployment is rolled out when its generation is observed and every replica is updated and available", () => {
    expect(deploymentVerdict({ object: done(4, 3), current: true }, "API").status).toBe("True");
    expect(deploymentVerdict({ object: dep(4, 3, { observedGeneration: 3, replicas: 3, updatedReplicas: 3, availableReplicas: 3 }), current: true }, "API")).toMatchObject({ status: "Unknown", reason: "RollingOut" });
    expect(deploymentVerdict({ object: dep(4, 3, { observedGeneration: 4, replicas: 4, updatedReplicas: 3, availableReplicas: 3 }), current: true }, "API").message).toContain("old replicas");
    expect(deploymentVerdict({ object: dep(4, 3, { observedGeneration: 4, replicas: 3, updatedReplicas: 3, availableReplicas: 2 }), current: true }, "API").message).toContain("2 of 3");
    expect(deploymentVerdict({ object: dep(4, 0, { observedGeneration: 4 }), current: true }, "Queue").status).toBe("True");
  });

  it("a stalled rollout is a failure with the Deployment controller's message", () => {
    const stalled = dep(2, 1, {
      observedGeneration: 2,
      conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: 'ReplicaSet "x-api-1" has timed out progressing.' }],
    });
    expect(deploymentVerdict({ object: stalled, current: true }, "API")).toEqual({ status: "False", reason: "ProgressDeadlineExceeded", message: 'ReplicaSet "x-api-1" has timed out progressing.' });
  });

  it("a child that does not carry the current render says nothing yet; a missing one is being created", () => {
    expect(deploymentVerdict({ object: done(1, 1), current: false }, "API")).toMatchObject({ status: "Unknown", reason: "Updating" });
    expect(deploymentVerdict(undefined, "API")).toMatchObject({ status: "Unknown", reason: "Creating" });
  });

  it("the database is ready once the StatefulSet's replica is ready at its generation", () => {
    expect(statefulSetVerdict({ object: sts(1), current: true }).status).toBe("True");
    expect(statefulSetVerdict({ object: sts(0), current: true }).reason).toBe("Provisioning");
    expect(statefulSetVerdict({ object: sts(1, 0), current: true }).reason).toBe("Provisioning");
  });
});

describe("computeStatus", () => {
  it("is Ready with the revision as latest ready, URL and replica counts when every part is", () => {
    const s = computeStatus({ ...base, children: all() });
    expect(cond(s, "Ready")).toMatchObject({ status: "True", reason: "AllComponentsReady", observedGeneration: 3 });
    expect(s).toMatchObject({ observedGeneration: 3, latestCreatedRevision: "rev-2", latestReadyRevision: "rev-2", url: base.url, replicas: { api: 1, queue: 1, readyApi: 1, readyQueue: 1 } });
    expect(s.conditions!.map((c) => c.type)).toEqual(["DatabaseReady", "KVStoreReady", "APIServerReady", "QueueReady", "Ready", "ClusterSupported"]);
  });

  it("keeps the previous ready revision while a new one rolls out", () => {
    const previous = computeStatus({ ...base, revisionId: "rev-1", children: all() });
    const s = computeStatus({ ...base, previous, children: all({ api: { object: done(1, 1), current: false } }) });
    expect(s).toMatchObject({ latestCreatedRevision: "rev-2", latestReadyRevision: "rev-1" });
    expect(cond(s, "Ready")).toMatchObject({ status: "Unknown", reason: "Reconciling" });
    expect(cond(s, "Ready").message).toContain("APIServerReady");
  });

  it("fails Ready with the first failing part; waits on the database first", () => {
    const stalled = dep(2, 1, { observedGeneration: 2, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "timed out" }] });
    expect(cond(computeStatus({ ...base, children: all({ api: { object: stalled, current: true } }) }), "Ready")).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
    const waiting = computeStatus({ ...base, children: all({ postgres: { object: sts(0), current: true } }) });
    expect(cond(waiting, "DatabaseReady").status).toBe("Unknown");
    expect(cond(waiting, "Ready").message).toContain("DatabaseReady");
  });

  it("an invalid spec fails every condition with the reason", () => {
    const s = computeStatus({ ...base, children: {}, invalid: "spec.image: Required" });
    expect(s.conditions!.every((c) => c.status === "False" && c.reason === "InvalidSpec" && c.message === "spec.image: Required")).toBe(true);
  });

  it("is the same value when nothing changed, so it is not written again", () => {
    const first = computeStatus({ ...base, children: all() });
    const again = computeStatus({ ...base, previous: first, children: all(), now: "2026-11-21T11:00:00.000Z" });
    expect(sameJson(first, again)).toBe(true);
  });
});

describe("conditions and events", () => {
  it("keeps lastTransitionTime while the status stays, and moves it when it changes", () => {
    const t0 = nextConditions(undefined, { DatabaseReady: { status: "Unknown", reason: "Provisioning", message: "" } } as never, 1, "T0");
    const t1 = nextConditions(t0, { DatabaseReady: { status: "Unknown", reason: "Provisioning", message: "still" } } as never, 1, "T1");
    const t2 = nextConditions(t1, { DatabaseReady: { status: "True", reason: "DatabaseReady", message: "" } } as never, 2, "T2");
    expect([t0[0]!.lastTransitionTime, t1[0]!.lastTransitionTime, t2[0]!.lastTransitionTime]).toEqual(["T0", "T0", "T2"]);
  });

  it("reports Ready transitions once: Normal when ready, Warning with the reason when failed", () => {
    const ready = computeStatus({ ...base, children: all() });
    expect(readyTransition(undefined, ready)).toMatchObject({ type: "Normal", reason: "Ready" });
    expect(readyTransition(ready, ready)).toBeUndefined();
    const failed = computeStatus({ ...base, previous: ready, children: all({ api: { object: dep(2, 1, { observedGeneration: 2, conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded", message: "m" }] }), current: true } }) });
    expect(readyTransition(ready, failed)).toMatchObject({ type: "Warning", reason: "ProgressDeadlineExceeded" });
  });
});

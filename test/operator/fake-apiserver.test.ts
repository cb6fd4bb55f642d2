/**
 * The fake Kubernetes API server (test/fake-apiserver), exercised through the real
 * @kubernetes/client-node 1.4 APIs the operator and the control plane use.
 */
import { readFileSync } from "node:fs";
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  Watch,
  makeInformer,
  setHeaderOptions,
  type KubeConfig,
  type Informer,
  type KubernetesObject,
  type ObjectCache,
} from "@kubernetes/client-node";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { eventually, startFakeApiServer, type FakeApiServer } from "../fake-apiserver/index.js";

let api: FakeApiServer;
let kc: KubeConfig;
let objects: KubernetesObjectApi;
const informers: (Informer<KubernetesObject> & ObjectCache<KubernetesObject>)[] = [];
const watches: AbortController[] = [];

beforeEach(async () => {
  api = await startFakeApiServer();
  kc = api.kubeConfig();
  objects = KubernetesObjectApi.makeApiClient(kc);
});

afterEach(async () => {
  for (const i of informers.splice(0)) await i.stop();
  for (const w of watches.splice(0)) w.abort();
  await api.close();
});

const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

/** The metav1.Status of a failed client-node call. */
async function failure(p: Promise<unknown>): Promise<{ code: number; status: any }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiException) {
      return { code: err.code, status: typeof err.body === "string" ? JSON.parse(err.body) : err.body };
    }
    throw err;
  }
  throw new Error("expected the call to fail");
}

async function raw(path: string, init: RequestInit = {}): Promise<{ status: number; body: any; text: string }> {
  const res = await fetch(api.url + path, init);
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

function deployment(name: string, extra: Record<string, any> = {}): any {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: "default", ...(extra.metadata ?? {}) },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "main", image: "example/app:1" }] } },
      ...(extra.spec ?? {}),
    },
  };
}

function agent(name: string, spec: Record<string, any> = { image: "agent:1" }, metadata: Record<string, any> = {}): any {
  return { apiVersion: "berth.dev/v1alpha1", kind: "AgentDeployment", metadata: { name, namespace: "default", ...metadata }, spec };
}

/** Collect the events of a raw client-node Watch. */
async function watchEvents(path: string, query: Record<string, string>) {
  const events: { type: string; object: any }[] = [];
  const state: { done?: unknown; ended: boolean } = { ended: false };
  const ctrl = await new Watch(kc).watch(
    path,
    query,
    (type, object) => events.push({ type, object }),
    (err) => {
      state.done = err;
      state.ended = true;
    },
  );
  watches.push(ctrl);
  return { events, state };
}

function startInformer(path: string, list: () => Promise<any>, labelSelector?: string) {
  const informer = makeInformer(kc, path, list, labelSelector);
  informers.push(informer);
  const log: string[] = [];
  informer.on("add", (o) => log.push(`add ${o.metadata?.name}`));
  informer.on("update", (o) => log.push(`update ${o.metadata?.name}`));
  informer.on("delete", (o) => log.push(`delete ${o.metadata?.name}`));
  return { informer, log };
}

describe("discovery and KubernetesObjectApi", () => {
  it("serves the discovery documents client-node and kubectl read", async () => {
    const versions = await raw("/api");
    expect(versions.body).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const groups = await raw("/apis");
    const names = groups.body.groups.map((g: any) => g.name);
    expect(names).toEqual(expect.arrayContaining(["apps", "batch", "autoscaling", "coordination.k8s.io", "events.k8s.io", "apiextensions.k8s.io", "berth.dev"]));
    const apps = await raw("/apis/apps/v1");
    const deployments = apps.body.resources.filter((r: any) => r.kind === "Deployment");
    expect(deployments.map((r: any) => r.name)).toEqual(["deployments", "deployments/status"]);
    expect(deployments[0]).toMatchObject({ singularName: "deployment", namespaced: true, shortNames: ["deploy"], verbs: expect.arrayContaining(["watch", "patch"]) });
    const berth = await raw("/apis/berth.dev/v1alpha1");
    expect(berth.body.resources[0]).toMatchObject({ name: "agentdeployments", singularName: "agentdeployment", shortNames: ["ad"], namespaced: true, kind: "AgentDeployment" });
    expect(berth.body.resources[1]).toMatchObject({ name: "agentdeployments/status", verbs: ["get", "patch", "update"] });
    const core = await raw("/api/v1");
    expect(core.body.resources.find((r: any) => r.name === "namespaces")).toMatchObject({ namespaced: false });
    expect(core.body.resources.map((r: any) => r.name)).toContain("pods/log");
    expect((await raw("/version")).body.major).toBe("1");
    expect((await raw("/healthz")).text).toBe("ok");
    expect((await raw("/apis/nope.example.com/v1")).status).toBe(404);
  });

  it("creates, reads, lists, patches and deletes every served kind", async () => {
    const podSpec = { containers: [{ name: "c", image: "busybox:1.36" }] };
    const template = { metadata: { labels: { app: "w" } }, spec: podSpec };
    const samples: any[] = [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } },
      { apiVersion: "v1", kind: "Secret", metadata: { name: "s1" }, stringData: { password: "hunter2" } },
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1" }, data: { a: "1" } },
      { apiVersion: "v1", kind: "Service", metadata: { name: "svc1" }, spec: { selector: { app: "w" }, ports: [{ port: 80 }] } },
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "sa1" } },
      { apiVersion: "v1", kind: "Pod", metadata: { name: "pod1" }, spec: podSpec },
      { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "pvc1" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } },
      { apiVersion: "v1", kind: "Event", metadata: { name: "ev1" }, involvedObject: { kind: "Pod", name: "pod1", namespace: "default" }, reason: "Test", message: "hello" },
      { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "dep1" }, spec: { selector: { matchLabels: { app: "w" } }, template } },
      { apiVersion: "apps/v1", kind: "StatefulSet", metadata: { name: "sts1" }, spec: { serviceName: "svc1", selector: { matchLabels: { app: "w" } }, template } },
      { apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name: "rs1" }, spec: { selector: { matchLabels: { app: "w" } }, template } },
      {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "hpa1" },
        spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "dep1" }, minReplicas: 2, maxReplicas: 5 },
      },
      { apiVersion: "batch/v1", kind: "Job", metadata: { name: "job1" }, spec: { template: { spec: { ...podSpec, restartPolicy: "Never" } } } },
      { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "lease1" }, spec: { holderIdentity: "me", leaseDurationSeconds: 15 } },
      {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "ev2" },
        eventTime: "2025-01-01T00:00:00.000000Z",
        reportingController: "berth.dev/operator",
        reportingInstance: "op-1",
        action: "Reconcile",
        reason: "Ready",
        type: "Normal",
        regarding: { kind: "Pod", name: "pod1", namespace: "default" },
      },
      agent("ad1"),
    ];
    for (const sample of samples) {
      const created = await objects.create(structuredClone(sample));
      expect(created.metadata?.uid, sample.kind).toBeTruthy();
      const read = await objects.read({ apiVersion: sample.apiVersion, kind: sample.kind, metadata: { name: sample.metadata.name, namespace: "default" } });
      expect(read.metadata?.name).toBe(sample.metadata.name);
      const listed = await objects.list(sample.apiVersion, sample.kind, sample.kind === "Namespace" ? undefined : "default");
      expect(listed.items.map((i) => i.metadata?.name)).toContain(sample.metadata.name);
      const patched = await objects.patch(
        { apiVersion: sample.apiVersion, kind: sample.kind, metadata: { name: sample.metadata.name, namespace: "default", labels: { patched: "yes" } } },
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.MergePatch,
      );
      expect(patched.metadata?.labels?.patched, sample.kind).toBe("yes");
    }
    // Server-side defaulting and conversions, like kube-apiserver.
    expect(api.get("v1", "Secret", "default", "s1").data).toEqual({ password: Buffer.from("hunter2").toString("base64") });
    expect(api.get("v1", "Service", "default", "svc1").spec).toMatchObject({ type: "ClusterIP", clusterIP: expect.stringMatching(/^10\.96\./), ports: [{ port: 80, targetPort: 80, protocol: "TCP" }] });
    expect(api.get("apps/v1", "Deployment", "default", "dep1").spec).toMatchObject({ replicas: 1, revisionHistoryLimit: 10 });
    expect(api.get("v1", "Namespace", undefined, "team-a").status).toEqual({ phase: "Active" });

    for (const sample of [...samples].reverse()) {
      if (sample.kind === "Namespace") continue;
      await objects.delete({ apiVersion: sample.apiVersion, kind: sample.kind, metadata: { name: sample.metadata.name, namespace: "default" } });
      const gone = await failure(objects.read({ apiVersion: sample.apiVersion, kind: sample.kind, metadata: { name: sample.metadata.name, namespace: "default" } }));
      expect(gone.code, sample.kind).toBe(404);
      expect(gone.status).toMatchObject({ kind: "Status", status: "Failure", reason: "NotFound", code: 404, details: { name: sample.metadata.name } });
    }
  });

  it("lists built-in items without apiVersion/kind (like kube-apiserver) but custom resources with them", async () => {
    await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c1", namespace: "default" } } as any);
    await objects.create(agent("a1"));
    const cms = await raw("/api/v1/namespaces/default/configmaps");
    expect(cms.body).toMatchObject({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    expect(cms.body.items[0].kind).toBeUndefined();
    const ads = await raw("/apis/berth.dev/v1alpha1/namespaces/default/agentdeployments");
    expect(ads.body.items[0]).toMatchObject({ kind: "AgentDeployment", apiVersion: "berth.dev/v1alpha1" });
  });

  it("supports generateName and auto-creates namespaces on first use", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const cm = await core.createNamespacedConfigMap({ namespace: "fresh", body: { metadata: { generateName: "cfg-" }, data: { a: "b" } } });
    expect(cm.metadata?.name).toMatch(/^cfg-[a-z0-9]{5}$/);
    expect(api.get("v1", "Namespace", undefined, "fresh")?.status?.phase).toBe("Active");
    const missing = await failure(core.createNamespacedConfigMap({ namespace: "fresh", body: { metadata: {} } }));
    expect(missing.code).toBe(422);
    const dup = await failure(core.createNamespacedConfigMap({ namespace: "fresh", body: { metadata: { name: cm.metadata!.name! } } }));
    expect(dup.code).toBe(409);
    expect(dup.status.reason).toBe("AlreadyExists");
    const invalidName = await failure(core.createNamespacedConfigMap({ namespace: "fresh", body: { metadata: { name: "Not_Valid" } } }));
    expect(invalidName.code).toBe(422);
  });
});

describe("patches", () => {
  it("server-side apply creates, then removes the fields a manager stops applying", async () => {
    const first = await objects.patch(
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "cfg", namespace: "default", labels: { a: "1", b: "2" } },
        data: { x: "1", y: "2" },
      } as any,
      undefined,
      undefined,
      "operator",
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(first.metadata?.uid).toBeTruthy();
    // Someone else adds a field with a merge patch; another applier owns z.
    await objects.patch({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default" }, data: { manual: "m" } } as any, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    await objects.patch({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default" }, data: { z: "3" } } as any, undefined, undefined, "other", false, PatchStrategy.ServerSideApply);

    const rvBefore = api.get("v1", "ConfigMap", "default", "cfg").metadata.resourceVersion;
    const second: any = await objects.patch(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default", labels: { a: "1" } }, data: { x: "1" } } as any,
      undefined,
      undefined,
      "operator",
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(second.metadata.labels).toEqual({ a: "1" });
    expect(second.data).toEqual({ x: "1", manual: "m", z: "3" });
    expect(second.metadata.resourceVersion).not.toBe(rvBefore);

    // Re-applying the same configuration is a no-op: same resourceVersion, no watch event.
    const third: any = await objects.patch(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cfg", namespace: "default", labels: { a: "1" } }, data: { x: "1" } } as any,
      undefined,
      undefined,
      "operator",
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(third.metadata.resourceVersion).toBe(second.metadata.resourceVersion);
  });

  it("server-side apply reports conflicts between appliers unless forced", async () => {
    const apply = (manager: string, value: string, force: boolean) =>
      objects.patch(
        { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "shared", namespace: "default" }, data: { key: value } } as any,
        undefined,
        undefined,
        manager,
        force,
        PatchStrategy.ServerSideApply,
      );
    await apply("alice", "a", false);
    await apply("bob", "a", false); // same value: shared ownership, no conflict
    const conflict = await failure(apply("bob", "b", false));
    expect(conflict.code).toBe(409);
    expect(conflict.status.message).toContain('conflict with "alice": .data.key');
    await apply("bob", "b", true);
    expect(api.get("v1", "ConfigMap", "default", "shared").data.key).toBe("b");
    // alice lost ownership; applying her old value now conflicts with bob.
    expect((await failure(apply("alice", "a", false))).code).toBe(409);

    const noManager = await raw("/api/v1/namespaces/default/configmaps/shared", {
      method: "PATCH",
      headers: { "Content-Type": "application/apply-patch+yaml" },
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n",
    });
    expect(noManager.status).toBe(400);
    // YAML bodies are accepted for apply.
    const yamlApply = await raw("/api/v1/namespaces/default/configmaps/from-yaml?fieldManager=kubectl", {
      method: "PATCH",
      headers: { "Content-Type": "application/apply-patch+yaml" },
      body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  k: v\n",
    });
    expect(yamlApply.status).toBe(201);
    expect(yamlApply.body.data).toEqual({ k: "v" });
  });

  it("merge patch, JSON patch and JSON patch test failures", async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("web") });
    const merged = await apps.patchNamespacedDeployment({ name: "web", namespace: "default", body: { spec: { replicas: 3 }, metadata: { annotations: { a: "b" } } } }, merge);
    expect(merged.spec?.replicas).toBe(3);
    // client-node's typed patch defaults to application/json-patch+json.
    const patched = await apps.patchNamespacedDeployment({
      name: "web",
      namespace: "default",
      body: [
        { op: "test", path: "/spec/replicas", value: 3 },
        { op: "replace", path: "/spec/replicas", value: 4 },
        { op: "add", path: "/metadata/labels", value: { tier: "web" } },
        { op: "remove", path: "/metadata/annotations/a" },
      ],
    });
    expect(patched.spec?.replicas).toBe(4);
    expect(patched.metadata?.labels).toEqual({ tier: "web" });
    expect(patched.metadata?.annotations ?? {}).toEqual({});
    const failed = await failure(apps.patchNamespacedDeployment({ name: "web", namespace: "default", body: [{ op: "test", path: "/spec/replicas", value: 99 }, { op: "replace", path: "/spec/replicas", value: 1 }] }));
    expect(failed.code).toBe(422);
    expect(api.get("apps/v1", "Deployment", "default", "web").spec.replicas).toBe(4);
    // A resourceVersion in a patch body is a precondition.
    const stale = await failure(apps.patchNamespacedDeployment({ name: "web", namespace: "default", body: { metadata: { resourceVersion: "1" }, spec: { replicas: 1 } } }, merge));
    expect(stale.code).toBe(409);

    const unsupported = await raw("/apis/apps/v1/namespaces/default/deployments/web", { method: "PATCH", headers: { "Content-Type": "text/plain" }, body: "x" });
    expect(unsupported.status).toBe(415);
    expect(unsupported.body).toMatchObject({ kind: "Status", reason: "UnsupportedMediaType", code: 415 });
    const badJson = await raw("/apis/apps/v1/namespaces/default/deployments/web", { method: "PATCH", headers: { "Content-Type": "application/merge-patch+json" }, body: "{nope" });
    expect(badJson.status).toBe(400);
    expect((await raw("/apis/apps/v1/namespaces/default/nothings")).status).toBe(404);
  });
});

describe("writes", () => {
  it("isolates the status subresource and bumps generation on spec changes only", async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const created: any = await objects.create({ ...agent("iso"), status: { phase: "ignored on create" } });
    expect(created.metadata.generation).toBe(1);
    expect(created.status).toBeUndefined();

    const status: any = await custom.patchNamespacedCustomObjectStatus(
      { group: "berth.dev", version: "v1alpha1", namespace: "default", plural: "agentdeployments", name: "iso", body: { status: { phase: "Ready" }, spec: { image: "ignored" } } },
      merge,
    );
    expect(status.status).toEqual({ phase: "Ready" });
    expect(status.spec.image).toBe("agent:1");
    expect(status.metadata.generation).toBe(1);

    const labelled: any = await objects.patch(agent("iso", undefined as any, { labels: { a: "b" } }), undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    expect(labelled.metadata.generation).toBe(1);

    const spec: any = await objects.patch({ ...agent("iso", { image: "agent:2" }), status: { phase: "ignored on main" } }, undefined, undefined, undefined, undefined, PatchStrategy.MergePatch);
    expect(spec.metadata.generation).toBe(2);
    expect(spec.status).toEqual({ phase: "Ready" });

    // Apply on /status with a field manager.
    const applied: any = await custom.patchNamespacedCustomObjectStatus(
      {
        group: "berth.dev",
        version: "v1alpha1",
        namespace: "default",
        plural: "agentdeployments",
        name: "iso",
        fieldManager: "operator",
        force: true,
        body: { apiVersion: "berth.dev/v1alpha1", kind: "AgentDeployment", metadata: { name: "iso" }, status: { observedGeneration: 2 } },
      },
      setHeaderOptions("Content-Type", PatchStrategy.ServerSideApply),
    );
    expect(applied.status).toEqual({ phase: "Ready", observedGeneration: 2 });
    expect(applied.metadata.generation).toBe(2);

    // PUT on /status replaces status only.
    const current: any = await custom.getNamespacedCustomObject({ group: "berth.dev", version: "v1alpha1", namespace: "default", plural: "agentdeployments", name: "iso" });
    const replaced: any = await custom.replaceNamespacedCustomObjectStatus({
      group: "berth.dev",
      version: "v1alpha1",
      namespace: "default",
      plural: "agentdeployments",
      name: "iso",
      body: { ...current, spec: { image: "nope" }, status: { phase: "Replaced" } },
    });
    expect(replaced.status).toEqual({ phase: "Replaced" });
    expect(replaced.spec.image).toBe("agent:2");

    // Kinds without the subresource have no /status.
    await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "default" } } as any);
    expect((await raw("/api/v1/namespaces/default/configmaps/c/status")).status).toBe(404);
  });

  it("PUT enforces resourceVersion and existence", async () => {
    api.kubelet.enabled = false; // its status writes would change the resourceVersion under us
    const apps = kc.makeApiClient(AppsV1Api);
    const created = await apps.createNamespacedDeployment({ namespace: "default", body: deployment("put") });
    const updated = await apps.replaceNamespacedDeployment({ name: "put", namespace: "default", body: { ...created, spec: { ...created.spec!, replicas: 5 } } });
    expect(updated.metadata?.generation).toBe(2);
    const stale = await failure(apps.replaceNamespacedDeployment({ name: "put", namespace: "default", body: { ...created, spec: { ...created.spec!, replicas: 6 } } }));
    expect(stale.code).toBe(409);
    expect(stale.status.reason).toBe("Conflict");
    expect(stale.status.message).toContain("the object has been modified");
    const missing = await failure(apps.replaceNamespacedDeployment({ name: "nope", namespace: "default", body: deployment("nope") }));
    expect(missing.code).toBe(404);
    // Without a resourceVersion the update is unconditional.
    const { resourceVersion: _rv, ...metadata } = updated.metadata!;
    const forced = await apps.replaceNamespacedDeployment({ name: "put", namespace: "default", body: { ...updated, metadata, spec: { ...updated.spec!, replicas: 7 } } });
    expect(forced.spec?.replicas).toBe(7);
  });

  it("honours dryRun=All on create, patch and delete", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const dry = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "dry" }, data: { a: "1" } }, dryRun: "All" });
    expect(dry.metadata?.uid).toBeTruthy();
    expect(api.get("v1", "ConfigMap", "default", "dry")).toBeUndefined();
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "real" }, data: { a: "1" } } });
    const patched = await core.patchNamespacedConfigMap({ name: "real", namespace: "default", body: { data: { a: "2" } }, dryRun: "All" }, merge);
    expect(patched.data?.a).toBe("2");
    expect(api.get("v1", "ConfigMap", "default", "real").data.a).toBe("1");
    const applied: any = await objects.patch(
      { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "ssa-dry", namespace: "default" }, data: { a: "1" } } as any,
      undefined,
      "All",
      "op",
      true,
      PatchStrategy.ServerSideApply,
    );
    expect(applied.data).toEqual({ a: "1" });
    expect(api.get("v1", "ConfigMap", "default", "ssa-dry")).toBeUndefined();
    await core.deleteNamespacedConfigMap({ name: "real", namespace: "default", dryRun: "All" });
    expect(api.get("v1", "ConfigMap", "default", "real")).toBeDefined();
  });

  it("deletes with finalizers in two steps and refuses new finalizers meanwhile", async () => {
    const { events } = await watchEvents("/apis/berth.dev/v1alpha1/namespaces/default/agentdeployments", {});
    await objects.create(agent("fin", undefined, { finalizers: ["berth.dev/cleanup"] }));
    await objects.delete(agent("fin"));
    const terminating = api.get("berth.dev/v1alpha1", "AgentDeployment", "default", "fin");
    expect(terminating.metadata.deletionTimestamp).toBeTruthy();
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(0);
    // Deleting again is harmless.
    await objects.delete(agent("fin"));

    const added = await failure(
      objects.patch(agent("fin", undefined, { finalizers: ["berth.dev/cleanup", "other/x"] }), undefined, undefined, undefined, undefined, PatchStrategy.MergePatch),
    );
    expect(added.code).toBe(422);

    const custom = kc.makeApiClient(CustomObjectsApi);
    await custom.patchNamespacedCustomObject({
      group: "berth.dev",
      version: "v1alpha1",
      namespace: "default",
      plural: "agentdeployments",
      name: "fin",
      body: [
        { op: "test", path: "/metadata/finalizers/0", value: "berth.dev/cleanup" },
        { op: "remove", path: "/metadata/finalizers/0" },
      ],
    });
    expect(api.get("berth.dev/v1alpha1", "AgentDeployment", "default", "fin")).toBeUndefined();
    await eventually(() => events.some((e) => e.type === "DELETED"));
    expect(events.map((e) => e.type)).toEqual(["ADDED", "MODIFIED", "DELETED"]);
  });

  it("garbage-collects dependents recursively, respecting their finalizers", async () => {
    const owner: any = await objects.create(agent("owner"));
    const ref = (o: any) => [{ apiVersion: o.apiVersion, kind: o.kind, name: o.metadata.name, uid: o.metadata.uid, controller: true, blockOwnerDeletion: true }];
    const dep: any = await objects.create(deployment("child", { metadata: { ownerReferences: ref(owner) } }));
    const rs: any = await objects.create({
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "grandchild", namespace: "default", ownerReferences: ref({ ...dep, apiVersion: "apps/v1", kind: "Deployment" }) },
      spec: { selector: { matchLabels: { app: "child" } }, template: { metadata: { labels: { app: "child" } }, spec: { containers: [{ name: "c", image: "x:1" }] } } },
    } as any);
    await objects.create({ apiVersion: "v1", kind: "Pod", metadata: { name: "greatgrandchild", namespace: "default", ownerReferences: ref({ ...rs, apiVersion: "apps/v1", kind: "ReplicaSet" }) }, spec: { containers: [{ name: "c", image: "x:1" }] } } as any);
    await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "held", namespace: "default", finalizers: ["example.com/hold"], ownerReferences: ref(owner) } } as any);
    const other: any = await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "other-owner", namespace: "default" } } as any);
    await objects.create({ apiVersion: "v1", kind: "Secret", metadata: { name: "shared", namespace: "default", ownerReferences: [...ref(owner), ...ref({ ...other, apiVersion: "v1", kind: "ConfigMap" })] } } as any);

    await objects.delete(agent("owner"));
    await eventually(() => api.get("v1", "Pod", "default", "greatgrandchild") === undefined);
    expect(api.get("apps/v1", "Deployment", "default", "child")).toBeUndefined();
    expect(api.get("apps/v1", "ReplicaSet", "default", "grandchild")).toBeUndefined();
    const held = api.get("v1", "ConfigMap", "default", "held");
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    // A dependent with another living owner only loses the dangling reference.
    await eventually(() => api.get("v1", "Secret", "default", "shared")?.metadata.ownerReferences?.length === 1);

    // A dependent created for an owner that does not exist is collected too.
    await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "orphan", namespace: "default", ownerReferences: ref({ ...owner, metadata: { ...owner.metadata, uid: "00000000-0000-0000-0000-000000000000" } }) } } as any);
    await eventually(() => api.get("v1", "ConfigMap", "default", "orphan") === undefined);

    // propagationPolicy=Orphan keeps dependents and strips the reference.
    const owner2: any = await objects.create(agent("owner2"));
    await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "kept", namespace: "default", ownerReferences: ref(owner2) } } as any);
    await objects.delete(agent("owner2"), undefined, undefined, undefined, undefined, "Orphan");
    await eventually(() => api.get("v1", "ConfigMap", "default", "kept")?.metadata.ownerReferences === undefined);
    expect(api.get("v1", "ConfigMap", "default", "kept")).toBeDefined();
  });

  it("deletes a namespace's content, refusing new content while it terminates", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "a" } } });
    await core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "held", finalizers: ["example.com/hold"] } } });
    await core.deleteNamespace({ name: "doomed" });
    await eventually(() => api.get("v1", "ConfigMap", "doomed", "a") === undefined);
    expect(api.get("v1", "Namespace", undefined, "doomed").status.phase).toBe("Terminating");
    const refused = await failure(core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "late" } } }));
    expect(refused.code).toBe(403);
    await core.patchNamespacedConfigMap({ name: "held", namespace: "doomed", body: { metadata: { finalizers: null } } }, merge);
    await eventually(() => api.get("v1", "Namespace", undefined, "doomed") === undefined);
  });

  it("deletecollection removes what the label selector matches", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    for (const [name, app] of [["a", "x"], ["b", "x"], ["c", "y"]]) {
      await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: name!, labels: { app: app! } } } });
    }
    await core.deleteCollectionNamespacedConfigMap({ namespace: "default", labelSelector: "app=x" });
    expect(api.list("v1", "ConfigMap", "default").map((c) => c.metadata.name)).toEqual(["c"]);
    expect(api.requests.some((r) => r.verb === "deletecollection" && r.resource === "configmaps")).toBe(true);
  });
});

describe("selectors and watches", () => {
  it("filters lists by label and field selectors", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const labels: Record<string, Record<string, string>> = { a: { app: "web", tier: "front" }, b: { app: "web", tier: "back" }, c: { app: "db" }, d: {} };
    for (const [name, l] of Object.entries(labels)) await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name, labels: l } } });
    const names = async (labelSelector?: string, fieldSelector?: string) =>
      (await core.listNamespacedConfigMap({ namespace: "default", labelSelector, fieldSelector })).items.map((i) => i.metadata?.name);
    expect(await names("app=web")).toEqual(["a", "b"]);
    expect(await names("app==web,tier=back")).toEqual(["b"]);
    expect(await names("app!=web")).toEqual(["c", "d"]);
    expect(await names("app in (web, db)")).toEqual(["a", "b", "c"]);
    expect(await names("app notin (web)")).toEqual(["c", "d"]);
    expect(await names("tier")).toEqual(["a", "b"]);
    expect(await names("!tier")).toEqual(["c", "d"]);
    expect(await names(undefined, "metadata.name=c")).toEqual(["c"]);
    expect(await names("app=web", "metadata.name!=a")).toEqual(["b"]);
    expect(await names(undefined, "metadata.namespace=default")).toHaveLength(4);
    expect((await failure(names("app in web"))).code).toBe(400);
    expect((await failure(names(undefined, "data.x=1"))).code).toBe(400);
    // All-namespaces list.
    await core.createNamespacedConfigMap({ namespace: "elsewhere", body: { metadata: { name: "e", labels: { app: "web" } } } });
    const all = await core.listConfigMapForAllNamespaces({ labelSelector: "app=web" });
    expect(all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`)).toEqual(["default/a", "default/b", "elsewhere/e"]);
  });

  it("delivers objects leaving a watch's label selector as DELETED and entering it as ADDED", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "pre", labels: { app: "x" } } } });
    const { events } = await watchEvents("/api/v1/namespaces/default/configmaps", { labelSelector: "app=x" });
    await eventually(() => events.length === 1);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "m", labels: { app: "x" } } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "n", labels: { app: "y" } } } });
    await core.patchNamespacedConfigMap({ name: "m", namespace: "default", body: { metadata: { labels: { app: "y" } } } }, merge);
    await core.patchNamespacedConfigMap({ name: "n", namespace: "default", body: { metadata: { labels: { app: "x" } } } }, merge);
    await core.patchNamespacedConfigMap({ name: "n", namespace: "default", body: { data: { k: "v" } } }, merge);
    await core.deleteNamespacedConfigMap({ name: "n", namespace: "default" });
    await core.createNamespacedConfigMap({ namespace: "other", body: { metadata: { name: "elsewhere", labels: { app: "x" } } } });
    await eventually(() => events.length === 6);
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED pre", "ADDED m", "DELETED m", "ADDED n", "MODIFIED n", "DELETED n"]);
    // The drop-out DELETED carries the last matching content with the new resourceVersion.
    const dropOut = events[2]!.object;
    expect(dropOut.metadata.labels.app).toBe("x");
    expect(Number(dropOut.metadata.resourceVersion)).toBeGreaterThan(Number(events[1]!.object.metadata.resourceVersion));
  });

  it("replays history from a resourceVersion, answers 410 for a compacted one, and honours timeoutSeconds", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const first = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "one" } } });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "two" } } });
    await core.deleteNamespacedConfigMap({ name: "one", namespace: "default" });
    const replay = await watchEvents("/api/v1/namespaces/default/configmaps", { resourceVersion: first.metadata!.resourceVersion!, allowWatchBookmarks: "true", timeoutSeconds: "1" });
    await eventually(() => replay.events.length >= 2);
    expect(replay.events.slice(0, 2).map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(["ADDED two", "DELETED one"]);
    await eventually(() => replay.state.ended, 3000);
    expect(replay.state.done).toBeNull();
    expect(replay.events.at(-1)?.type).toBe("BOOKMARK");

    api.compact();
    const expired = await watchEvents("/api/v1/namespaces/default/configmaps", { resourceVersion: first.metadata!.resourceVersion! });
    await eventually(() => expired.state.ended);
    expect(expired.events).toHaveLength(1);
    expect(expired.events[0]).toMatchObject({ type: "ERROR", object: { kind: "Status", code: 410, reason: "Expired" } });
    // Watching from "now" still works after a compaction.
    const listed = await core.listNamespacedConfigMap({ namespace: "default" });
    const fresh = await watchEvents("/api/v1/namespaces/default/configmaps", { resourceVersion: listed.metadata!.resourceVersion! });
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "three" } } });
    await eventually(() => fresh.events.some((e) => e.object.metadata.name === "three"));
  });

  it("keeps only historyLimit events for watch resumption", async () => {
    const small = await startFakeApiServer({ historyLimit: 5, kubelet: { enabled: false } });
    try {
      const core = small.kubeConfig().makeApiClient(CoreV1Api);
      const first = await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "c0" } } });
      for (let i = 1; i <= 5; i++) await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: `c${i}` } } });
      // The last 5 events are c1..c5: resuming after c0 works, before c0 does not.
      const justInTime = await fetch(`${small.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${first.metadata!.resourceVersion}&timeoutSeconds=1`);
      expect((await justInTime.text()).trim().split("\n")).toHaveLength(5);
      const before = Number(first.metadata!.resourceVersion) - 1;
      const tooOld = await fetch(`${small.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${before}&timeoutSeconds=1`);
      const text = await tooOld.text();
      expect(tooOld.status).toBe(200);
      expect(JSON.parse(text.trim())).toMatchObject({ type: "ERROR", object: { code: 410 } });
      const recent = small.get("v1", "ConfigMap", "default", "c2").metadata.resourceVersion;
      const replay = await fetch(`${small.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${recent}&timeoutSeconds=1`);
      const lines = (await replay.text()).trim().split("\n").map((l) => JSON.parse(l));
      expect(lines.map((l) => `${l.type} ${l.object.metadata.name}`)).toEqual(["ADDED c3", "ADDED c4", "ADDED c5"]);
    } finally {
      await small.close();
    }
  });

  it("informer: list, then watch, then events", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "before" } } });
    const { informer, log } = startInformer("/api/v1/namespaces/default/configmaps", () => core.listNamespacedConfigMap({ namespace: "default" }));
    await informer.start();
    expect(log).toEqual(["add before"]);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "after" } } });
    await core.patchNamespacedConfigMap({ name: "before", namespace: "default", body: { data: { a: "b" } } }, merge);
    await core.deleteNamespacedConfigMap({ name: "after", namespace: "default" });
    await eventually(() => log.length === 4);
    expect(log).toEqual(["add before", "add after", "update before", "delete after"]);
    expect(informer.get("before", "default")).toMatchObject({ data: { a: "b" } });
    expect(api.requests.filter((r) => r.resource === "configmaps").map((r) => r.verb)).toEqual(["create", "list", "watch", "create", "patch", "delete"]);
  });

  it("informer: closeWatches() makes it re-watch from its last resourceVersion without losing events", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const { informer, log } = startInformer("/api/v1/namespaces/default/configmaps", () => core.listNamespacedConfigMap({ namespace: "default" }), "app=x");
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "c0", labels: { app: "x" } } } });
    await eventually(() => log.length === 1);
    api.closeWatches();
    // Writes racing the reconnect are replayed from history.
    await Promise.all(Array.from({ length: 20 }, (_, i) => core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: `c${i + 1}`, labels: { app: i % 2 ? "x" : "y" } } } })));
    await eventually(() => informer.list("default").length === 11);
    await eventually(() => api.requests.filter((r) => r.verb === "watch").length >= 2);
    expect(api.requests.filter((r) => r.verb === "list" && r.resource === "configmaps")).toHaveLength(1);
    expect(log.filter((l) => l.startsWith("delete"))).toEqual([]);
  });

  it("informer: compact() → 410 → relist, and later changes are still seen", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const { informer, log } = startInformer("/api/v1/namespaces/default/configmaps", () => core.listNamespacedConfigMap({ namespace: "default" }));
    const errors: unknown[] = [];
    informer.on("error", (e) => errors.push(e));
    await informer.start();
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "a" } } });
    await eventually(() => log.includes("add a"));

    // In-stream ERROR 410 on the open watch.
    api.compact();
    await eventually(() => api.requests.filter((r) => r.verb === "list" && r.resource === "configmaps").length === 2);
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "b" } } });
    await eventually(() => log.includes("add b"));

    // HTTP 410 when the watch starts: the informer relists and notices a deletion it missed.
    api.failNext({ verb: "watch", resource: "configmaps" }, 410);
    api.closeWatches();
    await eventually(() => api.requests.filter((r) => r.verb === "list" && r.resource === "configmaps").length === 3);
    await core.deleteNamespacedConfigMap({ name: "a", namespace: "default" });
    await eventually(() => log.includes("delete a"));
    expect(errors).toEqual([]);
  });

  it("informer on a custom resource via CustomObjectsApi", async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const { informer, log } = startInformer("/apis/berth.dev/v1alpha1/namespaces/default/agentdeployments", () =>
      custom.listNamespacedCustomObject({ group: "berth.dev", version: "v1alpha1", namespace: "default", plural: "agentdeployments" }),
    );
    await informer.start();
    await objects.create(agent("watched"));
    await custom.patchNamespacedCustomObjectStatus({ group: "berth.dev", version: "v1alpha1", namespace: "default", plural: "agentdeployments", name: "watched", body: { status: { phase: "Ready" } } }, merge);
    await eventually(() => log.length === 2);
    expect(log).toEqual(["add watched", "update watched"]);
  });
});

describe("simulated kubelet", () => {
  it("makes Deployments ready, stalled or pending", async () => {
    api.kubelet.deployment = (o) => (o.metadata.name === "stuck" ? "stall" : o.metadata.name === "waiting" ? "pending" : "ready");
    const apps = kc.makeApiClient(AppsV1Api);
    const { events } = await watchEvents("/apis/apps/v1/namespaces/default/deployments", { fieldSelector: "metadata.name=web" });
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("web") });
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("stuck") });
    await apps.createNamespacedDeployment({ namespace: "default", body: deployment("waiting") });

    const ready = await eventually(() => {
      const d = api.get("apps/v1", "Deployment", "default", "web");
      return d.status?.availableReplicas === 2 && d;
    });
    expect(ready.status).toMatchObject({ observedGeneration: 1, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(ready.status.conditions.map((c: any) => `${c.type}=${c.status}/${c.reason}`)).toEqual(["Available=True/MinimumReplicasAvailable", "Progressing=True/NewReplicaSetAvailable"]);
    // First the rollout starts (observedGeneration, nothing updated), then it completes.
    const statuses = events.filter((e) => e.type === "MODIFIED").map((e) => e.object.status);
    expect(statuses[0]).toMatchObject({ observedGeneration: 1 });
    expect(statuses[0].updatedReplicas).toBeUndefined();
    expect(statuses[0].conditions.find((c: any) => c.type === "Progressing").reason).toBe("ReplicaSetUpdated");

    const stuck = await eventually(() => {
      const d = api.get("apps/v1", "Deployment", "default", "stuck");
      return d.status?.conditions?.some((c: any) => c.type === "Progressing" && c.status === "False") === true && d;
    });
    const progressing = stuck.status.conditions.find((c: any) => c.type === "Progressing");
    expect(progressing.reason).toBe("ProgressDeadlineExceeded");
    expect(progressing.message).toMatch(/^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$/);
    expect(stuck.status.availableReplicas).toBeUndefined();

    await eventually(() => api.get("apps/v1", "Deployment", "default", "waiting").status?.observedGeneration === 1);
    await new Promise((r) => setTimeout(r, api.kubelet.delayMs * 3));
    expect(api.get("apps/v1", "Deployment", "default", "waiting").status.availableReplicas).toBeUndefined();

    // A spec change is a new generation: observed again, ready again.
    await apps.patchNamespacedDeployment({ name: "web", namespace: "default", body: { spec: { replicas: 3 } } }, merge);
    await eventually(() => {
      const d = api.get("apps/v1", "Deployment", "default", "web");
      return d.metadata.generation === 2 && d.status.observedGeneration === 2 && d.status.availableReplicas === 3;
    });
  });

  it("creates one unowned PVC per claim template and replica for StatefulSets", async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedStatefulSet({
      namespace: "default",
      body: {
        metadata: { name: "db" },
        spec: {
          replicas: 2,
          serviceName: "db",
          selector: { matchLabels: { app: "db" } },
          template: { metadata: { labels: { app: "db" } }, spec: { containers: [{ name: "pg", image: "postgres:16" }] } },
          volumeClaimTemplates: [{ metadata: { name: "data", labels: { tier: "storage" } }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } } }],
        },
      },
    });
    const sts = await eventually(() => {
      const s = api.get("apps/v1", "StatefulSet", "default", "db");
      return s.status?.readyReplicas === 2 && s;
    });
    expect(sts.status).toMatchObject({ observedGeneration: 1, replicas: 2, availableReplicas: 2, currentReplicas: 2, updatedReplicas: 2, currentRevision: expect.stringMatching(/^db-/) });
    const pvcs = api.list("v1", "PersistentVolumeClaim", "default");
    expect(pvcs.map((p) => p.metadata.name)).toEqual(["data-db-0", "data-db-1"]);
    expect(pvcs[0].metadata.labels).toEqual({ tier: "storage", app: "db" });
    expect(pvcs[0].metadata.ownerReferences).toBeUndefined();
    expect(pvcs[0].status.phase).toBe("Bound");
    await apps.deleteNamespacedStatefulSet({ name: "db", namespace: "default" });
    await new Promise((r) => setTimeout(r, 20));
    expect(api.list("v1", "PersistentVolumeClaim", "default")).toHaveLength(2);
  });

  it("runs Jobs: a pod with logs, then Complete (or Failed)", async () => {
    const batch = kc.makeApiClient(BatchV1Api);
    const core = kc.makeApiClient(CoreV1Api);
    const job = (name: string) => ({
      metadata: { name },
      spec: { backoffLimit: 0, template: { spec: { restartPolicy: "Never", containers: [{ name: "build", image: "builder:1", args: ["--app", "chat"] }] } } },
    });
    await batch.createNamespacedJob({ namespace: "default", body: job("build-1") });
    const done = await eventually(() => {
      const j = api.get("batch/v1", "Job", "default", "build-1");
      return j.status?.succeeded === 1 && j;
    });
    expect(done.status.conditions.find((c: any) => c.type === "Complete")).toMatchObject({ status: "True" });
    expect(done.status.startTime).toBeTruthy();
    expect(done.status.completionTime).toBeTruthy();
    const pods = await core.listNamespacedPod({ namespace: "default", labelSelector: "job-name=build-1" });
    expect(pods.items).toHaveLength(1);
    const pod = pods.items[0]!;
    expect(pod.metadata?.name).toMatch(/^build-1-[a-z0-9]{5}$/);
    expect(pod.metadata?.labels?.["batch.kubernetes.io/job-name"]).toBe("build-1");
    expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Job", name: "build-1", uid: done.metadata.uid, controller: true });
    expect(pod.status?.phase).toBe("Succeeded");
    const logs = await core.readNamespacedPodLog({ name: pod.metadata!.name!, namespace: "default", container: "build" });
    expect(logs).toBe("built --app chat");
    expect((await failure(core.readNamespacedPodLog({ name: pod.metadata!.name!, namespace: "default", container: "nope" }))).code).toBe(400);
    expect(api.requests.some((r) => r.verb === "get" && r.resource === "pods/log")).toBe(true);

    api.kubelet.job = () => ({ succeeded: false, logs: "error: compilation failed\n" });
    await batch.createNamespacedJob({ namespace: "default", body: job("build-2") });
    const failed = await eventually(() => {
      const j = api.get("batch/v1", "Job", "default", "build-2");
      return j.status?.failed === 1 && j;
    });
    expect(failed.status.conditions.find((c: any) => c.type === "Failed")).toMatchObject({ status: "True", reason: "BackoffLimitExceeded" });
    const failedPod = (await core.listNamespacedPod({ namespace: "default", labelSelector: "job-name=build-2" })).items[0]!;
    expect(failedPod.status?.phase).toBe("Failed");
    expect(await core.readNamespacedPodLog({ name: failedPod.metadata!.name!, namespace: "default" })).toBe("error: compilation failed\n");

    // Deleting the Job collects its pod.
    await batch.deleteNamespacedJob({ name: "build-1", namespace: "default", propagationPolicy: "Background" });
    await eventually(() => api.get("v1", "Pod", "default", pod.metadata!.name!) === undefined);

    // Jobs need restartPolicy Never/OnFailure, like on a real cluster.
    const invalid = await failure(batch.createNamespacedJob({ namespace: "default", body: { metadata: { name: "bad" }, spec: { template: { spec: { containers: [{ name: "c", image: "x:1" }] } } } } }));
    expect(invalid.code).toBe(422);
  });

  it("reports HPA replicas and stays quiet when disabled", async () => {
    await objects.create({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "hpa", namespace: "default" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, minReplicas: 2, maxReplicas: 4 },
    } as any);
    await eventually(() => api.get("autoscaling/v2", "HorizontalPodAutoscaler", "default", "hpa").status?.desiredReplicas === 2);
    expect(api.get("autoscaling/v2", "HorizontalPodAutoscaler", "default", "hpa").status.currentReplicas).toBe(2);

    api.kubelet.enabled = false;
    await objects.create(deployment("quiet"));
    await new Promise((r) => setTimeout(r, api.kubelet.delayMs * 3));
    expect(api.get("apps/v1", "Deployment", "default", "quiet").status).toBeUndefined();
  });
});

describe("CRDs and fault injection", () => {
  it("registers CustomResourceDefinitions created through the API", async () => {
    const crd = parseYaml(readFileSync(new URL("../../crds/berth.dev_agentdeployments.yaml", import.meta.url), "utf8"));
    const created: any = await objects.create(crd);
    expect(created.metadata.name).toBe("agentdeployments.berth.dev");
    await eventually(
      () => api.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", undefined, "agentdeployments.berth.dev").status?.conditions?.some((c: any) => c.type === "Established" && c.status === "True") === true,
    );

    const widgetCrd = {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "widgets.example.com" },
      spec: {
        group: "example.com",
        scope: "Cluster",
        names: { kind: "Widget", plural: "widgets", singular: "widget", listKind: "WidgetList", shortNames: ["wd"] },
        versions: [{ name: "v1", served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
      },
    };
    expect((await raw("/apis/example.com/v1")).status).toBe(404);
    await objects.create(widgetCrd as any);
    const discovery = await raw("/apis/example.com/v1");
    expect(discovery.body.resources.map((r: any) => r.name)).toEqual(["widgets", "widgets/status"]);
    expect(discovery.body.resources[0]).toMatchObject({ namespaced: false, kind: "Widget", shortNames: ["wd"] });
    const widget: any = await objects.create({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 3 } } as any);
    expect(widget.metadata.namespace).toBeUndefined();
    expect(widget.metadata.generation).toBe(1);
    const list = await objects.list("example.com/v1", "Widget");
    expect(list.items.map((i) => i.metadata?.name)).toEqual(["w1"]);

    await objects.delete(widgetCrd as any);
    await eventually(async () => (await raw("/apis/example.com/v1")).status === 404);
    expect((await raw("/apis/example.com/v1/widgets")).status).toBe(404);
  });

  it("failNext answers matching requests with the given status", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    api.failNext({ verb: "create", resource: "configmaps" }, 500, 2);
    for (let i = 0; i < 2; i++) {
      const err = await failure(core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "x" } } }));
      expect(err.code).toBe(500);
      expect(err.status).toMatchObject({ kind: "Status", status: "Failure", code: 500, reason: "InternalError" });
    }
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "x" } } });

    await objects.create(agent("f"));
    api.failNext({ resource: "agentdeployments/status" }, 409);
    const custom = kc.makeApiClient(CustomObjectsApi);
    const statusPatch = () =>
      custom.patchNamespacedCustomObjectStatus({ group: "berth.dev", version: "v1alpha1", namespace: "default", plural: "agentdeployments", name: "f", body: { status: { phase: "Ready" } } }, merge);
    expect((await failure(statusPatch())).code).toBe(409);
    await statusPatch();
    expect(api.requests.filter((r) => r.resource === "agentdeployments/status").map((r) => r.verb)).toEqual(["patch", "patch"]);

    api.resetRequests();
    expect(api.requests).toEqual([]);
  });

  it("works with CoordinationV1Api leases (leader election)", async () => {
    const coordination = kc.makeApiClient(CoordinationV1Api);
    const now = new Date();
    const lease = await coordination.createNamespacedLease({ namespace: "default", body: { metadata: { name: "berth-operator" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15, acquireTime: now, renewTime: now } } });
    const renewed = await coordination.replaceNamespacedLease({ name: "berth-operator", namespace: "default", body: { ...lease, spec: { ...lease.spec, renewTime: new Date(now.getTime() + 1000) } } });
    expect(renewed.metadata?.resourceVersion).not.toBe(lease.metadata?.resourceVersion);
    // A competing candidate with the old resourceVersion loses.
    expect((await failure(coordination.replaceNamespacedLease({ name: "berth-operator", namespace: "default", body: { ...lease, spec: { ...lease.spec, holderIdentity: "b" } } }))).code).toBe(409);
  });
});

/**
 * The whole Kubernetes path, through public interfaces only: control-plane REST calls (plain HTTP)
 * → the k8s listener writes the Secret and the AgentDeployment → two operator replicas (one leads)
 * render the children → the fake API server's kubelet makes them available → the operator's status
 * → the listener → revision DEPLOYED. Then a PATCH rolls out a new revision (with watches dropped
 * and history compacted meanwhile), and a delete cleans everything up. `make e2e-kind` runs the
 * same flow on a real cluster where Docker exists.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import type { OperatorHandle } from "../../src/operator/operator.js";
import { silentLogger } from "../../src/shared/logging.js";
import { eventually, startFakeApiServer, type FakeApiServer } from "../fake-apiserver/index.js";
import { startTestOperator } from "../helpers/operator.js";
import { createTestDatabase, describeBackends, type TestDatabase } from "../helpers/server.js";

const KEY = "berth-e2e-admin-key-0123456789abcdef";
const NS = "agents";
const AD = ["berth.dev/v1alpha1", "AgentDeployment"] as const;

describeBackends("Kubernetes end to end", (backend) => {
  let fake: FakeApiServer;
  let db: TestDatabase;
  let cp: ControlPlaneServerHandle;
  const operators: OperatorHandle[] = [];

  beforeAll(async () => {
    fake = await startFakeApiServer({ kubelet: { delayMs: 20 } });
    db = await createTestDatabase(backend);
    const settings = resolveControlPlaneSettings(
      {
        port: 0,
        dataDir: db.dataDir,
        databaseUri: db.uri,
        secretsKeys: keyToConfig(generateKey()),
        apiKey: KEY,
        logLevel: "silent",
        k8s: "true",
        publicUrl: "http://berth.berth.svc:8080",
        k8sDefaultNamespace: NS,
      },
      {},
      "control-plane",
    );
    cp = await startControlPlaneServer(settings, silentLogger, { kubeConfig: fake.kubeConfig(), k8s: { pollMs: 25 } });
    for (const identity of ["operator-a", "operator-b"]) {
      operators.push(await startTestOperator(fake.kubeConfig(), { leaderElect: true, leaseNamespace: "berth", leaseName: "berth-operator", identity }));
    }
  });

  afterAll(async () => {
    for (const op of operators) await op.close();
    await cp?.close();
    await db?.drop();
    await fake?.close();
  });

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${cp.url}${path}`, {
      method,
      headers: { "x-api-key": KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const revisionStatus = async (d: string, r: string) => (await api("GET", `/v2/deployments/${d}/revisions/${r}`)).body.status as string;

  it("deploys, rolls out a new revision across dropped watches, and cleans up on delete", async () => {
    // exactly one operator leads
    await eventually(() => operators.filter((o) => o.isLeader).length === 1 || false, 60_000);
    const leader = operators.find((o) => o.isLeader)!;
    const follower = operators.find((o) => !o.isLeader)!;

    const listener = await api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: `cluster-${backend}`, compute_config: { k8s_namespaces: [NS] } });
    expect(listener.status).toBe(201);
    const created = await api("POST", "/v2/deployments", {
      name: "support-bot",
      source: "external_container",
      source_config: { listener_id: listener.body.id, listener_config: { k8s_namespace: NS }, resource_spec: { min_scale: 1, max_scale: 3, cpu: 1, memory_mb: 1024 } },
      source_revision_config: { image_uri: "registry.example.com/acme/support-bot:1.0" },
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-e2e-1" }],
    });
    expect(created.status).toBe(201);
    const d = created.body;

    // the listener's CR, the operator's children, the operator's status, the listener's DEPLOYED
    await eventually(async () => (await revisionStatus(d.id, d.latest_revision_id)) === "DEPLOYED" || false, 20_000);
    const ad = fake.get(...AD, NS, "support-bot");
    expect(ad.spec).toMatchObject({ deploymentId: d.id, revisionId: d.latest_revision_id, image: "registry.example.com/acme/support-bot:1.0" });
    expect(ad.spec.resourceSpec).toMatchObject({ min_scale: 1, max_scale: 3, cpu: 1, cpu_limit: 2, memory_mb: 1024, memory_limit_mb: 2048 });
    expect(ad.status.conditions.find((c: any) => c.type === "Ready").status).toBe("True");
    const api1 = fake.get("apps/v1", "Deployment", NS, "support-bot-api");
    expect(api1.spec.template.spec.containers[0]).toMatchObject({
      image: "registry.example.com/acme/support-bot:1.0",
      resources: { requests: { cpu: "1", memory: "1024Mi" }, limits: { cpu: "2", memory: "2048Mi" } },
      envFrom: [{ secretRef: { name: ad.spec.secretRef.name } }],
    });
    const secret = fake.get("v1", "Secret", NS, ad.spec.secretRef.name);
    expect(Buffer.from(secret.data.OPENAI_API_KEY, "base64").toString()).toBe("sk-e2e-1");
    const deployed = (await api("GET", `/v2/deployments/${d.id}`)).body;
    expect(deployed).toMatchObject({ status: "READY", active_revision_id: d.latest_revision_id });
    expect(deployed.custom_url ?? deployed.url ?? JSON.stringify(deployed)).toContain(`support-bot-api.${NS}.svc`);
    // only the leader wrote
    expect(follower.controller).toBeUndefined();
    expect(leader.controller!.stats.writes).toBeGreaterThan(0);

    // a new revision, while watches drop and the history is compacted (410 → relist)
    const patched = await api("PATCH", `/v2/deployments/${d.id}`, { source_revision_config: { image_uri: "registry.example.com/acme/support-bot:1.1" }, secrets: [{ name: "OPENAI_API_KEY", value: "sk-e2e-2" }] });
    expect(patched.status).toBe(200);
    const rev2 = patched.body.latest_revision_id;
    expect(rev2).not.toBe(d.latest_revision_id);
    fake.closeWatches();
    fake.compact();
    await eventually(async () => (await revisionStatus(d.id, rev2)) === "DEPLOYED" || false, 20_000);
    const ad2 = fake.get(...AD, NS, "support-bot");
    expect(ad2.metadata.generation).toBeGreaterThan(ad.metadata.generation);
    expect(ad2.status).toMatchObject({ latestCreatedRevision: rev2, latestReadyRevision: rev2 });
    expect(fake.get("apps/v1", "Deployment", NS, "support-bot-api").spec.template.spec.containers[0].image).toBe("registry.example.com/acme/support-bot:1.1");
    expect(Buffer.from(fake.get("v1", "Secret", NS, ad2.spec.secretRef.name).data.OPENAI_API_KEY, "base64").toString()).toBe("sk-e2e-2");
    expect((await api("GET", `/v2/deployments/${d.id}`)).body.active_revision_id).toBe(rev2);

    // delete: the CR goes (its finalizer removes the Postgres volume claims), then the Secret; 404 after
    expect(fake.list("v1", "PersistentVolumeClaim", NS).length).toBe(1);
    expect((await api("DELETE", `/v2/deployments/${d.id}`)).status).toBe(204);
    await eventually(async () => (await api("GET", `/v2/deployments/${d.id}`)).status === 404 || false, 20_000);
    expect(fake.get(...AD, NS, "support-bot")).toBeUndefined();
    expect(fake.list("v1", "PersistentVolumeClaim", NS)).toEqual([]);
    expect(fake.get("v1", "Secret", NS, ad2.spec.secretRef.name)).toBeUndefined();
    await eventually(() => fake.list("apps/v1", "Deployment", NS).length === 0 || false);
  });
});

/**
 * The k8s listener end to end, through the public interfaces only: plain HTTP to a control plane
 * (`berth control-plane` in-process) and the fake Kubernetes API server's HTTP. No operator runs:
 * the tests play it by writing the AgentDeployment's `/status`, and the fake's kubelet runs the
 * build Jobs. Both database backends.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { effectiveResourceSpec, generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { resolveControlPlaneSettings, type ControlPlaneMode } from "../../src/control-plane/settings.js";
import { KubeRest } from "../../src/operator/kube/index.js";
import { createLogger, silentLogger } from "../../src/shared/logging.js";
import { startFakeApiServer, type FakeApiServer } from "../fake-apiserver/index.js";
import { createTestDatabase, describeBackends, type TestDatabase } from "../helpers/server.js";

const KEY = "berth-k8s-test-admin-key-0123456789";
const SECRETS_KEY = keyToConfig(generateKey());
const SHA = "c0ffee00000000000000000000000000000000a1";
const PUBLIC_URL = "http://berth.berth-system.svc:8080";
const REGISTRY = "registry.example.com/berth";
const AD = ["berth.dev/v1alpha1", "AgentDeployment"] as const;
const logger = process.env.BERTH_TEST_LOG ? createLogger({ level: process.env.BERTH_TEST_LOG }) : silentLogger;

type Json = any;

/** Poll until `fn` returns something truthy; on timeout say what it last saw. */
async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 40));
  }
}

const cond = (type: string, status: "True" | "False" | "Unknown", reason: string, message = "") => ({ type, status, reason, message, lastTransitionTime: new Date().toISOString() });

describeBackends("k8s listener", (backend) => {
  let fake: FakeApiServer;
  let kube: KubeRest;
  let tdb: TestDatabase;
  let cp: ControlPlaneServerHandle;
  const extra: { cp: ControlPlaneServerHandle; db: TestDatabase }[] = [];

  function start(db: TestDatabase, o: { deadline?: number; registry?: string | null; mode?: ControlPlaneMode; k8s?: boolean } = {}) {
    const settings = resolveControlPlaneSettings(
      {
        port: 0,
        dataDir: db.dataDir,
        databaseUri: db.uri,
        secretsKeys: SECRETS_KEY,
        apiKey: KEY,
        logLevel: "silent",
        k8s: String(o.k8s ?? true),
        publicUrl: PUBLIC_URL,
        k8sDefaultNamespace: "agents",
        imageRegistry: o.registry === null ? undefined : (o.registry ?? REGISTRY),
        deployDeadlineSeconds: o.deadline ?? 300,
      },
      {},
      o.mode ?? "control-plane",
    );
    return startControlPlaneServer(settings, logger, { kubeConfig: fake.kubeConfig(), k8s: { pollMs: 25, resolveCommit: async () => SHA } });
  }

  const http = async (method: string, path: string, body?: unknown, key = KEY, on = cp): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${on.url}${path}`, {
      method,
      headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const deployment = async (id: string) => (await http("GET", `/v2/deployments/${id}`)).body;
  const revision = async (id: string, rid: string) => (await http("GET", `/v2/deployments/${id}/revisions/${rid}`)).body;
  const revisionIs = async (id: string, rid: string, status: string, timeoutMs = 60_000): Promise<Json> => {
    let last: Json;
    try {
      return await waitFor(`revision ${rid} ${status}`, async () => {
        last = await revision(id, rid);
        return last?.status === status && last;
      }, timeoutMs);
    } catch {
      throw new Error(`revision ${rid} did not become ${status}: it is ${last?.status} (${last?.status_reason})`);
    }
  };
  const logs = async (id: string, rid: string, type: "build" | "deploy") =>
    ((await http("GET", `/v2/deployments/${id}/revisions/${rid}/logs?type=${type}&limit=1000`)).body.logs as { message: string; level: string }[]);
  const secretData = (ns: string, name: string) => {
    const s = fake.get("v1", "Secret", ns, name);
    return s && Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(String(v), "base64").toString("utf8")]));
  };
  /** Play the operator: write the AgentDeployment's status (observedGeneration = its generation unless given). */
  const report = async (ns: string, name: string, status: Json) => {
    const cr = fake.get(...AD, ns, name);
    await kube.mergePatch({ apiVersion: AD[0], kind: AD[1], namespace: ns, name }, { status: { observedGeneration: cr.metadata.generation, latestCreatedRevision: cr.spec.revisionId, ...status } }, "status");
  };
  const readyStatus = (ns: string, name: string) => {
    const cr = fake.get(...AD, ns, name);
    return {
      conditions: [cond("DatabaseReady", "True", "DatabaseReady", "Postgres is ready"), cond("Ready", "True", "AllComponentsReady", `revision ${cr.spec.revisionId} is ready`)],
      latestReadyRevision: cr.spec.revisionId,
      url: `http://${name}-api.${ns}.svc:8000`,
    };
  };
  const pokeJob = (ns: string, name: string) => kube.mergePatch({ apiVersion: "batch/v1", kind: "Job", namespace: ns, name }, { metadata: { labels: { "test.berth.dev/poke": String(Date.now()) } } });
  const jobOf = (ns: string, rid: string) => fake.list("batch/v1", "Job", ns).find((j) => j.metadata.labels?.["berth.dev/revision-id"] === rid);

  let listenerId: string;
  let integrationId: string;

  beforeAll(async () => {
    fake = await startFakeApiServer({ kubelet: { delayMs: 20 } });
    kube = new KubeRest(fake.kubeConfig());
    tdb = await createTestDatabase(backend);
    cp = await start(tdb);
    const listener = await http("POST", "/v2/listeners", { compute_type: "k8s", compute_id: "cluster-1", compute_config: { k8s_namespaces: ["agents", "staging"] } });
    expect(listener.status).toBe(201);
    listenerId = listener.body.id;
    const integration = await http("POST", "/v1/integrations/hosted_git", { name: "git-host", kind: "git", token: "ghp_test_token" });
    expect(integration.status).toBe(201);
    integrationId = integration.body.id;
  });

  afterAll(async () => {
    await cp?.close();
    for (const e of extra) {
      await e.cp.close();
      await e.db.drop();
    }
    kube?.close();
    await fake?.close();
    await tdb?.drop();
  });

  const external = (name: string, o: { namespace?: string; image?: string; secrets?: { name: string; value: string }[]; resource_spec?: Json } = {}) => ({
    name,
    source: "external_container",
    source_config: { listener_id: listenerId, ...(o.namespace ? { listener_config: { k8s_namespace: o.namespace } } : {}), ...(o.resource_spec ? { resource_spec: o.resource_spec } : {}) },
    source_revision_config: { image_uri: o.image ?? "registry.example.com/acme/agent:1.0" },
    secrets: o.secrets ?? [],
  });
  const hostedGit = (name: string, ref = "main") => ({
    name,
    source: "hosted_git",
    source_config: { integration_id: integrationId, repo_url: "https://git.example.com/acme/agent.git", deployment_type: "dev", install_command: "npm ci" },
    source_revision_config: { repo_ref: ref, agent_config_path: "agent/langgraph.json" },
    secrets: [{ name: "GREETING", value: "hi" }],
  });

  // ---------------------------------------------------------------------------------------------

  let extId: string;
  let firstRevision: string;
  let authKey: string;
  let tracingKey: string;

  it("external_container: Secret and AgentDeployment appear; the operator's status drives the database flag, the revision and the URL", async () => {
    const spec = { cpu: 2, memory_mb: 2048, max_scale: 3 };
    const created = await http("POST", "/v2/deployments", external("ext-agent", { namespace: "staging", secrets: [{ name: "OPENAI_API_KEY", value: "sk-test-1" }], resource_spec: spec }));
    expect(created.status).toBe(201);
    extId = created.body.id;
    firstRevision = created.body.latest_revision_id;

    const secret = await waitFor("the Secret", () => secretData("staging", "ext-agent-secrets"));
    expect(Object.keys(secret).sort()).toEqual(["BERTH_AUTH_DEPLOYMENT_KEY", "BERTH_AUTH_KEYS", "BERTH_AUTH_KEYS_URL", "BERTH_AUTH_TENANT_ID", "LANGSMITH_API_KEY", "OPENAI_API_KEY"]);
    expect(secret.OPENAI_API_KEY).toBe("sk-test-1");
    tracingKey = secret.LANGSMITH_API_KEY;
    authKey = secret.BERTH_AUTH_DEPLOYMENT_KEY;
    // platform auth: the agent server refreshes its tenant's key hashes from the public URL with a
    // credential of its own, which opens nothing else
    expect(secret.BERTH_AUTH_KEYS_URL).toBe(`${PUBLIC_URL}/v2/deployments/${extId}/platform-auth/keys`);
    const snapshot = JSON.parse(secret.BERTH_AUTH_KEYS);
    expect(snapshot).toMatchObject({ tenant_id: secret.BERTH_AUTH_TENANT_ID, version: expect.any(Number) });
    expect(snapshot.keys.length).toBeGreaterThan(0);
    const served = await http("GET", `/v2/deployments/${extId}/platform-auth/keys`, undefined, authKey);
    expect(served.status).toBe(200);
    expect(served.body.version).toBeGreaterThan(snapshot.version);
    expect((await http("GET", `/v2/deployments/${extId}`, undefined, authKey)).status).toBe(403);
    expect((await http("POST", "/tracing/runs", { id: randomUUID(), name: "p", run_type: "chain", start_time: new Date().toISOString(), inputs: {}, session_name: "ext-agent" }, authKey)).status).toBe(403);
    // a key scoped to the deployment's traces: it writes runs into its project, and nothing else
    expect((await http("GET", `/v2/deployments/${extId}`, undefined, tracingKey)).status).toBe(403);
    expect((await http("GET", "/tracing/projects", undefined, tracingKey)).status).toBe(403);
    const run = (session_name: string) => ({ id: randomUUID(), name: "probe", run_type: "chain", start_time: new Date().toISOString(), inputs: {}, session_name });
    expect((await http("POST", "/tracing/runs", run("ext-agent"), tracingKey)).status).toBe(202);
    expect((await http("POST", "/tracing/runs", run("someone-else"), tracingKey)).status).toBe(422);

    const cr = await waitFor("the AgentDeployment", () => fake.get(...AD, "staging", "ext-agent"));
    expect(cr.metadata.labels).toMatchObject({ "app.kubernetes.io/managed-by": "berth-control-plane", "berth.dev/deployment-id": extId });
    expect(cr.spec).toMatchObject({
      deploymentName: "ext-agent",
      deploymentId: extId,
      revisionId: firstRevision,
      image: "registry.example.com/acme/agent:1.0",
      secretRef: { name: "ext-agent-secrets" },
      tracing: { endpoint: `${PUBLIC_URL}/tracing`, project: "ext-agent", apiKeySecretRef: { name: "ext-agent-secrets", key: "LANGSMITH_API_KEY" } },
      listenerNamespace: "staging",
    });
    const { service_account_name: _sa, ...effective } = effectiveResourceSpec(spec, null);
    expect(cr.spec.resourceSpec).toMatchObject(effective);
    expect(fake.get(...AD, "agents", "ext-agent")).toBeUndefined();

    await revisionIs(extId, firstRevision, "DEPLOYING");
    expect(await deployment(extId)).toMatchObject({ status: "AWAITING_DATABASE", active_revision_id: null });

    await report("staging", "ext-agent", { conditions: [cond("DatabaseReady", "False", "Provisioning", "Postgres: 0 of 1 replicas ready"), cond("Ready", "Unknown", "Reconciling", "waiting for DatabaseReady")] });
    await waitFor("the DatabaseReady log", async () => (await logs(extId, firstRevision, "deploy")).some((l) => l.message.startsWith("DatabaseReady: False")));
    expect(await deployment(extId)).toMatchObject({ status: "AWAITING_DATABASE" });
    expect((await revision(extId, firstRevision)).status).toBe("DEPLOYING");

    await report("staging", "ext-agent", { conditions: [cond("DatabaseReady", "True", "DatabaseReady", "Postgres is ready"), cond("Ready", "Unknown", "Reconciling", "waiting for APIServerReady")] });
    await waitFor("the database to count as ready", async () => (await deployment(extId)).status === "UNUSED");
    expect((await revision(extId, firstRevision)).status).toBe("DEPLOYING");

    await report("staging", "ext-agent", readyStatus("staging", "ext-agent"));
    await revisionIs(extId, firstRevision, "DEPLOYED");
    expect(await deployment(extId)).toMatchObject({ status: "READY", active_revision_id: firstRevision, source_config: { custom_url: "http://ext-agent-api.staging.svc:8000" } });

    const messages = (await logs(extId, firstRevision, "deploy")).map((l) => l.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        "AgentDeployment staging/ext-agent applied (generation 1): image registry.example.com/acme/agent:1.0",
        "DatabaseReady: False (Provisioning: Postgres: 0 of 1 replicas ready)",
        "DatabaseReady: True (DatabaseReady: Postgres is ready)",
        `Ready: True at revision ${firstRevision} (http://ext-agent-api.staging.svc:8000)`,
      ]),
    );
    // a condition is logged once per change, however often the operator writes
    expect(messages.filter((m) => m.startsWith("DatabaseReady: True")).length).toBe(1);
  });

  it("a PATCH with new secrets: a new revision in the CR spec and the Secret; the old one stays DEPLOYED until the new one is ready", async () => {
    const patched = await http("PATCH", `/v2/deployments/${extId}`, { secrets: [{ name: "OPENAI_API_KEY", value: "sk-test-2" }, { name: "EXTRA", value: "x" }] });
    expect(patched.status).toBe(200);
    const second = patched.body.latest_revision_id as string;
    expect(second).not.toBe(firstRevision);

    const cr = await waitFor("the CR at the new revision", () => {
      const c = fake.get(...AD, "staging", "ext-agent");
      return c?.spec.revisionId === second && c;
    });
    expect(cr.metadata.generation).toBe(2);
    const { BERTH_AUTH_KEYS: _k, BERTH_AUTH_KEYS_URL: _u, BERTH_AUTH_TENANT_ID: _t, ...rest } = secretData("staging", "ext-agent-secrets")!;
    // both of the deployment's own keys are kept across revisions
    expect(rest).toEqual({ OPENAI_API_KEY: "sk-test-2", EXTRA: "x", LANGSMITH_API_KEY: tracingKey, BERTH_AUTH_DEPLOYMENT_KEY: authKey });
    await revisionIs(extId, second, "DEPLOYING");

    // the operator still reports the previous revision: nothing moves
    await report("staging", "ext-agent", { ...readyStatus("staging", "ext-agent"), observedGeneration: 1, latestCreatedRevision: firstRevision, latestReadyRevision: firstRevision });
    await new Promise((r) => setTimeout(r, 200));
    expect((await revision(extId, second)).status).toBe("DEPLOYING");
    expect(await deployment(extId)).toMatchObject({ status: "READY", active_revision_id: firstRevision });

    await report("staging", "ext-agent", readyStatus("staging", "ext-agent"));
    await revisionIs(extId, second, "DEPLOYED");
    expect(await deployment(extId)).toMatchObject({ status: "READY", active_revision_id: second });
    expect((await revision(extId, firstRevision)).status).toBe("DEPLOYED");

    // a revision still rolling out is replaced by a newer one: it is INTERRUPTED, the newer one takes the CR
    const a = (await http("PATCH", `/v2/deployments/${extId}`, { source_revision_config: { image_uri: "registry.example.com/acme/agent:2.0" } })).body.latest_revision_id;
    await revisionIs(extId, a, "DEPLOYING");
    const b = (await http("PATCH", `/v2/deployments/${extId}`, { source_revision_config: { image_uri: "registry.example.com/acme/agent:3.0" } })).body.latest_revision_id;
    await waitFor("the CR at the newest revision", () => fake.get(...AD, "staging", "ext-agent")?.spec.revisionId === b);
    expect(fake.get(...AD, "staging", "ext-agent").spec.image).toBe("registry.example.com/acme/agent:3.0");
    const replaced = await revisionIs(extId, a, "INTERRUPTED");
    expect(replaced.status_reason).toBe(`replaced by revision ${b} before it became ready`);
    await report("staging", "ext-agent", readyStatus("staging", "ext-agent"));
    await revisionIs(extId, b, "DEPLOYED");
    expect((await revision(extId, a)).status).toBe("INTERRUPTED");
    expect(await deployment(extId)).toMatchObject({ status: "READY", active_revision_id: b });
  });

  it("a stalled rollout (ProgressDeadlineExceeded) is DEPLOY_FAILED with the operator's message; the previous revision keeps serving", async () => {
    const before = (await deployment(extId)).active_revision_id;
    const rid = (await http("PATCH", `/v2/deployments/${extId}`, { source_revision_config: { image_uri: "registry.example.com/acme/agent:broken" } })).body.latest_revision_id;
    await revisionIs(extId, rid, "DEPLOYING");
    const message = 'API server: ReplicaSet "ext-agent-api-5d8f" has timed out progressing.';
    await report("staging", "ext-agent", {
      conditions: [
        cond("DatabaseReady", "True", "DatabaseReady", "Postgres is ready"),
        cond("APIServerReady", "False", "ProgressDeadlineExceeded", message),
        cond("Ready", "False", "ProgressDeadlineExceeded", message),
      ],
      latestReadyRevision: before,
    });
    const failed = await revisionIs(extId, rid, "DEPLOY_FAILED");
    expect(failed.status_reason).toBe(message);
    expect(await deployment(extId)).toMatchObject({ status: "READY", active_revision_id: before });
    expect((await logs(extId, rid, "deploy")).some((l) => l.level === "ERROR" && l.message === message)).toBe(true);
  });

  it("survives failing API calls (retried) and dropped or expired watches (relisted)", async () => {
    fake.failNext({ verb: "patch", resource: "agentdeployments" }, 500, 2);
    fake.failNext({ verb: "patch", resource: "secrets" }, 503, 1);
    fake.resetRequests();
    const rid = (await http("PATCH", `/v2/deployments/${extId}`, { source_revision_config: { image_uri: "registry.example.com/acme/agent:4.0" } })).body.latest_revision_id;
    await waitFor("the CR at the new revision", () => fake.get(...AD, "staging", "ext-agent")?.spec.revisionId === rid);
    await revisionIs(extId, rid, "DEPLOYING");
    // the two failed applies and the successful one
    expect(fake.requests.filter((r) => r.verb === "patch" && r.resource === "agentdeployments" && r.name === "ext-agent").length).toBe(3);
    fake.closeWatches();
    fake.compact();
    await report("staging", "ext-agent", readyStatus("staging", "ext-agent"));
    await revisionIs(extId, rid, "DEPLOYED");
    expect((await deployment(extId)).active_revision_id).toBe(rid);
  });

  // ---------------------------------------------------------------------------------------------

  let gitId: string;

  it("hosted_git: a Kaniko Job with the right context, Dockerfile and destination; its log becomes the build log; the image is deployed", async () => {
    fake.kubelet.enabled = false; // hold the Job until it has been looked at
    const created = await http("POST", "/v2/deployments", hostedGit("git-agent"));
    expect(created.status).toBe(201);
    gitId = created.body.id;
    const rid = created.body.latest_revision_id as string;
    const job = await waitFor("the build Job", () => jobOf("agents", rid));
    const building = await revisionIs(gitId, rid, "BUILDING");
    expect(building.source_revision_config.repo_commit_sha).toBe(SHA);

    const destination = `${REGISTRY}/git-agent:${rid.slice(0, 12)}`;
    const pod = job.spec.template.spec;
    const [kaniko] = pod.containers;
    expect(kaniko.image).toBe("gcr.io/kaniko-project/executor:v1.23.2");
    expect(kaniko.args).toEqual(expect.arrayContaining([`--context=git://git.example.com/acme/agent.git#refs/heads/main#${SHA}`, "--dockerfile=/berth/Dockerfile", `--destination=${destination}`]));
    expect(job.spec.backoffLimit).toBe(0);
    expect(job.metadata.ownerReferences).toBeUndefined();
    expect(kaniko.volumeMounts).toContainEqual({ name: "dockerfile", mountPath: "/berth", readOnly: true });
    const configMapName = pod.volumes.find((v: Json) => v.name === "dockerfile").configMap.name;
    const dockerfile = fake.get("v1", "ConfigMap", "agents", configMapName).data.Dockerfile as string;
    expect(dockerfile).toContain(`FROM ghcr.io/berth-dev/berth:`);
    expect(dockerfile).toContain('RUN ["/bin/sh","-c","npm ci"]');
    // langgraph.json's node_version / dockerfile_lines / dependencies: checked inside the build, before the install
    expect(dockerfile.indexOf('RUN ["berth","image-step","check","--config","/deps/agent/langgraph.json","--root","/deps"]')).toBeGreaterThan(dockerfile.indexOf("COPY"));
    expect(dockerfile.indexOf("image-step")).toBeLessThan(dockerfile.indexOf("npm ci"));
    expect(dockerfile).toContain('CMD ["serve","--config","/deps/agent/langgraph.json"]');
    // the integration's token reaches Kaniko through a Secret, never the Job's spec
    expect(kaniko.env).toContainEqual({ name: "GIT_PASSWORD", valueFrom: { secretKeyRef: { name: "git-agent-git-credentials", key: "password" } } });
    expect(secretData("agents", "git-agent-git-credentials")).toEqual({ username: "x-access-token", password: "ghp_test_token" });
    expect(JSON.stringify(job)).not.toContain("ghp_test_token");

    fake.kubelet.job = () => ({ succeeded: true, logs: `INFO[0000] Retrieving image manifest\nINFO[0042] Pushing image to ${destination}\nINFO[0043] Pushed ${destination}\n` });
    fake.kubelet.enabled = true;
    await pokeJob("agents", job.metadata.name);

    await revisionIs(gitId, rid, "DEPLOYING");
    const cr = fake.get(...AD, "agents", "git-agent");
    expect(cr.spec).toMatchObject({ revisionId: rid, image: destination, deploymentType: "dev" });
    expect(secretData("agents", "git-agent-secrets")).toMatchObject({ GREETING: "hi" });
    const build = await logs(gitId, rid, "build");
    expect(build.map((l) => l.message)).toEqual(expect.arrayContaining([`INFO[0042] Pushing image to ${destination}`, `INFO[0043] Pushed ${destination}`, `image pushed: ${destination}`]));
    // the listener cleans up after its build
    await waitFor("the Job and ConfigMap to go", () => !jobOf("agents", rid) && !fake.get("v1", "ConfigMap", "agents", configMapName));

    await report("agents", "git-agent", readyStatus("agents", "git-agent"));
    await revisionIs(gitId, rid, "DEPLOYED");
    expect((await deployment(gitId)).source_config.custom_url).toBe("http://git-agent-api.agents.svc:8000");
  });

  it("a failing build is BUILD_FAILED with the log's tail; a newer revision cancels a build in progress", async () => {
    fake.kubelet.job = () => ({ succeeded: false, logs: "INFO[0001] Resolved base name\nerror building image: error building stage: failed to execute command: npm ci exited with code 1\n" });
    const failing = (await http("PATCH", `/v2/deployments/${gitId}`, { source_revision_config: { repo_ref: "broken" } })).body.latest_revision_id;
    const failed = await revisionIs(gitId, failing, "BUILD_FAILED");
    expect(failed.status_reason).toMatch(/BackoffLimitExceeded/);
    expect(failed.status_reason).toMatch(/npm ci exited with code 1/);
    const build = await logs(gitId, failing, "build");
    expect(build).toContainEqual(expect.objectContaining({ level: "ERROR", message: "error building image: error building stage: failed to execute command: npm ci exited with code 1" }));
    expect((await deployment(gitId)).status).toBe("READY");

    fake.kubelet.enabled = false;
    const first = (await http("PATCH", `/v2/deployments/${gitId}`, { source_revision_config: { repo_ref: "feature-a" } })).body.latest_revision_id;
    const firstJob = await waitFor("the first build Job", () => jobOf("agents", first));
    await revisionIs(gitId, first, "BUILDING");
    const second = (await http("PATCH", `/v2/deployments/${gitId}`, { source_revision_config: { repo_ref: "feature-b" } })).body.latest_revision_id;
    const cancelled = await revisionIs(gitId, first, "INTERRUPTED");
    expect(cancelled.status_reason).toBe(`superseded by revision ${second}: its build was cancelled`);
    expect(fake.get("batch/v1", "Job", "agents", firstJob.metadata.name)).toBeUndefined();
    const secondJob = await waitFor("the second build Job", () => jobOf("agents", second));
    expect(secondJob.spec.template.spec.containers[0].args).toContain(`--context=git://git.example.com/acme/agent.git#refs/heads/feature-b#${SHA}`);
    fake.kubelet.job = () => ({ succeeded: true, logs: "INFO pushed\n" });
    fake.kubelet.enabled = true;
    await pokeJob("agents", secondJob.metadata.name);
    await revisionIs(gitId, second, "DEPLOYING");
    await report("agents", "git-agent", readyStatus("agents", "git-agent"));
    await revisionIs(gitId, second, "DEPLOYED");
  });

  it("delete: waits for the AgentDeployment to be gone (the operator's finalizer), then removes the rest and the deployment", async () => {
    const ref = { apiVersion: AD[0], kind: AD[1], namespace: "staging", name: "ext-agent" };
    await kube.mergePatch(ref, { metadata: { finalizers: ["berth.dev/cleanup"] } });
    expect((await http("DELETE", `/v2/deployments/${extId}`)).status).toBe(204);
    await waitFor("the CR to be deleting", () => fake.get(...AD, "staging", "ext-agent")?.metadata.deletionTimestamp);
    expect((await deployment(extId)).status).toBe("AWAITING_DELETE");
    expect(secretData("staging", "ext-agent-secrets")).toBeDefined();

    await kube.mergePatch(ref, { metadata: { finalizers: null } }); // the operator finished its cleanup
    await waitFor("the deployment to be gone", async () => (await http("GET", `/v2/deployments/${extId}`)).status === 404);
    expect(fake.get(...AD, "staging", "ext-agent")).toBeUndefined();
    expect(fake.get("v1", "Secret", "staging", "ext-agent-secrets")).toBeUndefined();
    // its tracing key is revoked with it
    expect((await http("GET", "/v2/deployments", undefined, tracingKey)).status).toBe(401);
  });

  it("converges after a restart: a finished build is picked up, a status written meanwhile is read, a pending delete completes", async () => {
    // an external deployment waiting for its rollout
    const ext = (await http("POST", "/v2/deployments", external("resume-ext"))).body;
    await revisionIs(ext.id, ext.latest_revision_id, "DEPLOYING");
    // a build in progress
    fake.kubelet.enabled = false;
    const git = (await http("POST", "/v2/deployments", hostedGit("resume-git"))).body;
    const job = await waitFor("the build Job", () => jobOf("agents", git.latest_revision_id));
    await revisionIs(git.id, git.latest_revision_id, "BUILDING");
    // a delete blocked by the operator's finalizer
    const del = (await http("POST", "/v2/deployments", external("resume-del"))).body;
    await revisionIs(del.id, del.latest_revision_id, "DEPLOYING");
    await kube.mergePatch({ apiVersion: AD[0], kind: AD[1], namespace: "agents", name: "resume-del" }, { metadata: { finalizers: ["berth.dev/cleanup"] } });
    expect((await http("DELETE", `/v2/deployments/${del.id}`)).status).toBe(204);
    await waitFor("the CR to be deleting", () => fake.get(...AD, "agents", "resume-del")?.metadata.deletionTimestamp);

    await cp.close();

    // meanwhile, in the cluster: the rollout finished, the build finished, the finalizer ran
    await report("agents", "resume-ext", readyStatus("agents", "resume-ext"));
    fake.kubelet.job = () => ({ succeeded: true, logs: "INFO[0001] step 1\nINFO[0002] step 2\n" });
    fake.kubelet.enabled = true;
    await pokeJob("agents", job.metadata.name);
    await waitFor("the Job to finish", () => fake.get("batch/v1", "Job", "agents", job.metadata.name)?.status?.succeeded === 1);
    await kube.mergePatch({ apiVersion: AD[0], kind: AD[1], namespace: "agents", name: "resume-del" }, { metadata: { finalizers: null } });

    cp = await start(tdb);
    await revisionIs(ext.id, ext.latest_revision_id, "DEPLOYED");
    expect((await deployment(ext.id)).status).toBe("READY");
    await revisionIs(git.id, git.latest_revision_id, "DEPLOYING");
    const build = (await logs(git.id, git.latest_revision_id, "build")).map((l) => l.message);
    expect(build).toEqual(expect.arrayContaining(["INFO[0001] step 1", "INFO[0002] step 2"]));
    expect(build.filter((m) => m === "INFO[0001] step 1").length).toBe(1);
    expect(fake.get(...AD, "agents", "resume-git").spec.image).toBe(`${REGISTRY}/resume-git:${git.latest_revision_id.slice(0, 12)}`);
    await waitFor("the pending delete to finish", async () => (await http("GET", `/v2/deployments/${del.id}`)).status === 404);
    expect(fake.get("v1", "Secret", "agents", "resume-del-secrets")).toBeUndefined();
    await report("agents", "resume-git", readyStatus("agents", "resume-git"));
    await revisionIs(git.id, git.latest_revision_id, "DEPLOYED");
  });

  it("a build whose Job vanished while the control plane was down is started again", async () => {
    fake.kubelet.enabled = false;
    const git = (await http("POST", "/v2/deployments", hostedGit("lost-build"))).body;
    const job = await waitFor("the build Job", () => jobOf("agents", git.latest_revision_id));
    await revisionIs(git.id, git.latest_revision_id, "BUILDING");
    await cp.close();
    await kube.remove({ apiVersion: "batch/v1", kind: "Job", namespace: "agents", name: job.metadata.name });
    fake.kubelet.enabled = true;
    fake.kubelet.job = () => ({ succeeded: true, logs: "INFO rebuilt\n" });
    cp = await start(tdb);
    await revisionIs(git.id, git.latest_revision_id, "DEPLOYING");
    expect((await logs(git.id, git.latest_revision_id, "build")).map((l) => l.message)).toEqual(
      expect.arrayContaining(["the control plane restarted and the build job is gone: building again", "INFO rebuilt"]),
    );
  });

  it("a revision never reported ready fails at the deploy deadline; deployments the cluster cannot build are refused", async () => {
    await cp.close();
    cp = await start(tdb, { deadline: 1, registry: null });
    const slow = (await http("POST", "/v2/deployments", external("slow-agent"))).body;
    const failed = await revisionIs(slow.id, slow.latest_revision_id, "DEPLOY_FAILED", 15_000);
    expect(failed.status_reason).toMatch(/^Timeout: Deployment is not ready after 1 seconds\./);

    const noRegistry = await http("POST", "/v2/deployments", hostedGit("no-registry"));
    expect(noRegistry.status).toBe(400);
    expect(noRegistry.body.detail).toMatch(/^Source configuration error: hosted_git builds on Kubernetes push to an image registry and none is configured: set BERTH_IMAGE_REGISTRY/);
    const local = await http("POST", "/v2/deployments", { ...hostedGit("local-repo"), source_config: { ...hostedGit("x").source_config, repo_url: "file:///home/me/agent" } });
    expect(local.status).toBe(400);
    expect(local.body.detail).toMatch(/^Source configuration error: a Kubernetes cluster cannot clone 'file:\/\/\/home\/me\/agent'/);
    const localListener = (await http("POST", "/v2/listeners", { compute_type: "local", compute_id: "laptop" })).body;
    const onLocal = await http("POST", "/v2/deployments", { ...external("on-local"), source_config: { listener_id: localListener.id } });
    expect(onLocal.status).toBe(400);
    expect(onLocal.body.detail).toMatch(/^Source configuration error: this control plane has no local runtime/);
  });

  it("berth dev drives the cluster with BERTH_K8S=true (k8s listeners only); without it, k8s listeners are refused", async () => {
    const db1 = await createTestDatabase(backend);
    const dev = await start(db1, { mode: "dev" });
    extra.push({ cp: dev, db: db1 });
    const l = (await http("POST", "/v2/listeners", { compute_type: "k8s", compute_id: "c" }, KEY, dev)).body;
    const created = await http("POST", "/v2/deployments", { ...external("dev-agent"), source_config: { listener_id: l.id } }, KEY, dev);
    expect(created.status).toBe(201);
    await waitFor("the AgentDeployment", () => fake.get(...AD, "agents", "dev-agent")?.spec.deploymentId === created.body.id);
    // no listener: the local runtime, which refuses external images
    const plain = await http("POST", "/v2/deployments", { ...external("plain"), source_config: {} }, KEY, dev);
    expect(plain.status).toBe(400);
    expect(plain.body.detail).toMatch(/local listener/);

    const db2 = await createTestDatabase(backend);
    const noK8s = await start(db2, { mode: "dev", k8s: false });
    extra.push({ cp: noK8s, db: db2 });
    const l2 = (await http("POST", "/v2/listeners", { compute_type: "k8s", compute_id: "c" }, KEY, noK8s)).body;
    const refused = await http("POST", "/v2/deployments", { ...external("dev-agent"), source_config: { listener_id: l2.id } }, KEY, noK8s);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toBe("Source configuration error: this control plane has no Kubernetes connection (set BERTH_K8S=true)");
  });
});

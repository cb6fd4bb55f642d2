/**
 * The operator's pure render: every child object of an AgentDeployment validates against the
 * Kubernetes schemas (kubernetes-models), carries the owner reference and the user's labels and
 * annotations, has valid names, and shows the effective resource defaults.
 */
import fc from "fast-check";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { StatefulSet } from "kubernetes-models/apps/v1/StatefulSet";
import { Secret } from "kubernetes-models/v1/Secret";
import { Service } from "kubernetes-models/v1/Service";
import { describe, expect, it } from "vitest";
import {
  DNS_LABEL_RE,
  effectiveResourceSpec,
  resourceSpecIssues,
  resourceSpecSchema,
  type DeploymentType,
  type ResourceSpec,
} from "../../src/control-plane/rules/index.js";
import { parseAgentDeploymentSpec, type AgentDeployment, type KubernetesObject } from "../../src/operator/index.js";
import { childName, cpuQuantity, render, url } from "../../src/operator/render/index.js";
import { STATEFULSET_NAME_MAX } from "../../src/operator/render/names.js";

// ---------- fixtures ----------

const UID = "5f0c6a1e-8a4b-4c1e-9d7a-0b1c2d3e4f50";

function makeAd(spec: ResourceSpec | null, opts: { name?: string; type?: DeploymentType; tracing?: boolean } = {}): AgentDeployment {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "AgentDeployment",
    metadata: { name: opts.name ?? "my-agent", namespace: "agents", uid: UID, generation: 1 },
    spec: {
      deploymentName: opts.name ?? "my-agent",
      deploymentId: "0f8fad5b-d9cb-469f-a165-70867728950e",
      revisionId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      image: "registry.example.com/agents/my-agent:abc123",
      ...(opts.type ? { deploymentType: opts.type } : {}),
      resourceSpec: effectiveResourceSpec(spec, opts.type),
      secretRef: { name: `${opts.name ?? "my-agent"}-secrets` },
      ...(opts.tracing ? { tracing: { endpoint: "http://tracing.berth:8080", project: "my-agent", apiKeySecretRef: { name: "tracing", key: "api-key" } } } : {}),
      listenerNamespace: "agents",
    },
  };
}

const MAXIMAL: ResourceSpec = {
  min_scale: 2,
  max_scale: 6,
  cpu: 2,
  cpu_limit: 3,
  memory_mb: 1536,
  memory_limit_mb: 4096,
  queue_min_scale: 1,
  queue_max_scale: 4,
  queue_cpu: 1,
  queue_cpu_limit: 2,
  queue_memory_mb: 768,
  queue_memory_limit_mb: 1024,
  kvstore_memory_mb: 300,
  labels: { team: "ml", "example.com/tier": "gold" },
  annotations: { "example.com/owner": "alice@example.com", note: "hello world" },
  service_account_name: "agent-sa",
  image_pull_secrets: [{ name: "regcred" }],
  volumes: [
    { name: "cache", emptyDir: { sizeLimit: "1Gi" } },
    { name: "config", configMap: { name: "agent-config" }, secret: null },
  ],
  volume_mounts: [
    { name: "cache", mountPath: "/cache" },
    { name: "config", mountPath: "/etc/agent", readOnly: true },
  ],
  init_containers: [{ name: "migrate", image: "busybox:1.36", command: ["sh", "-c", "echo migrate"], env: [{ name: "A", value: "1" }], volumeMounts: [{ name: "cache", mountPath: "/cache" }] }],
  sidecars: [
    { name: "proxy", image: "envoyproxy/envoy:v1.30", restartPolicy: "Always", resources: { requests: { cpu: "100m", memory: "64Mi" } } },
    { name: "logger", image: "fluent/fluent-bit:3", restartPolicy: null, securityContext: { runAsNonRoot: true } },
  ],
  db_cpu: 0.5,
  db_cpu_limit: 1.5,
  db_memory_mb: 1024,
  db_memory_limit_mb: 2048,
  db_storage_gi: 20,
  db_max_connections: 250,
};

// ---------- checks ----------

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  "apps/v1/Deployment": Deployment as never,
  "apps/v1/StatefulSet": StatefulSet as never,
  "v1/Service": Service as never,
  "v1/Secret": Secret as never,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler as never,
};

const LABEL_VALUE_RE = /^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/;
const DNS_1035_RE = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function podSpecOf(o: KubernetesObject): { spec: Record<string, unknown>; metadata: { labels: Record<string, string>; annotations?: Record<string, string> } } | null {
  const spec = o.spec as { template?: never } | undefined;
  return spec?.template ?? null;
}

function checkObjects(ad: AgentDeployment, objects: KubernetesObject[]): void {
  const r = ad.spec.resourceSpec;
  const seen = new Set<string>();
  for (const o of objects) {
    const key = `${o.apiVersion}/${o.kind}`;
    const Model = MODELS[key];
    expect(Model, `no model for ${key}`).toBeDefined();
    expect(() => new Model!(o as never).validate(), `${key} ${o.metadata.name}`).not.toThrow();

    // Names: DNS labels (Services need RFC 1035), unique per kind, StatefulSets short enough for their pod labels.
    const name = o.metadata.name;
    expect(name.length).toBeLessThanOrEqual(o.kind === "StatefulSet" ? STATEFULSET_NAME_MAX : 63);
    expect(name).toMatch(o.kind === "Service" ? DNS_1035_RE : DNS_LABEL_RE);
    expect(seen.has(`${o.kind}/${name}`)).toBe(false);
    seen.add(`${o.kind}/${name}`);

    expect(o.metadata.namespace).toBe(ad.metadata.namespace);
    expect(o.metadata.ownerReferences).toEqual([
      { apiVersion: "berth.dev/v1alpha1", kind: "AgentDeployment", name: ad.metadata.name, uid: ad.metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    for (const [k, v] of Object.entries(r.labels)) {
      if (k.startsWith("app.kubernetes.io/")) continue;
      expect(o.metadata.labels?.[k]).toBe(v);
    }
    for (const [k, v] of Object.entries(o.metadata.labels ?? {})) expect(v.length <= 63 && LABEL_VALUE_RE.test(v), `label ${k}=${v}`).toBe(true);
    for (const [k, v] of Object.entries(r.annotations)) expect(o.metadata.annotations?.[k]).toBe(v);
    expect(o.metadata.labels?.["app.kubernetes.io/managed-by"]).toBe("berth-operator");
    expect(o.metadata.labels?.["app.kubernetes.io/instance"]).toBe(ad.spec.deploymentName);

    const template = podSpecOf(o);
    if (template) {
      for (const [k, v] of Object.entries(r.labels)) if (!k.startsWith("app.kubernetes.io/")) expect(template.metadata.labels[k]).toBe(v);
      for (const [k, v] of Object.entries(r.annotations)) expect(template.metadata.annotations?.[k]).toBe(v);
      const selector = (o.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
      for (const [k, v] of Object.entries(selector)) expect(template.metadata.labels[k]).toBe(v);
      const containers = [...((template.spec.initContainers as { name: string }[]) ?? []), ...(template.spec.containers as { name: string }[])];
      const names = containers.map((c) => c.name);
      expect(new Set(names).size).toBe(names.length);
      for (const n of names) expect(n).toMatch(DNS_LABEL_RE);
      // No nulls reach Kubernetes.
      expect(JSON.stringify(template)).not.toContain("null");
    }
  }
  // Every HPA targets a rendered Deployment; every Service selects some rendered pods.
  for (const o of objects.filter((x) => x.kind === "HorizontalPodAutoscaler")) {
    const target = (o.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name;
    expect(objects.some((d) => d.kind === "Deployment" && d.metadata.name === target)).toBe(true);
  }
  for (const s of objects.filter((x) => x.kind === "Service")) {
    const selector = (s.spec as { selector: Record<string, string> }).selector;
    const match = objects.some((w) => {
      const t = podSpecOf(w);
      return t && Object.entries(selector).every(([k, v]) => t.metadata.labels[k] === v);
    });
    expect(match, `service ${s.metadata.name} selects nothing`).toBe(true);
  }
}

const find = (objects: KubernetesObject[], kind: string, name: string) => {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name}`);
  return o;
};

type AnyContainer = { name: string; command?: string[]; env?: { name: string; value?: string; valueFrom?: unknown }[]; resources: { requests: Record<string, string>; limits: Record<string, string> }; restartPolicy?: string; [k: string]: unknown };
const podSpec = (o: KubernetesObject) => (o.spec as { template: { spec: { containers: AnyContainer[]; initContainers?: AnyContainer[]; [k: string]: unknown } } }).template.spec;
const agentOf = (o: KubernetesObject) => podSpec(o).containers.find((c) => c.name === "agent-server")!;
const envOf = (c: AnyContainer) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));

// ---------- tests ----------

describe("render: minimal resource_spec", () => {
  const ad = makeAd(null);
  const objects = render(ad);

  it("renders every child and each validates against the Kubernetes schemas", () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [
        "Deployment/my-agent-api",
        "Deployment/my-agent-queue",
        "Deployment/my-agent-redis",
        "HorizontalPodAutoscaler/my-agent-api",
        "HorizontalPodAutoscaler/my-agent-queue",
        "Secret/my-agent-postgres-auth",
        "Service/my-agent-api",
        "Service/my-agent-postgres",
        "Service/my-agent-redis",
        "StatefulSet/my-agent-postgres",
      ].sort(),
    );
    checkObjects(ad, objects);
  });

  it("applies the effective defaults: limits 2x requests, queue from the API values", () => {
    const api = find(objects, "Deployment", "my-agent-api");
    expect((api.spec as { replicas: number }).replicas).toBe(1);
    expect(agentOf(api).resources).toEqual({ requests: { cpu: "1", memory: "1024Mi" }, limits: { cpu: "2", memory: "2048Mi" } });
    const queue = find(objects, "Deployment", "my-agent-queue");
    expect(agentOf(queue).resources).toEqual({ requests: { cpu: "1", memory: "1024Mi" }, limits: { cpu: "2", memory: "2048Mi" } });
    const pg = podSpec(find(objects, "StatefulSet", "my-agent-postgres")).containers[0]!;
    expect(pg.resources).toEqual({ requests: { cpu: "500m", memory: "512Mi" }, limits: { cpu: "1", memory: "1024Mi" } });
    expect(pg.args).toEqual(["-c", "max_connections=100"]);
    const sts = find(objects, "StatefulSet", "my-agent-postgres").spec as { volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[] };
    expect(sts.volumeClaimTemplates[0]!.spec.resources.requests.storage).toBe("10Gi");
    const hpa = find(objects, "HorizontalPodAutoscaler", "my-agent-api").spec as Record<string, unknown>;
    expect(hpa).toMatchObject({ minReplicas: 1, maxReplicas: 1, metrics: [{ resource: { name: "cpu", target: { averageUtilization: 75 } } }] });
  });

  it("wires the API pods to the queue, Postgres, Redis and the deployment's Secret", () => {
    const api = agentOf(find(objects, "Deployment", "my-agent-api"));
    expect(api.command).toEqual(["berth", "serve"]);
    expect(api.envFrom).toEqual([{ secretRef: { name: "my-agent-secrets" } }]);
    const env = envOf(api);
    expect(env.N_JOBS_PER_WORKER).toBe("0");
    expect(env.DATABASE_URI).toBe("postgres://postgres:$(POSTGRES_PASSWORD)@my-agent-postgres.agents.svc:5432/postgres");
    expect(env.REDIS_URI).toBe("redis://my-agent-redis.agents.svc:6379");
    expect(env.POSTGRES_PASSWORD).toEqual({ secretKeyRef: { name: "my-agent-postgres-auth", key: "password" } });
    const names = (api.env ?? []).map((e) => e.name);
    expect(names.indexOf("POSTGRES_PASSWORD")).toBeLessThan(names.indexOf("DATABASE_URI"));
    expect(api.readinessProbe).toMatchObject({ httpGet: { path: "/ok", port: "http" } });
    expect(api.livenessProbe).toMatchObject({ httpGet: { path: "/ok" } });
    expect(api.ports).toEqual([{ name: "http", containerPort: 8000, protocol: "TCP" }]);
    const queue = agentOf(find(objects, "Deployment", "my-agent-queue"));
    expect(queue.command).toEqual(["berth", "worker"]);
    expect(envOf(queue).N_JOBS_PER_WORKER).toBeUndefined();
    const svc = find(objects, "Service", "my-agent-api").spec as { ports: { port: number; targetPort: string }[] };
    expect(svc.ports).toEqual([{ name: "http", port: 8000, targetPort: "http", protocol: "TCP" }]);
    expect(url(ad)).toBe("http://my-agent-api.agents.svc:8000");
  });

  it("derives the Postgres password from the uid (deterministic) unless one is given", () => {
    const secret = find(objects, "Secret", "my-agent-postgres-auth") as { data: Record<string, string> } & KubernetesObject;
    const password = Buffer.from(secret.data.password!, "base64").toString();
    expect(password).toMatch(/^[0-9a-f]{32}$/);
    expect(render(ad)).toEqual(objects);
    const other = render({ ...ad, metadata: { ...ad.metadata, uid: "11111111-2222-3333-4444-555555555555" } });
    expect((find(other, "Secret", "my-agent-postgres-auth") as { data: Record<string, string> } & KubernetesObject).data.password).not.toBe(secret.data.password);
    const given = render(ad, { postgresPassword: "Abcdefgh12345678" });
    expect(Buffer.from((find(given, "Secret", "my-agent-postgres-auth") as { data: Record<string, string> } & KubernetesObject).data.password!, "base64").toString()).toBe("Abcdefgh12345678");
    expect(() => render(ad, { postgresPassword: "has spaces and @" })).toThrow();
  });

  it("adds no optional pod fields the spec does not ask for", () => {
    const spec = podSpec(find(objects, "Deployment", "my-agent-api"));
    expect(spec.initContainers).toBeUndefined();
    expect(spec.volumes).toBeUndefined();
    expect(spec.serviceAccountName).toBeUndefined();
    expect(spec.imagePullSecrets).toBeUndefined();
    expect(spec.containers.map((c) => c.name)).toEqual(["agent-server"]);
  });
});

describe("render: maximal resource_spec", () => {
  const ad = makeAd(MAXIMAL, { type: "prod", tracing: true });
  const objects = render(ad);

  it("validates, with labels, annotations and owner references everywhere", () => {
    expect(resourceSpecIssues(MAXIMAL, [])).toEqual([]);
    expect(resourceSpecSchema.safeParse(MAXIMAL).success).toBe(true);
    checkObjects(ad, objects);
    for (const o of objects) {
      expect(o.metadata.labels).toMatchObject({ team: "ml", "example.com/tier": "gold" });
      expect(o.metadata.annotations).toEqual({ "example.com/owner": "alice@example.com", note: "hello world" });
    }
  });

  it("uses the explicit values", () => {
    const api = find(objects, "Deployment", "my-agent-api");
    expect((api.spec as { replicas: number }).replicas).toBe(2);
    expect(agentOf(api).resources).toEqual({ requests: { cpu: "2", memory: "1536Mi" }, limits: { cpu: "3", memory: "4096Mi" } });
    const queue = find(objects, "Deployment", "my-agent-queue");
    expect((queue.spec as { replicas: number }).replicas).toBe(1);
    expect(agentOf(queue).resources).toEqual({ requests: { cpu: "1", memory: "768Mi" }, limits: { cpu: "2", memory: "1024Mi" } });
    expect(find(objects, "HorizontalPodAutoscaler", "my-agent-api").spec).toMatchObject({ minReplicas: 2, maxReplicas: 6 });
    expect(find(objects, "HorizontalPodAutoscaler", "my-agent-queue").spec).toMatchObject({ minReplicas: 1, maxReplicas: 4 });
    const pg = podSpec(find(objects, "StatefulSet", "my-agent-postgres")).containers[0]!;
    expect(pg.resources).toEqual({ requests: { cpu: "500m", memory: "1024Mi" }, limits: { cpu: "1500m", memory: "2048Mi" } });
    expect(pg.args).toEqual(["-c", "max_connections=250"]);
    const redis = podSpec(find(objects, "Deployment", "my-agent-redis")).containers[0]!;
    expect(redis.resources).toEqual({ requests: { cpu: "100m", memory: "300Mi" }, limits: { memory: "300Mi" } });
  });

  it("puts the user's pod parts on both agent Deployments: sidecars, init containers, volumes, mounts", () => {
    for (const name of ["my-agent-api", "my-agent-queue"]) {
      const spec = podSpec(find(objects, "Deployment", name));
      expect(spec.serviceAccountName).toBe("agent-sa");
      expect(spec.imagePullSecrets).toEqual([{ name: "regcred" }]);
      expect(spec.volumes).toEqual([
        { name: "cache", emptyDir: { sizeLimit: "1Gi" } },
        { name: "config", configMap: { name: "agent-config" } },
      ]);
      // Native sidecar first (restartPolicy Always), then the user's init containers.
      expect(spec.initContainers!.map((c) => [c.name, c.restartPolicy])).toEqual([["proxy", "Always"], ["migrate", undefined]]);
      expect(spec.containers.map((c) => c.name)).toEqual(["agent-server", "logger"]);
      expect(spec.containers[1]).not.toHaveProperty("restartPolicy");
      expect(spec.containers[1]!.securityContext).toEqual({ runAsNonRoot: true });
      expect(agentOf(find(objects, "Deployment", name)).volumeMounts).toEqual([
        { name: "cache", mountPath: "/cache" },
        { name: "config", mountPath: "/etc/agent", readOnly: true },
      ]);
      expect(envOf(agentOf(find(objects, "Deployment", name)))).toMatchObject({
        LANGSMITH_TRACING: "true",
        LANGSMITH_ENDPOINT: "http://tracing.berth:8080",
        LANGSMITH_PROJECT: "my-agent",
        LANGSMITH_API_KEY: { secretKeyRef: { name: "tracing", key: "api-key" } },
      });
    }
  });

  it("marks the pod template with the revision", () => {
    const t = (find(objects, "Deployment", "my-agent-api").spec as { template: { metadata: { annotations: Record<string, string> } } }).template;
    expect(t.metadata.annotations["berth.dev/revision-id"]).toBe(ad.spec.revisionId);
  });
});

describe("render: edge cases", () => {
  it("renders no HPA for a scale of zero (a plain HPA cannot scale to zero)", () => {
    const objects = render(makeAd({ min_scale: 0, queue_min_scale: 0 }));
    expect(objects.filter((o) => o.kind === "HorizontalPodAutoscaler")).toEqual([]);
    expect((find(objects, "Deployment", "my-agent-api").spec as { replicas: number }).replicas).toBe(0);
  });

  it("shortens long names with a hash and keeps them DNS labels", () => {
    const long = `a${"b".repeat(61)}c`;
    expect(long.length).toBe(63);
    const ad = makeAd(null, { name: long });
    const objects = render(ad);
    checkObjects(ad, objects);
    const sts = objects.find((o) => o.kind === "StatefulSet")!;
    expect(sts.metadata.name.length).toBeLessThanOrEqual(52);
    expect(sts.metadata.name.endsWith("-postgres")).toBe(true);
  });

  it("cpuQuantity writes whole cores and millicores", () => {
    expect(cpuQuantity(2)).toBe("2");
    expect(cpuQuantity(0.25)).toBe("250m");
    expect(cpuQuantity(1.5)).toBe("1500m");
    expect(cpuQuantity(0.0001)).toBe("1m");
  });
});

describe("childName", () => {
  it("keeps names that fit", () => {
    expect(childName("agent", "api")).toBe("agent-api");
    expect(childName("a".repeat(59), "api")).toBe(`${"a".repeat(59)}-api`);
  });

  it("is deterministic, within the limit, unique and suffix-preserving", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/),
        fc.constantFrom("api", "queue", "redis", "postgres", "postgres-auth"),
        fc.constantFrom(63, 52),
        (base, suffix, max) => {
          const name = childName(base, suffix, max);
          expect(name.length).toBeLessThanOrEqual(max);
          expect(name).toMatch(DNS_1035_RE);
          expect(name.endsWith(`-${suffix}`)).toBe(true);
          expect(childName(base, suffix, max)).toBe(name);
          if (`${base}-${suffix}`.length <= max) expect(name).toBe(`${base}-${suffix}`);
        },
      ),
    );
    // Two long names sharing a prefix stay distinct.
    const a = childName(`${"x".repeat(60)}aa`, "postgres");
    const b = childName(`${"x".repeat(60)}bb`, "postgres");
    expect(a).not.toBe(b);
  });
});

// ---------- property-based ----------

const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);
const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
const container = (name: string, restart: "Always" | null | undefined) => ({
  name,
  image: "busybox:1.36",
  ...(restart !== undefined ? { restartPolicy: restart } : {}),
});

/** Any valid ResourceSpec (schema + cross-field rules), with pairs possibly explicit. */
const resourceSpecArb: fc.Arbitrary<ResourceSpec> = fc
  .record({
    min_scale: maybe(fc.integer({ min: 0, max: 5 })),
    max_scale: maybe(fc.integer({ min: 5, max: 20 })),
    cpu: maybe(fc.integer({ min: 1, max: 4 })),
    cpu_limit: maybe(fc.integer({ min: 4, max: 8 })),
    memory_mb: maybe(fc.integer({ min: 128, max: 4096 })),
    memory_limit_mb: maybe(fc.integer({ min: 4096, max: 16384 })),
    queue_min_scale: maybe(fc.integer({ min: 0, max: 3 })),
    queue_cpu: maybe(fc.integer({ min: 1, max: 4 })),
    queue_memory_limit_mb: maybe(fc.integer({ min: 64, max: 8192 })),
    kvstore_memory_mb: maybe(fc.integer({ min: 1, max: 4096 })),
    db_cpu: maybe(fc.constantFrom(0.1, 0.25, 0.5, 1, 2)),
    db_memory_limit_mb: maybe(fc.integer({ min: 64, max: 8192 })),
    db_storage_gi: maybe(fc.integer({ min: 1, max: 500 })),
    db_max_connections: maybe(fc.integer({ min: 1, max: 1000 })),
    labels: maybe(fc.dictionary(label, label, { maxKeys: 3 })),
    annotations: maybe(fc.dictionary(label, fc.string({ maxLength: 20 }), { maxKeys: 3 })),
    service_account_name: maybe(label),
    image_pull_secrets: maybe(fc.uniqueArray(label, { maxLength: 2 }).map((ns) => ns.map((name) => ({ name })))),
    volumeNames: fc.uniqueArray(label, { maxLength: 3 }),
    containers: fc.uniqueArray(fc.tuple(label, fc.constantFrom("init", "Always", "none", "null")), { maxLength: 4, selector: ([n]) => n }),
  })
  .map(({ volumeNames, containers, ...rest }) => {
    const spec: ResourceSpec = { ...rest };
    for (const k of Object.keys(spec) as (keyof ResourceSpec)[]) if (spec[k] === undefined) delete spec[k];
    if (volumeNames.length > 0) {
      spec.volumes = volumeNames.map((name, i) => (i % 2 === 0 ? { name, emptyDir: {} } : { name, configMap: { name: "cfg" }, secret: null }));
      spec.volume_mounts = volumeNames.map((name, i) => ({ name, mountPath: `/mnt/${i}`, readOnly: i % 2 === 0 ? true : null }));
    }
    const named = containers.filter(([n]) => n !== "agent-server");
    const init = named.filter(([, k]) => k === "init").map(([n]) => container(n, undefined));
    const sidecars = named.filter(([, k]) => k !== "init").map(([n, k]) => container(n, k === "Always" ? "Always" : k === "null" ? null : undefined));
    if (init.length > 0) spec.init_containers = init;
    if (sidecars.length > 0) spec.sidecars = sidecars;
    return spec;
  })
  .filter((spec) => resourceSpecSchema.safeParse(spec).success && resourceSpecIssues(spec, []).length === 0);

describe("render: property-based", () => {
  it("every rendered object validates and carries owner reference, labels and annotations", () => {
    fc.assert(
      fc.property(
        resourceSpecArb,
        fc.constantFrom<DeploymentType | undefined>(undefined, "dev_free", "dev", "prod"),
        fc.stringMatching(/^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/),
        fc.boolean(),
        (spec, type, name, tracing) => {
          const ad = makeAd(spec, { name, type, tracing });
          expect(parseAgentDeploymentSpec(ad.spec).success).toBe(true);
          const objects = render(ad);
          checkObjects(ad, objects);
          const eff = ad.spec.resourceSpec;
          const api = objects.find((o) => o.kind === "Deployment" && o.metadata.labels?.["app.kubernetes.io/component"] === "api")!;
          expect(agentOf(api).resources.limits).toEqual({ cpu: cpuQuantity(eff.cpu_limit), memory: `${eff.memory_limit_mb}Mi` });
          if (spec.cpu != null && spec.cpu_limit == null) expect(eff.cpu_limit).toBe(spec.cpu * 2);
          if (spec.queue_cpu == null && spec.queue_cpu_limit == null) expect(eff.queue_cpu).toBe(eff.cpu);
          expect(objects.filter((o) => o.kind === "HorizontalPodAutoscaler").length).toBe((eff.min_scale >= 1 ? 1 : 0) + (eff.queue_min_scale >= 1 ? 1 : 0));
        },
      ),
      { numRuns: 150 },
    );
  });
});

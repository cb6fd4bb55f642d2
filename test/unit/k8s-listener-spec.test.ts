/**
 * What the k8s listener writes for a revision (pure): the AgentDeployment (valid for the CRD, with
 * the EFFECTIVE resource spec of the revision), the deployment's Secret, and where it all goes.
 */
import { Secret } from "kubernetes-models/v1/Secret";
import { describe, expect, it } from "vitest";
import { effectiveResourceSpec, type ResourceSpec } from "../../src/control-plane/rules/index.js";
import { parseAgentDeploymentSpec } from "../../src/operator/types.js";
import { agentDeploymentFor, agentDeploymentProblem, apiKeyOf, deploymentSecretFor } from "../../src/runtime/k8s/agent-deployment.js";
import { secretName } from "../../src/runtime/k8s/names.js";
import { buildPlacement, deploymentNamespace } from "../../src/runtime/k8s/placement.js";

const TENANT = "00000000-0000-4000-8000-000000000001";
const DID = "0f8fad5b-d9cb-469f-a165-70867728950e";
const RID = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

function deployment(o: { type?: "dev" | "prod" | null; name?: string } = {}) {
  return {
    id: DID,
    name: o.name ?? "my-agent",
    tenant_id: TENANT,
    config: { source_config: { deployment_type: o.type ?? null } as any },
  };
}
const revision = (spec: ResourceSpec | null) => ({ id: RID, snapshot: { resource_spec: spec } });
const inputs = { image: "registry.example.com/acme/agent:1.0", namespace: "agents", tracingEndpoint: "https://berth.example.com/tracing", secretName: secretName("my-agent") };

describe("agentDeploymentFor", () => {
  it("names the CR like the deployment, in its namespace, labelled as ours", () => {
    const ad = agentDeploymentFor(deployment(), revision(null), inputs);
    expect(ad.apiVersion).toBe("berth.dev/v1alpha1");
    expect(ad.kind).toBe("AgentDeployment");
    expect(ad.metadata).toEqual({
      name: "my-agent",
      namespace: "agents",
      labels: {
        "app.kubernetes.io/managed-by": "berth-control-plane",
        "app.kubernetes.io/part-of": "berth",
        "app.kubernetes.io/instance": "my-agent",
        "berth.dev/deployment-id": DID,
        "berth.dev/tenant-id": TENANT,
      },
    });
  });

  it("carries the revision, the image, the effective resource spec of the revision, the Secret and tracing", () => {
    const spec: ResourceSpec = { cpu: 2, memory_mb: 4096, max_scale: 3, labels: { team: "a" }, image_pull_secrets: [{ name: "regcred" }] };
    const ad = agentDeploymentFor(deployment(), revision(spec), inputs);
    expect(ad.spec).toEqual({
      deploymentName: "my-agent",
      deploymentId: DID,
      revisionId: RID,
      image: inputs.image,
      resourceSpec: effectiveResourceSpec(spec, null),
      secretRef: { name: "my-agent-secrets" },
      tracing: { endpoint: "https://berth.example.com/tracing", project: "my-agent", apiKeySecretRef: { name: "my-agent-secrets", key: "LANGSMITH_API_KEY" } },
      listenerNamespace: "agents",
    });
    expect(ad.spec.resourceSpec).toMatchObject({ cpu: 2, cpu_limit: 4, memory_limit_mb: 8192, queue_cpu: 2, max_scale: 3, queue_max_scale: 3 });
    expect(agentDeploymentProblem(ad)).toBeUndefined();
    expect(parseAgentDeploymentSpec(ad.spec).success).toBe(true);
  });

  it("applies the deployment type's defaults (hosted_git) and says so in the spec", () => {
    const ad = agentDeploymentFor(deployment({ type: "prod" }), revision(null), inputs);
    expect(ad.spec.deploymentType).toBe("prod");
    expect(ad.spec.resourceSpec).toEqual(effectiveResourceSpec(null, "prod"));
    expect(ad.spec.resourceSpec.max_scale).toBe(10);
    expect(agentDeploymentFor(deployment(), revision(null), inputs).spec).not.toHaveProperty("deploymentType");
  });

  it("reports what the CRD would refuse", () => {
    const ad = agentDeploymentFor(deployment(), revision(null), { ...inputs, image: "has space" });
    expect(agentDeploymentProblem(ad)).toMatch(/^spec\.image: /);
  });
});

describe("the deployment's Secret", () => {
  it("holds every secret and the tracing key, with the key's id on it", () => {
    const s = deploymentSecretFor(deployment(), {
      name: "my-agent-secrets",
      namespace: "agents",
      secrets: [{ name: "OPENAI_API_KEY", value: "sk-1" }, { name: "GREETING", value: "héllo" }, { name: "LANGSMITH_API_KEY", value: "user's" }],
      apiKey: { id: "key-1", key: "berth_abc" },
    });
    expect(() => new Secret(s as never).validate()).not.toThrow();
    const data = Object.fromEntries(Object.entries(s.data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]));
    expect(data).toEqual({ OPENAI_API_KEY: "sk-1", GREETING: "héllo", LANGSMITH_API_KEY: "berth_abc" });
    expect(s.metadata.labels?.["berth.dev/deployment-id"]).toBe(DID);
    expect(apiKeyOf(s)).toEqual({ id: "key-1", key: "berth_abc" });
  });
  it("has no reusable key when it is missing or was not minted by us", () => {
    expect(apiKeyOf(undefined)).toBeUndefined();
    expect(apiKeyOf({ apiVersion: "v1", kind: "Secret", metadata: { name: "x" }, data: { LANGSMITH_API_KEY: "eA==" } })).toBeUndefined();
  });
});

describe("placement", () => {
  const k8s = (namespaces?: string[]) => ({ compute_type: "k8s" as const, compute_config: { k8s_namespaces: namespaces ?? null } });
  it("namespace: the deployment's, else the listener's first, else the default", () => {
    expect(deploymentNamespace(k8s(["a", "b"]), { k8s_namespace: "b" }, "def")).toBe("b");
    expect(deploymentNamespace(k8s(["a", "b"]), null, "def")).toBe("a");
    expect(deploymentNamespace(k8s(), null, "def")).toBe("def");
    expect(deploymentNamespace(undefined, null, "def")).toBe("def");
  });
  it("builds: the listener's compute_config wins field by field over the control plane's settings", () => {
    const defaults = { imageRegistry: "reg.default/berth", registryPushSecret: "default-push", kanikoImage: "kaniko:default" };
    expect(buildPlacement(undefined, defaults)).toEqual({ imageRegistry: "reg.default/berth", registryPushSecret: "default-push", kanikoImage: "kaniko:default" });
    expect(buildPlacement({ image_registry: "reg.team/x", kaniko_image: null }, defaults)).toEqual({ imageRegistry: "reg.team/x", registryPushSecret: "default-push", kanikoImage: "kaniko:default" });
    expect(buildPlacement({}, { kanikoImage: "k" })).toEqual({ imageRegistry: undefined, registryPushSecret: undefined, kanikoImage: "k" });
  });
});

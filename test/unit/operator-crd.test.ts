/**
 * The AgentDeployment CRD: a structural schema generated from the zod spec, equal to the committed
 * crds/ file, accepting the CRs the control plane writes and rejecting bad ones.
 */
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { effectiveResourceSpec, resourceSpecIssues, resourceSpecSchema, type ResourceSpec } from "../../src/control-plane/rules/index.js";
import { crd, crdYaml, toStructural, type JsonSchema } from "../../src/operator/crd.js";
import { parseAgentDeploymentSpec, type AgentDeployment } from "../../src/operator/types.js";

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const CRD = crd() as {
  spec: { versions: { schema: { openAPIV3Schema: JsonSchema }; additionalPrinterColumns: { name: string; jsonPath: string }[] }[]; names: Record<string, unknown>; scope: string };
};
const SCHEMA = CRD.spec.versions[0]!.schema.openAPIV3Schema;

/** The CRD schema as ajv (draft 7) understands it, with unknown fields rejected as `kubectl --validate=strict` does. */
function toAjv(node: JsonSchema, root = true): JsonSchema {
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (k.startsWith("x-kubernetes-")) continue;
    if (k === "exclusiveMinimum" && v === true) continue;
    if (k === "properties") out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([p, s]) => [p, toAjv(s, false)]));
    else if (k === "items" || k === "additionalProperties") out[k] = toAjv(v as JsonSchema, false);
    else out[k] = v;
  }
  if (node.exclusiveMinimum === true) {
    out.exclusiveMinimum = node.minimum;
    delete out.minimum;
  }
  if (node.properties && !root) out.additionalProperties = false;
  if (root) out.additionalProperties = false;
  return out;
}

const ajv = addFormats(new Ajv({ allErrors: true, strict: true }));
const validateCr = ajv.compile(toAjv(SCHEMA));

function cr(spec: ResourceSpec | null, extra: Partial<AgentDeployment["spec"]> = {}): AgentDeployment {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "AgentDeployment",
    metadata: { name: "my-agent", namespace: "agents", uid: "5f0c6a1e-8a4b-4c1e-9d7a-0b1c2d3e4f50" },
    spec: {
      deploymentName: "my-agent",
      deploymentId: "0f8fad5b-d9cb-469f-a165-70867728950e",
      revisionId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
      image: "registry.example.com/agents/my-agent:abc123",
      deploymentType: "prod",
      resourceSpec: effectiveResourceSpec(spec, "prod"),
      secretRef: { name: "my-agent-secrets" },
      tracing: { endpoint: "http://tracing:8080", project: "p", apiKeySecretRef: { name: "t", key: "k" } },
      listenerNamespace: "agents",
      ...extra,
    },
  };
}

const FULL: ResourceSpec = {
  min_scale: 0,
  db_cpu: 0.25,
  labels: { team: "ml" },
  annotations: { "example.com/x": "y" },
  service_account_name: "sa",
  image_pull_secrets: [{ name: "regcred" }],
  volumes: [{ name: "v", emptyDir: {}, configMap: null }, { name: "w", csi: { driver: "x", volumeAttributes: { a: "b" } } }],
  volume_mounts: [{ name: "v", mountPath: "/v", subPath: null }],
  init_containers: [{ name: "i", image: "busybox", env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }] }],
  sidecars: [{ name: "s", image: "busybox", restartPolicy: "Always", securityContext: { runAsUser: 1000, capabilities: { drop: ["ALL"] } }, resources: { limits: { cpu: "1" } } }],
};

describe("AgentDeployment CRD", () => {
  it("is the committed crds/berth.dev_agentdeployments.yaml", () => {
    expect(readFileSync(new URL("../../crds/berth.dev_agentdeployments.yaml", import.meta.url), "utf8")).toBe(crdYaml());
  });

  it("names, scope, status subresource and printer columns", () => {
    expect(CRD.spec.names).toMatchObject({ kind: "AgentDeployment", plural: "agentdeployments", singular: "agentdeployment", shortNames: ["ad"] });
    expect(CRD.spec.scope).toBe("Namespaced");
    expect(CRD.spec.versions[0]).toMatchObject({ name: "v1alpha1", served: true, storage: true, subresources: { status: {} } });
    expect(CRD.spec.versions[0]!.additionalPrinterColumns.map((c) => c.name)).toEqual(["Status", "Revision", "Ready Revision", "URL", "Age"]);
  });

  it("has a structural schema", () => {
    const forbidden = ["$ref", "$defs", "definitions", "anyOf", "oneOf", "allOf", "not", "patternProperties", "propertyNames", "$schema", "const", "uniqueItems"];
    const walk = (node: JsonSchema, at: string): void => {
      for (const k of forbidden) expect(node[k], `${at}.${k}`).toBeUndefined();
      expect(typeof node.type === "string" || node["x-kubernetes-preserve-unknown-fields"] === true, `${at} has no type`).toBe(true);
      expect(node.additionalProperties, `${at} additionalProperties: false`).not.toBe(false);
      expect(node.properties !== undefined && node.additionalProperties !== undefined, `${at} properties+additionalProperties`).toBe(false);
      if (node.exclusiveMinimum !== undefined) expect(typeof node.exclusiveMinimum).toBe("boolean");
      for (const [p, s] of Object.entries((node.properties as Record<string, JsonSchema>) ?? {})) walk(s, `${at}.${p}`);
      if (node.items) walk(node.items as JsonSchema, `${at}[]`);
      if (typeof node.additionalProperties === "object") walk(node.additionalProperties as JsonSchema, `${at}{}`);
    };
    walk(SCHEMA, "$");
    // metadata may only restrict name and generateName: ours restricts nothing.
    expect((SCHEMA.properties as Record<string, JsonSchema>).metadata).toEqual({ type: "object" });
  });

  it("toStructural refuses what a CRD cannot express", () => {
    const conv = (s: z.ZodType) => toStructural(z.toJSONSchema(s) as JsonSchema);
    expect(() => conv(z.union([z.string(), z.number()]))).toThrow(/union/);
    expect(() => conv(z.null())).toThrow(/null/);
    expect(conv(z.string().nullable())).toEqual({ type: "string", nullable: true });
    expect(conv(z.record(z.string(), z.unknown()))).toEqual({ type: "object", "x-kubernetes-preserve-unknown-fields": true });
    expect(conv(z.number().positive())).toEqual({ type: "number", minimum: 0, exclusiveMinimum: true });
  });

  it("accepts the CRs of minimal, maximal and defaulted specs, with a status", () => {
    for (const spec of [null, {}, FULL, { cpu: 3, memory_mb: 3000 }]) {
      const resource = cr(spec);
      expect(validateCr(JSON.parse(JSON.stringify(resource))), JSON.stringify(validateCr.errors)).toBe(true);
      expect(parseAgentDeploymentSpec(resource.spec).success).toBe(true);
    }
    const { tracing: _t, listenerNamespace: _l, deploymentType: _d, ...required } = cr(null).spec;
    expect(validateCr({ ...cr(null), spec: required })).toBe(true);
    const withStatus = {
      ...cr(null),
      status: {
        observedGeneration: 3,
        conditions: [
          { type: "Ready", status: "False", reason: "AwaitingDatabase", message: "", lastTransitionTime: "2026-01-02T03:04:05Z", observedGeneration: 3 },
          { type: "DatabaseReady", status: "Unknown", reason: "Pending", message: "waiting", lastTransitionTime: "2026-01-02T03:04:05Z" },
        ],
        latestCreatedRevision: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        url: "http://my-agent-api.agents.svc:8000",
        replicas: { api: 1, queue: 1, readyApi: 0, readyQueue: 0 },
      },
    };
    expect(validateCr(withStatus), JSON.stringify(validateCr.errors)).toBe(true);
  });

  it("rejects bad fields", () => {
    const base = JSON.parse(JSON.stringify(cr(FULL))) as { spec: Record<string, unknown> & { resourceSpec: Record<string, unknown> } };
    const bad: [string, (s: typeof base.spec) => void][] = [
      ["uppercase name", (s) => (s.deploymentName = "My-Agent")],
      ["cpu as a string", (s) => (s.resourceSpec.cpu = "2")],
      ["negative scale", (s) => (s.resourceSpec.min_scale = -1)],
      ["zero db cpu", (s) => (s.resourceSpec.db_cpu = 0)],
      ["missing image", (s) => delete s.image],
      ["missing memory", (s) => delete s.resourceSpec.memory_mb],
      ["bad deployment type", (s) => (s.deploymentType = "serverless")],
      ["not a uuid", (s) => (s.revisionId = "r1")],
      ["unknown field", (s) => (s.replicas = 3)],
      ["bad volume name", (s) => ((s.resourceSpec.volumes as { name: string }[])[0]!.name = "Bad_Name")],
      ["bad sidecar restartPolicy", (s) => ((s.resourceSpec.sidecars as { restartPolicy: string }[])[0]!.restartPolicy = "Never")],
      ["long label value", (s) => (s.resourceSpec.labels = { a: "x".repeat(64) })],
    ];
    for (const [what, mutate] of bad) {
      const copy = JSON.parse(JSON.stringify(base)) as typeof base;
      mutate(copy.spec);
      expect(validateCr(copy), what).toBe(false);
      // zod strips unknown fields (as the API server prunes them); everything else it refuses too.
      if (what !== "unknown field") expect(parseAgentDeploymentSpec(copy.spec).success, what).toBe(false);
    }
    const badStatus = { ...cr(null), status: { conditions: [{ type: "Ready", status: "Yes", reason: "x", message: "", lastTransitionTime: "now" }] } };
    expect(validateCr(badStatus)).toBe(false);
  });

  it("accepts the CR of any valid resource_spec (property-based)", () => {
    const label = fc.stringMatching(/^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$/);
    const n = (min: number, max: number) => fc.option(fc.integer({ min, max }), { nil: undefined });
    const spec = fc
      .record(
        {
          min_scale: n(0, 5), max_scale: n(1, 20), cpu: n(1, 8), cpu_limit: n(1, 16), memory_mb: n(64, 8192), queue_cpu_limit: n(1, 16),
          kvstore_memory_mb: n(1, 4096), db_cpu: fc.option(fc.constantFrom(0.1, 0.5, 3), { nil: undefined }), db_storage_gi: n(1, 100),
          labels: fc.dictionary(label, label, { maxKeys: 3 }), annotations: fc.dictionary(label, fc.string(), { maxKeys: 2 }),
          service_account_name: fc.option(label, { nil: null }),
          sidecars: fc.uniqueArray(label, { maxLength: 2 }).map((names) => names.map((name, i) => ({ name, image: "busybox", restartPolicy: i === 0 ? ("Always" as const) : undefined }))),
        },
        { requiredKeys: [] },
      )
      .filter((s) => resourceSpecSchema.safeParse(s).success && resourceSpecIssues(s, []).length === 0);
    fc.assert(
      fc.property(spec, (s) => {
        const resource = JSON.parse(JSON.stringify(cr(s)));
        expect(validateCr(resource), JSON.stringify(validateCr.errors)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });
});

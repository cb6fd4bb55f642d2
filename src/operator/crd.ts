/**
 * The AgentDeployment CustomResourceDefinition, generated from the zod schemas of types.ts.
 *
 * `z.toJSONSchema` gives draft 2020-12 JSON Schema; Kubernetes wants a *structural* OpenAPI v3 schema
 * (every node typed, no $ref, no anyOf of different types, `nullable` instead of a null type,
 * draft-4 style boolean `exclusiveMinimum`, no `additionalProperties: false`, no `propertyNames`).
 * `toStructural` does that conversion and throws on anything it cannot express, so a schema change
 * that Kubernetes would refuse fails the test instead of `kubectl apply`.
 *
 * crds/berth.dev_agentdeployments.yaml is `crdYaml()`; test/unit/operator-crd.test.ts checks they are equal.
 */
import { stringify } from "yaml";
import { z } from "zod";
import {
  CRD_NAME,
  GROUP,
  KIND,
  PLURAL,
  SHORT_NAMES,
  SINGULAR,
  VERSION,
  agentDeploymentSpecSchema,
  agentDeploymentStatusSchema,
} from "./types.js";

export type JsonSchema = { [keyword: string]: unknown };

const DROPPED = new Set(["$schema", "propertyNames", "$id", "id"]);
const FORBIDDEN = new Set(["$ref", "$defs", "definitions", "dependencies", "patternProperties", "readOnly", "writeOnly", "xml", "deprecated", "discriminator", "const", "oneOf", "allOf", "not", "prefixItems"]);

function isObject(v: unknown): v is JsonSchema {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Mark a node nullable. An enum keeps only its values: kube-apiserver refuses a CRD whose enum lists
 * `null` (it rejected the whole CRD, with an unrelated-sounding "per-version schemas may not all be
 * set to identical values"), and a nullable field accepts null without it
 * (test/operator/real-apiserver.test.ts checks both on a real API server).
 */
function nullable(node: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...node, nullable: true };
  if (Array.isArray(node.enum)) out.enum = node.enum.filter((v) => v !== null);
  return out;
}

/** Convert one JSON Schema node (zod output) into a structural OpenAPI v3 node. `at` is for error messages. */
export function toStructural(node: JsonSchema, at = "$"): JsonSchema {
  for (const k of Object.keys(node)) if (FORBIDDEN.has(k)) throw new Error(`${at}: '${k}' cannot be expressed in a structural schema`);

  // anyOf [X, {type: "null"}] → X + nullable.
  if (Array.isArray(node.anyOf)) {
    const branches = node.anyOf as JsonSchema[];
    const nonNull = branches.filter((b) => b.type !== "null");
    if (nonNull.length !== 1 || branches.length !== 2) throw new Error(`${at}: anyOf other than "X or null" is not structural`);
    const { anyOf: _drop, ...rest } = node;
    return nullable(toStructural({ ...rest, ...nonNull[0] }, at));
  }
  if (Array.isArray(node.type)) {
    const types = (node.type as string[]).filter((t) => t !== "null");
    if (types.length !== 1) throw new Error(`${at}: a type union is not structural`);
    const inner = toStructural({ ...node, type: types[0] }, at);
    return types.length < node.type.length ? nullable(inner) : inner;
  }
  if (node.type === "null") throw new Error(`${at}: a null-only field cannot be expressed in a CRD`);

  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(node)) {
    if (DROPPED.has(k)) continue;
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    // Kubernetes checks the date-time format itself; zod's long leap-year regex adds nothing.
    if (k === "pattern" && node.format === "date-time") continue;
    if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    if (k === "exclusiveMinimum" || k === "exclusiveMaximum") {
      if (typeof v !== "number") throw new Error(`${at}: ${k} must be a number in the zod output`);
      out[k === "exclusiveMinimum" ? "minimum" : "maximum"] = v;
      out[k] = true;
      continue;
    }
    if (k === "additionalProperties") {
      if (v === false) continue; // forbidden in CRDs; unknown fields are pruned instead
      if (isObject(v) && Object.keys(v).length === 0) {
        // A free-form object (volume sources, valueFrom, securityContext): kept as given.
        out["x-kubernetes-preserve-unknown-fields"] = true;
        continue;
      }
      if (!isObject(v)) throw new Error(`${at}: unexpected additionalProperties`);
      out[k] = toStructural(v, `${at}{}`);
      continue;
    }
    if (k === "properties") {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, JsonSchema>).map(([p, s]) => [p, toStructural(s, `${at}.${p}`)]));
      continue;
    }
    if (k === "items") {
      if (!isObject(v)) throw new Error(`${at}: tuple items are not structural`);
      out[k] = toStructural(v, `${at}[]`);
      continue;
    }
    out[k] = v;
  }
  if (out.properties !== undefined && out.additionalProperties !== undefined) throw new Error(`${at}: properties and additionalProperties together`);
  if (typeof out.type !== "string" && out["x-kubernetes-preserve-unknown-fields"] !== true) throw new Error(`${at}: every node needs a type`);
  return out;
}

function schemaOf(schema: z.ZodType): JsonSchema {
  return toStructural(z.toJSONSchema(schema, { io: "output", unrepresentable: "throw" }) as JsonSchema);
}

/** The openAPIV3Schema of the one version: apiVersion/kind/metadata as Kubernetes wants them, spec and status from zod. */
export function openApiSchema(): JsonSchema {
  const status = schemaOf(agentDeploymentStatusSchema);
  const props = status.properties as Record<string, JsonSchema>;
  // Conditions are a map keyed on type (kubebuilder's listType=map, listMapKey=type).
  props.conditions = { ...props.conditions, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"] };
  return {
    type: "object",
    description: "An agent-server deployment managed by the Berth operator: API server, queue workers, Redis and Postgres.",
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object" },
      spec: schemaOf(agentDeploymentSpecSchema),
      status,
    },
    required: ["spec"],
  };
}

export function crd(): JsonSchema {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: CRD_NAME,
      labels: { "app.kubernetes.io/part-of": "berth" },
    },
    spec: {
      group: GROUP,
      scope: "Namespaced",
      names: { kind: KIND, listKind: `${KIND}List`, plural: PLURAL, singular: SINGULAR, shortNames: SHORT_NAMES, categories: ["berth"] },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Status", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: "Revision", type: "string", jsonPath: ".spec.revisionId" },
            { name: "Ready Revision", type: "string", jsonPath: ".status.latestReadyRevision", priority: 1 },
            { name: "URL", type: "string", jsonPath: ".status.url" },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: { openAPIV3Schema: openApiSchema() },
        },
      ],
    },
  };
}

const HEADER = `# Generated by crdYaml() in src/operator/crd.ts from the zod schemas of src/operator/types.ts: do not edit.
# test/unit/operator-crd.test.ts fails when this file differs; regenerate with
#   npx tsx -e 'import("./src/operator/crd.ts").then(m => require("fs").writeFileSync("crds/berth.dev_agentdeployments.yaml", m.crdYaml()))'
`;

export function crdYaml(): string {
  return HEADER + stringify(crd(), { lineWidth: 0 });
}


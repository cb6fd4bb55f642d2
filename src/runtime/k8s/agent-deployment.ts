/**
 * What the k8s listener writes for a revision, as pure functions: the AgentDeployment custom
 * resource (the operator renders it into pods) and the deployment's Secret (the agent's
 * environment). The resource spec is the revision's, with defaults applied by the rules module's
 * `effectiveResourceSpec`: the operator applies none of its own.
 */
import { dropNulls } from "../../operator/render/meta.js";
import { effectiveResourceSpec, type DeploymentConfig, type RevisionSnapshot, type Secret } from "../../control-plane/rules/index.js";
import { API_VERSION, KIND, agentDeploymentSpecSchema, type AgentDeploymentSpec } from "../../operator/types.js";
import type { KubeObject } from "../../operator/kube/index.js";
import { API_KEY_ID_ANNOTATION, AUTH_KEY_ID_ANNOTATION, TRACING_KEY, deploymentLabels, type Named } from "./names.js";
import { PLATFORM_AUTH_ENV } from "../../shared/auth/platform-keys.js";

export interface DeploymentForSpec extends Named {
  config: Pick<Omit<DeploymentConfig, "secrets">, "source_config">;
}

export interface RevisionForSpec {
  id: string;
  snapshot: Pick<RevisionSnapshot, "resource_spec">;
}

export interface AgentDeploymentInputs {
  /** The image to run: `image_uri` (external_container) or the image the build pushed (hosted_git). */
  image: string;
  namespace: string;
  /** Where the agent sends traces: `${BERTH_PUBLIC_URL}/tracing`. */
  tracingEndpoint: string;
  /** The deployment's Secret (environment, and the tracing key under LANGSMITH_API_KEY). */
  secretName: string;
}

export interface AgentDeploymentObject extends KubeObject {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: KubeObject["metadata"] & { namespace: string };
  spec: AgentDeploymentSpec;
}

/**
 * Containers, volumes and mounts without their null fields: kube-apiserver refuses `null` in an enum field of a CRD
 * (imagePullPolicy, restartPolicy) even where the schema says nullable, and an absent field means the same.
 * (Found on a real API server: test/operator/real-apiserver.test.ts.)
 */
function withoutNullFields<T extends { sidecars: unknown[]; init_containers: unknown[]; volumes: unknown[]; volume_mounts: unknown[] }>(r: T): T {
  return { ...r, sidecars: dropNulls(r.sidecars), init_containers: dropNulls(r.init_containers), volumes: dropNulls(r.volumes), volume_mounts: dropNulls(r.volume_mounts) };
}

/** The AgentDeployment of a revision: named like the deployment, in the deployment's namespace. */
export function agentDeploymentFor(deployment: DeploymentForSpec, revision: RevisionForSpec, inputs: AgentDeploymentInputs): AgentDeploymentObject {
  const deploymentType = deployment.config.source_config.deployment_type ?? undefined;
  const spec: AgentDeploymentSpec = {
    deploymentName: deployment.name,
    deploymentId: deployment.id,
    revisionId: revision.id,
    image: inputs.image,
    ...(deploymentType ? { deploymentType } : {}),
    resourceSpec: withoutNullFields(effectiveResourceSpec(revision.snapshot.resource_spec, deploymentType)),
    secretRef: { name: inputs.secretName },
    tracing: { endpoint: inputs.tracingEndpoint, project: deployment.name, apiKeySecretRef: { name: inputs.secretName, key: TRACING_KEY } },
    listenerNamespace: inputs.namespace,
  };
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: { name: deployment.name, namespace: inputs.namespace, labels: deploymentLabels(deployment) },
    spec,
  };
}

/** Why the spec would be refused (the CRD's schema, checked before the API server sees it); undefined when valid. */
export function agentDeploymentProblem(ad: AgentDeploymentObject): string | undefined {
  const parsed = agentDeploymentSpecSchema.safeParse(ad.spec);
  if (parsed.success) return undefined;
  return parsed.error.issues.map((i) => `spec.${i.path.join(".")}: ${i.message}`).join("; ");
}

export interface SecretInputs {
  name: string;
  namespace: string;
  /** The revision's secrets, decrypted. */
  secrets: Secret[];
  /** The deployment's tracing key (ours wins over a user secret of the same name). */
  apiKey: { id: string; key: string };
  /** Platform auth: the deployment's credential (its id annotated) and the environment that turns it on. */
  authKey?: { id: string; key: string };
  platformAuth?: Record<string, string>;
}

/** The deployment's Secret: every secret of the revision as a key, plus the tracing API key. */
export function deploymentSecretFor(deployment: Named, inputs: SecretInputs): KubeObject {
  const data: Record<string, string> = {};
  for (const s of inputs.secrets) data[s.name] = Buffer.from(s.value, "utf8").toString("base64");
  data[TRACING_KEY] = Buffer.from(inputs.apiKey.key, "utf8").toString("base64");
  // platform auth is ours too: a user secret does not turn it off
  for (const [k, v] of Object.entries(inputs.platformAuth ?? {})) data[k] = Buffer.from(v, "utf8").toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: inputs.name,
      namespace: inputs.namespace,
      labels: deploymentLabels(deployment),
      annotations: { [API_KEY_ID_ANNOTATION]: inputs.apiKey.id, ...(inputs.authKey ? { [AUTH_KEY_ID_ANNOTATION]: inputs.authKey.id } : {}) },
    },
    type: "Opaque",
    data,
  };
}

/** The tracing key kept in an existing Secret, if it holds one we minted. */
export function apiKeyOf(secret: KubeObject | undefined): { id: string; key: string } | undefined {
  const id = secret?.metadata.annotations?.[API_KEY_ID_ANNOTATION];
  const encoded = (secret?.data as Record<string, string> | undefined)?.[TRACING_KEY];
  if (!id || !encoded) return undefined;
  return { id, key: Buffer.from(encoded, "base64").toString("utf8") };
}

/** The platform-auth credential kept in an existing Secret, if it holds one we minted. */
export function authKeyOf(secret: KubeObject | undefined): { id: string; key: string } | undefined {
  const id = secret?.metadata.annotations?.[AUTH_KEY_ID_ANNOTATION];
  const encoded = (secret?.data as Record<string, string> | undefined)?.[PLATFORM_AUTH_ENV.deploymentKey];
  if (!id || !encoded) return undefined;
  return { id, key: Buffer.from(encoded, "base64").toString("utf8") };
}

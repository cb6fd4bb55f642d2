/**
 * The agent-server pods: the API-server Deployment (`berth serve`), the queue-worker Deployment
 * (`berth worker`), their HorizontalPodAutoscalers and the Service in front of the API pods.
 *
 * Both Deployments run the revision's image with the same user parts of the pod (service account,
 * image pull secrets, volumes, init containers, sidecars); only the agent container differs.
 *
 * `spec.replicas` is `min_scale`. Once the HPA has scaled, re-applying it would reset the count: the
 * controller should leave `replicas` out of its apply to an existing Deployment that has an HPA.
 */
import type { Container } from "../../control-plane/rules/index.js";
import { ALL_FEATURES, type ClusterFeatures } from "../kube/capabilities.js";
import type { AgentDeployment, KubernetesObject } from "../types.js";
import { REVISION_ID_ANNOTATION, annotations, cpuQuantity, dropNulls, labels, metadata, mi, selectorLabels, type Component } from "./meta.js";
import type { ChildNames } from "./names.js";
import { POSTGRES_PASSWORD_KEY, databaseUri } from "./postgres.js";
import { redisUri } from "./redis.js";

export const AGENT_PORT = 8000;
export const AGENT_CONTAINER = "agent-server";
export const HPA_CPU_UTILIZATION = 75;

type K8sContainer = Record<string, unknown>;

/** A user container as Kubernetes wants it: nulls dropped; `restartPolicy` only where it means something. */
function userContainer(c: Container, keepRestartPolicy: boolean): K8sContainer {
  const { restartPolicy, ...rest } = dropNulls(c);
  return keepRestartPolicy && restartPolicy === "Always" ? { ...rest, restartPolicy } : rest;
}

/**
 * Sidecars that ask for `restartPolicy: Always` become native sidecars (init containers that keep
 * running, Kubernetes >= 1.29), placed before the user's init containers so those can use them (a
 * proxy, say). Other sidecars are regular containers next to the agent container. On an older
 * cluster (`nativeSidecars` false) every sidecar is a regular container: an older API server drops
 * the unknown `restartPolicy`, and an init container that never exits would keep the pod from ever
 * starting.
 */
export function podContainers(ad: AgentDeployment, agent: K8sContainer, nativeSidecars = true): { initContainers: K8sContainer[]; containers: K8sContainer[] } {
  const r = ad.spec.resourceSpec;
  const isNative = (s: Container) => nativeSidecars && s.restartPolicy === "Always";
  const native = r.sidecars.filter(isNative).map((s) => userContainer(s, true));
  const regular = r.sidecars.filter((s) => !isNative(s)).map((s) => userContainer(s, false));
  const init = r.init_containers.map((c) => userContainer(c, true));
  return { initContainers: [...native, ...init], containers: [agent, ...regular] };
}

function agentEnv(ad: AgentDeployment, names: ChildNames, component: "api" | "queue"): Record<string, unknown>[] {
  const env: Record<string, unknown>[] = [
    { name: "HOST", value: "0.0.0.0" },
    { name: "PORT", value: String(AGENT_PORT) },
    { name: "BERTH_DEPLOYMENT_ID", value: ad.spec.deploymentId },
    { name: "BERTH_REVISION_ID", value: ad.spec.revisionId },
    { name: "POSTGRES_PASSWORD", valueFrom: { secretKeyRef: { name: names.postgresSecret, key: POSTGRES_PASSWORD_KEY } } },
    // After POSTGRES_PASSWORD: `$(POSTGRES_PASSWORD)` only expands variables defined earlier.
    { name: "DATABASE_URI", value: databaseUri(ad, names) },
    { name: "REDIS_URI", value: redisUri(ad, names) },
  ];
  // The queue Deployment always exists, so the API pods run no background jobs of their own.
  if (component === "api") env.push({ name: "N_JOBS_PER_WORKER", value: "0" });
  const t = ad.spec.tracing;
  if (t) {
    env.push({ name: "LANGSMITH_TRACING", value: "true" }, { name: "LANGSMITH_ENDPOINT", value: t.endpoint }, { name: "LANGSMITH_PROJECT", value: t.project });
    if (t.apiKeySecretRef) env.push({ name: "LANGSMITH_API_KEY", valueFrom: { secretKeyRef: { name: t.apiKeySecretRef.name, key: t.apiKeySecretRef.key } } });
  }
  return env;
}

function agentContainer(ad: AgentDeployment, names: ChildNames, component: "api" | "queue"): K8sContainer {
  const r = ad.spec.resourceSpec;
  const api = component === "api";
  const probe = (extra: Record<string, unknown>) => ({ httpGet: { path: "/ok", port: "http" }, ...extra });
  const container: K8sContainer = {
    name: AGENT_CONTAINER,
    image: ad.spec.image,
    command: ["berth", api ? "serve" : "worker"],
    // Explicit env wins over envFrom, so a user secret cannot redirect DATABASE_URI and friends.
    envFrom: [{ secretRef: { name: ad.spec.secretRef.name } }],
    env: agentEnv(ad, names, component),
    resources: api
      ? { requests: { cpu: cpuQuantity(r.cpu), memory: mi(r.memory_mb) }, limits: { cpu: cpuQuantity(r.cpu_limit), memory: mi(r.memory_limit_mb) } }
      : { requests: { cpu: cpuQuantity(r.queue_cpu), memory: mi(r.queue_memory_mb) }, limits: { cpu: cpuQuantity(r.queue_cpu_limit), memory: mi(r.queue_memory_limit_mb) } },
  };
  if (api) {
    container.ports = [{ name: "http", containerPort: AGENT_PORT, protocol: "TCP" }];
    container.startupProbe = probe({ periodSeconds: 5, failureThreshold: 60 });
    container.readinessProbe = probe({ periodSeconds: 10, failureThreshold: 3 });
    container.livenessProbe = probe({ periodSeconds: 15, failureThreshold: 4, timeoutSeconds: 5 });
  }
  if (r.volume_mounts.length > 0) container.volumeMounts = dropNulls(r.volume_mounts);
  return container;
}

function agentDeployment(ad: AgentDeployment, names: ChildNames, component: "api" | "queue", features: ClusterFeatures): KubernetesObject {
  const r = ad.spec.resourceSpec;
  const name = component === "api" ? names.api : names.queue;
  const { initContainers, containers } = podContainers(ad, agentContainer(ad, names, component), features.nativeSidecars);
  const podSpec: Record<string, unknown> = { enableServiceLinks: false, containers };
  if (initContainers.length > 0) podSpec.initContainers = initContainers;
  if (r.service_account_name) podSpec.serviceAccountName = r.service_account_name;
  if (r.image_pull_secrets.length > 0) podSpec.imagePullSecrets = r.image_pull_secrets.map((s) => ({ name: s.name }));
  if (r.volumes.length > 0) podSpec.volumes = dropNulls(r.volumes);
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: metadata(ad, name, component),
    spec: {
      replicas: component === "api" ? r.min_scale : r.queue_min_scale,
      revisionHistoryLimit: 10,
      // Generous: the startup probe allows 5 minutes; past this the rollout is reported as failed.
      progressDeadlineSeconds: 600,
      selector: { matchLabels: selectorLabels(ad, component) },
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "25%" } },
      template: {
        metadata: {
          labels: labels(ad, component),
          // The revision on the pod template: a new revision always rolls out new pods, even with the same image.
          annotations: { ...annotations(ad), [REVISION_ID_ANNOTATION]: ad.spec.revisionId },
        },
        spec: podSpec,
      },
    },
  };
}

export const apiDeployment = (ad: AgentDeployment, names: ChildNames, features: ClusterFeatures = ALL_FEATURES) => agentDeployment(ad, names, "api", features);
export const queueDeployment = (ad: AgentDeployment, names: ChildNames, features: ClusterFeatures = ALL_FEATURES) => agentDeployment(ad, names, "queue", features);

/**
 * An HPA between the min and max scale, on 75% CPU. None when the min scale is 0: a plain HPA cannot
 * scale to zero (it needs minReplicas >= 1), so a Deployment at 0 replicas stays there.
 */
export function hpa(ad: AgentDeployment, names: ChildNames, component: Extract<Component, "api" | "queue">): KubernetesObject | null {
  const r = ad.spec.resourceSpec;
  const [min, max] = component === "api" ? [r.min_scale, r.max_scale] : [r.queue_min_scale, r.queue_max_scale];
  if (min < 1) return null;
  const target = component === "api" ? names.api : names.queue;
  return {
    apiVersion: "autoscaling/v2",
    kind: "HorizontalPodAutoscaler",
    metadata: metadata(ad, target, component),
    spec: {
      scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: target },
      minReplicas: min,
      maxReplicas: Math.max(min, max),
      metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: HPA_CPU_UTILIZATION } } }],
    },
  };
}

export function apiService(ad: AgentDeployment, names: ChildNames): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(ad, names.service, "api"),
    spec: {
      type: "ClusterIP",
      selector: selectorLabels(ad, "api"),
      ports: [{ name: "http", port: AGENT_PORT, targetPort: "http", protocol: "TCP" }],
    },
  };
}

/** The in-cluster URL of the deployment (status.url). */
export function serviceUrl(ad: AgentDeployment, names: ChildNames): string {
  return `http://${names.service}.${ad.metadata.namespace}.svc:${AGENT_PORT}`;
}

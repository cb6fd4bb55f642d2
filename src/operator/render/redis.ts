/** The deployment's Redis (pub/sub and stream buffers, no persistence): a Deployment and a Service sized by `kvstore_memory_mb`. */
import type { AgentDeployment, KubernetesObject } from "../types.js";
import { labels, metadata, mi, selectorLabels } from "./meta.js";
import type { ChildNames } from "./names.js";

export const REDIS_IMAGE = "redis:7-alpine";
export const REDIS_PORT = 6379;

export function redisDeployment(ad: AgentDeployment, names: ChildNames): KubernetesObject {
  const mb = ad.spec.resourceSpec.kvstore_memory_mb;
  const meta = metadata(ad, names.redis, "redis");
  const ping = { exec: { command: ["redis-cli", "ping"] }, periodSeconds: 10, failureThreshold: 3 };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta,
    spec: {
      replicas: 1,
      strategy: { type: "Recreate" },
      selector: { matchLabels: selectorLabels(ad, "redis") },
      template: {
        metadata: { labels: labels(ad, "redis"), ...(meta.annotations ? { annotations: meta.annotations } : {}) },
        spec: {
          enableServiceLinks: false,
          containers: [
            {
              name: "redis",
              image: REDIS_IMAGE,
              // Keep Redis' own memory use under the container limit (90%), no persistence.
              args: ["--maxmemory", `${Math.max(1, Math.floor(mb * 0.9))}mb`, "--save", "", "--appendonly", "no"],
              ports: [{ name: "redis", containerPort: REDIS_PORT, protocol: "TCP" }],
              resources: { requests: { cpu: "100m", memory: mi(mb) }, limits: { memory: mi(mb) } },
              readinessProbe: ping,
              livenessProbe: { ...ping, initialDelaySeconds: 10 },
            },
          ],
        },
      },
    },
  };
}

export function redisService(ad: AgentDeployment, names: ChildNames): KubernetesObject {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: metadata(ad, names.redis, "redis"),
    spec: {
      type: "ClusterIP",
      selector: selectorLabels(ad, "redis"),
      ports: [{ name: "redis", port: REDIS_PORT, targetPort: "redis", protocol: "TCP" }],
    },
  };
}

export function redisUri(ad: AgentDeployment, names: ChildNames): string {
  return `redis://${names.redis}.${ad.metadata.namespace}.svc:${REDIS_PORT}`;
}

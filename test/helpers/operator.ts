/** The operator for tests and benchmarks: AgentDeployment objects and an operator on a fake API server. */
import { randomUUID } from "node:crypto";
import type { KubeConfig } from "@kubernetes/client-node";
import { effectiveResourceSpec, type ResourceSpec } from "../../src/control-plane/rules/index.js";
import { startOperator, type OperatorHandle, type OperatorOptions } from "../../src/operator/operator.js";
import { resolveOperatorSettings, type OperatorSettings } from "../../src/operator/settings.js";
import { silentLogger, type Logger } from "../../src/shared/logging.js";
import type { KubeObject } from "../../src/operator/kube/index.js";

export function agentDeploymentObject(
  name: string,
  namespace: string,
  options: { image?: string; revisionId?: string; resourceSpec?: ResourceSpec | null; deploymentId?: string } = {},
): KubeObject {
  return {
    apiVersion: "berth.dev/v1alpha1",
    kind: "AgentDeployment",
    metadata: { name, namespace },
    spec: {
      deploymentName: name,
      deploymentId: options.deploymentId ?? randomUUID(),
      revisionId: options.revisionId ?? randomUUID(),
      image: options.image ?? "registry.example.com/agents/demo:1",
      deploymentType: "dev",
      resourceSpec: effectiveResourceSpec(options.resourceSpec ?? null, "dev"),
      secretRef: { name: `${name}-secrets` },
    },
  };
}

export async function startTestOperator(
  kubeConfig: KubeConfig,
  overrides: Partial<OperatorSettings> = {},
  options: OperatorOptions & { logger?: Logger } = {},
): Promise<OperatorHandle> {
  const settings = { ...resolveOperatorSettings({ port: 0, host: "127.0.0.1", leaderElect: false }, {}), identity: `op-${randomUUID().slice(0, 6)}`, ...overrides };
  return startOperator(settings, options.logger ?? silentLogger, {
    kubeConfig,
    // fast retries and leases: tests wait on outcomes, not on production timings
    queue: { baseDelayMs: 5, maxDelayMs: 500, ...options.queue },
    lease: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200, ...options.lease },
    resyncMs: options.resyncMs ?? 0,
  });
}

/**
 * Kubernetes Events on an AgentDeployment (`kubectl describe ad` shows them): rollouts that finish
 * or fail, cleanup. Fire and forget — an event that cannot be written must never fail a reconcile.
 */
import type { Logger } from "../../shared/logging.js";
import type { KubeObject, KubeRest } from "../kube/index.js";

export interface EventRecorder {
  record(on: KubeObject, type: "Normal" | "Warning", reason: string, message: string): void;
}

export class KubeEventRecorder implements EventRecorder {
  constructor(
    private readonly rest: KubeRest,
    private readonly component: string,
    private readonly instance: string,
    private readonly logger: Logger,
  ) {}

  record(on: KubeObject, type: "Normal" | "Warning", reason: string, message: string): void {
    const now = new Date().toISOString();
    const event = {
      apiVersion: "v1",
      kind: "Event",
      metadata: { generateName: `${on.metadata.name}.`, namespace: on.metadata.namespace ?? "default" },
      involvedObject: {
        apiVersion: on.apiVersion,
        kind: on.kind,
        name: on.metadata.name,
        namespace: on.metadata.namespace,
        uid: on.metadata.uid,
        resourceVersion: on.metadata.resourceVersion,
      },
      type,
      reason,
      message: message.slice(0, 1024),
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: this.instance,
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
    };
    this.rest.create(event as unknown as KubeObject).catch((err) => this.logger.debug({ err: String(err), reason }, "could not record an event"));
  }
}

/**
 * The operator's Prometheus metrics (prom-client), named after controller-runtime's so existing
 * dashboards read them: reconciles by result and their duration, work queue depth/adds/retries and
 * wait time, Kubernetes API requests by verb and code, watch restarts, leadership; plus Node's
 * process metrics (memory, CPU, event loop lag). One registry per operator, so several operators
 * in one process (tests) do not collide.
 */
import client from "prom-client";

export class OperatorMetrics {
  readonly registry = new client.Registry();
  readonly reconciles = new client.Counter({ name: "controller_runtime_reconcile_total", help: "Reconciles by result (success, error, requeue_after)", labelNames: ["controller", "result"], registers: [this.registry] });
  readonly reconcileSeconds = new client.Histogram({
    name: "controller_runtime_reconcile_time_seconds",
    help: "Time per reconcile",
    labelNames: ["controller"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly queueDepth = new client.Gauge({ name: "workqueue_depth", help: "Keys waiting in the work queue", labelNames: ["name"], registers: [this.registry] });
  readonly queueAdds = new client.Counter({ name: "workqueue_adds_total", help: "Keys added to the work queue", labelNames: ["name"], registers: [this.registry] });
  readonly queueRetries = new client.Counter({ name: "workqueue_retries_total", help: "Rate-limited re-adds after a failed reconcile", labelNames: ["name"], registers: [this.registry] });
  readonly queueWaitSeconds = new client.Histogram({
    name: "workqueue_queue_duration_seconds",
    help: "Time a key waits in the queue before a worker takes it",
    labelNames: ["name"],
    buckets: [0.001, 0.01, 0.1, 0.5, 1, 5, 10, 60],
    registers: [this.registry],
  });
  readonly apiRequests = new client.Counter({ name: "rest_client_requests_total", help: "Kubernetes API requests by verb and HTTP code", labelNames: ["verb", "code"], registers: [this.registry] });
  readonly watchRestarts = new client.Counter({ name: "berth_operator_watch_restarts_total", help: "Watches restarted after an error", labelNames: ["kind"], registers: [this.registry] });
  readonly leader = new client.Gauge({ name: "leader_election_master_status", help: "1 while this replica leads", labelNames: ["name"], registers: [this.registry] });
  /** Set by the controller: how many AgentDeployments its cache holds (read at scrape time). */
  managedCount: () => number = () => 0;
  readonly managed: client.Gauge = new client.Gauge({
    name: "berth_operator_agentdeployments",
    help: "AgentDeployments in the cache",
    registers: [this.registry],
    collect: (): void => this.managed.set(this.managedCount()),
  });

  constructor() {
    client.collectDefaultMetrics({ register: this.registry });
  }
}

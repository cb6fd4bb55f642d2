/**
 * `berth operator`: the controller behind leader election, with /healthz, /readyz and /metrics.
 *
 * Every replica serves probes; only the leader runs the controller. A replica that loses the lease
 * stops its controller (informers, queue, workers) and campaigns again, so at most one replica
 * writes at a time. /readyz is true for a standby (it is healthy, just not leading) and for a
 * leader once its caches have synced.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../shared/logging.js";
import { listen } from "../shared/net.js";
import { KubeRest, loadKubeConfig } from "./kube/index.js";
import { Controller } from "./controller/controller.js";
import { KubeEventRecorder } from "./controller/events.js";
import { LeaderElector } from "./controller/leader.js";
import { OperatorMetrics } from "./controller/metrics.js";
import type { WorkQueueOptions } from "./controller/workqueue.js";
import type { OperatorSettings } from "./settings.js";

export interface OperatorHandle {
  /** http://host:port of the probes and metrics. */
  url: string;
  metrics: OperatorMetrics;
  rest: KubeRest;
  readonly isLeader: boolean;
  /** The running controller while leading. */
  readonly controller: Controller | undefined;
  close(): Promise<void>;
}

export interface OperatorOptions {
  /** Use this cluster connection instead of loading one (tests, benchmarks). */
  kubeConfig?: KubeConfig;
  resyncMs?: number;
  queue?: WorkQueueOptions;
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
}

export async function startOperator(settings: OperatorSettings, logger: Logger, options: OperatorOptions = {}): Promise<OperatorHandle> {
  const kubeConfig = options.kubeConfig ?? loadKubeConfig({ kubeconfig: settings.kubeconfig });
  const rest = new KubeRest(kubeConfig);
  const metrics = new OperatorMetrics();
  rest.onRequest((verb, _path, status) => metrics.apiRequests.inc({ verb, code: String(status) }));
  const events = new KubeEventRecorder(rest, "berth-operator", settings.identity, logger);

  let controller: Controller | undefined;
  // start/stop calls are serialised: leadership can flap faster than a controller stops
  let transition = Promise.resolve();
  const lead = () => {
    transition = transition.then(async () => {
      if (controller) return;
      controller = new Controller({ kubeConfig, rest, namespaces: settings.namespaces, workers: settings.workers, logger, metrics, events, resyncMs: options.resyncMs, queue: options.queue });
      metrics.leader.set({ name: settings.leaseName }, 1);
      await controller.start();
    });
  };
  const follow = () => {
    transition = transition.then(async () => {
      metrics.leader.set({ name: settings.leaseName }, 0);
      const c = controller;
      controller = undefined;
      await c?.stop();
    });
  };

  const elector = settings.leaderElect
    ? new LeaderElector(rest, { namespace: settings.leaseNamespace, name: settings.leaseName, identity: settings.identity, logger, onStartedLeading: lead, onStoppedLeading: follow, ...options.lease })
    : undefined;

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz") return void res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (path === "/readyz") {
      const ready = controller ? controller.hasSynced : !!elector;
      return void res.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(ready ? "ok" : "caches not synced");
    }
    if (path === "/metrics") {
      metrics.registry.metrics().then(
        (text) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
        (err) => res.writeHead(500).end(String(err)),
      );
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" }).end("not found");
  });
  await listen(server, settings.port, settings.host);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${settings.host === "0.0.0.0" ? "127.0.0.1" : settings.host}:${port}`;

  if (elector) elector.start();
  else lead();
  logger.info({ url, leaderElection: settings.leaderElect, lease: `${settings.leaseNamespace}/${settings.leaseName}`, identity: settings.identity }, "berth operator started");

  return {
    url,
    metrics,
    rest,
    get isLeader() {
      return elector ? elector.isLeader : true;
    },
    get controller() {
      return controller;
    },
    async close() {
      if (elector) await elector.stop();
      else follow();
      await transition;
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rest.close();
    },
  };
}

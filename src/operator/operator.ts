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
import { KubeRest, discoverCapabilities, loadKubeConfig, sameFeatures, type ClusterCapabilities } from "./kube/index.js";
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
  /** What discovery found when the running controller started. */
  readonly capabilities: ClusterCapabilities | undefined;
  close(): Promise<void>;
}

export interface OperatorOptions {
  /** Use this cluster connection instead of loading one (tests, benchmarks). */
  kubeConfig?: KubeConfig;
  resyncMs?: number;
  queue?: WorkQueueOptions;
  lease?: { leaseDurationMs?: number; renewDeadlineMs?: number; retryPeriodMs?: number };
  /** Look at the cluster's APIs again this often; a change restarts the controller (default 5 minutes; 0 = never). */
  discoveryMs?: number;
  /** close() waits at most this long for the controller to stop (default 10 s). */
  closeTimeoutMs?: number;
}

export async function startOperator(settings: OperatorSettings, logger: Logger, options: OperatorOptions = {}): Promise<OperatorHandle> {
  const kubeConfig = options.kubeConfig ?? loadKubeConfig({ kubeconfig: settings.kubeconfig });
  const rest = new KubeRest(kubeConfig);
  const metrics = new OperatorMetrics();
  rest.onRequest((verb, _path, status) => metrics.apiRequests.inc({ verb, code: String(status) }));
  const events = new KubeEventRecorder(rest, "berth-operator", settings.identity, logger);

  let controller: Controller | undefined;
  let capabilities: ClusterCapabilities | undefined;
  let wantLead = false;
  let closing = false;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms).unref());
  /** Discovery, retried until it answers or leadership ends (a network blip at start must not be fatal). */
  const discover = async (): Promise<ClusterCapabilities | undefined> => {
    for (let delay = 250; wantLead; delay = Math.min(delay * 2, 5000)) {
      try {
        return await discoverCapabilities(rest, settings.namespaces);
      } catch (err) {
        logger.warn({ err: String((err as Error)?.message ?? err), retryInMs: delay }, "API discovery failed; retrying");
        await sleep(delay);
      }
    }
    return undefined;
  };
  // start/stop calls are serialised: leadership can flap faster than a controller stops
  let transition = Promise.resolve();
  const lead = () => {
    wantLead = true;
    transition = transition.then(async () => {
      if (controller || !wantLead) return;
      const caps = await discover();
      if (!caps || !wantLead) return;
      capabilities = caps;
      const missing = Object.values(caps.reasons);
      if (missing.length) logger.warn({ version: caps.version.gitVersion, missing }, "the cluster lacks optional features; reported on each AgentDeployment (condition ClusterSupported)");
      controller = new Controller({ kubeConfig, rest, namespaces: settings.namespaces, workers: settings.workers, logger, metrics, events, resyncMs: options.resyncMs, queue: options.queue, capabilities: caps });
      metrics.leader.set({ name: settings.leaseName }, 1);
      await controller.start();
    });
  };
  const follow = () => {
    wantLead = false;
    metrics.leader.set({ name: settings.leaseName }, 0);
    // Stop at once, not behind the start: a start still waiting for caches that never sync (a list
    // forbidden by RBAC, a kind not served) would otherwise hold the stop — and close() — for ever.
    const c = controller;
    controller = undefined;
    const stopping = c?.stop();
    transition = transition.then(async () => {
      await stopping;
      const late = wantLead ? undefined : controller;
      if (late) controller = undefined;
      await late?.stop();
    });
  };

  // The cluster can change under a running operator (an upgrade, a CRD or RBAC rule added): look again.
  const rediscoverMs = options.discoveryMs ?? 300_000;
  const rediscover =
    rediscoverMs > 0
      ? setInterval(() => {
          if (!controller || !capabilities || closing) return;
          const before = capabilities;
          discoverCapabilities(rest, settings.namespaces).then(
            (now) => {
              if (closing || !controller || capabilities !== before || sameFeatures(before.features, now.features)) return;
              logger.info({ before: before.features, now: now.features }, "cluster capabilities changed; restarting the controller");
              follow();
              lead();
            },
            (err) => logger.debug({ err: String(err) }, "API discovery failed; keeping the current capabilities"),
          );
        }, rediscoverMs)
      : undefined;
  rediscover?.unref();

  const elector = settings.leaderElect
    ? new LeaderElector(rest, { namespace: settings.leaseNamespace, name: settings.leaseName, identity: settings.identity, logger, onStartedLeading: lead, onStoppedLeading: follow, ...options.lease })
    : undefined;

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/healthz") return void res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (path === "/readyz") {
      const ready = controller ? controller.hasSynced : !!elector;
      const why = controller?.syncProblems().join("\n") || "caches not synced";
      return void res.writeHead(ready ? 200 : 503, { "content-type": "text/plain" }).end(ready ? "ok" : `caches not synced:\n${why}`);
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
    get capabilities() {
      return capabilities;
    },
    async close() {
      closing = true;
      clearInterval(rediscover);
      if (elector) await elector.stop();
      else follow();
      // Bounded: a stop that hangs (an API call that never returns) must not keep the process alive.
      const limit = options.closeTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([transition.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), limit)))]);
      clearTimeout(timer);
      if (timedOut) logger.warn({ waitedMs: limit }, "the controller did not stop in time; closing anyway");
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      rest.close();
    },
  };
}

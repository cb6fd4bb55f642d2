/**
 * The AgentDeployment controller: informers on AgentDeployments and on the kinds it owns, one work
 * queue of namespace/name keys, and N workers running the Reconciler. Any event — on the CR or on a
 * child (found through its controller owner reference) — just enqueues the CR's key; the reconcile
 * then looks at everything afresh. A periodic resync enqueues every CR, so a missed event or a
 * child edited by hand is corrected within `resyncMs`.
 */
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../../shared/logging.js";
import { Informer, type ClusterCapabilities, type KubeObject, type KubeRest } from "../kube/index.js";
import { MANAGED_BY } from "../render/meta.js";
import { API_VERSION, KIND } from "../types.js";
import type { EventRecorder } from "./events.js";
import type { OperatorMetrics } from "./metrics.js";
import { Reconciler, type ObjectCache } from "./reconcile.js";
import { WorkQueue, type WorkQueueOptions } from "./workqueue.js";

/** The kinds the render produces: watched so that a change to a child reconciles its owner. */
const OWNED: [apiVersion: string, kind: string][] = [
  ["apps/v1", "Deployment"],
  ["apps/v1", "StatefulSet"],
  ["v1", "Service"],
  ["v1", "Secret"],
];
/** Watched only where the cluster serves them and RBAC allows (capabilities.ts). */
const HPA: [apiVersion: string, kind: string] = ["autoscaling/v2", "HorizontalPodAutoscaler"];

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  rest: KubeRest;
  /** Watch these namespaces; every namespace when empty. */
  namespaces: string[];
  workers: number;
  logger: Logger;
  metrics: OperatorMetrics;
  events: EventRecorder;
  /** Enqueue every AgentDeployment this often (default 10 minutes; 0 = never). */
  resyncMs?: number;
  queue?: WorkQueueOptions;
  /** What the cluster supports (discovery); everything when absent. */
  capabilities?: ClusterCapabilities;
}

export interface ControllerStats {
  reconciles: number;
  errors: number;
  writes: number;
}

export class Controller implements ObjectCache {
  private readonly informers = new Map<string, Informer[]>();
  private readonly queue: WorkQueue<string>;
  private readonly reconciler: Reconciler;
  private readonly workers: Promise<void>[] = [];
  private resyncTimer: NodeJS.Timeout | undefined;
  private running = false;
  private syncedOnce = false;
  /** Resolves when stop() is called: a start still waiting for its caches gives up at once. */
  private stopRequested!: () => void;
  private readonly stopSignal = new Promise<void>((r) => (this.stopRequested = r));
  readonly stats: ControllerStats = { reconciles: 0, errors: 0, writes: 0 };

  constructor(private readonly o: ControllerOptions) {
    this.queue = new WorkQueue<string>(o.queue);
    this.queue.onDequeue = (ms) => o.metrics.queueWaitSeconds.observe({ name: "agentdeployment" }, ms / 1000);
    this.reconciler = new Reconciler({ rest: o.rest, cache: this, events: o.events, logger: o.logger, capabilities: o.capabilities });
    const scopes = o.namespaces.length > 0 ? o.namespaces : [undefined];
    const make = (apiVersion: string, kind: string, labelSelector?: string) =>
      scopes.map(
        (namespace) =>
          new Informer(o.kubeConfig, o.rest, {
            apiVersion,
            kind,
            namespace,
            labelSelector,
            logger: o.logger,
            onRestart: () => o.metrics.watchRestarts.inc({ kind }),
          }),
      );
    const ads = make(API_VERSION, KIND);
    o.metrics.managedCount = () => ads.reduce((n, i) => n + i.list().length, 0);
    this.informers.set(`${API_VERSION}/${KIND}`, ads);
    for (const inf of ads) {
      inf.on("add", (ad) => this.enqueue(ad));
      inf.on("update", (ad) => this.enqueue(ad));
      inf.on("delete", (ad) => this.enqueue(ad));
    }
    const owned = o.capabilities && !o.capabilities.features.hpa ? OWNED : [...OWNED, HPA];
    for (const [apiVersion, kind] of owned) {
      const infs = make(apiVersion, kind, `app.kubernetes.io/managed-by=${MANAGED_BY}`);
      this.informers.set(`${apiVersion}/${kind}`, infs);
      for (const inf of infs) {
        const owner = (o: KubeObject) => this.enqueueOwner(o);
        inf.on("add", owner);
        inf.on("update", owner);
        inf.on("delete", (o) => {
          if (o.metadata.uid) this.reconciler.forgetChildren([o.metadata.uid]);
          owner(o);
        });
      }
    }
  }

  get hasSynced(): boolean {
    return this.syncedOnce;
  }

  /** Why the caches have not synced: each informer still waiting, with its last error (for /readyz). */
  syncProblems(): string[] {
    const out: string[] = [];
    for (const [kind, infs] of this.informers) {
      for (const inf of infs) {
        if (inf.hasSynced) continue;
        const err = inf.lastError ? `: ${String((inf.lastError as Error)?.message ?? inf.lastError)}` : ": waiting for the first list";
        out.push(`${kind}${err}`);
      }
    }
    return out;
  }

  /** Nothing queued and nothing being reconciled (the benchmark's steady state). */
  get idle(): boolean {
    const s = this.queue.snapshot();
    return s.depth === 0 && s.processing === 0;
  }

  get queueStats() {
    return this.queue.snapshot();
  }

  get(apiVersion: string, kind: string, namespace: string, name: string): KubeObject | undefined {
    const infs = this.informers.get(`${apiVersion}/${kind}`);
    if (!infs) return undefined;
    for (const inf of infs) {
      const hit = inf.get(name, namespace);
      if (hit) return hit;
    }
    return undefined;
  }

  /** Start the informers, wait for their first lists, then start the workers. */
  async start(): Promise<void> {
    this.running = true;
    const all = [...this.informers.values()].flat();
    for (const inf of all) inf.start();
    // A list that keeps failing (403, 404) must not hold up stop(): race the sync against it.
    await Promise.race([Promise.all(all.map((i) => i.synced())), this.stopSignal]);
    if (!this.running) return;
    this.syncedOnce = true;
    this.o.logger.info({ namespaces: this.o.namespaces.length ? this.o.namespaces : "all", workers: this.o.workers }, "controller caches synced; reconciling");
    for (let i = 0; i < this.o.workers; i++) this.workers.push(this.work());
    const resync = this.o.resyncMs ?? 600_000;
    if (resync > 0) {
      this.resyncTimer = setInterval(() => this.resync(), resync);
      this.resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopRequested();
    clearInterval(this.resyncTimer);
    this.queue.shutDown();
    await Promise.all(this.workers.splice(0));
    await Promise.all([...this.informers.values()].flat().map((i) => i.stop()));
  }

  /** Enqueue every AgentDeployment in the cache. */
  resync(): void {
    for (const inf of this.informers.get(`${API_VERSION}/${KIND}`) ?? []) for (const ad of inf.list()) this.enqueue(ad);
  }

  private enqueue(ad: KubeObject): void {
    this.add(`${ad.metadata.namespace}/${ad.metadata.name}`);
  }

  private enqueueOwner(child: KubeObject): void {
    const owner = child.metadata.ownerReferences?.find((r) => r.controller && r.kind === KIND && r.apiVersion === API_VERSION);
    if (owner) this.add(`${child.metadata.namespace}/${owner.name}`);
  }

  private add(key: string): void {
    this.queue.add(key);
    this.o.metrics.queueAdds.inc({ name: "agentdeployment" });
    this.o.metrics.queueDepth.set({ name: "agentdeployment" }, this.queue.depth);
  }

  private async work(): Promise<void> {
    const m = this.o.metrics;
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      m.queueDepth.set({ name: "agentdeployment" }, this.queue.depth);
      const [namespace, name] = key.split("/") as [string, string];
      const end = m.reconcileSeconds.startTimer({ controller: "agentdeployment" });
      try {
        const res = await this.reconciler.reconcile(namespace, name);
        this.stats.reconciles++;
        this.stats.writes += res.writes;
        this.queue.forget(key);
        if (res.requeueAfterMs) this.queue.addAfter(key, res.requeueAfterMs);
        m.reconciles.inc({ controller: "agentdeployment", result: res.requeueAfterMs ? "requeue_after" : "success" });
      } catch (err) {
        this.stats.errors++;
        m.reconciles.inc({ controller: "agentdeployment", result: "error" });
        m.queueRetries.inc({ name: "agentdeployment" });
        const attempt = this.queue.failuresOf(key) + 1;
        this.o.logger[attempt > 3 ? "warn" : "debug"]({ err: String((err as Error)?.message ?? err), key, attempt }, "reconcile failed; retrying with backoff");
        this.queue.addRateLimited(key);
      } finally {
        end();
        this.queue.done(key);
      }
    }
  }
}

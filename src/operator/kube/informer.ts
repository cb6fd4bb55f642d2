/**
 * An informer that never gives up: client-node's ListWatch (list, cache, watch from the list's
 * resourceVersion, relist on 410 Gone) wrapped so that any other error — a dropped connection, an
 * API server restart, a 5xx on list — restarts it after a backoff instead of stopping it for good.
 * The cache holds plain JSON as the server sent it.
 */
import { ListWatch, Watch, type KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../../shared/logging.js";
import { collectionPath, resourceType } from "./resources.js";
import type { KubeObject, KubeList, KubeRest } from "./rest.js";

export interface InformerOptions {
  apiVersion: string;
  kind: string;
  /** Watch one namespace; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  logger: Logger;
  /** Backoff after an error: doubles from min to max (ms). */
  backoff?: { min: number; max: number };
  /** Called each time the watch is restarted after an error. */
  onRestart?: () => void;
}

export type InformerEvent = "add" | "update" | "delete";

export class Informer<T extends KubeObject = KubeObject> {
  // client-node types metadata timestamps as Date; the objects are plain JSON (strings)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly lw: ListWatch<any>;
  private readonly backoff: { min: number; max: number };
  private delay: number;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private syncedOnce = false;
  private readonly syncWaiters: (() => void)[] = [];
  /** Watch errors survived (for metrics). */
  restarts = 0;

  constructor(
    kubeConfig: KubeConfig,
    private readonly rest: KubeRest,
    private readonly o: InformerOptions,
  ) {
    const type = resourceType(o.apiVersion, o.kind);
    const path = collectionPath(type, o.namespace);
    this.backoff = o.backoff ?? { min: 500, max: 30_000 };
    this.delay = this.backoff.min;
    const list = async (): Promise<KubeList<T>> => {
      const res = await this.rest.request<KubeList<T>>("GET", path, { query: { labelSelector: o.labelSelector } });
      // list items carry no apiVersion/kind; watch events do: make the cache uniform
      for (const item of res.items) Object.assign(item, { apiVersion: o.apiVersion, kind: o.kind });
      // the ListWatch fills its cache right after this resolves; mark synced once it has
      setImmediate(() => this.markSynced());
      return res;
    };
    this.lw = new ListWatch(path, new Watch(kubeConfig), list as never, false, o.labelSelector);
    this.lw.on("connect", () => {
      this.delay = this.backoff.min;
    });
    this.lw.on("error", (err) => this.restart(err));
  }

  on(event: InformerEvent, cb: (obj: T) => void): void {
    this.lw.on(event, cb);
  }

  get(name: string, namespace?: string): T | undefined {
    return this.lw.get(name, namespace) as T | undefined;
  }

  list(namespace?: string): readonly T[] {
    return this.lw.list(namespace) as T[];
  }

  get hasSynced(): boolean {
    return this.syncedOnce;
  }

  /** Resolves after the first full list is in the cache. */
  synced(): Promise<void> {
    if (this.syncedOnce) return Promise.resolve();
    return new Promise((r) => this.syncWaiters.push(r));
  }

  start(): void {
    this.stopped = false;
    void this.lw.start().catch((err) => this.restart(err));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.lw.stop();
  }

  private markSynced(): void {
    if (this.syncedOnce) return;
    this.syncedOnce = true;
    for (const w of this.syncWaiters.splice(0)) w();
  }

  private restart(err: unknown): void {
    if (this.stopped) return;
    this.restarts++;
    this.o.onRestart?.();
    const delay = this.delay;
    this.delay = Math.min(this.delay * 2, this.backoff.max);
    this.o.logger.warn({ err: String((err as Error)?.message ?? err), kind: this.o.kind, namespace: this.o.namespace, retryInMs: delay }, "watch failed; restarting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.stopped) void this.lw.start().catch((e) => this.restart(e));
    }, delay);
  }
}

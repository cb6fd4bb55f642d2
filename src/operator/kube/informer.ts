/**
 * An informer that never gives up: client-node's ListWatch (list, cache, watch from the list's
 * resourceVersion, relist on 410 Gone) wrapped so that any other error — a dropped connection, an
 * API server restart, a 5xx on list — restarts it after a backoff instead of stopping it for good.
 * The cache holds plain JSON as the server sent it.
 */
import { ListWatch, Watch, type KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../../shared/logging.js";
import { jittered, nextBase, type BackoffPolicy } from "./backoff.js";
import { collectionPath, resourceType } from "./resources.js";
import type { KubeObject, KubeList, KubeRest } from "./rest.js";

export interface InformerOptions {
  apiVersion: string;
  kind: string;
  /** Watch one namespace; all namespaces when absent. */
  namespace?: string;
  labelSelector?: string;
  logger: Logger;
  /** Backoff after an error: doubles from min to max (ms), with jitter; reset by a successful list. */
  backoff?: BackoffPolicy;
  /** What to change when the list is forbidden (logged with the 403); the operator's RBAC by default. */
  forbiddenHint?: string;
  /** Called each time the watch is restarted after an error, with the delay before the restart. */
  onRestart?: (delayMs: number, err: unknown) => void;
}

export type InformerEvent = "add" | "update" | "delete";

export class Informer<T extends KubeObject = KubeObject> {
  // client-node types metadata timestamps as Date; the objects are plain JSON (strings)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private readonly lw: ListWatch<any>;
  private readonly backoff: BackoffPolicy;
  /** Base of the next retry delay; grows with each failure until a list succeeds. */
  private delay: number;
  /** The error of the last failed list or watch, until a list succeeds (readiness reports it). */
  lastError: unknown;
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
      // Only a list that worked proves the connection and the permissions: reset the backoff here.
      // (client-node's "connect" event fires before the list, so resetting on it kept the delay at
      // its minimum for ever: two retries a second against a server refusing every list.)
      this.delay = this.backoff.min;
      this.lastError = undefined;
      // list items carry no apiVersion/kind; watch events do: make the cache uniform
      for (const item of res.items) Object.assign(item, { apiVersion: o.apiVersion, kind: o.kind });
      // the ListWatch fills its cache right after this resolves; mark synced once it has
      setImmediate(() => this.markSynced());
      return res;
    };
    this.lw = new ListWatch(path, new Watch(kubeConfig), list as never, false, o.labelSelector);
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
    this.lastError = err;
    const delay = jittered(this.delay, this.backoff);
    this.delay = nextBase(this.delay, this.backoff);
    this.o.onRestart?.(delay, err);
    const status = (err as { status?: number; code?: number })?.status ?? (err as { code?: number })?.code;
    const fields = { err: String((err as Error)?.message ?? err), kind: this.o.kind, apiVersion: this.o.apiVersion, namespace: this.o.namespace, retryInMs: delay };
    // Forbidden or not served: no retry fixes that by itself — say so loudly, with what to change.
    if (status === 403) this.o.logger.error({ ...fields, hint: this.o.forbiddenHint ?? "grant the operator's service account list and watch on it (see charts/berth/templates/_rbac.tpl)" }, "watch forbidden by RBAC; retrying");
    else if (status === 404) this.o.logger.error(fields, "kind not served by this API server; retrying");
    else this.o.logger.warn(fields, "watch failed; restarting");
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.stopped) void this.lw.start().catch((e) => this.restart(e));
    }, delay);
  }
}

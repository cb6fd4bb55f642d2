/**
 * An in-process fake Kubernetes API server over real HTTP on 127.0.0.1 (random port), for the
 * operator's controller tests, the control plane's k8s listener tests and benchmarks. Code written
 * against @kubernetes/client-node 1.4 (KubernetesObjectApi, typed APIs, makeInformer/ListWatch,
 * Watch) talks to it unchanged.
 *
 *   const api = await startFakeApiServer();
 *   const kc = api.kubeConfig();               // cluster "fake", token user, namespace "default"
 *   ...
 *   await api.close();
 *
 * Module map: resources.ts (kinds) · discovery.ts · store.ts (objects, resourceVersion, history)
 * · rest.ts (verbs and their rules) · patch.ts (merge / JSON / apply) · defaults.ts (defaulting,
 * validation) · selectors.ts · watch.ts · gc.ts (owner GC, namespace deletion) · crd.ts · kubelet.ts
 * (simulated workload status) · http.ts (routing, requests log, fault injection).
 * Each module's header says what it approximates.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { KubeConfig } from "@kubernetes/client-node";
import { installCrdController } from "./crd.js";
import { GarbageCollector } from "./gc.js";
import { createHandler, type FailRule, type RequestRecord } from "./http.js";
import { DEFAULT_KUBELET, Kubelet, type KubeletOptions } from "./kubelet.js";
import { Registry } from "./resources.js";
import { Rest } from "./rest.js";
import { Store } from "./store.js";
import { clone } from "./util.js";
import { WatchHub } from "./watch.js";

export type { KubeletOptions } from "./kubelet.js";
export type { RequestRecord } from "./http.js";

export interface FakeApiServer {
  /** http://127.0.0.1:port */
  url: string;
  /** A client-node KubeConfig pointing at it (cluster "fake", user with token "fake-token", context "fake", namespace "default"). */
  kubeConfig(): KubeConfig;
  /** Ends all watches and the server. */
  close(): Promise<void>;
  /** Direct store access for tests (no HTTP): a copy of the object as JSON, or undefined. */
  get(apiVersion: string, kind: string, namespace: string | undefined, name: string): any | undefined;
  /** Direct store access: copies of the objects of a kind (all namespaces when omitted), sorted. */
  list(apiVersion: string, kind: string, namespace?: string): any[];
  /** Every HTTP request handled: verb (get, list, watch, create, update, patch, delete, deletecollection; "discovery" for discovery/version/health, "unknown" for unroutable), resource plural (+"/status", "/log"). */
  requests: RequestRecord[];
  resetRequests(): void;
  /** End every open watch stream cleanly (clients re-watch from their last resourceVersion). */
  closeWatches(): void;
  /** Forget event history: open watches get an in-stream 410 Expired and end; watches from an older resourceVersion get 410. */
  compact(): void;
  /** Answer the next `times` (default 1) requests matching verb/resource (exact plural, e.g. "deployments/status") with this status. */
  failNext(match: { verb?: string; resource?: string }, status: number, times?: number): void;
  /** Simulated kubelet/controllers; mutable at runtime (assign fields or the whole object). */
  kubelet: KubeletOptions;
}

export interface FakeApiServerOptions {
  kubelet?: Partial<KubeletOptions>;
  /** Events kept for watch resumption (default 10,000). */
  historyLimit?: number;
}

export async function startFakeApiServer(options: FakeApiServerOptions = {}): Promise<FakeApiServer> {
  const registry = new Registry();
  const store = new Store(options.historyLimit ?? 10_000);
  const rest = new Rest(store, registry);
  const hub = new WatchHub(store);
  installCrdController(store, rest, registry);
  const gc = new GarbageCollector(store, rest, registry);
  const kubelet = new Kubelet(store, rest, registry, { ...DEFAULT_KUBELET, ...options.kubelet });
  const nsType = registry.byPlural("", "v1", "namespaces")!;
  for (const name of ["default", "kube-system", "kube-public", "kube-node-lease"]) rest.create(nsType, "", { metadata: { name } }, {});

  const requests: RequestRecord[] = [];
  const failRules: FailRule[] = [];
  let address = "127.0.0.1:0";
  const handler = createHandler({ store, rest, registry, hub, kubelet, requests, failRules, address: () => address });
  const server: Server = createServer((req, res) => void handler(req, res));
  server.keepAliveTimeout = 30_000;
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  address = `127.0.0.1:${port}`;
  const url = `http://${address}`;
  let closed = false;

  const typeOf = (apiVersion: string, kind: string) => {
    const rt = registry.byApiVersionKind(apiVersion, kind);
    if (!rt) throw new Error(`fake apiserver: unknown kind ${apiVersion} ${kind}`);
    return rt;
  };

  return {
    url,
    kubeConfig() {
      const kc = new KubeConfig();
      kc.loadFromOptions({
        // client-node refuses http:// servers unless skipTLSVerify is set.
        clusters: [{ name: "fake", server: url, skipTLSVerify: true }],
        users: [{ name: "fake", token: "fake-token" }],
        contexts: [{ name: "fake", cluster: "fake", user: "fake", namespace: "default" }],
        currentContext: "fake",
      });
      return kc;
    },
    async close() {
      if (closed) return;
      closed = true;
      kubelet.stop();
      gc.stop();
      hub.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    get(apiVersion, kind, namespace, name) {
      const rt = typeOf(apiVersion, kind);
      return clone(store.get(rt, rt.namespaced ? (namespace ?? "default") : "", name));
    },
    list(apiVersion, kind, namespace) {
      const rt = typeOf(apiVersion, kind);
      return rest.list(rt, namespace, () => true).map(clone);
    },
    requests,
    resetRequests() {
      requests.length = 0;
    },
    closeWatches() {
      hub.closeAll();
    },
    compact() {
      store.compact();
      hub.expireAll();
    },
    failNext(match, status, times = 1) {
      failRules.push({ verb: match.verb, resource: match.resource, status, remaining: times });
    },
    get kubelet() {
      return kubelet.options;
    },
    set kubelet(value: KubeletOptions) {
      kubelet.options = { ...DEFAULT_KUBELET, ...value };
    },
  };
}

/**
 * Poll `fn` until it neither throws nor returns `false`, and resolve with what it returned. Works
 * with boolean predicates (`() => x === 1`), with expect-style callbacks (`() => expect(x).toBe(1)`,
 * which return undefined), and with "return the object when ready" callbacks (`() => ready && obj`).
 * Beware: `undefined` counts as done, so write `=== true` after optional chains. On timeout,
 * rethrows the last error (so `expect` messages survive) or fails with "condition not met".
 */
export async function eventually<T>(fn: () => T | Promise<T>, timeoutMs = 5000, intervalMs = 10): Promise<Exclude<T, false>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let lastError: unknown;
    try {
      const value = await fn();
      if (value !== false) return value as Exclude<T, false>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      if (lastError) throw lastError;
      throw new Error(`eventually: condition not met within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

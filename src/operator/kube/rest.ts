/**
 * A small JSON client for the Kubernetes API, on top of client-node's KubeConfig (which knows
 * in-cluster service accounts, kubeconfig files, client certificates and exec plugins).
 *
 * Why not client-node's typed APIs: they turn timestamps into Date objects and objects into class
 * instances, while its watch (used by our informers) hands out plain JSON. One representation —
 * plain JSON, exactly what the server sent — keeps caches, comparisons and hashing simple. The
 * connection is kept alive: an operator makes thousands of small requests.
 */
import http from "node:http";
import https from "node:https";
import type { KubeConfig } from "@kubernetes/client-node";
import type { ObjectMeta } from "../types.js";
import { KubeError } from "./errors.js";
import { collectionPath, objectPath, resourceType } from "./resources.js";

export type Verb = "get" | "list" | "create" | "update" | "patch" | "delete" | "deletecollection";

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { deletionTimestamp?: string; [key: string]: unknown };
  [field: string]: unknown;
}

export interface KubeList<T> {
  metadata: { resourceVersion?: string };
  items: T[];
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Answer `undefined` instead of throwing on 404. */
  allow404?: boolean;
  /** Return the body as text (pod logs). */
  text?: boolean;
}

export const MERGE_PATCH = "application/merge-patch+json";
export const JSON_PATCH = "application/json-patch+json";
export const APPLY_PATCH = "application/apply-patch+yaml";

/** Every request, for metrics and benchmarks. */
export type RequestObserver = (verb: Verb, path: string, status: number, ms: number) => void;

export class KubeRest {
  private readonly server: URL;
  private readonly agent: http.Agent;
  private readonly observers: RequestObserver[] = [];

  constructor(readonly kubeConfig: KubeConfig) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error("the kubeconfig has no current cluster");
    this.server = new URL(cluster.server);
    const Agent = this.server.protocol === "https:" ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 32 });
  }

  onRequest(observer: RequestObserver): void {
    this.observers.push(observer);
  }

  close(): void {
    this.agent.destroy();
  }

  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = new URL(this.server.pathname.replace(/\/$/, "") + path, this.server);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    const opts: https.RequestOptions = {
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      agent: this.agent,
      headers: {
        accept: options.text ? "*/*" : "application/json",
        ...(body !== undefined ? { "content-type": options.contentType ?? "application/json", "content-length": Buffer.byteLength(body) } : {}),
      },
    };
    // token, client certificate, CA, exec plugins: all from the kubeconfig
    await this.kubeConfig.applyToHTTPSOptions(opts);
    const started = performance.now();
    const { status, text } = await send(url.protocol, opts, body);
    const verb = verbOf(method, path, options.query);
    for (const o of this.observers) o(verb, path, status, performance.now() - started);
    if (status === 404 && options.allow404) return undefined as T;
    if (status >= 400) throw KubeError.from(status, text, `${method} ${path}`);
    if (options.text) return text as T;
    return (text ? JSON.parse(text) : undefined) as T;
  }

  // ---------- typed by apiVersion/kind ----------

  get<T extends KubeObject>(apiVersion: string, kind: string, namespace: string | undefined, name: string): Promise<T | undefined> {
    return this.request<T | undefined>("GET", objectPath(resourceType(apiVersion, kind), namespace, name), { allow404: true });
  }

  list<T extends KubeObject>(apiVersion: string, kind: string, namespace?: string, labelSelector?: string): Promise<KubeList<T>> {
    return this.request<KubeList<T>>("GET", collectionPath(resourceType(apiVersion, kind), namespace), { query: { labelSelector } });
  }

  create<T extends KubeObject>(obj: T): Promise<T> {
    return this.request<T>("POST", collectionPath(resourceType(obj.apiVersion, obj.kind), obj.metadata.namespace), { body: obj });
  }

  /** Server-side apply: the object is the whole intent of `fieldManager`; fields it stops sending are removed. */
  apply<T extends KubeObject>(obj: T, fieldManager: string, options: { force?: boolean; subresource?: string; dryRun?: boolean } = {}): Promise<T> {
    const path = objectPath(resourceType(obj.apiVersion, obj.kind), obj.metadata.namespace, obj.metadata.name, options.subresource);
    return this.request<T>("PATCH", path, { body: obj, contentType: APPLY_PATCH, query: { fieldManager, force: options.force ?? true, dryRun: options.dryRun ? "All" : undefined } });
  }

  mergePatch<T extends KubeObject>(ref: Ref, patch: unknown, subresource?: string): Promise<T> {
    return this.request<T>("PATCH", objectPath(resourceType(ref.apiVersion, ref.kind), ref.namespace, ref.name, subresource), { body: patch, contentType: MERGE_PATCH });
  }

  jsonPatch<T extends KubeObject>(ref: Ref, ops: unknown[], subresource?: string): Promise<T> {
    return this.request<T>("PATCH", objectPath(resourceType(ref.apiVersion, ref.kind), ref.namespace, ref.name, subresource), { body: ops, contentType: JSON_PATCH });
  }

  /** Delete; `false` when it was already gone. Background propagation: owned objects follow. */
  async remove(ref: Ref, propagationPolicy: "Background" | "Foreground" | "Orphan" = "Background"): Promise<boolean> {
    const path = objectPath(resourceType(ref.apiVersion, ref.kind), ref.namespace, ref.name);
    const res = await this.request<unknown>("DELETE", path, { allow404: true, body: { kind: "DeleteOptions", apiVersion: "v1", propagationPolicy } });
    return res !== undefined;
  }

  removeCollection(apiVersion: string, kind: string, namespace: string, labelSelector: string): Promise<unknown> {
    return this.request("DELETE", collectionPath(resourceType(apiVersion, kind), namespace), { query: { labelSelector } });
  }
}

export interface Ref {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}

export const refOf = (o: KubeObject): Ref => ({ apiVersion: o.apiVersion, kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name });

function verbOf(method: string, path: string, query: RequestOptions["query"]): Verb {
  switch (method) {
    case "GET":
      // a collection path ends in a plural: /…/namespaces/x/<plural> or /…/<plural>
      return isCollection(path) ? "list" : "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    default:
      return isCollection(path) && !query?.name ? "deletecollection" : "delete";
  }
}

function isCollection(path: string): boolean {
  const parts = path.split("/").filter(Boolean);
  // /api/v1/<plural> | /api/v1/namespaces/<ns>/<plural> | /apis/<g>/<v>/<plural> | /apis/<g>/<v>/namespaces/<ns>/<plural>
  const rest = parts[0] === "api" ? parts.slice(2) : parts.slice(3);
  if (rest[0] === "namespaces" && rest.length >= 3) return rest.length === 3;
  return rest.length === 1;
}

function send(protocol: string, opts: https.RequestOptions, body: string | undefined): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = (protocol === "https:" ? https : http).request(opts, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`timed out: ${opts.method} ${opts.path}`)));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

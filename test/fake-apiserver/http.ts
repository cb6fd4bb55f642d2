/**
 * The HTTP front: routes kube-apiserver paths to the REST layer, parses bodies and query
 * parameters, records every request, injects faults (`failNext`) and writes JSON responses or
 * metav1.Status errors.
 *
 * Paths: `/api/v1/[namespaces/{ns}/]{plural}[/{name}[/{sub}]]`,
 * `/apis/{group}/{version}/[namespaces/{ns}/]{plural}[/{name}[/{sub}]]`, the legacy
 * `/…/watch/…` prefix, discovery, `/version`, `/healthz`, `/livez`, `/readyz`.
 *
 * Approximations: any (or no) bearer token is accepted, no RBAC; protobuf and CBOR are never
 * served (always JSON); `limit`/`continue` are ignored (lists are complete); `pretty` is ignored;
 * `follow=true` on pods/log answers the current log and ends.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseYaml } from "yaml";
import { apiGroupDocument, apiGroupList, apiResourceList, apiVersions, VERSION } from "./discovery.js";
import { ApiError, badRequest, statusBody } from "./errors.js";
import type { Kubelet } from "./kubelet.js";
import type { Registry, ResourceType } from "./resources.js";
import { apiVersionOf } from "./resources.js";
import { PATCH_TYPES, type Rest, unsupportedPatch } from "./rest.js";
import { and, parseFieldSelector, parseLabelSelector, type Predicate } from "./selectors.js";
import type { Store } from "./store.js";
import type { WatchHub } from "./watch.js";

export interface RequestRecord {
  verb: string;
  resource: string;
  namespace?: string;
  name?: string;
  at: number;
}

export interface FailRule {
  verb?: string;
  resource?: string;
  status: number;
  remaining: number;
}

export interface HttpContext {
  store: Store;
  rest: Rest;
  registry: Registry;
  hub: WatchHub;
  kubelet: Kubelet;
  requests: RequestRecord[];
  failRules: FailRule[];
  address: () => string;
}

const MAX_BODY = 3 * 1024 * 1024;

interface Route {
  rt: ResourceType;
  namespace?: string;
  name?: string;
  sub?: string;
  watch: boolean;
}

function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  res.end(text);
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  sendText(res, code, JSON.stringify(body));
}

/** Stored objects are immutable: their JSON (and their list-item JSON) is computed once. */
const jsonCache = new WeakMap<object, string>();
const itemJsonCache = new WeakMap<object, string>();

function objectJson(obj: object): string {
  let text = jsonCache.get(obj);
  if (text === undefined) {
    text = JSON.stringify(obj);
    jsonCache.set(obj, text);
  }
  return text;
}

/** kube-apiserver omits apiVersion/kind on the items of built-in lists (not on custom resources). */
function itemJson(rt: ResourceType, obj: any): string {
  if (rt.custom) return objectJson(obj);
  let text = itemJsonCache.get(obj);
  if (text === undefined) {
    const { apiVersion: _a, kind: _k, ...rest } = obj;
    text = JSON.stringify(rest);
    itemJsonCache.set(obj, text);
  }
  return text;
}

function sendError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.code, err.body);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, "Request entity too large: limit is 3145728", "RequestEntityTooLarge"));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseBody(text: string, contentType: string): any {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (jsonError) {
    if (!contentType.includes("yaml")) throw badRequest(`error decoding request body: ${(jsonError as Error).message}`);
  }
  try {
    return parseYaml(text);
  } catch (yamlError) {
    throw badRequest(`error decoding YAML: ${(yamlError as Error).message}`);
  }
}

const truthy = (v: string | null) => v === "true" || v === "1";

export function createHandler(ctx: HttpContext) {
  const { registry, rest, store, hub } = ctx;

  function record(verb: string, resource: string, namespace?: string, name?: string): void {
    const r: RequestRecord = { verb, resource, at: Date.now() };
    if (namespace !== undefined) r.namespace = namespace;
    if (name !== undefined) r.name = name;
    ctx.requests.push(r);
  }

  function injectedFailure(verb: string, resource: string): ApiError | undefined {
    const rule = ctx.failRules.find((r) => r.remaining > 0 && (r.verb === undefined || r.verb === verb) && (r.resource === undefined || r.resource === resource));
    if (!rule) return undefined;
    rule.remaining--;
    if (rule.remaining <= 0) ctx.failRules.splice(ctx.failRules.indexOf(rule), 1);
    return new ApiError(rule.status, `injected failure (${verb} ${resource})`);
  }

  /** Non-resource paths. Returns true when handled. */
  function discovery(segs: string[], req: IncomingMessage, res: ServerResponse, method: string): boolean {
    const path = "/" + segs.join("/");
    const answer = (body: unknown) => {
      record("discovery", path);
      if (method !== "GET") throw new ApiError(405, `the server does not allow this method on the requested resource`, "MethodNotAllowed");
      if (body === undefined) throw new ApiError(404, "the server could not find the requested resource", "NotFound");
      sendJson(res, 200, body);
      return true;
    };
    if (segs.length === 1 && ["healthz", "livez", "readyz"].includes(segs[0]!)) {
      record("discovery", path);
      res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
      res.end("ok");
      return true;
    }
    if (segs.length === 1 && segs[0] === "version") return answer(VERSION);
    // SelfSubjectAccessReview (the operator asks before using an optional kind): this fake has no RBAC, so every
    // review is allowed. The real authorizer's answers are tested in test/operator/real-apiserver*.test.ts.
    if (path === "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews" && method === "POST") {
      record("create", "selfsubjectaccessreviews");
      void readBody(req).then((text) => {
        let review: object;
        try {
          review = JSON.parse(text || "{}") as object;
        } catch {
          return sendJson(res, 400, { kind: "Status", apiVersion: "v1", status: "Failure", reason: "BadRequest", code: 400 });
        }
        sendJson(res, 201, { ...review, status: { allowed: true, reason: "the fake API server has no RBAC" } });
      });
      return true;
    }
    if (segs[0] === "api" && segs.length === 1) return answer(apiVersions(ctx.address()));
    if (segs[0] === "api" && segs.length === 2) return answer(segs[1] === "v1" ? apiResourceList(registry, "", "v1") : undefined);
    if (segs[0] === "apis" && segs.length === 1) return answer(apiGroupList(registry));
    if (segs[0] === "apis" && segs.length === 2) return answer(apiGroupDocument(registry, segs[1]!));
    if (segs[0] === "apis" && segs.length === 3) {
      return answer(registry.hasGroupVersion(segs[1]!, segs[2]!) ? apiResourceList(registry, segs[1]!, segs[2]!) : undefined);
    }
    return false;
  }

  function route(segs: string[]): Route | undefined {
    let group: string;
    let version: string;
    let rest: string[];
    if (segs[0] === "api" && segs.length >= 3) {
      group = "";
      version = segs[1]!;
      rest = segs.slice(2);
    } else if (segs[0] === "apis" && segs.length >= 4) {
      group = segs[1]!;
      version = segs[2]!;
      rest = segs.slice(3);
    } else return undefined;
    let watch = false;
    if (rest[0] === "watch") {
      watch = true;
      rest = rest.slice(1);
    }
    if (rest[0] === "namespaces" && rest.length >= 3) {
      const rt = registry.byPlural(group, version, rest[2]!);
      if (rt?.namespaced) {
        if (rest.length > 5) return undefined;
        return { rt, namespace: rest[1], name: rest[3], sub: rest[4], watch };
      }
    }
    const rt = registry.byPlural(group, version, rest[0]!);
    if (!rt || rest.length > 3) return undefined;
    if (rt.namespaced && rest.length > 1) return undefined; // namespaced objects need /namespaces/{ns}/
    return { rt, name: rest[1], sub: rest[2], watch };
  }

  function selectors(url: URL, rt: ResourceType): Predicate {
    return and(parseLabelSelector(url.searchParams.get("labelSelector")), parseFieldSelector(url.searchParams.get("fieldSelector"), rt.fieldSelectors));
  }

  function success(rt: ResourceType, obj: any) {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Success",
      details: { name: obj.metadata.name, group: rt.group, kind: rt.plural, uid: obj.metadata.uid },
    };
  }

  async function handleResource(req: IncomingMessage, res: ServerResponse, url: URL, r: Route): Promise<void> {
    const method = req.method ?? "GET";
    const { rt, name, sub } = r;
    const namespace = rt.namespaced ? r.namespace : undefined;
    let verb: string;
    if (name === undefined) {
      if (method === "GET") verb = r.watch || truthy(url.searchParams.get("watch")) ? "watch" : "list";
      else if (method === "POST") verb = "create";
      else if (method === "DELETE") verb = "deletecollection";
      else verb = "unknown";
    } else if (r.watch || (method === "GET" && truthy(url.searchParams.get("watch")))) {
      verb = "watch";
    } else {
      verb = ({ GET: "get", PUT: "update", PATCH: "patch", DELETE: "delete" } as Record<string, string>)[method] ?? "unknown";
    }
    const resource = sub ? `${rt.plural}/${sub}` : rt.plural;
    record(verb, resource, namespace, name);

    const notFound = () => new ApiError(404, "the server could not find the requested resource", "NotFound");
    if (sub !== undefined) {
      const allowed = (sub === "status" && rt.status) || (rt.extraSubresources ?? []).includes(sub);
      if (!allowed) throw notFound();
      if (sub === "log" && verb !== "get") throw new ApiError(405, "the server does not allow this method on the requested resource", "MethodNotAllowed");
      if (sub === "status" && !["get", "update", "patch"].includes(verb)) {
        throw new ApiError(405, "the server does not allow this method on the requested resource", "MethodNotAllowed");
      }
    }
    if (verb === "unknown") throw new ApiError(405, "the server does not allow this method on the requested resource", "MethodNotAllowed");
    if (rt.namespaced && namespace === undefined && !["list", "watch"].includes(verb)) throw notFound();

    const injected = injectedFailure(verb, resource);
    if (injected) {
      if (["create", "update", "patch", "delete", "deletecollection"].includes(verb)) await readBody(req).catch(() => "");
      throw injected;
    }

    const q = url.searchParams;
    const dryRunParam = q.get("dryRun");
    if (dryRunParam !== null && dryRunParam !== "" && dryRunParam !== "All") throw badRequest(`unsupported dry run value "${dryRunParam}"`);
    const dryRun = dryRunParam === "All";
    const ns = namespace ?? "";

    switch (verb) {
      case "get": {
        if (sub === "log") return podLog(res, url, rt, ns, name!);
        sendText(res, 200, objectJson(rest.get(rt, ns, name!)));
        return;
      }
      case "list": {
        const items = rest.list(rt, namespace, selectors(url, rt)).map((o) => itemJson(rt, o));
        const head = JSON.stringify({ apiVersion: apiVersionOf(rt), kind: rt.listKind, metadata: { resourceVersion: String(store.rv) } });
        sendText(res, 200, `${head.slice(0, -1)},"items":[${items.join(",")}]}`);
        return;
      }
      case "watch": {
        const predicate = selectors(url, rt);
        const rv = q.get("resourceVersion") ?? undefined;
        if (rv !== undefined && rv !== "" && !/^\d+$/.test(rv)) throw badRequest(`invalid resource version: ${rv}`);
        const timeout = q.get("timeoutSeconds");
        const fullPredicate = name === undefined ? predicate : and(predicate, (o) => o.metadata.name === name);
        hub.open(
          {
            rt,
            namespace,
            predicate: fullPredicate,
            resourceVersion: rv,
            allowBookmarks: truthy(q.get("allowWatchBookmarks")),
            sendInitialEvents: truthy(q.get("sendInitialEvents")),
            timeoutSeconds: timeout ? Number(timeout) : undefined,
          },
          res,
          () => rest.list(rt, namespace, fullPredicate),
        );
        return;
      }
      case "create": {
        const body = parseBody(await readBody(req), req.headers["content-type"] ?? "");
        if (body === undefined) throw badRequest("the request body is empty");
        sendJson(res, 201, rest.create(rt, ns, body, { dryRun, fieldManager: q.get("fieldManager") ?? undefined }));
        return;
      }
      case "update": {
        const body = parseBody(await readBody(req), req.headers["content-type"] ?? "");
        if (body === undefined) throw badRequest("the request body is empty");
        sendJson(res, 200, rest.update(rt, ns, name!, body, { dryRun, subresource: sub }));
        return;
      }
      case "patch": {
        const contentType = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
        const text = await readBody(req);
        if (!(Object.values(PATCH_TYPES) as string[]).includes(contentType)) throw unsupportedPatch(contentType);
        const body = parseBody(text, contentType);
        if (body === undefined) throw badRequest("the request body is empty");
        const existed = store.get(rt, ns, name!) !== undefined;
        const result = rest.patch(rt, ns, name!, contentType, body, {
          dryRun,
          subresource: sub,
          fieldManager: q.get("fieldManager") ?? undefined,
          force: truthy(q.get("force")),
        });
        sendJson(res, existed ? 200 : 201, result);
        return;
      }
      case "delete": {
        const body = parseBody(await readBody(req), "application/json") ?? {};
        const policy = q.get("propagationPolicy") ?? body.propagationPolicy ?? (truthy(q.get("orphanDependents")) || body.orphanDependents === true ? "Orphan" : undefined);
        const dry = dryRun || (Array.isArray(body.dryRun) && body.dryRun.includes("All"));
        const { object, removed } = rest.delete(rt, ns, name!, { dryRun: dry, propagationPolicy: policy, preconditions: body.preconditions });
        sendJson(res, 200, removed && !rt.custom ? success(rt, object) : object);
        return;
      }
      case "deletecollection": {
        const body = parseBody(await readBody(req), "application/json") ?? {};
        const policy = q.get("propagationPolicy") ?? body.propagationPolicy;
        for (const obj of rest.list(rt, namespace, selectors(url, rt))) {
          try {
            rest.delete(rt, obj.metadata.namespace ?? "", obj.metadata.name, { dryRun, propagationPolicy: policy });
          } catch (err) {
            if (!(err instanceof ApiError && err.code === 404)) throw err;
          }
        }
        sendJson(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
        return;
      }
    }
  }

  function podLog(res: ServerResponse, url: URL, rt: ResourceType, namespace: string, name: string): void {
    const pod = rest.get(rt, namespace, name);
    const containers: string[] = (pod.spec?.containers ?? []).map((c: any) => c.name);
    const container = url.searchParams.get("container");
    if (container && !containers.includes(container) && !(pod.spec?.initContainers ?? []).some((c: any) => c.name === container)) {
      throw badRequest(`container ${container} is not valid for pod ${name}`);
    }
    if (!container && containers.length > 1) {
      throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]`);
    }
    let text = ctx.kubelet.logs.get(`${namespace}/${name}`) ?? "";
    const tail = url.searchParams.get("tailLines");
    if (tail !== null) {
      const lines = text.split("\n");
      if (lines[lines.length - 1] === "") lines.pop();
      text = lines.slice(Math.max(0, lines.length - Number(tail))).join("\n") + (lines.length > 0 && text.endsWith("\n") ? "\n" : "");
    }
    const limit = url.searchParams.get("limitBytes");
    if (limit !== null) text = Buffer.from(text).subarray(0, Number(limit)).toString("utf8");
    res.writeHead(200, { "Content-Type": "text/plain", "Content-Length": Buffer.byteLength(text) });
    res.end(text);
  }

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const url = new URL(req.url ?? "/", "http://fake");
      const segs = url.pathname
        .split("/")
        .filter((s) => s !== "")
        .map((s) => decodeURIComponent(s));
      if (discovery(segs, req, res, req.method ?? "GET")) return;
      const r = route(segs);
      if (!r) {
        record("unknown", url.pathname);
        throw new ApiError(404, "the server could not find the requested resource", "NotFound");
      }
      await handleResource(req, res, url, r);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof ApiError) sendError(res, err);
      else sendJson(res, 500, statusBody(500, `internal error: ${(err as Error)?.stack ?? String(err)}`, "InternalError"));
    }
  };
}

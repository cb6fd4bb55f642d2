/**
 * REST semantics of kube-apiserver on top of the store: create (generateName, AlreadyExists,
 * namespace auto-creation), update (optimistic concurrency, status subresource isolation,
 * generation bumps, no-op writes that change nothing), patch (merge / JSON / apply), delete
 * (finalizers, deletionTimestamp, propagation policy), dry run.
 *
 * The HTTP layer, the kubelet and the garbage collector all write through this class, so they
 * obey the same rules and produce the same watch events.
 *
 * Approximations: no admission, RBAC, quota or schema validation (see defaults.ts for the small
 * validation done); `Foreground` propagation behaves like `Background`; `Orphan` is remembered
 * on the side instead of as an `orphan` finalizer; objects never get `managedFields`;
 * Pods are deleted immediately (no graceful termination); dry-run answers carry the current
 * resourceVersion (or none on create).
 */
import { randomUUID } from "node:crypto";
import { ApiError, alreadyExists, badRequest, conflict, notFound, qualified } from "./errors.js";
import { jsonPatch, mergePatch, serverSideApply } from "./patch.js";
import { applyDefaults, createDefaults, validate } from "./defaults.js";
import type { Registry, ResourceType } from "./resources.js";
import { apiVersionOf } from "./resources.js";
import type { Predicate } from "./selectors.js";
import type { Store } from "./store.js";
import { clone, deepEqual, isObject, randomSuffix, timestamp } from "./util.js";

export const PATCH_TYPES = {
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  json: "application/json-patch+json",
  apply: "application/apply-patch+yaml",
} as const;

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  force?: boolean;
  /** "status" for the status subresource. */
  subresource?: string;
}

export interface DeleteOptions {
  dryRun?: boolean;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
}

/** Fields of metadata only the server sets. */
const SYSTEM_METADATA = ["uid", "creationTimestamp", "generation", "deletionTimestamp", "deletionGracePeriodSeconds"] as const;

/** Everything outside metadata (and status when it is a subresource): what bumps generation. */
function specPart(rt: ResourceType, obj: any): Record<string, unknown> {
  const { metadata: _m, status, apiVersion: _a, kind: _k, ...rest } = obj;
  return rt.status ? rest : { ...rest, status };
}

function sameObject(a: any, b: any): boolean {
  const strip = (o: any) => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined, managedFields: undefined } });
  return deepEqual(strip(a), strip(b));
}

export class Rest {
  /** `${uid}/${subresource}` → field manager → last applied configuration. */
  private readonly applied = new Map<string, Map<string, Record<string, any>>>();
  /** uids deleted with propagationPolicy=Orphan. */
  readonly orphaned = new Set<string>();

  constructor(
    readonly store: Store,
    readonly registry: Registry,
  ) {
    store.onEvent((e) => {
      if (e.type !== "DELETED") return;
      const uid = e.object.metadata.uid;
      this.applied.delete(`${uid}/`);
      this.applied.delete(`${uid}/status`);
    });
  }

  private namespaceType(): ResourceType {
    return this.registry.byPlural("", "v1", "namespaces")!;
  }

  get(rt: ResourceType, namespace: string, name: string): any {
    const obj = this.store.get(rt, rt.namespaced ? namespace : "", name);
    if (!obj) throw notFound(rt.plural, rt.group, name);
    return obj;
  }

  /** Sorted like etcd (namespace, then name). */
  list(rt: ResourceType, namespace: string | undefined, predicate: Predicate): any[] {
    const items: any[] = [];
    for (const obj of this.store.iterate(rt, rt.namespaced ? namespace : undefined)) if (predicate(obj)) items.push(obj);
    items.sort((a, b) => {
      const an = a.metadata.namespace ?? "";
      const bn = b.metadata.namespace ?? "";
      if (an !== bn) return an < bn ? -1 : 1;
      return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
    });
    return items;
  }

  // ------------------------------------------------------------------ create

  private checkTypeMeta(rt: ResourceType, body: any): void {
    if (!isObject(body)) throw badRequest("the body of the request must be a JSON object");
    const apiVersion = apiVersionOf(rt);
    if (body.apiVersion !== undefined && body.apiVersion !== apiVersion) {
      throw badRequest(`the API version in the data (${body.apiVersion}) does not match the expected API version (${apiVersion})`);
    }
    if (body.kind !== undefined && body.kind !== rt.kind) {
      throw badRequest(`the kind in the data (${body.kind}) does not match the expected kind (${rt.kind})`);
    }
  }

  private checkNamespace(rt: ResourceType, namespace: string, body: any): void {
    if (!rt.namespaced) return;
    const ns = body.metadata?.namespace;
    if (ns !== undefined && ns !== "" && ns !== namespace) {
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    }
  }

  /** Namespaces spring into existence when first used; a terminating one refuses new content. */
  private ensureNamespace(rt: ResourceType, namespace: string, name: string, dryRun: boolean): void {
    const nsType = this.namespaceType();
    const ns = this.store.get(nsType, "", namespace);
    if (ns?.metadata.deletionTimestamp) {
      throw new ApiError(
        403,
        `${qualified(rt.plural, rt.group)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
        "Forbidden",
        { name, group: rt.group, kind: rt.plural },
      );
    }
    if (!ns && !dryRun) this.create(nsType, "", { metadata: { name: namespace } }, {});
  }

  create(rt: ResourceType, namespace: string, body: any, opts: WriteOptions, internal = false): any {
    this.checkTypeMeta(rt, body);
    this.checkNamespace(rt, namespace, body);
    const obj: any = clone(body);
    obj.apiVersion = apiVersionOf(rt);
    obj.kind = rt.kind;
    const md: any = (obj.metadata = isObject(obj.metadata) ? obj.metadata : {});
    if (!md.name) {
      if (!md.generateName) {
        throw new ApiError(422, `${rt.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, "Invalid", {
          kind: rt.kind,
          group: rt.group,
          causes: [{ type: "FieldValueRequired", message: "Required value: name or generateName is required", field: "metadata.name" }],
        });
      }
      md.name = `${md.generateName}${randomSuffix()}`;
    }
    if (rt.namespaced) md.namespace = namespace;
    else delete md.namespace;
    for (const f of [...SYSTEM_METADATA, "resourceVersion", "managedFields", "selfLink"]) delete md[f];
    md.uid = randomUUID();
    md.creationTimestamp = timestamp();
    if (rt.generation) md.generation = 1;
    if (rt.status && !internal) delete obj.status;
    if (rt.group === "" && rt.kind === "Pod" && !internal) obj.status = { phase: "Pending", qosClass: "BestEffort" };
    if (rt.group === "" && rt.kind === "Namespace") {
      md.labels = { ...(md.labels ?? {}), "kubernetes.io/metadata.name": md.name };
      obj.spec = { finalizers: ["kubernetes"], ...(obj.spec ?? {}) };
      obj.status = { phase: "Active" };
    }
    createDefaults(rt, obj);
    applyDefaults(rt, obj);
    validate(rt, obj);
    if (this.store.get(rt, rt.namespaced ? namespace : "", md.name)) throw alreadyExists(rt.plural, rt.group, md.name);
    if (rt.namespaced) this.ensureNamespace(rt, namespace, md.name, Boolean(opts.dryRun));
    if (opts.dryRun) return obj;
    return this.store.commit(rt, obj);
  }

  // ------------------------------------------------------------------ update

  update(rt: ResourceType, namespace: string, name: string, body: any, opts: WriteOptions): any {
    this.checkTypeMeta(rt, body);
    this.checkNamespace(rt, namespace, body);
    if (body.metadata?.name !== undefined && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    const existing = this.get(rt, namespace, name);
    const candidate = clone(body);
    candidate.metadata = isObject(candidate.metadata) ? candidate.metadata : {};
    return this.finishUpdate(rt, existing, candidate, body.metadata?.resourceVersion, opts);
  }

  /**
   * The shared tail of update/patch/apply and internal writes: keep server-owned fields, isolate
   * the status subresource, enforce preconditions and finalizer rules, bump generation, store.
   */
  finishUpdate(rt: ResourceType, existing: any, candidate: any, requestedRv: string | undefined, opts: WriteOptions): any {
    // `candidate` is owned by this call (callers pass a fresh object); stored objects are never
    // mutated, so unchanged subtrees (status) may be shared between versions.
    const name = existing.metadata.name;
    if (requestedRv !== undefined && requestedRv !== "" && requestedRv !== existing.metadata.resourceVersion) {
      throw conflict(rt.plural, rt.group, name);
    }
    let next: any;
    if (opts.subresource === "status") {
      next = { ...existing, metadata: { ...existing.metadata } };
      if (candidate.status === undefined) delete next.status;
      else next.status = candidate.status;
    } else {
      next = candidate;
      next.apiVersion = apiVersionOf(rt);
      next.kind = rt.kind;
      const md = (next.metadata = isObject(next.metadata) ? next.metadata : {});
      md.name = name;
      if (rt.namespaced) md.namespace = existing.metadata.namespace;
      else delete md.namespace;
      for (const f of SYSTEM_METADATA) {
        if (existing.metadata[f] === undefined) delete md[f];
        else md[f] = existing.metadata[f];
      }
      delete md.managedFields;
      delete md.selfLink;
      if (rt.status) {
        if (existing.status === undefined) delete next.status;
        else next.status = existing.status;
      }
      if (rt.group === "" && rt.kind === "Namespace") {
        md.labels = { ...(md.labels ?? {}), "kubernetes.io/metadata.name": name };
        next.spec = existing.spec;
      }
      if (existing.metadata.deletionTimestamp) {
        const before: string[] = existing.metadata.finalizers ?? [];
        const added = ((md.finalizers ?? []) as string[]).filter((f) => !before.includes(f));
        if (added.length > 0) {
          throw new ApiError(
            422,
            `${rt.kind} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
            "Invalid",
            { name, group: rt.group, kind: rt.kind, causes: [{ type: "FieldValueForbidden", message: "no new finalizers can be added if the object is being deleted", field: "metadata.finalizers" }] },
          );
        }
      }
      if (Array.isArray(md.finalizers) && md.finalizers.length === 0) delete md.finalizers;
      applyDefaults(rt, next);
      validate(rt, next);
      if (rt.generation && !deepEqual(specPart(rt, existing), specPart(rt, next))) {
        md.generation = (existing.metadata.generation ?? 0) + 1;
      }
    }
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    if (sameObject(existing, next)) return existing;
    if (opts.dryRun) return next;
    if (next.metadata.deletionTimestamp && !(next.metadata.finalizers?.length > 0) && !(rt.group === "" && rt.kind === "Namespace")) {
      return this.store.remove(rt, next);
    }
    return this.store.commit(rt, next);
  }

  // ------------------------------------------------------------------ patch

  patch(rt: ResourceType, namespace: string, name: string, contentType: string, body: any, opts: WriteOptions): any {
    const existing = this.store.get(rt, rt.namespaced ? namespace : "", name);
    if (contentType === PATCH_TYPES.apply) return this.apply(rt, namespace, name, existing, body, opts);
    if (!existing) throw notFound(rt.plural, rt.group, name);
    let patched: any;
    if (contentType === PATCH_TYPES.json) patched = jsonPatch(existing, body);
    else if (contentType === PATCH_TYPES.merge || contentType === PATCH_TYPES.strategic) {
      if (!isObject(body)) throw badRequest("a merge patch must be a JSON object");
      patched = mergePatch(clone(existing), body);
    } else {
      throw unsupportedPatch(contentType);
    }
    if (!isObject(patched)) throw new ApiError(422, "the patch produced something that is not an object", "Invalid");
    const requestedRv = patched.metadata?.resourceVersion;
    if (patched.metadata?.name !== undefined && patched.metadata.name !== name) {
      throw badRequest(`the name of the object (${patched.metadata.name}) does not match the name on the URL (${name})`);
    }
    return this.finishUpdate(rt, existing, patched, requestedRv === existing.metadata.resourceVersion ? undefined : requestedRv, opts);
  }

  private apply(rt: ResourceType, namespace: string, name: string, existing: any, body: any, opts: WriteOptions): any {
    if (!opts.fieldManager) {
      throw badRequest("PATCH, application/apply-patch+yaml requires fieldManager to be set");
    }
    if (!isObject(body)) throw badRequest("the applied configuration must be an object");
    if (!body.apiVersion || !body.kind) throw badRequest("apiVersion and kind must be set in an applied configuration");
    this.checkTypeMeta(rt, body);
    this.checkNamespace(rt, namespace, body);
    if (body.metadata?.name !== undefined && body.metadata.name !== name) {
      throw badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    const sub = opts.subresource === "status" ? "status" : "";
    if (!existing) {
      if (sub) throw notFound(rt.plural, rt.group, name);
      const records = new Map<string, Record<string, any>>();
      const candidate = serverSideApply(undefined, body, opts.fieldManager, records, true);
      candidate.metadata = { ...(candidate.metadata ?? {}), name };
      const created = this.create(rt, namespace, candidate, opts);
      if (!opts.dryRun) this.applied.set(`${created.metadata.uid}/`, records);
      return created;
    }
    const recordKey = `${existing.metadata.uid}/${sub}`;
    const records = new Map(this.applied.get(recordKey) ?? []);
    const candidate = serverSideApply(existing, body, opts.fieldManager, records, Boolean(opts.force));
    const requestedRv = body.metadata?.resourceVersion;
    const result = this.finishUpdate(rt, existing, candidate, requestedRv, opts);
    if (!opts.dryRun) this.applied.set(recordKey, records);
    return result;
  }

  // ------------------------------------------------------------------ delete

  /** Returns the object and whether it is gone (false: waiting for finalizers). */
  delete(rt: ResourceType, namespace: string, name: string, opts: DeleteOptions): { object: any; removed: boolean } {
    const existing = this.get(rt, namespace, name);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== existing.metadata.uid) {
      throw new ApiError(409, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${existing.metadata.uid}`, "Conflict", {
        name,
        group: rt.group,
        kind: rt.plural,
      });
    }
    if (pre?.resourceVersion && pre.resourceVersion !== existing.metadata.resourceVersion) {
      throw new ApiError(
        409,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion}`,
        "Conflict",
        { name, group: rt.group, kind: rt.plural },
      );
    }
    if (opts.dryRun) return { object: existing, removed: !(existing.metadata.finalizers?.length > 0) };
    if (opts.propagationPolicy === "Orphan") this.orphaned.add(existing.metadata.uid);
    const isNamespace = rt.group === "" && rt.kind === "Namespace";
    if (existing.metadata.finalizers?.length > 0 || isNamespace) {
      if (existing.metadata.deletionTimestamp) return { object: existing, removed: false };
      const next = clone(existing);
      next.metadata.deletionTimestamp = timestamp();
      next.metadata.deletionGracePeriodSeconds = 0;
      if (isNamespace) next.status = { ...(next.status ?? {}), phase: "Terminating" };
      return { object: this.store.commit(rt, next), removed: false };
    }
    return { object: this.store.remove(rt, existing), removed: true };
  }

  /** Remove a terminating namespace once it is empty (called by the namespace controller). */
  finalizeNamespace(name: string): void {
    const nsType = this.namespaceType();
    const ns = this.store.get(nsType, "", name);
    if (ns?.metadata.deletionTimestamp && !(ns.metadata.finalizers?.length > 0) && this.store.countInNamespace(name) === 0) {
      this.store.remove(nsType, ns);
    }
  }

  // ------------------------------------------------------------------ internal writers (kubelet, GC)

  /**
   * Read-modify-write without preconditions, for the simulated controllers. `mutate` gets a
   * private copy and returns the new object (or undefined to skip). Missing objects are ignored.
   */
  mutate(rt: ResourceType, namespace: string, name: string, mutate: (obj: any) => any | undefined, subresource?: string): any {
    const existing = this.store.get(rt, rt.namespaced ? namespace : "", name);
    if (!existing) return undefined;
    const candidate = mutate(clone(existing));
    if (candidate === undefined) return existing;
    return this.finishUpdate(rt, existing, candidate, undefined, { subresource });
  }
}

export function unsupportedPatch(contentType: string): ApiError {
  return new ApiError(
    415,
    `the body of the request was in an unknown format - accepted media types include: ${Object.values(PATCH_TYPES).join(", ")}`,
    "UnsupportedMediaType",
  );
}

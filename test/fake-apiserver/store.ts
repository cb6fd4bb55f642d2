/**
 * The object store: every object of every type, the global resourceVersion counter, the event
 * history watches replay from, and the indexes the garbage collector needs (uid → object,
 * owner uid → dependents).
 *
 * Objects are plain JSON and treated as immutable once stored (writers build a new object), so
 * the history can keep references instead of copies. Layout: type key → namespace → name → object,
 * so get is O(1) and a namespaced list is O(objects in that namespace).
 *
 * Approximations: one resourceVersion sequence for everything (like etcd's revision); the
 * history is a bounded window of the last `historyLimit` events (older resourceVersions are
 * "compacted" → 410 Gone), no per-type watch cache.
 */
import type { ResourceType } from "./resources.js";
import { typeKey } from "./resources.js";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

export interface StoreEvent {
  type: EventType;
  rv: number;
  key: string;
  rt: ResourceType;
  namespace: string;
  name: string;
  /** The new state; for DELETED the last state, carrying the deletion's resourceVersion. */
  object: any;
  /** The state before this event (MODIFIED, DELETED). */
  prev?: any;
  /** Serialized watch lines, cached across watchers. */
  lines?: Map<string, string>;
}

export type Listener = (event: StoreEvent) => void;

export interface ObjectRef {
  rt: ResourceType;
  namespace: string;
  name: string;
}

export class Store {
  rv = 0;
  /** Watches from a resourceVersion below this get 410 Gone. */
  compactedRv = 0;
  private readonly data = new Map<string, Map<string, Map<string, any>>>();
  private readonly uids = new Map<string, ObjectRef>();
  /** owner uid → uids of objects listing it in ownerReferences. */
  private readonly dependentsIndex = new Map<string, Set<string>>();
  /** namespace → number of namespaced objects in it. */
  private readonly namespaceCounts = new Map<string, number>();
  private history: StoreEvent[] = [];
  private historyHead = 0;
  private readonly listeners: Listener[] = [];

  constructor(private readonly historyLimit: number) {}

  onEvent(listener: Listener): void {
    this.listeners.push(listener);
  }

  get(rt: ResourceType, namespace: string, name: string): any | undefined {
    return this.data.get(typeKey(rt))?.get(namespace)?.get(name);
  }

  /** Objects of a type, in one namespace or all (unsorted). */
  *iterate(rt: ResourceType, namespace?: string): Generator<any> {
    const byNs = this.data.get(typeKey(rt));
    if (!byNs) return;
    if (namespace !== undefined) {
      const m = byNs.get(namespace);
      if (m) yield* m.values();
      return;
    }
    for (const m of byNs.values()) yield* m.values();
  }

  byUid(uid: string): ObjectRef | undefined {
    return this.uids.get(uid);
  }

  objectByUid(uid: string): any | undefined {
    const ref = this.uids.get(uid);
    return ref && this.get(ref.rt, ref.namespace, ref.name);
  }

  dependentsOf(uid: string): string[] {
    return [...(this.dependentsIndex.get(uid) ?? [])];
  }

  countInNamespace(namespace: string): number {
    return this.namespaceCounts.get(namespace) ?? 0;
  }

  /** Types that have at least one object stored. */
  storedTypes(): string[] {
    return [...this.data.keys()];
  }

  /** Store a new or changed object: assigns the next resourceVersion and emits ADDED/MODIFIED. */
  commit(rt: ResourceType, obj: any): any {
    const key = typeKey(rt);
    const namespace: string = rt.namespaced ? obj.metadata.namespace : "";
    const name: string = obj.metadata.name;
    let byNs = this.data.get(key);
    if (!byNs) this.data.set(key, (byNs = new Map()));
    let byName = byNs.get(namespace);
    if (!byName) byNs.set(namespace, (byName = new Map()));
    const prev = byName.get(name);
    const rv = ++this.rv;
    obj.metadata.resourceVersion = String(rv);
    byName.set(name, obj);
    if (!prev) {
      this.uids.set(obj.metadata.uid, { rt, namespace, name });
      if (namespace) this.namespaceCounts.set(namespace, (this.namespaceCounts.get(namespace) ?? 0) + 1);
    }
    this.reindexOwners(obj.metadata.uid, prev, obj);
    this.emit({ type: prev ? "MODIFIED" : "ADDED", rv, key, rt, namespace, name, object: obj, prev });
    return obj;
  }

  /** Remove an object for good: emits DELETED with its last state and a new resourceVersion. */
  remove(rt: ResourceType, obj: any): any {
    const key = typeKey(rt);
    const namespace: string = rt.namespaced ? obj.metadata.namespace : "";
    const name: string = obj.metadata.name;
    const byName = this.data.get(key)?.get(namespace);
    const prev = byName?.get(name);
    if (!byName || !prev) return undefined;
    byName.delete(name);
    if (byName.size === 0) this.data.get(key)!.delete(namespace);
    const rv = ++this.rv;
    const final = { ...obj, metadata: { ...obj.metadata, resourceVersion: String(rv) } };
    this.uids.delete(prev.metadata.uid);
    if (namespace) this.namespaceCounts.set(namespace, (this.namespaceCounts.get(namespace) ?? 1) - 1);
    this.reindexOwners(prev.metadata.uid, prev, undefined);
    this.emit({ type: "DELETED", rv, key, rt, namespace, name, object: final, prev });
    return final;
  }

  /** Drop every object of a type (CRD deletion) without per-object events. */
  dropType(rt: ResourceType): void {
    for (const obj of [...this.iterate(rt)]) this.remove(rt, obj);
    this.data.delete(typeKey(rt));
  }

  private reindexOwners(uid: string, before: any, after: any): void {
    const old: string[] = (before?.metadata?.ownerReferences ?? []).map((r: any) => r.uid);
    const now: string[] = (after?.metadata?.ownerReferences ?? []).map((r: any) => r.uid);
    for (const o of old) {
      if (now.includes(o)) continue;
      const set = this.dependentsIndex.get(o);
      set?.delete(uid);
      if (set && set.size === 0) this.dependentsIndex.delete(o);
    }
    for (const o of now) {
      let set = this.dependentsIndex.get(o);
      if (!set) this.dependentsIndex.set(o, (set = new Set()));
      set.add(uid);
    }
  }

  private emit(event: StoreEvent): void {
    this.history.push(event);
    if (this.history.length - this.historyHead > this.historyLimit) {
      this.compactedRv = this.history[this.historyHead]!.rv;
      this.history[this.historyHead] = undefined as unknown as StoreEvent;
      this.historyHead++;
      if (this.historyHead > 4096 && this.historyHead * 2 > this.history.length) {
        this.history = this.history.slice(this.historyHead);
        this.historyHead = 0;
      }
    }
    for (const l of this.listeners) l(event);
  }

  /** Forget all history: any watch from a resourceVersion older than now gets 410. */
  compact(): void {
    this.history = [];
    this.historyHead = 0;
    this.compactedRv = this.rv;
  }

  /** Events with rv > `since` (caller checked `since >= compactedRv`). */
  eventsSince(since: number): StoreEvent[] {
    let lo = this.historyHead;
    let hi = this.history.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.history[mid]!.rv <= since) lo = mid + 1;
      else hi = mid;
    }
    return this.history.slice(lo);
  }
}

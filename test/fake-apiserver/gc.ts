/**
 * Background controllers that clean up after deletions:
 *
 * - Garbage collector: when an object is removed, its dependents (objects whose ownerReferences
 *   name its uid) are deleted — through the normal delete path, so their own finalizers are
 *   respected and their removal cascades further. A dependent with another owner that still
 *   exists only loses the dangling reference. Objects created or updated with owner references
 *   that all point to nothing are deleted too (kube's GC does this eventually). With
 *   propagationPolicy=Orphan the dependents lose the reference instead.
 * - Namespace lifecycle: a namespace being deleted has its content deleted, and is removed
 *   once empty.
 *
 * Work runs on the next macrotask (`setImmediate`) in batches, never inside the store's event
 * dispatch. Approximations: no `foregroundDeletion`, `blockOwnerDeletion` is ignored, an owner
 * reference is resolved by uid only (plus the same-namespace rule), not by apiVersion/kind/name.
 */
import type { Registry } from "./resources.js";
import type { Rest } from "./rest.js";
import type { Store, StoreEvent } from "./store.js";

export class GarbageCollector {
  private readonly removedOwners = new Set<string>();
  private readonly suspects = new Set<string>();
  private readonly terminatingNamespaces = new Set<string>();
  private scheduled?: NodeJS.Immediate;
  private stopped = false;

  constructor(
    private readonly store: Store,
    private readonly rest: Rest,
    private readonly registry: Registry,
  ) {
    store.onEvent((e) => this.observe(e));
  }

  stop(): void {
    this.stopped = true;
    if (this.scheduled) clearImmediate(this.scheduled);
  }

  private observe(e: StoreEvent): void {
    const md = e.object.metadata;
    if (e.type === "DELETED") {
      this.removedOwners.add(md.uid);
      if (e.namespace && this.store.countInNamespace(e.namespace) === 0) this.terminatingNamespaces.add(e.namespace);
    } else if (md.ownerReferences?.length) {
      const before = e.prev?.metadata?.ownerReferences;
      if (e.type === "ADDED" || JSON.stringify(before) !== JSON.stringify(md.ownerReferences)) this.suspects.add(md.uid);
    }
    if (e.rt.group === "" && e.rt.kind === "Namespace" && e.type !== "DELETED" && md.deletionTimestamp && !e.prev?.metadata?.deletionTimestamp) {
      this.terminatingNamespaces.add(md.name);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    if (this.removedOwners.size === 0 && this.suspects.size === 0 && this.terminatingNamespaces.size === 0) return;
    this.scheduled = setImmediate(() => {
      this.scheduled = undefined;
      this.run();
      this.schedule();
    });
  }

  private ownerExists(ref: any, dependent: any): boolean {
    const owner = this.store.byUid(ref.uid);
    if (!owner) return false;
    return !owner.rt.namespaced || owner.namespace === dependent.metadata.namespace;
  }

  private run(): void {
    const owners = [...this.removedOwners];
    const suspects = [...this.suspects];
    const namespaces = [...this.terminatingNamespaces];
    this.removedOwners.clear();
    this.suspects.clear();
    this.terminatingNamespaces.clear();
    const orphaning = new Set<string>();
    for (const uid of owners) {
      if (this.rest.orphaned.delete(uid)) orphaning.add(uid);
      for (const dep of this.store.dependentsOf(uid)) this.evaluate(dep, orphaning);
    }
    for (const uid of suspects) this.evaluate(uid, orphaning);
    for (const ns of namespaces) this.purgeNamespace(ns);
  }

  /** Delete a dependent whose owners are all gone; drop dangling references otherwise. */
  private evaluate(uid: string, orphaning: Set<string>): void {
    const ref = this.store.byUid(uid);
    const obj = ref && this.store.get(ref.rt, ref.namespace, ref.name);
    if (!ref || !obj) return;
    const refs: any[] = obj.metadata.ownerReferences ?? [];
    const dangling = refs.filter((r) => !this.ownerExists(r, obj));
    if (dangling.length === 0) return;
    const alive = refs.length - dangling.length;
    const orphaned = dangling.some((r) => orphaning.has(r.uid));
    if (alive > 0 || orphaned) {
      const drop = new Set(dangling.map((r) => r.uid));
      this.rest.mutate(ref.rt, ref.namespace, ref.name, (o) => {
        const kept = (o.metadata.ownerReferences ?? []).filter((r: any) => !drop.has(r.uid));
        if (kept.length > 0) o.metadata.ownerReferences = kept;
        else delete o.metadata.ownerReferences;
        return o;
      });
      return;
    }
    if (obj.metadata.deletionTimestamp) return;
    try {
      this.rest.delete(ref.rt, ref.namespace, ref.name, { propagationPolicy: "Background" });
    } catch {
      // already gone
    }
  }

  private purgeNamespace(namespace: string): void {
    const nsType = this.registry.byPlural("", "v1", "namespaces")!;
    const ns = this.store.get(nsType, "", namespace);
    if (!ns?.metadata.deletionTimestamp) return;
    for (const rt of this.registry.all()) {
      if (!rt.namespaced) continue;
      for (const obj of [...this.store.iterate(rt, namespace)]) {
        if (obj.metadata.deletionTimestamp) continue;
        try {
          this.rest.delete(rt, namespace, obj.metadata.name, {});
        } catch {
          // already gone
        }
      }
    }
    this.rest.finalizeNamespace(namespace);
  }
}

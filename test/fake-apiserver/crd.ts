/**
 * The apiextensions controller: a CustomResourceDefinition written through the API registers
 * its served versions for discovery and serving (synchronously, so the very next request can use
 * them), then gets the `NamesAccepted` and `Established` conditions. Deleting the CRD deletes
 * all its custom resources and unregisters the type.
 *
 * Approximations: no name-conflict detection, no schema validation/pruning/defaulting, no
 * conversion webhooks, versions removed from a CRD keep their stored objects until deletion.
 */
import type { Registry } from "./resources.js";
import { typesFromCrd } from "./resources.js";
import type { Rest } from "./rest.js";
import type { Store } from "./store.js";
import { timestamp } from "./util.js";

export function installCrdController(store: Store, rest: Rest, registry: Registry): void {
  store.onEvent((e) => {
    if (e.rt.group !== "apiextensions.k8s.io" || e.rt.kind !== "CustomResourceDefinition") return;
    if (e.type === "DELETED") {
      const gone = typesFromCrd(e.object);
      setImmediate(() => {
        for (const t of gone) {
          const rt = registry.byPlural(t.group, t.version, t.plural);
          if (!rt) continue;
          store.dropType(rt);
          registry.unregister(t.group, t.version, t.plural);
        }
      });
      return;
    }
    const now = typesFromCrd(e.object);
    for (const old of typesFromCrd(e.prev)) {
      if (!now.some((t) => t.group === old.group && t.version === old.version && t.plural === old.plural)) {
        registry.unregister(old.group, old.version, old.plural);
      }
    }
    for (const t of now) registry.register(t);
    const established = (e.object.status?.conditions ?? []).some((c: any) => c.type === "Established" && c.status === "True");
    if (!established && now.length > 0) {
      const name = e.object.metadata.name;
      setImmediate(() => {
        rest.mutate(
          e.rt,
          "",
          name,
          (crd) => {
            const at = timestamp();
            const storage = (crd.spec.versions ?? []).find((v: any) => v.storage) ?? crd.spec.versions?.[0];
            crd.status = {
              conditions: [
                { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found", lastTransitionTime: at },
                { type: "Established", status: "True", reason: "InitialNamesAccepted", message: "the initial names have been accepted", lastTransitionTime: at },
              ],
              acceptedNames: crd.spec.names,
              storedVersions: storage ? [storage.name] : [],
            };
            return crd;
          },
          "status",
        );
      });
    }
  });
}

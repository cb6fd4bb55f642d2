/**
 * Child object names. Deployment names are DNS labels of at most 63 characters, so `<name>-postgres`
 * can be too long: such names are shortened to `<truncated name>-<8 hex of sha256>-<suffix>`, which
 * stays unique (the hash covers the full name) and keeps the readable suffix.
 */
import { createHash } from "node:crypto";
import type { AgentDeployment } from "../types.js";

export const DNS_LABEL_MAX = 63;
/**
 * StatefulSet names must leave room for the `controller-revision-hash` pod label
 * (`<name>-<10 chars>`, a label value of at most 63 characters).
 */
export const STATEFULSET_NAME_MAX = 52;

export function shortHash(text: string, length = 8): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** `<base>-<suffix>` if it fits in `max` characters, else a hash-shortened name that does. */
export function childName(base: string, suffix: string, max = DNS_LABEL_MAX): string {
  const full = suffix ? `${base}-${suffix}` : base;
  if (full.length <= max) return full;
  const hash = shortHash(full);
  const tail = suffix ? `-${hash}-${suffix}` : `-${hash}`;
  if (tail.length >= max) throw new Error(`suffix '${suffix}' is too long for a ${max}-character name`);
  const head = base.slice(0, max - tail.length).replace(/[-.]+$/, "");
  return head ? `${head}${tail}` : tail.slice(1);
}

/** The names of every child of one AgentDeployment. */
export function childNames(ad: AgentDeployment) {
  const base = ad.spec.deploymentName;
  return {
    api: childName(base, "api"),
    queue: childName(base, "queue"),
    /** The Service in front of the API pods (the deployment's URL). */
    service: childName(base, "api"),
    redis: childName(base, "redis"),
    postgres: childName(base, "postgres", STATEFULSET_NAME_MAX),
    postgresService: childName(base, "postgres"),
    postgresSecret: childName(base, "postgres-auth"),
  };
}
export type ChildNames = ReturnType<typeof childNames>;

/**
 * Listener rules (reference §1.3): a `k8s` listener lists the namespaces it may deploy to in
 * `compute_config.k8s_namespaces`; a `local` listener has no namespaces. A deployment's
 * `listener_config.k8s_namespace` is validated against its listener's compute type (spec §2.3).
 * An empty or absent namespace list means "no restriction": the operator decides what it can reach.
 * A `k8s` listener also says how hosted_git builds run on it (`image_registry`,
 * `registry_push_secret`, `kaniko_image`); none of that is allowed on a `local` listener.
 */
import { BadRequestError, ValidationError, zodIssuesToValidation, type ValidationIssue } from "../../shared/errors.js";
import {
  listenerCreateRequestSchema,
  listenerPatchRequestSchema,
  type ComputeConfig,
  type ComputeType,
  type ListenerConfig,
  type ListenerCreateRequest,
  type ListenerPatchRequest,
} from "./schemas.js";
import { valueError } from "./structure.js";
import { attempt, type CheckResult } from "./validate.js";

export const LISTENER_ERROR_PREFIX = "Listener configuration error: ";

/** compute_config fields that only mean something on a Kubernetes cluster. */
const K8S_ONLY_FIELDS = ["k8s_namespaces", "image_registry", "registry_push_secret", "kaniko_image"] as const satisfies readonly (keyof ComputeConfig)[];

function computeConfigRules(computeType: ComputeType, config: ComputeConfig | null | undefined): void {
  const namespaces = config?.k8s_namespaces ?? [];
  const seen = new Set<string>();
  const issues: ValidationIssue[] = [];
  namespaces.forEach((ns, i) => {
    if (seen.has(ns)) issues.push(valueError(["body", "compute_config", "k8s_namespaces", i], `duplicate namespace '${ns}'`));
    seen.add(ns);
  });
  if (issues.length > 0) throw new ValidationError(issues);
  if (computeType === "local") {
    const k8sOnly = K8S_ONLY_FIELDS.filter((f) => (f === "k8s_namespaces" ? namespaces.length > 0 : config?.[f] != null));
    if (k8sOnly.length > 0) {
      throw new BadRequestError(`${LISTENER_ERROR_PREFIX}${k8sOnly.map((f) => `'compute_config.${f}'`).join(", ")} ${k8sOnly.length > 1 ? "are" : "is"} not allowed for compute type 'local'`);
    }
  }
}

export function validateListenerCreate(body: ListenerCreateRequest): void {
  computeConfigRules(body.compute_type, body.compute_config);
}

/** compute_type cannot change (it is not in the patch body), so the stored one decides. */
export function validateListenerPatch(computeType: ComputeType, body: ListenerPatchRequest): void {
  computeConfigRules(computeType, body.compute_config);
}

export function checkListenerCreate(body: unknown): CheckResult<ListenerCreateRequest> {
  const parsed = listenerCreateRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, error: new ValidationError(zodIssuesToValidation("body", parsed.error)) };
  return attempt(() => (validateListenerCreate(parsed.data), parsed.data));
}

export function checkListenerPatch(computeType: ComputeType, body: unknown): CheckResult<ListenerPatchRequest> {
  const parsed = listenerPatchRequestSchema.safeParse(body);
  if (!parsed.success) return { ok: false, error: new ValidationError(zodIssuesToValidation("body", parsed.error)) };
  return attempt(() => (validateListenerPatch(computeType, parsed.data), parsed.data));
}

export interface ListenerTarget {
  compute_type: ComputeType;
  compute_config: ComputeConfig;
}

/** A deployment's listener_config against the listener it goes to (the caller has looked the listener up). 400 on a mismatch. */
export function validateListenerPlacement(listener: ListenerTarget, listenerConfig: ListenerConfig | null | undefined): void {
  const ns = listenerConfig?.k8s_namespace ?? null;
  if (ns === null) return;
  if (listener.compute_type === "local") {
    throw new BadRequestError(`${LISTENER_ERROR_PREFIX}'source_config.listener_config.k8s_namespace' is not allowed for a listener with compute type 'local'`);
  }
  const allowed = listener.compute_config.k8s_namespaces ?? [];
  if (allowed.length > 0 && !allowed.includes(ns)) {
    throw new BadRequestError(`${LISTENER_ERROR_PREFIX}namespace '${ns}' is not one of the listener's namespaces (${allowed.join(", ")})`);
  }
}

/** The namespace a deployment goes to on a k8s listener: its own, else the listener's first, else null (the operator's default). */
export function targetNamespace(listener: ListenerTarget, listenerConfig: ListenerConfig | null | undefined): string | null {
  if (listener.compute_type !== "k8s") return null;
  return listenerConfig?.k8s_namespace ?? listener.compute_config.k8s_namespaces?.[0] ?? null;
}

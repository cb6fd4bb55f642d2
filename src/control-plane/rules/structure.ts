/**
 * Cross-field rules that are about the shape of one value, not about `source`: they answer with a
 * 422 whose `loc` names the offending field, like a schema failure (in the reference these would be
 * pydantic validators, hence type "value_error"). `loc` is the location of the value being checked,
 * e.g. ["body", "source_config", "resource_spec"].
 */
import type { ValidationIssue } from "../../shared/errors.js";
import { VOLUME_SOURCES, type Container, type VolumeMount } from "./k8s.js";
import { MASK } from "./masking.js";
import { RESOURCE_PAIRS } from "./resources.js";
import type { ResourceSpec, Secret } from "./schemas.js";

type Loc = (string | number)[];

/** One 422 item for a rule checked outside the schema. */
export function valueError(loc: Loc, msg: string): ValidationIssue {
  return { loc, msg, type: "value_error" };
}
const issue = valueError;

/** Every rule of a ResourceSpec that spans fields: mounts name volumes, unique names, ordered pairs, EnvVar exclusivity. */
export function resourceSpecIssues(spec: ResourceSpec | null | undefined, loc: Loc): ValidationIssue[] {
  if (!spec) return [];
  const out: ValidationIssue[] = [];
  const volumes = new Set<string>();
  (spec.volumes ?? []).forEach((v, i) => {
    if (volumes.has(v.name)) out.push(issue([...loc, "volumes", i, "name"], `duplicate volume name '${v.name}'`));
    volumes.add(v.name);
    const sources = VOLUME_SOURCES.filter((s) => v[s] != null);
    if (sources.length > 1) {
      out.push(issue([...loc, "volumes", i], `a volume must have at most one source, found ${sources.join(", ")}`));
    }
  });
  out.push(...mountIssues(spec.volume_mounts ?? [], volumes, [...loc, "volume_mounts"]));

  const containers = new Set<string>();
  for (const list of ["init_containers", "sidecars"] as const) {
    (spec[list] ?? []).forEach((c, i) => {
      const at = [...loc, list, i];
      // Kubernetes requires unique names across init and regular containers of a pod.
      if (containers.has(c.name)) out.push(issue([...at, "name"], `duplicate container name '${c.name}'`));
      containers.add(c.name);
      out.push(...containerIssues(c, volumes, at));
    });
  }

  for (const [low, high] of RESOURCE_PAIRS) {
    const l = spec[low];
    const h = spec[high];
    if (l != null && h != null && l > h) out.push(issue([...loc, high], `'${high}' (${h}) must be at least '${low}' (${l})`));
  }
  return out;
}

function containerIssues(c: Container, volumes: ReadonlySet<string>, at: Loc): ValidationIssue[] {
  const out = mountIssues(c.volumeMounts ?? [], volumes, [...at, "volumeMounts"]);
  (c.env ?? []).forEach((e, k) => {
    // Spec §2.6: valueFrom cannot be used when value is non-empty (an empty value is the default).
    if (e.valueFrom != null && e.value != null && e.value !== "") {
      out.push(issue([...at, "env", k, "valueFrom"], "'valueFrom' cannot be used when 'value' is not empty"));
    }
  });
  return out;
}

function mountIssues(mounts: readonly VolumeMount[], volumes: ReadonlySet<string>, at: Loc): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const paths = new Set<string>();
  mounts.forEach((m, i) => {
    if (!volumes.has(m.name)) out.push(issue([...at, i, "name"], `no volume named '${m.name}' in 'volumes'`));
    if (paths.has(m.mountPath)) out.push(issue([...at, i, "mountPath"], `duplicate mountPath '${m.mountPath}'`));
    paths.add(m.mountPath);
  });
  return out;
}

/**
 * Secret names must be unique (they become one environment). On create a MASK value is refused: it
 * is a response placeholder, and a client copying a masked list into a new deployment would
 * otherwise deploy the literal placeholder. On PATCH a MASK value means "keep" (masking.ts).
 */
export function secretIssues(secrets: readonly Secret[], loc: Loc, { allowMask }: { allowMask: boolean }): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  const names = new Set<string>();
  secrets.forEach((s, i) => {
    if (names.has(s.name)) out.push(issue([...loc, i, "name"], `duplicate secret name '${s.name}'`));
    names.add(s.name);
    if (!allowMask && s.value === MASK) {
      out.push(issue([...loc, i, "value"], `'${MASK}' is the placeholder for a masked value; send the real value`));
    }
  });
  return out;
}

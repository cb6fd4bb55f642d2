/**
 * Defaulting and validation applied on every write, so that code which would be surprised by a
 * real apiserver is surprised here too: Secret `stringData` is folded into base64 `data`, Services
 * get a `clusterIP`, workloads and pod templates get the defaults kubectl shows in `-o yaml`; names
 * and labels are validated (DNS-1123 / label syntax) with 422 Invalid.
 *
 * Approximations: only the most visible defaults are applied (not the full OpenAPI defaulting),
 * validation covers names, labels, annotations keys and a handful of required fields only;
 * clusterIPs come from a counter and are never released.
 */
import { ApiError } from "./errors.js";
import type { ResourceType } from "./resources.js";
import { isObject } from "./util.js";

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

function invalid(rt: ResourceType, name: string, causes: { field: string; message: string }[]): ApiError {
  const text = causes.map((c) => `${c.field}: ${c.message}`).join(", ");
  return new ApiError(422, `${rt.kind} "${name}" is invalid: ${text}`, "Invalid", {
    name,
    group: rt.group,
    kind: rt.kind,
    causes: causes.map((c) => ({ type: "FieldValueInvalid", message: c.message, field: c.field })),
  });
}

function checkQualifiedName(key: string): string | undefined {
  const slash = key.indexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : undefined;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== undefined && (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))) return "prefix part must be a DNS-1123 subdomain";
  if (name.length === 0 || name.length > 63 || !LABEL_NAME.test(name)) {
    return "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (at most 63 characters)";
  }
  return undefined;
}

/** Validate metadata and the few required fields the operator is likely to get wrong. */
export function validate(rt: ResourceType, obj: any): void {
  const md = obj.metadata ?? {};
  const name: string = md.name ?? "";
  const causes: { field: string; message: string }[] = [];
  if (rt.kind === "Namespace" || rt.kind === "Service") {
    const re = rt.kind === "Service" ? DNS1035_LABEL : DNS1123_LABEL;
    if (name.length > 63 || !re.test(name)) {
      causes.push({ field: "metadata.name", message: `Invalid value: "${name}": a DNS-${rt.kind === "Service" ? "1035" : "1123"} label must consist of lower case alphanumeric characters or '-' (at most 63 characters)` });
    }
  } else if (name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    causes.push({ field: "metadata.name", message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.'` });
  }
  for (const [k, v] of Object.entries(md.labels ?? {})) {
    const keyError = checkQualifiedName(k);
    if (keyError) causes.push({ field: "metadata.labels", message: `Invalid value: "${k}": ${keyError}` });
    if (typeof v !== "string") causes.push({ field: `metadata.labels`, message: `Invalid value: ${JSON.stringify(v)}: label values must be strings` });
    else if (v !== "" && (v.length > 63 || !LABEL_NAME.test(v))) {
      causes.push({ field: "metadata.labels", message: `Invalid value: "${v}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.' (at most 63 characters)` });
    }
  }
  for (const [k, v] of Object.entries(md.annotations ?? {})) {
    const keyError = checkQualifiedName(k);
    if (keyError) causes.push({ field: "metadata.annotations", message: `Invalid value: "${k}": ${keyError}` });
    if (typeof v !== "string") causes.push({ field: "metadata.annotations", message: `Invalid value: ${JSON.stringify(v)}: annotation values must be strings` });
  }
  for (const [i, ref] of (md.ownerReferences ?? []).entries()) {
    if (!ref?.apiVersion || !ref?.kind || !ref?.name || !ref?.uid) {
      causes.push({ field: `metadata.ownerReferences[${i}]`, message: "Required value: apiVersion, kind, name and uid are required" });
    }
  }
  if (rt.group === "apps" && (rt.kind === "Deployment" || rt.kind === "StatefulSet")) {
    const sel = obj.spec?.selector;
    if (!isObject(sel)) causes.push({ field: "spec.selector", message: "Required value" });
    else {
      const tpl = obj.spec?.template?.metadata?.labels ?? {};
      for (const [k, v] of Object.entries(sel.matchLabels ?? {})) {
        if (tpl[k] !== v) causes.push({ field: "spec.template.metadata.labels", message: "Invalid value: `selector` does not match template `labels`" });
      }
    }
    if (!Array.isArray(obj.spec?.template?.spec?.containers) || obj.spec.template.spec.containers.length === 0) {
      causes.push({ field: "spec.template.spec.containers", message: "Required value" });
    }
  }
  if (rt.group === "batch" && rt.kind === "Job") {
    const policy = obj.spec?.template?.spec?.restartPolicy;
    if (policy !== "Never" && policy !== "OnFailure") {
      causes.push({ field: "spec.template.spec.restartPolicy", message: `Unsupported value: ${JSON.stringify(policy ?? "Always")}: supported values: "OnFailure", "Never"` });
    }
    if (!Array.isArray(obj.spec?.template?.spec?.containers) || obj.spec.template.spec.containers.length === 0) {
      causes.push({ field: "spec.template.spec.containers", message: "Required value" });
    }
  }
  if (rt.kind === "Secret" && obj.data !== undefined) {
    for (const [k, v] of Object.entries(obj.data ?? {})) {
      if (typeof v !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(v)) causes.push({ field: `data[${k}]`, message: "Invalid value: must be base64" });
    }
  }
  if (causes.length > 0) throw invalid(rt, name, causes);
}

let nextClusterIp = 1;

function podSpecDefaults(spec: any, restartPolicy: string | undefined = "Always"): void {
  if (!isObject(spec)) return;
  if (restartPolicy) spec.restartPolicy ??= restartPolicy;
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= "ClusterFirst";
  spec.securityContext ??= {};
  spec.schedulerName ??= "default-scheduler";
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
    if (!isObject(c)) continue;
    const image = String((c as any).image ?? "");
    const tagged = /:[^/]+$/.test(image.replace(/@.*$/, "")) || image.includes("@");
    (c as any).imagePullPolicy ??= !tagged || image.endsWith(":latest") ? "Always" : "IfNotPresent";
    (c as any).terminationMessagePath ??= "/dev/termination-log";
    (c as any).terminationMessagePolicy ??= "File";
    (c as any).resources ??= {};
    for (const p of (c as any).ports ?? []) if (isObject(p)) p.protocol ??= "TCP";
  }
}

/** Apply the kind's defaults in place (called on the candidate object of every write). */
export function applyDefaults(rt: ResourceType, obj: any): void {
  if (rt.custom) return;
  const spec = obj.spec;
  switch (`${rt.group}/${rt.kind}`) {
    case "/Secret":
      if (isObject(obj.stringData)) {
        obj.data = { ...(obj.data ?? {}) };
        for (const [k, v] of Object.entries(obj.stringData)) obj.data[k] = Buffer.from(String(v), "utf8").toString("base64");
      }
      delete obj.stringData;
      obj.type ??= "Opaque";
      break;
    case "/Service":
      if (!isObject(spec)) break;
      spec.type ??= "ClusterIP";
      spec.sessionAffinity ??= "None";
      if (spec.type !== "ExternalName") {
        if (!spec.clusterIP) {
          const n = nextClusterIp++;
          spec.clusterIP = `10.96.${(n >> 8) & 255}.${n & 255}`;
        }
        spec.clusterIPs ??= [spec.clusterIP];
        spec.ipFamilies ??= ["IPv4"];
        spec.ipFamilyPolicy ??= "SingleStack";
        spec.internalTrafficPolicy ??= "Cluster";
      }
      for (const p of spec.ports ?? []) {
        if (!isObject(p)) continue;
        p.protocol ??= "TCP";
        p.targetPort ??= p.port;
      }
      break;
    case "/Pod":
      podSpecDefaults(spec);
      break;
    case "/PersistentVolumeClaim":
      if (isObject(spec)) spec.volumeMode ??= "Filesystem";
      break;
    case "apps/Deployment":
      if (!isObject(spec)) break;
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.progressDeadlineSeconds ??= 600;
      spec.strategy ??= { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } };
      podSpecDefaults(spec.template?.spec);
      break;
    case "apps/StatefulSet":
      if (!isObject(spec)) break;
      spec.replicas ??= 1;
      spec.revisionHistoryLimit ??= 10;
      spec.podManagementPolicy ??= "OrderedReady";
      spec.updateStrategy ??= { type: "RollingUpdate", rollingUpdate: { partition: 0 } };
      spec.persistentVolumeClaimRetentionPolicy ??= { whenDeleted: "Retain", whenScaled: "Retain" };
      podSpecDefaults(spec.template?.spec);
      break;
    case "apps/ReplicaSet":
      if (isObject(spec)) spec.replicas ??= 1;
      podSpecDefaults(spec?.template?.spec);
      break;
    case "batch/Job":
      if (!isObject(spec)) break;
      spec.backoffLimit ??= 6;
      spec.completions ??= 1;
      spec.parallelism ??= 1;
      spec.completionMode ??= "NonIndexed";
      spec.suspend ??= false;
      // kube-apiserver defaults a template's restartPolicy to Always and then rejects it for Jobs.
      podSpecDefaults(spec.template?.spec, undefined);
      break;
  }
}

/** Defaults that need the new object's uid (Job selector and template labels). */
export function createDefaults(rt: ResourceType, obj: any): void {
  if (rt.group === "batch" && rt.kind === "Job" && isObject(obj.spec) && !obj.spec.manualSelector) {
    const uid = obj.metadata.uid;
    const name = obj.metadata.name;
    const labels = { "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": name, "controller-uid": uid, "job-name": name };
    obj.spec.selector ??= { matchLabels: { "batch.kubernetes.io/controller-uid": uid } };
    obj.spec.template ??= {};
    obj.spec.template.metadata = { ...(obj.spec.template.metadata ?? {}) };
    obj.spec.template.metadata.labels = { ...(obj.spec.template.metadata.labels ?? {}), ...labels };
  }
}

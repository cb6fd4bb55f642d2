/**
 * The Kubernetes-shaped parts of a ResourceSpec (spec §2.6: Volume, VolumeMount, Container, EnvVar,
 * ResourceRequirements) and the Kubernetes name rules they need.
 *
 * The operator copies these objects into pod specs, so names are checked with Kubernetes' own rules
 * here: a bad name is a 422 naming the field at the API instead of a rollout that fails inside the
 * cluster minutes later. Cross-object rules (a mount names an existing volume, unique names) live in
 * validate.ts, because they need the whole spec.
 */
import { z } from "zod";

/** RFC 1123 label: container, volume and namespace names. */
export const DNS_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** RFC 1123 subdomain: names of Secrets and ServiceAccounts. */
export const DNS_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
/** A C identifier: what spec §2.5/§2.6 require of env var names (Secret.name, EnvVar.name). */
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The name part of a label or annotation key, and a non-empty label value. */
const QUALIFIED_NAME_RE = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

export const dnsLabel = z
  .string()
  .max(63, "must be at most 63 characters (a Kubernetes DNS label)")
  .regex(DNS_LABEL_RE, "must be a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit");

export const dnsSubdomain = z
  .string()
  .max(253, "must be at most 253 characters (a Kubernetes DNS subdomain)")
  .regex(DNS_SUBDOMAIN_RE, "must be a DNS subdomain: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit");

export const envName = z
  .string()
  .regex(ENV_NAME_RE, "must be a valid environment variable name: letters, digits and '_', not starting with a digit");

/** Why a label or annotation key is invalid, or null when it is valid (`[prefix/]name`, as Kubernetes). */
export function qualifiedKeyProblem(key: string): string | null {
  const slash = key.lastIndexOf("/");
  const prefix = slash >= 0 ? key.slice(0, slash) : null;
  const name = slash >= 0 ? key.slice(slash + 1) : key;
  if (prefix !== null && (prefix.length > 253 || !DNS_SUBDOMAIN_RE.test(prefix))) {
    return "the key prefix before '/' must be a DNS subdomain";
  }
  if (name.length === 0 || name.length > 63 || !QUALIFIED_NAME_RE.test(name)) {
    return "the key name must be 1-63 characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
  }
  return null;
}

/** A string map whose keys must be Kubernetes qualified names (labels, annotations). */
function keyedMap(value: z.ZodString) {
  return z.record(z.string(), value).superRefine((map, ctx) => {
    for (const key of Object.keys(map)) {
      const problem = qualifiedKeyProblem(key);
      if (problem) ctx.addIssue({ code: "custom", message: `invalid key ${JSON.stringify(key)}: ${problem}`, path: [key] });
    }
  });
}

export const labelsSchema = keyedMap(
  z
    .string()
    .max(63, "a label value must be at most 63 characters")
    .regex(/^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$/, "a label value may hold letters, digits, '-', '_' and '.', starting and ending with a letter or digit"),
);
export const annotationsSchema = keyedMap(z.string());

/** Free-form objects (volume sources, valueFrom, securityContext) are passed through to Kubernetes as given. */
const freeForm = z.record(z.string(), z.unknown());

/** The volume sources spec §2.6 names; Kubernetes allows at most one per volume (checked in validate.ts). */
export const VOLUME_SOURCES = ["configMap", "secret", "emptyDir", "persistentVolumeClaim", "nfs", "projected", "downwardAPI", "csi"] as const;

export const volumeSchema = z.object({
  name: dnsLabel,
  configMap: freeForm.nullish(),
  secret: freeForm.nullish(),
  emptyDir: freeForm.nullish(),
  persistentVolumeClaim: freeForm.nullish(),
  nfs: freeForm.nullish(),
  projected: freeForm.nullish(),
  downwardAPI: freeForm.nullish(),
  csi: freeForm.nullish(),
});

export const volumeMountSchema = z.object({
  /** Must name a volume of the same spec (validate.ts); no format check here, the match is the check. */
  name: z.string().min(1),
  mountPath: z.string().min(1),
  subPath: z.string().nullish(),
  mountPropagation: z.string().nullish(),
  readOnly: z.boolean().nullish(),
  subPathExpr: z.string().nullish(),
});

/** `value` and `valueFrom` exclusivity is checked in validate.ts so its 422 lands on `valueFrom`. */
export const envVarSchema = z.object({
  name: envName,
  /** Absent means "" (spec §2.6); kept absent rather than defaulted so responses echo the request. */
  value: z.string().nullish(),
  valueFrom: freeForm.nullish(),
});

export const resourceRequirementsSchema = z.object({
  limits: z.record(z.string(), z.string()).nullish(),
  requests: z.record(z.string(), z.string()).nullish(),
});

export const containerSchema = z.object({
  name: dnsLabel,
  image: z.string().min(1),
  imagePullPolicy: z.enum(["Always", "Never", "IfNotPresent"]).nullish(),
  command: z.array(z.string()).nullish(),
  args: z.array(z.string()).nullish(),
  workingDir: z.string().nullish(),
  env: z.array(envVarSchema).nullish(),
  envFrom: z.array(freeForm).nullish(),
  resources: resourceRequirementsSchema.nullish(),
  volumeMounts: z.array(volumeMountSchema).nullish(),
  securityContext: freeForm.nullish(),
  restartPolicy: z.enum(["Always", "OnFailure"]).nullish(),
});

export const imagePullSecretSchema = z.object({ name: dnsSubdomain });

export type Volume = z.output<typeof volumeSchema>;
export type VolumeMount = z.output<typeof volumeMountSchema>;
export type EnvVar = z.output<typeof envVarSchema>;
export type Container = z.output<typeof containerSchema>;
export type ResourceRequirements = z.output<typeof resourceRequirementsSchema>;

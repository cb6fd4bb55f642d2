/**
 * Settings of the control plane server, in its two modes:
 * - `berth dev`: everything on one machine (the local runtime; the k8s listener too with BERTH_K8S=true);
 * - `berth control-plane`: the control plane of a cluster (the k8s listener; binds 0.0.0.0, API keys required).
 * Every setting comes from an environment variable or a flag (flags win); errors name the one to fix.
 */
import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError, resolveSettings } from "../shared/config.js";
import { BERTH_VERSION } from "../shared/version.js";
import { IMAGE_REGISTRY_RE } from "./rules/schemas.js";

const int = (min: number, max: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);
const noSpaces = (what: string) => z.string().min(1).regex(/^\S+$/, `${what} must not contain whitespace`);
const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a Kubernetes namespace name (a DNS label)").max(63, "must be at most 63 characters");

export type ControlPlaneMode = "dev" | "control-plane";

export const controlPlaneSettingsSchema = z.object({
  host: z.string().min(1),
  port: int(0, 65535),
  dataDir: z.string().min(1),
  databaseUri: z.string().url("must be a postgres:// URI").optional(),
  /** Comma-separated, newest first: secrets at rest are written with the first. */
  secretsKeys: z.string().optional(),
  /** An admin key for the default tenant (else the embedded mode generates and prints one). */
  apiKey: z.string().min(16, "must be at least 16 characters").optional(),
  authMode: z.enum(["required", "loopback-open"]).optional(),
  /** Failed authentication attempts per client and window before 429 (0: no limit). */
  authMaxFailures: int(0, 1_000_000).optional(),
  authFailureWindowSeconds: int(1, 86_400).optional(),
  /** How often deployments refresh their tenant's key snapshot: how long a revoked key may still open them. */
  authRefreshSeconds: int(1, 86_400).optional(),
  /** Seconds a revision may take to become healthy before DEPLOY_FAILED. */
  deployDeadlineSeconds: z.coerce.number().positive("must be positive"),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  /** Drive a Kubernetes cluster (the k8s listener): true, false, or auto (in a pod, or with KUBECONFIG set). */
  k8s: z.enum(["true", "false", "auto"], { error: "must be true, false or auto" }),
  kubeconfig: z.string().min(1).optional(),
  /** Where deployments go when neither they nor their listener name a namespace. */
  k8sDefaultNamespace: dnsLabel,
  /** Only watch AgentDeployments in these namespaces (comma-separated; all namespaces when unset). */
  k8sNamespaces: z
    .string()
    .optional()
    .refine((v) => v === undefined || v.split(",").map((s) => s.trim()).filter(Boolean).every((s) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s)), {
      message: "must be a comma-separated list of namespace names",
    }),
  /** The control plane's URL as deployments in the cluster reach it (their traces go to `<url>/tracing`). */
  publicUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  /** The image hosted_git builds extend. */
  agentBaseImage: noSpaces("an image reference"),
  kanikoImage: noSpaces("an image reference"),
  /** Where hosted_git builds push when the deployment's listener names no registry (`registry.example.com/berth`). */
  imageRegistry: z
    .string()
    .regex(IMAGE_REGISTRY_RE, "must be a registry path like registry.example.com/berth: lowercase host[:port]/path, no scheme, tag or trailing '/'")
    .optional(),
  /** A kubernetes.io/dockerconfigjson Secret (in the deployment's namespace) the builds push with. */
  registryPushSecret: dnsLabel.optional(),
  /** The web console's build to serve at `/` (default: dist/console of this installation). */
  consoleDir: z.string().min(1).optional(),
});

export type ControlPlaneSettings = Omit<z.output<typeof controlPlaneSettingsSchema>, "k8s"> & {
  mode: ControlPlaneMode;
  /** Resolved: `auto` became true or false. */
  k8s: boolean;
};

export const DEFAULT_KANIKO_IMAGE = "gcr.io/kaniko-project/executor:v1.23.2";
const SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** The namespace of the pod we run in, else `default`. */
export function podNamespace(file = SERVICE_ACCOUNT_NAMESPACE): string {
  try {
    if (existsSync(file)) return readFileSync(file, "utf8").trim() || "default";
  } catch {
    // unreadable: not in a pod as far as we can tell
  }
  return "default";
}

export function controlPlaneDefaults(mode: ControlPlaneMode) {
  return {
    host: mode === "control-plane" ? "0.0.0.0" : "127.0.0.1",
    port: 8080,
    dataDir: ".berth",
    deployDeadlineSeconds: 300,
    logLevel: "info",
    // `berth dev` drives a cluster only when asked: a KUBECONFIG on a laptop is not a request to deploy there
    k8s: mode === "control-plane" ? "auto" : "false",
    k8sDefaultNamespace: podNamespace(),
    agentBaseImage: `ghcr.io/berth-dev/berth:${BERTH_VERSION}`,
    kanikoImage: DEFAULT_KANIKO_IMAGE,
    ...(mode === "control-plane" ? { authMode: "required" } : {}),
  };
}

/** Kept for callers of the dev defaults. */
export const CONTROL_PLANE_DEFAULTS = controlPlaneDefaults("dev");

export const CONTROL_PLANE_ENV_NAMES: Record<keyof z.output<typeof controlPlaneSettingsSchema>, string[]> = {
  host: ["HOST"],
  port: ["PORT"],
  dataDir: ["BERTH_DATA_DIR"],
  databaseUri: ["DATABASE_URI", "POSTGRES_URI"],
  secretsKeys: ["BERTH_SECRETS_KEY"],
  apiKey: ["BERTH_API_KEY"],
  authMode: ["BERTH_AUTH_MODE"],
  authMaxFailures: ["BERTH_AUTH_MAX_FAILURES"],
  authFailureWindowSeconds: ["BERTH_AUTH_FAILURE_WINDOW_SECONDS"],
  authRefreshSeconds: ["BERTH_AUTH_REFRESH_SECONDS"],
  deployDeadlineSeconds: ["BERTH_DEPLOY_DEADLINE_SECONDS"],
  logLevel: ["LOG_LEVEL"],
  k8s: ["BERTH_K8S"],
  kubeconfig: ["KUBECONFIG"],
  k8sDefaultNamespace: ["BERTH_K8S_DEFAULT_NAMESPACE"],
  k8sNamespaces: ["BERTH_K8S_NAMESPACES"],
  publicUrl: ["BERTH_PUBLIC_URL"],
  agentBaseImage: ["BERTH_AGENT_BASE_IMAGE"],
  kanikoImage: ["BERTH_KANIKO_IMAGE"],
  imageRegistry: ["BERTH_IMAGE_REGISTRY"],
  registryPushSecret: ["BERTH_REGISTRY_PUSH_SECRET"],
  consoleDir: ["BERTH_CONSOLE_DIR"],
};

/** Flags whose name is not the kebab-case of the setting. */
const FLAG_NAMES: Record<string, string> = { secretsKeys: "--secrets-key", k8sDefaultNamespace: "--k8s-default-namespace", k8sNamespaces: "--k8s-namespaces" };

export function resolveControlPlaneSettings(
  flags: Partial<Record<keyof z.output<typeof controlPlaneSettingsSchema>, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
  mode: ControlPlaneMode = "dev",
): ControlPlaneSettings {
  const normalized = { ...flags, k8s: typeof flags.k8s === "boolean" ? String(flags.k8s) : flags.k8s };
  const s = resolveSettings(controlPlaneSettingsSchema, CONTROL_PLANE_ENV_NAMES, controlPlaneDefaults(mode), normalized, env, FLAG_NAMES, (merged) => {
    if (typeof merged.k8s === "string") merged.k8s = merged.k8s.trim().toLowerCase();
  });
  const where = (key: keyof typeof CONTROL_PLANE_ENV_NAMES) =>
    flags[key] !== undefined ? (FLAG_NAMES[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`) : `environment variable ${CONTROL_PLANE_ENV_NAMES[key][0]}`;
  if (mode === "control-plane" && s.databaseUri) {
    // a cluster's control plane keeps nothing on its disk: keys must come from the configuration
    const missing = [
      !s.secretsKeys && `${where("secretsKeys")}: required with DATABASE_URI (32 bytes, base64 or hex: secrets are encrypted at rest)`,
      !s.apiKey && `${where("apiKey")}: required with DATABASE_URI (the admin API key of the default tenant)`,
    ].filter(Boolean);
    if (missing.length > 0) throw new ConfigError(`invalid configuration:\n  ${missing.join("\n  ")}`);
  }
  const k8s = s.k8s === "auto" ? Boolean(env.KUBERNETES_SERVICE_HOST || s.kubeconfig) : s.k8s === "true";
  return { ...s, mode, k8s };
}

/** Settings of `berth operator`, from flags and the environment (the Helm chart sets the latter). */
import { hostname } from "node:os";
import { z } from "zod";
import { resolveSettings } from "../shared/config.js";

const int = (min: number, max: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);
const bool = z.union([z.boolean(), z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1")], { error: "must be true or false" });

export const operatorSettingsSchema = z.object({
  /** Comma-separated namespaces to watch; empty = the whole cluster. */
  namespaces: z
    .string()
    .transform((s) => s.split(",").map((n) => n.trim()).filter(Boolean))
    .pipe(z.array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be namespace names (DNS labels), comma-separated"))),
  leaderElect: bool,
  leaseNamespace: z.string().min(1),
  leaseName: z.string().min(1),
  identity: z.string().min(1),
  /** Port of /healthz, /readyz and /metrics. */
  port: int(0, 65535),
  host: z.string().min(1),
  workers: int(1, 64),
  /** A kubeconfig file (--kubeconfig); otherwise in-cluster or KUBECONFIG, as kubectl does. */
  kubeconfig: z.string().optional(),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
});
export type OperatorSettings = z.output<typeof operatorSettingsSchema>;

const ENV_NAMES: Partial<Record<keyof OperatorSettings, string[]>> = {
  namespaces: ["BERTH_OPERATOR_NAMESPACES"],
  leaderElect: ["BERTH_OPERATOR_LEADER_ELECT"],
  leaseNamespace: ["BERTH_OPERATOR_LEASE_NAMESPACE", "POD_NAMESPACE"],
  leaseName: ["BERTH_OPERATOR_LEASE_NAME"],
  identity: ["POD_NAME"],
  port: ["BERTH_OPERATOR_PORT"],
  host: ["BERTH_OPERATOR_HOST"],
  workers: ["BERTH_OPERATOR_WORKERS"],
  logLevel: ["LOG_LEVEL"],
};

export function resolveOperatorSettings(flags: Partial<Record<keyof OperatorSettings, unknown>>, env: NodeJS.ProcessEnv = process.env): OperatorSettings {
  const defaults = {
    namespaces: "",
    leaderElect: "true",
    leaseNamespace: "default",
    leaseName: "berth-operator",
    // unique per process even on one host: two replicas must never share an identity
    identity: `${hostname()}-${process.pid}`,
    port: 8081,
    host: "0.0.0.0",
    workers: 4,
    logLevel: "info",
  };
  return resolveSettings(operatorSettingsSchema, ENV_NAMES, defaults, flags, env);
}

/** Settings of `berth dev` / the control plane server. */
import { z } from "zod";
import { resolveSettings } from "../shared/config.js";

const int = (min: number, max: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be at least ${min}`).max(max, `must be at most ${max}`);

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
  /** Seconds a revision may take to become healthy before DEPLOY_FAILED. */
  deployDeadlineSeconds: z.coerce.number().positive("must be positive"),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
});
export type ControlPlaneSettings = z.output<typeof controlPlaneSettingsSchema>;

export const CONTROL_PLANE_DEFAULTS = {
  host: "127.0.0.1",
  port: 8080,
  dataDir: ".berth",
  deployDeadlineSeconds: 300,
  logLevel: "info",
};

const ENV_NAMES: Partial<Record<keyof ControlPlaneSettings, string[]>> = {
  host: ["HOST"],
  port: ["PORT"],
  dataDir: ["BERTH_DATA_DIR"],
  databaseUri: ["DATABASE_URI", "POSTGRES_URI"],
  secretsKeys: ["BERTH_SECRETS_KEY"],
  apiKey: ["BERTH_API_KEY"],
  authMode: ["BERTH_AUTH_MODE"],
  deployDeadlineSeconds: ["BERTH_DEPLOY_DEADLINE_SECONDS"],
  logLevel: ["LOG_LEVEL"],
};

export function resolveControlPlaneSettings(flags: Partial<Record<keyof ControlPlaneSettings, unknown>>, env: NodeJS.ProcessEnv = process.env): ControlPlaneSettings {
  return resolveSettings(controlPlaneSettingsSchema, ENV_NAMES, CONTROL_PLANE_DEFAULTS, flags, env);
}

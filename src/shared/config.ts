/**
 * Configuration from environment variables and CLI flags, validated with zod. Flags win over the
 * environment. A bad value stops start-up with a message naming the variable or flag.
 */
import { z } from "zod";
import { parseOutboundPolicy } from "./outbound.js";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const intFrom = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

export const MULTITASK_STRATEGIES = ["reject", "enqueue", "interrupt", "rollback"] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** Settings of one agent server process (`berth serve`, `berth worker`). */
export const agentServerSettingsSchema = z.object({
  configPath: z.string().min(1),
  host: z.string().min(1),
  port: intFrom(0, 65535),
  /** Where the embedded database lives when no DATABASE_URI is given. */
  dataDir: z.string().min(1),
  /** Where schemas derived from graphs' TypeScript types are cached (default: `schema-cache/` in dataDir). */
  schemaCacheDir: z.string().min(1).optional(),
  databaseUri: z.string().url("must be a postgres:// URI").optional(),
  redisUri: z.string().url("must be a redis:// URI").optional(),
  /** Prefix of every Redis channel, so deployments can share one Redis. */
  redisKeyPrefix: z.string().min(1),
  /** Concurrent runs per worker process; 0 makes an API-only process. */
  jobsPerWorker: intFrom(0, 1000),
  /** Whether this process serves HTTP. `berth worker` sets it to false. */
  serveHttp: z.boolean(),
  runLeaseSeconds: z.coerce.number().positive("must be positive"),
  /** How often an idle worker looks for runs without being woken (a backstop for lost wake-ups). */
  queuePollSeconds: z.coerce.number().positive("must be positive"),
  maxAttempts: intFrom(1, 100),
  runTimeoutSeconds: z.coerce.number().positive("must be positive"),
  shutdownGraceSeconds: z.coerce.number().min(0, "must be 0 or more"),
  maxBodyBytes: intFrom(1024),
  defaultMultitaskStrategy: z.enum(MULTITASK_STRATEGIES),
  /** How long the events of a finished run stay available for late joiners. */
  streamEventTtlSeconds: z.coerce.number().positive("must be positive"),
  /** Bytes of stored stream events per run after which token events are no longer stored (storage/events.ts). */
  streamEventBudgetBytes: intFrom(1024),
  /**
   * How long a run's checkpoint writes may be held back to be committed together, and with the
   * run's end (agent-server/checkpoint-write-behind.ts); 0 commits each at once.
   */
  checkpointWriteBehindMs: intFrom(0, 60_000),
  heartbeatSeconds: z.coerce.number().positive("must be positive"),
  corsAllowOrigins: z.string().optional(),
  /**
   * The standalone Studio page at `/studio` (src/agent-server/studio.ts). Unset: on when the
   * server listens on loopback (a person at this machine), off otherwise.
   */
  studio: z
    .union([z.boolean(), z.enum(["true", "false", "1", "0"])], { error: "must be true or false" })
    .transform((v) => v === true || v === "true" || v === "1")
    .optional(),
  /** Where the Studio's build is (default: dist/studio, written by `npm run build`). */
  studioDir: z.string().min(1).optional(),
  /**
   * Which non-public addresses run webhooks and A2A push notifications may reach: unset/`false`
   * (none), `true` (all), or a comma-separated list of addresses and CIDR ranges.
   */
  allowPrivateWebhooks: z
    .string()
    .optional()
    .superRefine((v, ctx) => {
      try {
        parseOutboundPolicy(v);
      } catch (err) {
        ctx.addIssue({ code: "custom", message: (err as Error).message });
      }
    }),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  /** `berth serve --api-key`: keys (comma-separated) a request must carry one of; platform auth with fixed keys. */
  apiKey: z.string().optional(),
  /** A file of keys, one a line (`#` comments), read at start. */
  apiKeysFile: z.string().optional(),
  /** Platform auth from the control plane (shared/auth/platform-keys.ts): the deployment's tenant… */
  authTenantId: z.string().optional(),
  /** …its key snapshot at deploy time (JSON)… */
  authKeys: z.string().optional(),
  /** …where fresher ones come from, and the deployment's credential for that. */
  authKeysUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  authDeploymentKey: z.string().optional(),
  /** How often the key snapshot is refreshed: the bound on how long a revoked key still opens this server. */
  authRefreshSeconds: z.coerce.number().min(1, "must be at least 1").max(86_400, "must be at most 86400"),
  /** Bearer JWTs of the control plane, verified here (JWKS URL or PEM public key; issuer, audience). */
  authJwtJwksUrl: z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
  authJwtPublicKey: z.string().optional(),
  authJwtIssuer: z.string().optional(),
  authJwtAudience: z.string().optional(),
  authMaxFailures: intFrom(0, 1_000_000).optional(),
  authFailureWindowSeconds: intFrom(1, 86_400).optional(),
});
export type AgentServerSettings = z.infer<typeof agentServerSettingsSchema>;

/** Where each setting comes from in the environment, for error messages and docs. */
const ENV_NAMES: Record<keyof AgentServerSettings, string[]> = {
  configPath: ["BERTH_CONFIG"],
  host: ["HOST"],
  port: ["PORT"],
  dataDir: ["BERTH_DATA_DIR"],
  schemaCacheDir: ["BERTH_SCHEMA_CACHE_DIR"],
  databaseUri: ["DATABASE_URI", "POSTGRES_URI", "POSTGRES_URI_CUSTOM"],
  redisUri: ["REDIS_URI", "REDIS_URI_CUSTOM"],
  redisKeyPrefix: ["REDIS_KEY_PREFIX"],
  jobsPerWorker: ["N_JOBS_PER_WORKER"],
  serveHttp: [],
  runLeaseSeconds: ["BERTH_RUN_LEASE_SECONDS"],
  queuePollSeconds: ["BERTH_QUEUE_POLL_SECONDS"],
  maxAttempts: ["BG_JOB_MAX_RETRIES"],
  runTimeoutSeconds: ["BG_JOB_TIMEOUT_SECS"],
  shutdownGraceSeconds: ["BG_JOB_SHUTDOWN_GRACE_PERIOD_SECS"],
  maxBodyBytes: ["BERTH_MAX_BODY_BYTES"],
  defaultMultitaskStrategy: ["BERTH_DEFAULT_MULTITASK_STRATEGY"],
  streamEventTtlSeconds: ["RESUMABLE_STREAM_TTL_SECONDS"],
  streamEventBudgetBytes: ["BERTH_STREAM_EVENT_BUDGET_BYTES"],
  checkpointWriteBehindMs: ["BERTH_CHECKPOINT_WRITE_BEHIND_MS"],
  heartbeatSeconds: ["BERTH_SSE_HEARTBEAT_SECONDS"],
  corsAllowOrigins: ["CORS_ALLOW_ORIGINS"],
  studio: ["BERTH_STUDIO"],
  studioDir: ["BERTH_STUDIO_DIR"],
  allowPrivateWebhooks: ["BERTH_ALLOW_PRIVATE_WEBHOOKS"],
  logLevel: ["LOG_LEVEL"],
  apiKey: ["BERTH_API_KEY"],
  apiKeysFile: ["BERTH_API_KEYS_FILE"],
  authTenantId: ["BERTH_AUTH_TENANT_ID"],
  authKeys: ["BERTH_AUTH_KEYS"],
  authKeysUrl: ["BERTH_AUTH_KEYS_URL"],
  authDeploymentKey: ["BERTH_AUTH_DEPLOYMENT_KEY"],
  authRefreshSeconds: ["BERTH_AUTH_REFRESH_SECONDS"],
  authJwtJwksUrl: ["BERTH_AUTH_JWT_JWKS_URL"],
  authJwtPublicKey: ["BERTH_AUTH_JWT_PUBLIC_KEY"],
  authJwtIssuer: ["BERTH_AUTH_JWT_ISSUER"],
  authJwtAudience: ["BERTH_AUTH_JWT_AUDIENCE"],
  authMaxFailures: ["BERTH_AUTH_MAX_FAILURES"],
  authFailureWindowSeconds: ["BERTH_AUTH_FAILURE_WINDOW_SECONDS"],
};

/** CLI flags whose name is not the kebab-case of the setting (for error messages). */
const FLAG_NAMES: Record<string, string> = {
  configPath: "--config",
  jobsPerWorker: "--n-jobs-per-worker",
};
export const AGENT_SERVER_DEFAULTS = {
  configPath: "langgraph.json",
  host: "127.0.0.1",
  port: 8123,
  redisKeyPrefix: "berth",
  jobsPerWorker: 10,
  serveHttp: true,
  runLeaseSeconds: 30,
  queuePollSeconds: 10,
  maxAttempts: 3,
  runTimeoutSeconds: 3600,
  shutdownGraceSeconds: 180,
  maxBodyBytes: 10 * 1024 * 1024,
  defaultMultitaskStrategy: "enqueue",
  streamEventTtlSeconds: 3600,
  streamEventBudgetBytes: 16 * 1024 * 1024,
  checkpointWriteBehindMs: 20,
  heartbeatSeconds: 15,
  logLevel: "info",
  authRefreshSeconds: 30,
} satisfies Partial<Record<keyof AgentServerSettings, unknown>>;

/**
 * Merge defaults < environment < flags and validate. `flags` holds only what the user passed.
 * `dataDir` defaults to `.berth/` beside the config file.
 */
export function resolveAgentServerSettings(
  flags: Partial<Record<keyof AgentServerSettings, unknown>>,
  env: NodeJS.ProcessEnv = process.env,
  resolveDataDir: (configPath: string) => string,
): AgentServerSettings {
  return resolveSettings(agentServerSettingsSchema, ENV_NAMES, AGENT_SERVER_DEFAULTS, flags, env, FLAG_NAMES, (merged) => {
    if (merged.dataDir === undefined) merged.dataDir = resolveDataDir(String(merged.configPath));
  });
}

/**
 * The one settings resolver of every component: defaults < environment (first variable set, in
 * the order listed) < flags, validated by `schema`. Errors name where each bad value came from.
 */
export function resolveSettings<S extends z.ZodObject>(
  schema: S,
  envNames: Partial<Record<string, string[]>>,
  defaults: Record<string, unknown>,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  flagNames: Record<string, string> = {},
  fill?: (merged: Record<string, unknown>) => void,
): z.output<S> {
  const merged: Record<string, unknown> = { ...defaults };
  const origin: Record<string, string> = {};
  for (const [key, names] of Object.entries(envNames)) {
    for (const name of names ?? []) {
      const v = env[name];
      if (v !== undefined && v !== "") {
        merged[key] = v;
        origin[key] = `environment variable ${name}`;
        break;
      }
    }
  }
  for (const [key, value] of Object.entries(flags)) {
    if (value !== undefined) {
      merged[key] = value;
      origin[key] = flagNames[key] ?? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    }
  }
  fill?.(merged);
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0]);
      const where = origin[key] ?? `setting ${key}`;
      return `${where}: ${issue.message} (got ${JSON.stringify(merged[key])})`;
    });
    throw new ConfigError(`invalid configuration:\n  ${lines.join("\n  ")}`);
  }
  return parsed.data;
}

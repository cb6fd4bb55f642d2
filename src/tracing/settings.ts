/** Settings of the tracing facility (`berth tracing`, and the control plane that hosts it). */
import { z } from "zod";
import { resolveSettings } from "../shared/config.js";

const MiB = 1024 * 1024;
const int = (min: number) => z.coerce.number({ error: "must be a number" }).int("must be a whole number").min(min, `must be at least ${min}`);

export const AUTH_MODES = ["required", "loopback-open"] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export const tracingSettingsSchema = z.object({
  host: z.string().min(1),
  port: int(0).max(65535, "must be at most 65535"),
  /** Path the API is mounted under, e.g. `/tracing` ("" = the root). */
  prefix: z.string().regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'must be "" or a path like /tracing'),
  dataDir: z.string().min(1),
  databaseUri: z.string().url("must be a postgres:// URI").optional(),
  /**
   * `loopback-open`: requests from this machine need no API key (the embedded dev mode);
   * `required`: every request carries `X-Api-Key`.
   */
  authMode: z.enum(AUTH_MODES).optional(),
  /** Failed authentication attempts per client and window before 429 (0: no limit). */
  authMaxFailures: int(0).optional(),
  authFailureWindowSeconds: int(1).optional(),
  /** An API key accepted for the default tenant (created on start), e.g. from a Kubernetes Secret. */
  apiKey: z.string().min(16, "must be at least 16 characters").optional(),
  /** Largest ingest request body, uncompressed (advertised in `/info`). */
  maxBodyBytes: int(25 * MiB),
  /** Strings longer than this are cut, with a marker saying how long they were. */
  maxStringBytes: int(1024),
  /** Largest file attached to a dataset example (413 above it). */
  maxAttachmentBytes: int(1).optional(),
  /** How long a signed link to an example attachment (`presigned_url`) stays valid. */
  attachmentUrlTtlSeconds: int(1).optional(),
  /** Base64 media longer than this move to attachment storage, leaving a reference. */
  mediaThresholdBytes: int(64),
  /** Ingest requests processed at once; more get 429 so the SDK retries. */
  maxConcurrentIngests: int(1),
  /** A run still pending this long after its start is marked abandoned (status error); 0: never. */
  abandonAfterSeconds: int(0),
  /** How often the abandoned-run sweep looks. */
  abandonSweepSeconds: int(1),
  /**
   * Staged ingest requests older than this that no process has merged are merged by whichever
   * process finds them (their own process died before merging them).
   */
  recoverAfterSeconds: int(0),
  /**
   * Read-your-writes bound: a read waits at most this long for the caller's tenant's accepted but
   * not yet merged ingest requests (a failing database must not hang reads).
   */
  readWaitSeconds: int(0),
  logLevel: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
});
export type TracingSettings = z.output<typeof tracingSettingsSchema>;

const ENV_NAMES: Partial<Record<keyof TracingSettings, string[]>> = {
  host: ["HOST"],
  port: ["PORT"],
  prefix: ["BERTH_TRACING_PREFIX"],
  dataDir: ["BERTH_DATA_DIR"],
  databaseUri: ["DATABASE_URI", "POSTGRES_URI"],
  authMode: ["BERTH_AUTH_MODE"],
  apiKey: ["BERTH_API_KEY"],
  authMaxFailures: ["BERTH_AUTH_MAX_FAILURES"],
  authFailureWindowSeconds: ["BERTH_AUTH_FAILURE_WINDOW_SECONDS"],
  maxBodyBytes: ["BERTH_TRACING_MAX_BODY_BYTES"],
  maxStringBytes: ["BERTH_TRACING_MAX_STRING_BYTES"],
  mediaThresholdBytes: ["BERTH_TRACING_MEDIA_THRESHOLD_BYTES"],
  maxAttachmentBytes: ["BERTH_TRACING_MAX_ATTACHMENT_BYTES"],
  attachmentUrlTtlSeconds: ["BERTH_TRACING_ATTACHMENT_URL_TTL_SECONDS"],
  maxConcurrentIngests: ["BERTH_TRACING_MAX_CONCURRENT_INGESTS"],
  abandonAfterSeconds: ["BERTH_TRACING_ABANDON_AFTER_SECONDS"],
  abandonSweepSeconds: ["BERTH_TRACING_ABANDON_SWEEP_SECONDS"],
  recoverAfterSeconds: ["BERTH_TRACING_RECOVER_AFTER_SECONDS"],
  readWaitSeconds: ["BERTH_TRACING_READ_WAIT_SECONDS"],
  logLevel: ["LOG_LEVEL"],
};

export const TRACING_DEFAULTS = {
  host: "127.0.0.1",
  port: 1984,
  prefix: "",
  dataDir: ".berth/tracing",
  maxBodyBytes: 64 * MiB,
  maxStringBytes: 1 * MiB,
  mediaThresholdBytes: 16 * 1024,
  maxAttachmentBytes: 20 * MiB,
  // long enough for an evaluation over a large dataset to reach its last example's files
  attachmentUrlTtlSeconds: 12 * 3600,
  maxConcurrentIngests: 16,
  abandonAfterSeconds: 24 * 3600,
  abandonSweepSeconds: 60,
  recoverAfterSeconds: 30,
  readWaitSeconds: 10,
  logLevel: "info",
};

export function resolveTracingSettings(flags: Partial<Record<keyof TracingSettings, unknown>>, env: NodeJS.ProcessEnv = process.env): TracingSettings {
  return resolveSettings(tracingSettingsSchema, ENV_NAMES, TRACING_DEFAULTS, flags, env);
}

/** The effective auth mode: open on loopback only with the embedded database and no key configured. */
export function effectiveAuthMode(settings: Pick<TracingSettings, "authMode" | "databaseUri" | "apiKey">): AuthMode {
  return settings.authMode ?? (settings.databaseUri || settings.apiKey ? "required" : "loopback-open");
}

/**
 * The environment of a deployment's processes (install, build, agent server). Built from an
 * allowlist of the control plane's own environment, not all of it: the control plane's database,
 * keys and provider credentials must not leak into user code (a deployment sees what it was
 * given, as on LangSmith), while PATH, HOME, locale, proxies and CA bundles still make installs work.
 */

const INHERITED = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "TERM",
  "HOSTNAME",
  "CI",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  // a control plane run from the sources starts its agent servers from the sources too
  "BERTH_FROM_SOURCE",
]);
const INHERITED_PREFIXES = ["LC_", "XDG_", "COREPACK_"];

/** The part of `env` a deployment inherits. */
export function inheritedEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (v !== undefined && (INHERITED.has(k) || INHERITED_PREFIXES.some((p) => k.startsWith(p)))) out[k] = v;
  }
  return out;
}

export interface DeploymentEnvInput {
  deploymentId: string;
  deploymentName: string;
  secrets: readonly { name: string; value: string }[];
  env: Readonly<Record<string, string>>;
  /** What only the agent server gets, never the install/build commands (its tracing key). */
  agentEnv?: Readonly<Record<string, string>>;
}

/** The variables that make an agent server use Postgres instead of its embedded PGlite (see shared/config.ts). */
const DATABASE_VARS = ["DATABASE_URI", "POSTGRES_URI", "POSTGRES_URI_CUSTOM"];

/**
 * What a deployment's processes get on top of the inherited environment: the control plane's
 * `env` (tracing, DATABASE_URI…) and, for the agent server only (`process: "agent"`), `agentEnv`
 * (its tracing key), then the secrets (a user's explicit value wins, e.g. their own
 * LANGSMITH_API_KEY), then defaults: the tracing project is the deployment's name, and a shared
 * Redis gets a per-deployment channel prefix.
 */
export function deploymentEnv(input: DeploymentEnvInput, process: "build" | "agent" = "agent"): Record<string, string> {
  const env: Record<string, string> = { ...input.env, ...(process === "agent" ? input.agentEnv : {}) };
  for (const s of input.secrets) env[s.name] = s.value;
  // platform auth is the control plane's, not the user's: a secret of the same name does not turn it off
  if (process === "agent") for (const [k, v] of Object.entries(input.agentEnv ?? {})) if (k.startsWith("BERTH_AUTH_")) env[k] = v;
  const tracing = env.LANGSMITH_TRACING ?? env.LANGCHAIN_TRACING_V2 ?? env.LANGSMITH_ENDPOINT;
  if (tracing && !env.LANGSMITH_PROJECT && !env.LANGCHAIN_PROJECT) env.LANGSMITH_PROJECT = input.deploymentName;
  if ((env.REDIS_URI || env.REDIS_URI_CUSTOM) && !env.REDIS_KEY_PREFIX) env.REDIS_KEY_PREFIX = `berth-${input.deploymentId}`;
  return env;
}

/** Whether the deployment's database is a Postgres server (shared by processes) rather than PGlite. */
export function usesDatabaseServer(env: Readonly<Record<string, string | undefined>>): boolean {
  return DATABASE_VARS.some((k) => Boolean(env[k]));
}

/**
 * The inherited part of a deployment's environment, pointed at the deployment's own directory:
 * HOME and the temp dirs are private to it (package managers' caches and tools' scratch files
 * stay there), and with a user of its own the control plane's account names are dropped.
 */
export function sandboxedEnv(inherited: NodeJS.ProcessEnv, dirs: { home: string; tmp: string }, ownUser: boolean): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...inherited, HOME: dirs.home, TMPDIR: dirs.tmp, TMP: dirs.tmp, TEMP: dirs.tmp };
  if (ownUser) for (const k of ["USER", "LOGNAME", "MAIL"]) delete env[k];
  return env;
}

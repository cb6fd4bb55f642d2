/**
 * The control plane on a database: migrations, stores, the router. Hosted by `berth dev` /
 * `berth control-plane` with the tracing facility beside it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type express from "express";
import type pg from "pg";
import { AuthService, authMigrations, jwtVerifier, type AuthMode, type JwtSettings } from "../shared/auth/index.js";
import type { FailureLimits } from "../shared/auth/failures.js";
import { migrateComponents } from "../shared/db/index.js";
import type { Logger } from "../shared/logging.js";
import { createControlPlaneRouter } from "./api/app.js";
import type { ControlPlaneHooks } from "./api/routes.js";
import { generateKey, keyFromConfig, keyToConfig } from "./rules/index.js";
import { DeploymentStore } from "./storage/deployments.js";
import { ListenerStore } from "./storage/listeners.js";
import { IntegrationStore } from "./storage/integrations.js";
import { controlPlaneMigrations } from "./storage/migrations.js";

export interface ControlPlaneOptions {
  authMode: AuthMode;
  embedded: boolean;
  /** Keys for secrets at rest, newest first (BERTH_SECRETS_KEY[, old keys…]). */
  secretsKeys?: string[];
  /** Where the embedded mode keeps the key it generates when none is configured. */
  dataDir: string;
  hooks?: ControlPlaneHooks;
  /** Bearer JWT verification (JWKS URL, public key or secret); off when unset. */
  jwt?: JwtSettings;
  /** Failed authentication attempts per client and window before 429. */
  authFailures?: Partial<FailureLimits>;
  /** What the console's agent-server proxy sends for a loopback-open request (the admin key). */
  agentProxyKey?: string;
}

export interface ControlPlane {
  router: express.Router;
  deployments: DeploymentStore;
  listeners: ListenerStore;
  integrations: IntegrationStore;
  auth: AuthService;
  /** How bearer JWTs are verified (deployments get the public part, to verify them too). */
  jwt?: JwtSettings;
}

/** The configured keys; the embedded mode generates one on first start and keeps it beside its data. */
export function secretsKeys(options: Pick<ControlPlaneOptions, "secretsKeys" | "embedded" | "dataDir">): Buffer[] {
  if (options.secretsKeys?.length) return options.secretsKeys.map(keyFromConfig);
  if (!options.embedded) throw new Error("set BERTH_SECRETS_KEY (32 bytes, base64 or hex): secrets are encrypted at rest");
  const file = path.join(options.dataDir, "secrets.key");
  if (!existsSync(file)) {
    mkdirSync(options.dataDir, { recursive: true });
    writeFileSync(file, keyToConfig(generateKey()) + "\n", { mode: 0o600 });
  }
  try {
    chmodSync(file, 0o600); // an older version may have left it readable
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err; // not ours to change
  }
  return [keyFromConfig(readFileSync(file, "utf8").trim())];
}

export async function openControlPlane(pool: pg.Pool, options: ControlPlaneOptions, logger: Logger): Promise<ControlPlane> {
  await migrateComponents(pool, options.embedded, [
    ["auth", authMigrations],
    ["control-plane", controlPlaneMigrations],
  ]);
  const auth = new AuthService(pool, { failures: options.authFailures });
  await auth.ensureDefaultTenant();
  const keys = secretsKeys(options);
  const deployments = new DeploymentStore(pool, keys);
  const listeners = new ListenerStore(pool);
  const integrations = new IntegrationStore(pool, keys);
  const router = createControlPlaneRouter({
    pool,
    jwt: options.jwt ? await jwtVerifier(options.jwt) : undefined,
    auth,
    authMode: options.authMode,
    logger,
    deployments,
    listeners,
    integrations,
    hooks: options.hooks ?? {},
    agentProxyKey: options.agentProxyKey,
    ping: async () => {
      await pool.query("SELECT 1");
    },
  });
  return { router, deployments, listeners, integrations, auth, jwt: options.jwt };
}

/** The agent server's authentication: which authenticator a process uses, and the middleware. */
import type pg from "pg";
import type { AgentServerSettings } from "../../shared/config.js";
import { failureLimits } from "../../shared/auth/failures.js";
import { isLoopbackListenHost } from "../../shared/local-access.js";
import type { Logger } from "../../shared/logging.js";
import type { ResolvedConfig } from "../config/langgraph-config.js";
import { createCustomAuthenticator } from "./custom.js";
import { PlatformAuthenticator } from "./platform.js";
import { platformAuthConfig } from "./platform-settings.js";
import { NO_AUTH, type RequestAuthenticator } from "./types.js";

export { requireAuth, isPublicPath } from "./middleware.js";
export { authOf, NO_AUTH, type AgentAuthMode, type AuthUser, type RequestAuth, type RequestAuthenticator } from "./types.js";

/**
 * Custom auth (`langgraph.json` `auth.path`) replaces platform auth; platform auth is on when the
 * process was given its tenant's keys (or `--api-key`); otherwise the server is open.
 */
export async function createAuthenticator(settings: AgentServerSettings, config: ResolvedConfig, logger: Logger, db: { pool: pg.Pool; embedded: boolean }): Promise<RequestAuthenticator> {
  if (config.raw.auth?.path) return createCustomAuthenticator(config, logger);
  const platform = platformAuthConfig(settings);
  if (platform) {
    return PlatformAuthenticator.create(platform, { ...db, logger, refresh: settings.serveHttp, failures: failureLimits(settings) });
  }
  if (settings.serveHttp && !isLoopbackListenHost(settings.host)) {
    logger.warn(
      { host: settings.host },
      `!!! NO AUTHENTICATION: this agent server listens on ${settings.host} and anyone who can reach it may use its whole API (threads, runs, store, A2A). Require a key with --api-key / BERTH_API_KEY, or bind 127.0.0.1 !!!`,
    );
  }
  return NO_AUTH;
}

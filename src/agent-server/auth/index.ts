/** The agent server's authentication: which authenticator a process uses, and the middleware. */
import type { AgentServerSettings } from "../../shared/config.js";
import type { Logger } from "../../shared/logging.js";
import type { ResolvedConfig } from "../config/langgraph-config.js";
import { createCustomAuthenticator } from "./custom.js";
import { NO_AUTH, type RequestAuthenticator } from "./types.js";

export { requireAuth, isPublicPath } from "./middleware.js";
export { authOf, NO_AUTH, type AgentAuthMode, type AuthUser, type RequestAuth, type RequestAuthenticator } from "./types.js";

/**
 * Custom auth (`langgraph.json` `auth.path`) replaces platform auth; platform auth is on when the
 * process was given its tenant's keys; otherwise the server is open.
 */
export async function createAuthenticator(_settings: AgentServerSettings, config: ResolvedConfig, logger: Logger): Promise<RequestAuthenticator> {
  if (config.raw.auth?.path) return createCustomAuthenticator(config, logger);
  return NO_AUTH;
}

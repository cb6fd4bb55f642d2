/**
 * Who a request to the agent server comes from, and how the server found out. One authenticator
 * per process, chosen at start (see `index.ts`): none (an open server on loopback), platform
 * (keys of the deployment's tenant, verified locally) or custom (`langgraph.json` `auth.path`).
 * Every route group — the LangGraph API, A2A, MCP — sees the same `RequestAuth`.
 */
import type { Request, Response } from "express";

export type AgentAuthMode = "none" | "platform" | "custom";

/** The user a request acts as: LangGraph's `BaseUser` shape (identity, permissions, anything else the authenticator returned). */
export interface AuthUser {
  identity: string;
  permissions: string[];
  display_name?: string;
  is_authenticated: boolean;
  [key: string]: unknown;
}

export interface RequestAuth {
  mode: AgentAuthMode;
  /** Undefined only in mode "none". */
  user?: AuthUser;
}

export interface RequestAuthenticator {
  readonly mode: AgentAuthMode;
  /** What `/info` and the A2A card say about this server's authentication (never a secret). */
  describe(): Record<string, unknown>;
  /** The request's user; throws an `ApiError` (401/403…) when the request may not proceed. */
  authenticate(req: Request): Promise<AuthUser | undefined>;
  /**
   * Authorise `resource:action` for the user (custom auth's `on` handlers): may mutate `value`,
   * throws 403 (or the handler's HTTPException), returns metadata filters to apply. Absent: allowed.
   */
  authorize?(user: AuthUser, resource: "threads" | "assistants" | "crons" | "store", action: string, value: unknown): Promise<Record<string, unknown> | undefined>;
  close?(): Promise<void>;
}

/** The authentication of a request that went through `requireAuth`. */
export function authOf(res: Response): RequestAuth {
  const auth = res.locals.auth as RequestAuth | undefined;
  if (!auth) throw new Error("route mounted before the agent server's auth middleware");
  return auth;
}

/** No authentication: the server is open (loopback by default, see `berth serve`). */
export const NO_AUTH: RequestAuthenticator = {
  mode: "none",
  describe: () => ({ mode: "none" }),
  authenticate: async () => undefined,
};

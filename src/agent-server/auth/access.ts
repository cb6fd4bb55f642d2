/**
 * Authorisation of one request's operations: runs the project's `on` handlers (custom auth) and
 * checks single records against the filters they return. Searches and counts take the filters
 * into their SQL instead (see filters.ts `authFilterSql`), so totals never count hidden records.
 *
 * A record another user may not see answers exactly like a missing one (404 with the same text),
 * so ids cannot be probed. Without custom auth every check is a no-op costing no query.
 */
import type { Response } from "express";
import { NotFoundError } from "../../shared/errors.js";
import type { AgentServerContext } from "../context.js";
import { matchesAuthFilters, type AuthFilters } from "./filters.js";
import type { AuthResource } from "./handlers.js";
import type { AuthUser, RequestAuth, RequestAuthenticator } from "./types.js";

export interface Authz {
  /** Whether handlers run at all (custom auth with an authenticated user). */
  readonly active: boolean;
  readonly user?: AuthUser;
  /** Run the handler for `resource:action` on `value` (which it may mutate); the filters to apply. */
  check(resource: AuthResource, action: string, value: Record<string, unknown>): Promise<AuthFilters | undefined>;
}

export const OPEN_AUTHZ: Authz = { active: false, check: async () => undefined };

export function authzFor(authenticator: RequestAuthenticator, auth: RequestAuth | undefined): Authz {
  const user = auth?.user;
  if (!user || !authenticator.authorize) return user ? { active: false, user, check: async () => undefined } : OPEN_AUTHZ;
  return {
    active: true,
    user,
    check: (resource, action, value) => authenticator.authorize!(user, resource, action, value),
  };
}

/** The authorisation of the request a route is answering. */
export function authzOf(ctx: AgentServerContext, res: Response): Authz {
  return authzFor(ctx.auth, res.locals.auth as RequestAuth | undefined);
}

/**
 * Authorise an operation on a thread: 404 (as if it did not exist) when the thread's metadata
 * fails the handler's filters. A missing thread is left to the operation to report.
 */
export async function authorizeThread(
  ctx: AgentServerContext,
  authz: Authz,
  threadId: string,
  action: string,
  value: Record<string, unknown> = { thread_id: threadId },
): Promise<void> {
  if (!authz.active) return;
  const filters = await authz.check("threads", action, value);
  if (!filters) return;
  const thread = await ctx.threads.find(threadId);
  if (thread && !matchesAuthFilters(thread.metadata, filters)) throw new NotFoundError(`Thread with ID ${threadId} not found`);
}

/** Authorise an operation on a run, through its thread's metadata (runs have no owner of their own). */
export async function authorizeRun(
  ctx: AgentServerContext,
  authz: Authz,
  threadId: string | null,
  runId: string,
  action: string,
  value: Record<string, unknown> = { thread_id: threadId ?? undefined, run_id: runId },
): Promise<void> {
  if (!authz.active) return;
  const filters = await authz.check("threads", action, value);
  if (!filters) return;
  const run = await ctx.runs.find(runId);
  if (!run) return;
  const thread = await ctx.threads.find(run.thread_id);
  if (!thread || !matchesAuthFilters(thread.metadata, filters)) throw new NotFoundError(`Run ${runId} not found`);
}

/** Authorise an operation on a record with its own metadata (assistants, crons). */
export async function authorizeRecord(
  authz: Authz,
  resource: AuthResource,
  action: string,
  value: Record<string, unknown>,
  load: () => Promise<{ metadata: Record<string, unknown> } | undefined>,
  notFound: () => Error,
): Promise<void> {
  if (!authz.active) return;
  const filters = await authz.check(resource, action, value);
  if (!filters) return;
  const record = await load();
  if (record && !matchesAuthFilters(record.metadata, filters)) throw notFound();
}

/** The `langgraph_auth_*` keys graphs read from `config.configurable` (`ctx.user` of the platform). */
export function authConfigurable(user: AuthUser | undefined): Record<string, unknown> {
  if (!user) return {};
  return { langgraph_auth_user: user, langgraph_auth_user_id: user.identity, langgraph_auth_permissions: user.permissions };
}

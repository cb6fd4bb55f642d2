/**
 * The rules of a LangGraph `Auth` object (`@langchain/langgraph-sdk/auth`), as the LangGraph
 * platform applies them — pure apart from calling the user's handlers:
 * - `authenticate(request)` answers a string (the identity) or an object with a string
 *   `identity`; we normalise both to the `BaseUser` shape.
 * - an `on` handler is chosen for an event `resource:action` by the most specific key registered:
 *   "resource:action", then "resource", then "*:action", then "*".
 * - a handler answering null/undefined/true allows, false forbids (403), an object is a metadata
 *   filter (see filters.ts); anything else is a 500 naming the bug.
 * - an `HTTPException` (duck-typed: a numeric `status` and `headers`) thrown by any handler
 *   becomes that status, its message and headers.
 */
import { ApiError } from "../../shared/errors.js";
import { checkFilters, type AuthFilters } from "./filters.js";
import type { AuthUser } from "./types.js";

export type AuthResource = "threads" | "assistants" | "crons" | "store";

export interface AuthCallbackParameter {
  event: string;
  resource: string;
  action: string;
  value: unknown;
  user: AuthUser;
  permissions: string[];
}

/** What `Auth["~handlerCache"]` holds. */
export interface AuthHandlerCache {
  authenticate?: (request: Request) => unknown;
  callbacks?: Record<string, (p: AuthCallbackParameter) => unknown>;
}

/** The key of the handler that answers `resource:action`, if any. */
export function handlerKeyFor(callbacks: AuthHandlerCache["callbacks"], resource: string, action: string): string | undefined {
  if (!callbacks) return undefined;
  return [`${resource}:${action}`, resource, `*:${action}`, "*"].find((k) => typeof callbacks[k] === "function");
}

function isHttpException(err: unknown): err is { status: number; message?: string; headers?: ConstructorParameters<typeof Headers>[0] } {
  return typeof err === "object" && err !== null && typeof (err as { status?: unknown }).status === "number" && "headers" in err;
}

/** An error a handler threw, as the response the platform gives. Anything else is rethrown (→ 500). */
export function toApiError(err: unknown, fallbackMessage: string): unknown {
  if (!isHttpException(err)) return err;
  const status = Number.isInteger(err.status) && err.status >= 400 && err.status <= 599 ? err.status : 500;
  const headers: Record<string, string> = {};
  try {
    new Headers(err.headers ?? {}).forEach((v, k) => (headers[k] = v));
  } catch {
    // headers a Headers object cannot hold are dropped, never a reason to answer differently
  }
  return new ApiError(status, err.message || fallbackMessage, headers);
}

/** `authenticate`'s answer as the user the rest of the server sees. */
export function normaliseUser(response: unknown): AuthUser {
  if (typeof response === "string" && response !== "") {
    return { identity: response, display_name: response, permissions: [], is_authenticated: true };
  }
  if (typeof response === "object" && response !== null && typeof (response as { identity?: unknown }).identity === "string") {
    const r = response as Record<string, unknown> & { identity: string };
    const permissions = Array.isArray(r.permissions) ? r.permissions.filter((p): p is string => typeof p === "string") : [];
    return {
      ...r,
      identity: r.identity,
      permissions,
      is_authenticated: typeof r.is_authenticated === "boolean" ? r.is_authenticated : true,
      display_name: typeof r.display_name === "string" ? r.display_name : r.identity,
    };
  }
  throw new ApiError(500, "Invalid auth response received. Make sure to either return a `string` or an object with `identity` property.");
}

/**
 * Run the handler for `resource:action` on `value` (which it may mutate: stamping
 * `value.metadata`, rewriting a store `value.namespace`). Returns the filters to apply, if any.
 */
export async function runAuthHandler(
  cache: AuthHandlerCache,
  user: AuthUser,
  resource: AuthResource,
  action: string,
  value: unknown,
): Promise<AuthFilters | undefined> {
  const key = handlerKeyFor(cache.callbacks, resource, action);
  if (!key) return undefined;
  let result: unknown;
  try {
    result = await cache.callbacks![key]!({ event: `${resource}:${action}`, resource, action, value, user, permissions: user.permissions });
  } catch (err) {
    throw toApiError(err, "Forbidden");
  }
  if (result === null || result === undefined || result === true) return undefined;
  if (result === false) throw new ApiError(403, "Forbidden");
  if (typeof result !== "object" || Array.isArray(result)) {
    throw new ApiError(500, `Auth handler returned invalid result. Expected filter object, null, undefined or boolean. Got "${typeof result}" instead.`);
  }
  const filters = result as AuthFilters;
  checkFilters(filters);
  return Object.keys(filters).length ? filters : undefined;
}

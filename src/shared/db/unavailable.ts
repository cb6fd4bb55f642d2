/**
 * Telling "the database is unreachable right now" (restarting, failing over, network down) from
 * other failures: the HTTP layer answers those with 503 and Retry-After instead of a generic 500,
 * so clients know to retry rather than report a bug.
 */

/** Socket-level failures while connecting to or talking with the server. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN"]);

/** SQLSTATEs of a server going away or not accepting connections yet. */
const SERVER_CODES = new Set(["57P01", "57P02", "57P03"]); // admin_shutdown, crash_shutdown, cannot_connect_now

/** node-postgres' own messages for a connection that died or never came up. */
const PG_MESSAGES = [
  /^Connection terminated/,
  /Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed and is not queryable/,
];

/** Pure: is `err` (or its cause) the database being unreachable? */
export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== "object" || depth > 3) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof e.code === "string") {
    if (NETWORK_CODES.has(e.code) || SERVER_CODES.has(e.code) || e.code.startsWith("08")) return true; // 08xxx: connection exception
  }
  if (typeof e.message === "string" && PG_MESSAGES.some((re) => re.test(e.message as string))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}

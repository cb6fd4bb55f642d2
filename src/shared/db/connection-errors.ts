/**
 * Telling "the database went away" (a restart, a failover, a dropped connection) from every other
 * error. Work that failed only because the database was gone has done nothing wrong: it is retried,
 * where a real failure is recorded.
 */

/** SQLSTATEs the server sends when it drops or refuses a connection: class 08, and shutdown / startup. */
const CONNECTION_STATES = /^(08...|57P01|57P02|57P03)$/;
/** What node-postgres says when a connection dies under a query. */
const CLIENT_MESSAGES = [/^Connection terminated/, /^Client has encountered a connection error/, /^Connection ended unexpectedly/, /timeout exceeded when trying to connect/];
/** Socket errors: the server is not there (only proof of an outage when our own database is unreachable too). */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTCONN", "EHOSTUNREACH"]);

function* causes(err: unknown): Generator<{ code?: unknown; message?: unknown }> {
  const seen = new Set<unknown>();
  for (let e = err; e && typeof e === "object" && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    yield e as { code?: unknown; message?: unknown };
  }
}

/** Whether `err` (or an error it wraps) is Postgres or node-postgres reporting a lost connection. */
export function isConnectionLoss(err: unknown): boolean {
  for (const e of causes(err)) {
    if (typeof e.code === "string" && CONNECTION_STATES.test(e.code)) return true;
    if (typeof e.message === "string" && CLIENT_MESSAGES.some((m) => m.test(e.message as string))) return true;
  }
  return false;
}

/**
 * The socket failure in `err` (or an error it wraps), if any: a connection refused, reset… with
 * the port it was trying to reach when node says.
 */
export function socketFailure(err: unknown): { code: string; port?: number } | undefined {
  for (const e of causes(err)) {
    if (typeof e.code !== "string" || !SOCKET_CODES.has(e.code)) continue;
    const port = Number((e as { port?: unknown }).port);
    return Number.isInteger(port) && port > 0 ? { code: e.code, port } : { code: e.code };
  }
  return undefined;
}

/** The port a pg pool connects to, if it says. */
export function poolPort(pool: { options?: { port?: unknown; connectionString?: string } }): number | undefined {
  const o = pool.options;
  if (o?.port !== undefined && Number.isInteger(Number(o.port))) return Number(o.port);
  try {
    const url = o?.connectionString ? new URL(o.connectionString) : undefined;
    return url ? Number(url.port || 5432) : undefined;
  } catch {
    return undefined;
  }
}

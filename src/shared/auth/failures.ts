/**
 * Failed authentication attempts per client, so keys cannot be guessed at line rate: after
 * `maxFailures` failures within `windowSeconds`, a client's requests carrying a key get 429 until
 * its window ends. Memory is bounded: at most `maxClients` clients are tracked (the least recently
 * failing are forgotten first).
 */
import net from "node:net";

export interface FailureLimits {
  /** Failed attempts allowed per client and window; 0 turns the limit off. */
  maxFailures: number;
  windowSeconds: number;
  maxClients: number;
}

export const DEFAULT_FAILURE_LIMITS: FailureLimits = { maxFailures: 20, windowSeconds: 60, maxClients: 10_000 };

/** The limits a component's settings ask for (`BERTH_AUTH_MAX_FAILURES`, `BERTH_AUTH_FAILURE_WINDOW_SECONDS`). */
export function failureLimits(settings: { authMaxFailures?: number; authFailureWindowSeconds?: number }): Partial<FailureLimits> {
  return {
    ...(settings.authMaxFailures !== undefined ? { maxFailures: settings.authMaxFailures } : {}),
    ...(settings.authFailureWindowSeconds !== undefined ? { windowSeconds: settings.authFailureWindowSeconds } : {}),
  };
}

/**
 * The client a failure is charged to: its IPv4 address, or the /64 of an IPv6 address (one host
 * commonly holds a whole /64, so counting single addresses would not limit it).
 */
export function clientOf(remoteAddress: string | undefined): string {
  const addr = (remoteAddress ?? "").replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
  if (net.isIPv6(addr)) {
    const groups = expandIPv6(addr.toLowerCase()).slice(0, 4);
    return `${groups.join(":")}::/64`;
  }
  return addr;
}

/** The addresses a process on this machine connects from. */
export const LOOPBACK_ADDRESSES: ReadonlySet<string> = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/**
 * The client a failed attempt of a request is charged to. Behind a proxy on loopback (the local
 * runtime's deployment proxy) every request comes from 127.0.0.1: the last `X-Forwarded-For` hop,
 * the one the proxy added, names the real client (a local process forging it only charges another name).
 */
export function clientOfRequest(req: { socket: { remoteAddress?: string }; headers: Record<string, string | string[] | undefined> }): string {
  const remote = req.socket.remoteAddress ?? "";
  const xff = req.headers["x-forwarded-for"];
  if (LOOPBACK_ADDRESSES.has(remote) && typeof xff === "string" && xff.trim()) return clientOf(xff.split(",").at(-1)!.trim());
  return clientOf(remote);
}

function expandIPv6(addr: string): string[] {
  const [head, tail = ""] = addr.split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  return [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
}

export class FailureLimiter {
  private readonly clients = new Map<string, { count: number; endsAt: number }>();

  constructor(readonly limits: FailureLimits = DEFAULT_FAILURE_LIMITS) {}

  /** Seconds until `client` may try again (0: it may now). */
  retryAfter(client: string, now = Date.now()): number {
    if (this.limits.maxFailures <= 0) return 0;
    const entry = this.clients.get(client);
    if (!entry || entry.endsAt <= now) return 0;
    return entry.count >= this.limits.maxFailures ? Math.ceil((entry.endsAt - now) / 1000) : 0;
  }

  /** Count a failed attempt of `client`. */
  fail(client: string, now = Date.now()): void {
    if (this.limits.maxFailures <= 0) return;
    let entry = this.clients.get(client);
    if (!entry || entry.endsAt <= now) entry = { count: 0, endsAt: now + this.limits.windowSeconds * 1000 };
    entry.count++;
    // re-inserted last: the map's order is least recently failing first
    this.clients.delete(client);
    this.clients.set(client, entry);
    while (this.clients.size > this.limits.maxClients) this.clients.delete(this.clients.keys().next().value!);
  }

  /** Clients tracked now (for tests and metrics). */
  get size(): number {
    return this.clients.size;
  }
}

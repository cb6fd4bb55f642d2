/**
 * Outbound requests to URLs that callers chose (run webhooks, A2A push notifications). Anyone who
 * can create a run could otherwise make the server POST to its own loopback, the pod network or a
 * cloud metadata endpoint (server-side request forgery). The rule: only globally routable unicast
 * addresses, checked after DNS resolution, and the connection goes to the very address that was
 * checked (a `lookup` hook on the socket, so DNS cannot answer differently the second time).
 * Redirects are not followed: a 3xx answer is the final answer.
 *
 * Operators whose receivers live on a private network allow them by configuration
 * (`BERTH_ALLOW_PRIVATE_WEBHOOKS`: `true`, or a list of addresses and CIDR ranges).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import ipaddr from "ipaddr.js";

export interface OutboundPolicy {
  /** Every address is allowed (private, loopback...): `BERTH_ALLOW_PRIVATE_WEBHOOKS=true`. */
  allowAll: boolean;
  /** Ranges allowed although not public. */
  allowed: [ipaddr.IPv4 | ipaddr.IPv6, number][];
}

export const PUBLIC_ONLY: OutboundPolicy = { allowAll: false, allowed: [] };

/** An outbound URL the policy refuses; never retried. */
export class OutboundRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefused";
  }
}

/**
 * The policy from `BERTH_ALLOW_PRIVATE_WEBHOOKS`: unset or `false` (public addresses only),
 * `true` (everything), or a comma-separated list of addresses and CIDR ranges (`10.0.0.0/8,::1`).
 * Throws on an entry that is neither.
 */
export function parseOutboundPolicy(raw: string | undefined): OutboundPolicy {
  const value = raw?.trim().toLowerCase() ?? "";
  if (value === "" || value === "false") return PUBLIC_ONLY;
  if (value === "true") return { allowAll: true, allowed: [] };
  const allowed = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry): [ipaddr.IPv4 | ipaddr.IPv6, number] => {
      try {
        if (entry.includes("/")) return ipaddr.parseCIDR(entry);
        const addr = ipaddr.parse(entry);
        return [addr, addr.kind() === "ipv4" ? 32 : 128];
      } catch {
        throw new Error(`"${entry}" is not an IP address or CIDR range (or use true / false)`);
      }
    });
  return { allowAll: false, allowed };
}

/** The IPv4 address an IPv6 address stands for (IPv4-mapped, NAT64, SIIT), if any. */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = addr.range();
  if (range === "ipv4Mapped") return addr.toIPv4Address();
  if (range === "rfc6052" || range === "rfc6145") {
    const bytes = addr.toByteArray().slice(-4);
    return new ipaddr.IPv4(bytes);
  }
  return undefined;
}

/** Why the policy refuses `address` (an IP literal), or undefined when it may be contacted. */
export function addressProblem(address: string, policy: OutboundPolicy): string | undefined {
  if (policy.allowAll) return undefined;
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return `${address} is not an IP address`;
  }
  for (const [range, bits] of policy.allowed) {
    if (parsed.kind() === range.kind() && (parsed as ipaddr.IPv4).match(range as ipaddr.IPv4, bits)) return undefined;
  }
  const v4 = parsed.kind() === "ipv6" ? embeddedIPv4(parsed as ipaddr.IPv6) : undefined;
  if (v4) return addressProblem(v4.toString(), policy);
  const kind = parsed.range();
  if (kind === "unicast") return undefined;
  return `${address} is a ${kind} address; only public addresses are allowed (an operator can allow others with BERTH_ALLOW_PRIVATE_WEBHOOKS)`;
}

/** The host of a URL as `net` wants it (IPv6 literals without brackets). */
function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused(`${JSON.stringify(raw)} is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new OutboundRefused(`${url.protocol} URLs are not allowed: use http or https`);
  if (url.username || url.password) throw new OutboundRefused("URLs with credentials are not allowed: send a token instead");
  return url;
}

/**
 * Every address `hostname` resolves to, or an OutboundRefused naming the first one the policy
 * refuses. All must be allowed: a name resolving to one public and one private address is refused.
 */
async function resolveAllowed(hostname: string, policy: OutboundPolicy): Promise<dns.LookupAddress[]> {
  if (net.isIP(hostname)) {
    const problem = addressProblem(hostname, policy);
    if (problem) throw new OutboundRefused(problem);
    return [{ address: hostname, family: net.isIP(hostname) }];
  }
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  } catch (err) {
    throw Object.assign(new Error(`cannot resolve ${hostname}: ${(err as Error).message}`), { code: (err as NodeJS.ErrnoException).code });
  }
  for (const { address } of addresses) {
    const problem = addressProblem(address, policy);
    if (problem) throw new OutboundRefused(`${hostname} resolves to ${problem}`);
  }
  return addresses;
}

/**
 * Why `raw` may not be a notification target, or undefined when it may. Resolves DNS: a name that
 * does not resolve (yet) is accepted here and checked again on delivery.
 */
export async function outboundUrlProblem(raw: string, policy: OutboundPolicy): Promise<string | undefined> {
  try {
    await resolveAllowed(hostOf(parseTarget(raw)), policy);
    return undefined;
  } catch (err) {
    return err instanceof OutboundRefused ? err.message : undefined;
  }
}

/**
 * POST `body` to `raw` when the policy allows its resolved address, connecting to exactly that
 * address. Resolves with the status and never follows redirects. Throws OutboundRefused (final)
 * or a network error (worth a retry).
 */
export async function postOutbound(
  raw: string,
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  timeoutMs: number,
): Promise<{ status: number }> {
  const url = parseTarget(raw);
  const hostname = hostOf(url);
  const addresses = await resolveAllowed(hostname, policy);
  // The socket connects through this lookup: it hands back the addresses checked above, so a DNS
  // answer that changes between the check and the connection cannot redirect it.
  const lookup = ((_host: string, options: dns.LookupOptions, cb: (...args: unknown[]) => void) => {
    if (options.all) cb(null, addresses);
    else cb(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as net.LookupFunction;
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        lookup,
        // no pooled socket may carry this request to an address resolved for another one
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
        ...(net.isIP(hostname) ? {} : { servername: hostname }),
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

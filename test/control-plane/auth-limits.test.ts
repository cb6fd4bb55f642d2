/**
 * Key guessing: a client that keeps presenting bad keys is answered 429 (with Retry-After) for the
 * rest of its window, other clients are not, and remembering bad keys takes bounded memory.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientOf, FailureLimiter } from "../../src/shared/auth/failures.js";
import { CP_KEY, startControlPlaneTestServer, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { startTracingTestServer, type TracingTestServer } from "../helpers/tracing.js";

/** GET `url` with `key`, from the local address `from` (127.0.0.0/8 is all this machine's). */
function getFrom(url: string, key: string, from = "127.0.0.1"): Promise<{ status: number; retryAfter?: string; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers: { "x-api-key": key }, localAddress: from, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers["retry-after"] as string | undefined, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("failed authentication attempts", () => {
  let cp: ControlPlaneTestServer;
  let tracing: TracingTestServer;
  beforeAll(async () => {
    [cp, tracing] = await Promise.all([
      startControlPlaneTestServer("pglite", { authFailures: { maxFailures: 5, windowSeconds: 600 } }),
      startTracingTestServer("pglite", { apiKey: "tracing-test-key-0123456789", authMaxFailures: 3, authFailureWindowSeconds: 600 }),
    ]);
  });
  afterAll(async () => {
    await cp?.close();
    await tracing?.close();
  });

  it("the attempt after the limit gets 429 with Retry-After, even with a good key; another client still gets in", async () => {
    const url = `${cp.url}/v2/deployments`;
    for (let i = 0; i < 5; i++) expect((await getFrom(url, `guess-${i}`, "127.0.0.3")).status).toBe(401);
    const blocked = await getFrom(url, "guess-5", "127.0.0.3");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    expect(blocked.body.detail).toMatch(/too many failed/);
    expect((await getFrom(url, CP_KEY, "127.0.0.3")).status).toBe(429);
    const other = await getFrom(url, CP_KEY, "127.0.0.4");
    expect(other.status).toBe(200);
    expect(other.body).toHaveProperty("resources");
  });

  it("the tracing API limits its own failures, from its settings", async () => {
    const url = `${tracing.url}/projects`;
    for (let i = 0; i < 3; i++) expect((await getFrom(url, `guess-${i}`, "127.0.0.5")).status).toBe(401);
    expect((await getFrom(url, "guess-3", "127.0.0.5")).status).toBe(429);
    expect((await getFrom(url, tracing.apiKey!, "127.0.0.6")).status).toBe(200);
  });

  it("remembering distinct bad keys takes bounded memory", async () => {
    const auth = cp.cp.auth;
    for (let i = 0; i < 12_000; i++) await auth.authenticate(`bad-key-${i}`, undefined).catch(() => undefined);
    expect(auth.cacheSize).toBeLessThanOrEqual(10_000);
    // the key in use is still known
    await expect(auth.authenticate(CP_KEY, undefined)).resolves.toMatchObject({ tenantIds: expect.any(Array) });
  }, 300_000);

  it("the failure record keeps at most its configured number of clients; IPv6 clients count per /64", () => {
    const limiter = new FailureLimiter({ maxFailures: 1, windowSeconds: 60, maxClients: 100 });
    for (let i = 0; i < 5000; i++) limiter.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
    expect(clientOf("2001:db8:1:2:aaaa::1")).toBe(clientOf("2001:db8:1:2:bbbb::2"));
    expect(clientOf("2001:db8:1:3::1")).not.toBe(clientOf("2001:db8:1:2::1"));
    expect(clientOf("::ffff:127.0.0.1")).toBe("127.0.0.1");
  });
});

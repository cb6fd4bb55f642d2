/** Bearer JWTs on the control plane: signed by a key we configure, tenants from claims, scopes. */
import { exportSPKI, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/index.js";
import { startControlPlaneTestServer, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { describeBackends } from "../helpers/server.js";

describeBackends("control plane bearer JWTs", (backend) => {
  let s: ControlPlaneTestServer;
  let sign: (claims: Record<string, unknown>, opts?: { issuer?: string; expired?: boolean }) => Promise<string>;
  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair("RS256");
    s = await startControlPlaneTestServer(backend, { jwt: { publicKey: await exportSPKI(publicKey), issuer: "https://idp.example.com", audience: "berth" } });
    sign = (claims, opts = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256" })
        .setIssuer(opts.issuer ?? "https://idp.example.com")
        .setAudience("berth")
        .setIssuedAt()
        .setExpirationTime(opts.expired ? Math.floor(Date.now() / 1000) - 60 : "5m")
        .sign(privateKey);
  });
  afterAll(() => s?.close());
  const call = (token: string, method = "GET", body?: unknown) =>
    fetch(`${s.url}/v2/listeners`, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: body ? JSON.stringify(body) : undefined });

  it("accepts a valid token for its tenant, and refuses bad ones with 401", async () => {
    expect((await call(await sign({ tenant_id: DEFAULT_TENANT_ID }))).status).toBe(200);
    expect((await call(await sign({ tenant_id: DEFAULT_TENANT_ID }, { issuer: "https://evil.example.com" }))).status).toBe(401);
    expect((await call(await sign({ tenant_id: DEFAULT_TENANT_ID }, { expired: true }))).status).toBe(401);
    const token = await sign({ tenant_id: DEFAULT_TENANT_ID });
    expect((await call(token.slice(0, -4) + "AAAA")).status).toBe(401);
  });

  it("applies scopes: read may GET but not POST (403); write may both", async () => {
    const read = await sign({ tenant_id: DEFAULT_TENANT_ID, scope: "read" });
    expect((await call(read)).status).toBe(200);
    expect((await call(read, "POST", { compute_type: "local", compute_id: `jwt-${backend}` })).status).toBe(403);
    const write = await sign({ tenant_ids: [DEFAULT_TENANT_ID], scope: "read write" });
    expect((await call(write, "POST", { compute_type: "local", compute_id: `jwt-${backend}` })).status).toBe(201);
  });

  it("needs a tenant claim", async () => {
    expect((await call(await sign({ sub: "someone" }))).status).toBe(403);
  });
});

describe("JWT key types", () => {
  it("takes the algorithm from the key itself, for every key type, many times over", async () => {
    const { algorithmOf } = await import("../../src/shared/auth/jwt.js");
    // a key's base64 text can contain "EC" by chance: guessing from the text failed now and then
    for (let i = 0; i < 20; i++) {
      const rsa = await generateKeyPair("RS256", { extractable: true });
      expect(algorithmOf(await exportSPKI(rsa.publicKey))).toBe("RS256");
    }
    for (const alg of ["ES256", "ES384", "EdDSA"] as const) {
      const k = await generateKeyPair(alg, { extractable: true });
      expect(algorithmOf(await exportSPKI(k.publicKey))).toBe(alg);
    }
    expect(() => algorithmOf("not a key")).toThrow(/not a PEM public key/);
  });
});

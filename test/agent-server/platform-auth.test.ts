/**
 * Platform auth of an agent server as the control plane sets it up for a deployment: a real control
 * plane (its API keys, its snapshot endpoint), an agent server given the deployment's environment,
 * and the real clients. Every route group refuses a request without a key of the deployment's
 * tenant and serves one with it; other tenants' keys, a deployment's scoped keys and guesses are
 * refused; a revoked key stops working once the server has refreshed; the control plane going
 * away (even across an agent-server restart) changes nothing for the keys the server knows.
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { Writable } from "node:stream";
import { Client } from "@langchain/langgraph-sdk";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { SignJWT, importPKCS8 } from "jose";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_TENANT_ID, platformKeysPath } from "../../src/shared/auth/index.js";
import { startAgentServer } from "../../src/agent-server/server.js";
import { CP_KEY, startControlPlaneTestServer, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { createTestDatabase, eventually, startTestServer, testSettings, type TestDatabase, type TestServer } from "../helpers/server.js";

const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
const ISSUER = "https://idp.example.test";

async function token(claims: Record<string, unknown>, sub = "user-7"): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "RS256" }).setIssuer(ISSUER).setSubject(sub).setIssuedAt().setExpirationTime("5m").sign(await importPKCS8(privateKey, "RS256"));
}

const post = (url: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("agent server platform auth (deployment of the control plane)", () => {
  let cp: ControlPlaneTestServer;
  let agentDb: TestDatabase;
  let agent: TestServer;
  let deploymentId: string;
  let otherTenantKey: string;
  let tracingKey: string;
  let deploymentKey: string;
  let settings: Record<string, unknown>;
  const A = DEFAULT_TENANT_ID;

  const keyed = (key: string) => new Client({ apiUrl: agent.url, apiKey: key, callerOptions: { maxRetries: 0 } });
  const status = async (key: string | undefined, path = "/threads/search", via: "x-api-key" | "bearer" = "x-api-key") =>
    (await post(agent.url, path, {}, key === undefined ? {} : via === "x-api-key" ? { "x-api-key": key } : { authorization: `Bearer ${key}` })).status;

  beforeAll(async () => {
    cp = await startControlPlaneTestServer("pglite");
    const listener = await cp.api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: `c-${randomUUID().slice(0, 8)}`, compute_config: { k8s_namespaces: ["agents"] } });
    const created = await cp.api("POST", "/v2/deployments", {
      name: `auth-${randomUUID().slice(0, 8)}`,
      source: "external_container",
      source_config: { listener_id: listener.body.id, listener_config: { k8s_namespace: "agents" } },
      source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" },
      secrets: [],
    });
    expect(created.status).toBe(201);
    deploymentId = created.body.id;
    const d = { id: deploymentId, name: created.body.name as string };
    const other = await cp.cp.auth.addTenant(`other-${randomUUID().slice(0, 8)}`);
    otherTenantKey = (await cp.cp.auth.createKey([other!.id], "other")).key;
    tracingKey = (await cp.cp.auth.createDeploymentKey(A, d)).key;
    deploymentKey = (await cp.cp.auth.createDeploymentAuthKey(A, d)).key;
    // what the listener puts in the deployment's environment
    settings = {
      authTenantId: A,
      authKeys: JSON.stringify(await cp.cp.auth.platformKeySnapshot(A)),
      authKeysUrl: `${cp.url}${platformKeysPath(deploymentId)}`,
      authDeploymentKey: deploymentKey,
      authRefreshSeconds: 1,
      authJwtPublicKey: publicKey,
      authJwtIssuer: ISSUER,
      // this suite guesses on purpose; the limit has a test of its own below
      authMaxFailures: 0,
    };
    agentDb = await createTestDatabase("pglite");
    agent = await startTestServer("pglite", settings, agentDb);
  });
  afterAll(async () => {
    await agent?.close();
    await cp?.close().catch(() => undefined);
  });

  it("refuses every route group without a key (401, detail, WWW-Authenticate) and stores nothing", async () => {
    const routes: [string, string, unknown][] = [
      ["POST", "/assistants/search", {}],
      ["POST", "/threads", {}],
      ["POST", "/threads/search", {}],
      ["POST", "/runs/wait", { assistant_id: "counter", input: {} }],
      ["POST", "/runs/crons/search", {}],
      ["PUT", "/store/items", { namespace: ["n"], key: "k", value: { v: 1 } }],
      ["POST", "/store/items/search", {}],
      ["GET", "/threads/00000000-0000-4000-8000-000000000009", undefined],
      ["POST", "/a2a/chat", { jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { role: "user", messageId: "m1", kind: "message", parts: [{ kind: "text", text: "hi" }] } } }],
      ["POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "counter", arguments: {} } }],
    ];
    for (const [method, path, body] of routes) {
      const attempts: Record<string, string>[] = [{}, { "x-api-key": "berth_not-a-key-of-anyone-0000" }, { authorization: "Bearer berth_not-a-key-0000000000" }];
      for (const headers of attempts) {
        const res = await fetch(`${agent.url}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
        expect(res.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/X-Api-Key/);
        expect(typeof (await res.json() as any).detail).toBe("string");
      }
    }
    // nothing was created by the refused requests
    const client = keyed(CP_KEY);
    expect(await client.threads.search({ limit: 100 })).toEqual([]);
    expect(await client.store.searchItems(["n"])).toEqual({ items: [] });
  });

  it("serves every route group with a key of the tenant (X-Api-Key or Bearer)", async () => {
    const client = keyed(CP_KEY);
    expect((await client.assistants.search({ graphId: "counter" })).length).toBeGreaterThan(0);
    const thread = await client.threads.create({ metadata: { owner: "a" } });
    const out = await client.runs.wait(thread.thread_id, "counter", { input: {} });
    expect(out).toBeTruthy();
    expect(await client.crons.search({})).toEqual([]);
    await client.store.putItem(["n"], "k", { v: 1 });
    expect((await client.store.getItem(["n"], "k"))?.value).toEqual({ v: 1 });
    expect(await status(CP_KEY, "/threads/search", "bearer")).toBe(200);
    const a2a = await post(agent.url, "/a2a/chat", { jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: randomUUID() } }, { "x-api-key": CP_KEY });
    expect(a2a.status).toBe(200);
    expect((await a2a.json() as any).jsonrpc).toBe("2.0");
    // MCP through the official client, the key in its transport's headers
    const mcp = new McpClient({ name: "platform-auth-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${agent.url}/mcp`), { requestInit: { headers: { "x-api-key": CP_KEY } } }));
    try {
      expect((await mcp.listTools()).tools.map((t) => t.name)).toContain("counter");
    } finally {
      await mcp.close();
    }
  });

  it("refuses another tenant's key, the deployment's tracing key and its own platform-auth credential", async () => {
    for (const key of [otherTenantKey, tracingKey, deploymentKey]) {
      expect(await status(key)).toBe(401);
      expect(await status(key, "/threads/search", "bearer")).toBe(401);
    }
    // the snapshot endpoint is only for the deployment's credential: a tenant key may not read it
    expect((await fetch(`${cp.url}${platformKeysPath(deploymentId)}`, { headers: { "x-api-key": CP_KEY } })).status).toBe(403);
    expect((await fetch(`${cp.url}${platformKeysPath(deploymentId)}`, { headers: { "x-api-key": tracingKey } })).status).toBe(403);
    // and the credential opens nothing else of the control plane
    expect((await fetch(`${cp.url}/v2/deployments`, { headers: { "x-api-key": deploymentKey } })).status).toBe(403);
    expect((await fetch(`${cp.url}/v2/api-keys`, { headers: { "x-api-key": deploymentKey } })).status).toBe(403);
    const snap: any = await (await fetch(`${cp.url}${platformKeysPath(deploymentId)}`, { headers: { "x-api-key": deploymentKey } })).json();
    expect(snap.tenant_id).toBe(A);
    expect(JSON.stringify(snap)).not.toContain(CP_KEY);
  });

  it("verifies the control plane's JWTs locally: tenant and scope", async () => {
    expect(await status(await token({ tenant_id: A }), "/threads/search", "bearer")).toBe(200);
    expect(await status(await token({ tenant_ids: [randomUUID()] }), "/threads/search", "bearer")).toBe(403);
    expect(await status(await token({ tenant_id: A, scope: "read" }), "/threads/search", "bearer")).toBe(403);
    const res = await fetch(`${agent.url}/assistants/search`, { method: "POST", headers: { authorization: `Bearer ${await token({ tenant_id: A }, "alice")}`, "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(200);
    const forged = await new SignJWT({ tenant_id: A }).setProtectedHeader({ alg: "HS256" }).setIssuer(ISSUER).setExpirationTime("5m").sign(new TextEncoder().encode("guess"));
    expect(await status(forged, "/threads/search", "bearer")).toBe(401);
  });

  it("keeps /ok, /info and agent cards open; /info says platform auth, never a secret", async () => {
    expect((await fetch(`${agent.url}/ok`)).status).toBe(200);
    expect((await fetch(`${agent.url}/a2a/chat/.well-known/agent-card.json`)).status).toBe(200);
    const info: any = await (await fetch(`${agent.url}/info`)).json();
    expect(info.auth).toMatchObject({ mode: "platform", tenant_id: A, refresh: { every_seconds: 1 }, jwt: true, keys: { count: expect.any(Number), age_seconds: expect.any(Number) } });
    const text = JSON.stringify(info);
    for (const secret of [deploymentKey, CP_KEY]) expect(text).not.toContain(secret);
  });

  it("still applies the Host and Origin rules of a loopback server to keyed requests", async () => {
    const http = await import("node:http");
    const status421 = await new Promise<number>((resolve, reject) => {
      const u = new URL(`${agent.url}/threads/search`);
      const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { host: "evil.example", "x-api-key": CP_KEY, "content-type": "application/json" } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end("{}");
    });
    expect(status421).toBe(421);
    expect((await post(agent.url, "/threads/search", {}, { "x-api-key": CP_KEY, origin: "https://evil.example" })).status).toBe(403);
  });

  it("takes a new key after a refresh, and refuses a revoked one after the next", async () => {
    const created = await cp.api("POST", "/v2/api-keys", { name: "late" });
    const late = created.body.key as string;
    await eventually(async () => (await status(late)) === 200);
    const thread = await keyed(late).threads.create();
    expect(thread.thread_id).toBeTruthy();
    expect((await cp.api("DELETE", `/v2/api-keys/${created.body.id}`)).status).toBe(204);
    await eventually(async () => (await status(late)) === 401);
    expect(await status(CP_KEY)).toBe(200);
  });

  it("keeps serving the keys it knows while the control plane is down, across a restart, without bringing back a revoked key", async () => {
    // a key that is in the environment's snapshot, revoked before the control plane goes down
    const created = await cp.api("POST", "/v2/api-keys", { name: "doomed" });
    const doomed = created.body.key as string;
    const staleEnv = { ...settings, authKeys: JSON.stringify(await cp.cp.auth.platformKeySnapshot(A)) };
    await eventually(async () => (await status(doomed)) === 200);
    await cp.api("DELETE", `/v2/api-keys/${created.body.id}`);
    await eventually(async () => (await status(doomed)) === 401);
    await cp.close();
    await eventually(async () => (await (await fetch(`${agent.url}/info`)).json() as any).auth.refresh.failing === true);
    expect(await status(CP_KEY)).toBe(200);
    expect(await status(doomed)).toBe(401);

    await agent.close({ keepDatabase: true });
    agent = await startTestServer("pglite", staleEnv, agentDb);
    const client = keyed(CP_KEY);
    expect((await client.threads.search({ limit: 100 })).length).toBeGreaterThan(0);
    expect(await status(doomed)).toBe(401);
    expect(await status(undefined)).toBe(401);
    expect((await (await fetch(`${agent.url}/info`)).json() as any).auth.keys.source).toBe("database");
  });
});

describe("berth serve with keys given by hand", () => {
  let server: TestServer;
  const K1 = "serve-key-one-0123456789";
  const K2 = "serve-key-two-0123456789";
  beforeAll(async () => {
    server = await startTestServer("pglite", { apiKey: `${K1}, ${K2}`, authMaxFailures: 3 });
  });
  afterAll(() => server?.close());

  it("requires one of the keys; counts failures per client, also behind a loopback proxy", async () => {
    const s = (headers: Record<string, string>) => post(server.url, "/threads/search", {}, headers).then((r) => r.status);
    expect(await s({})).toBe(401);
    expect(await s({ "x-api-key": K1 })).toBe(200);
    expect(await s({ authorization: `Bearer ${K2}` })).toBe(200);
    const info: any = await (await fetch(`${server.url}/info`)).json();
    expect(info.auth).toEqual({ mode: "platform", static_keys: 2 });
    // three guesses from one client (as the local proxy forwards it) lock that client out, not another
    for (let i = 0; i < 3; i++) expect(await s({ "x-api-key": `guess-${i}-000000000000000`, "x-forwarded-for": "203.0.113.7" })).toBe(401);
    expect(await s({ "x-api-key": K1, "x-forwarded-for": "203.0.113.7" })).toBe(429);
    expect(await s({ "x-api-key": K1, "x-forwarded-for": "203.0.113.8" })).toBe(200);
  });

  it("warns loudly when it listens beyond loopback without a key, and not with one", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk, _e, cb) => (lines.push(String(chunk)), cb()) });
    const db = await createTestDatabase("pglite");
    const open = await startAgentServer(testSettings(db, { host: "0.0.0.0", logLevel: "warn", jobsPerWorker: 0 }), pino({ level: "warn" }, sink));
    await open.close(0);
    expect(lines.join("")).toMatch(/NO AUTHENTICATION/);
    lines.length = 0;
    const keyed = await startAgentServer(testSettings(db, { host: "0.0.0.0", logLevel: "warn", jobsPerWorker: 0, apiKey: K1 }), pino({ level: "warn" }, sink));
    const res = await fetch(`http://127.0.0.1:${keyed.port}/threads/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    await keyed.close(0);
    await db.drop();
    expect(res.status).toBe(401);
    expect(lines.join("")).not.toMatch(/NO AUTHENTICATION/);
  });
});

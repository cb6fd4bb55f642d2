/**
 * `berth dev` lets requests from this machine in without a key; a browser on this machine is on
 * loopback too. DNS rebinding (a foreign name in Host), cross-site pages (a foreign Origin), plain
 * text bodies and forwarded requests must not get that keyless access; the console (same origin)
 * and its Vite dev server (another local port) keep it. The same holds for a `berth serve` agent
 * server on loopback, which has no keys at all.
 */
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { localRequestProblem } from "../../src/shared/local-access.js";
import { silentLogger } from "../../src/shared/logging.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

/** A request with exactly these headers (fetch would not let a test set Host). */
function raw(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { ...headers, ...(body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const JSON_TYPE = { "content-type": "application/json" };

describe("which Host and Origin name this machine", () => {
  it("accepts local names and addresses; refuses look-alikes", () => {
    for (const host of ["localhost", "localhost:8080", "127.0.0.1:8080", "127.0.0.2", "[::1]:8080", "app.localhost:5173", "LOCALHOST.", undefined]) {
      expect(localRequestProblem({ host }), String(host)).toBeUndefined();
    }
    for (const host of ["rebind.attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io", "127.0.0.1@evil.example", "10.0.0.5:8080", "", "[::2]"]) {
      expect(localRequestProblem({ host })?.status, host).toBe(421);
    }
    expect(localRequestProblem({ host: "10.0.0.5:8080" }, { localAddress: "10.0.0.5" })).toBeUndefined();
    for (const origin of ["http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:8080", "https://berth.localhost"]) {
      expect(localRequestProblem({ host: "127.0.0.1:8080", origin }), origin).toBeUndefined();
    }
    for (const origin of ["http://evil.example", "null", "http://localhost.evil.example", "file://"]) {
      expect(localRequestProblem({ host: "127.0.0.1:8080", origin })?.status, origin).toBe(403);
    }
    expect(localRequestProblem({ host: "127.0.0.1:8080", origin: "https://studio.example" }, { allowedOrigins: (o) => o === "https://studio.example" })).toBeUndefined();
  });
});

describe("remembered host names (parsed once per distinct Host or Origin)", () => {
  it("answer every value as on first sight: interleaved, repeated and past the bound", () => {
    const local = ["localhost:8123", "127.0.0.1:8123", "[::1]:8123"];
    const foreign = ["rebind.attacker.example:8123", "127.0.0.1.nip.io", "127.0.0.1:99999", "LOCALHOST.evil.example:8123"];
    const check = () => {
      for (const host of local) expect(localRequestProblem({ host }), host).toBeUndefined();
      for (const host of foreign) expect(localRequestProblem({ host })?.status, host).toBe(421);
      // the same text as Host and as Origin (with its scheme) is judged by each rule
      expect(localRequestProblem({ host: "127.0.0.1:8123", origin: "http://localhost:8123" })).toBeUndefined();
      expect(localRequestProblem({ host: "127.0.0.1:8123", origin: "http://rebind.attacker.example:8123" })?.status).toBe(403);
    };
    check();
    check();
    // a client sending ever new values must not grow the memory nor change the answers
    for (let i = 0; i < 1000; i++) expect(localRequestProblem({ host: `h${i}.attacker.example` })?.status).toBe(421);
    check();
    // an address is local only where the server answers on it: the remembered name must not carry that over
    expect(localRequestProblem({ host: "10.0.0.5:8123" }, { localAddress: "10.0.0.5" })).toBeUndefined();
    expect(localRequestProblem({ host: "10.0.0.5:8123" })?.status).toBe(421);
  });
});

describe("berth dev: keyless access from this machine", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  let host: string;
  const keyNames = async (): Promise<string[]> => {
    const res = await fetch(`${dev.url}/v2/api-keys`, { headers: { "x-api-key": dev.adminKey } });
    return ((await res.json()) as { resources: { name: string }[] }).resources.map((k) => k.name);
  };
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "berth-local-access-"));
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: path.join(dir, ".berth"), logLevel: "silent", consoleDir: dir }, {}), silentLogger);
    host = new URL(dev.url).host;
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a rebound host name gets 421 and creates nothing", async () => {
    const res = await raw(`${dev.url}/v2/api-keys`, "POST", { ...JSON_TYPE, host: "rebind.attacker.example", origin: "http://rebind.attacker.example" }, JSON.stringify({ name: "rebound" }));
    expect(res.status).toBe(421);
    expect(res.body.detail).toMatch(/this machine/);
    const noOrigin = await raw(`${dev.url}/v2/api-keys`, "POST", { ...JSON_TYPE, host: `rebind.attacker.example:${new URL(dev.url).port}` }, JSON.stringify({ name: "rebound2" }));
    expect(noOrigin.status).toBe(421);
    const read = await raw(`${dev.url}/v2/deployments`, "GET", { host: "rebind.attacker.example" });
    expect(read.status).toBe(421);
    expect(await keyNames()).not.toContain("rebound");
    expect(await keyNames()).not.toContain("rebound2");
  });

  it("a cross-site page gets 403 and creates nothing; so does the tracing API", async () => {
    for (const origin of ["http://evil.example", "null", "https://127.0.0.1.evil.example"]) {
      const res = await raw(`${dev.url}/v2/api-keys`, "POST", { ...JSON_TYPE, host, origin }, JSON.stringify({ name: "csrf" }));
      expect(res.status, origin).toBe(403);
      expect(typeof res.body.detail).toBe("string");
    }
    expect((await raw(`${dev.url}/tracing/projects`, "POST", { ...JSON_TYPE, host, origin: "http://evil.example" }, JSON.stringify({ name: "csrf" }))).status).toBe(403);
    expect((await raw(`${dev.url}/tracing/projects`, "GET", { host: "rebind.attacker.example" })).status).toBe(421);
    expect(await keyNames()).not.toContain("csrf");
  });

  it("a plain-text body (what any page may POST without asking) gets 415 and creates nothing", async () => {
    const res = await raw(`${dev.url}/v2/api-keys`, "POST", { host, "content-type": "text/plain" }, JSON.stringify({ name: "plain" }));
    expect(res.status).toBe(415);
    expect(res.body.detail).toMatch(/application\/json/);
    expect(await keyNames()).not.toContain("plain");
    const run = { id: "6a1f0d43-8c38-4f5e-9d7b-0d3c3d6f7a11", trace_id: "6a1f0d43-8c38-4f5e-9d7b-0d3c3d6f7a11", dotted_order: "20260101T000000000000Z6a1f0d43-8c38-4f5e-9d7b-0d3c3d6f7a11", name: "plain", run_type: "chain", start_time: "2026-01-01T00:00:00Z", session_name: "plain-text" };
    expect((await raw(`${dev.url}/tracing/runs/batch`, "POST", { host, "content-type": "text/plain" }, JSON.stringify({ post: [run] }))).status).toBe(415);
    expect((await raw(`${dev.url}/tracing/runs`, "POST", { host, "content-type": "text/plain" }, JSON.stringify(run))).status).toBe(415);
    const projects = await raw(`${dev.url}/tracing/projects`, "GET", { host });
    expect(JSON.stringify(projects.body)).not.toContain("plain-text");
  });

  it("a forwarded request is remote: it needs a key", async () => {
    for (const forwarded of [{ "x-forwarded-for": "203.0.113.9" }, { forwarded: "for=203.0.113.9" }] as Record<string, string>[]) {
      const res = await raw(`${dev.url}/v2/deployments`, "GET", { host, ...forwarded });
      expect(res.status).toBe(401);
    }
    expect((await raw(`${dev.url}/v2/deployments`, "GET", { host, "x-forwarded-for": "203.0.113.9", "x-api-key": dev.adminKey })).status).toBe(200);
  });

  it("the console (same origin) and its Vite dev server (another local port) keep working", async () => {
    const same = await raw(`${dev.url}/v2/api-keys`, "POST", { ...JSON_TYPE, host, origin: `http://${host}` }, JSON.stringify({ name: "console" }));
    expect(same.status).toBe(201);
    const vite = await raw(`${dev.url}/v2/api-keys`, "POST", { ...JSON_TYPE, host: "localhost:5173", origin: "http://localhost:5173" }, JSON.stringify({ name: "vite" }));
    expect(vite.status).toBe(201);
    expect((await raw(`${dev.url}/v2/deployments`, "GET", { host: "[::1]:8080" })).status).toBe(200);
    expect((await raw(`${dev.url}/v2/deployments`, "GET", { host: "berth.localhost" })).status).toBe(200);
    expect(await keyNames()).toEqual(expect.arrayContaining(["console", "vite"]));
  });

  it("a request with a key is judged by its key, whatever its Host", async () => {
    const res = await raw(`${dev.url}/v2/deployments`, "GET", { host: "berth.example.com", "x-api-key": dev.adminKey });
    expect(res.status).toBe(200);
  });
});

describe("berth serve on loopback: no keys, so only this machine's pages", () => {
  let server: TestServer;
  let listed: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    listed = await startTestServer("pglite", { corsAllowOrigins: "https://studio.example" });
  });
  afterAll(async () => {
    await server?.close();
    await listed?.close();
  });
  const threadCount = async (s: TestServer) => (await s.client.threads.search({ limit: 100 })).length;

  it("refuses a rebound Host, a foreign Origin and a plain-text body, and creates nothing", async () => {
    const host = new URL(server.url).host;
    const before = await threadCount(server);
    expect((await raw(`${server.url}/threads`, "POST", { ...JSON_TYPE, host: "rebind.attacker.example" }, "{}")).status).toBe(421);
    expect((await raw(`${server.url}/threads`, "POST", { ...JSON_TYPE, host, origin: "http://evil.example" }, "{}")).status).toBe(403);
    expect((await raw(`${server.url}/threads`, "POST", { host, "content-type": "text/plain" }, "{}")).status).toBe(415);
    expect((await raw(`${server.url}/a2a/chat`, "POST", { host, "content-type": "text/plain", origin: "http://evil.example" }, "{}")).status).toBe(403);
    expect((await raw(`${server.url}/a2a/chat`, "POST", { host, "content-type": "text/plain" }, "{}")).status).toBe(415);
    expect(await threadCount(server)).toBe(before);
    expect((await raw(`${server.url}/threads`, "POST", { ...JSON_TYPE, host, origin: `http://${host}` }, "{}")).status).toBe(200);
    expect(await threadCount(server)).toBe(before + 1);
  });

  it("an origin the operator listed by name may call it (a hosted studio); the default * does not open it", async () => {
    const host = new URL(listed.url).host;
    expect((await raw(`${listed.url}/threads`, "POST", { ...JSON_TYPE, host, origin: "https://studio.example" }, "{}")).status).toBe(200);
    expect((await raw(`${listed.url}/threads`, "POST", { ...JSON_TYPE, host, origin: "https://other.example" }, "{}")).status).toBe(403);
  });
});

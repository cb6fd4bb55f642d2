/**
 * The standalone Studio over HTTP: a bare agent server serves the page at /studio/ (with the
 * pages' security headers) and its assets, without weakening the Host/Origin rules of its API; a
 * flag or BERTH_STUDIO turns it off, and a server beyond loopback serves it only when asked. The
 * build here is a stand-in directory (the page in a browser: test/console-e2e/studio-standalone.test.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentServerSettings } from "../../src/shared/config.js";
import { studioEnabled } from "../../src/agent-server/studio.js";
import { startTestServer, type TestServer } from "../helpers/server.js";

const KEY = "studio-test-key-0123456789abcdef";
let dir: string;
const SCRIPT = 'console.log("studio");';

function get(url: string, headers: Record<string, string> = {}) {
  return fetch(url, { headers, redirect: "manual" });
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "berth-studio-http-"));
  mkdirSync(path.join(dir, "assets"));
  writeFileSync(path.join(dir, "index.html"), '<!doctype html><title>Berth Studio</title><script type="module" src="./assets/index-abc.js"></script>');
  writeFileSync(path.join(dir, "assets", "index-abc.js"), SCRIPT);
  writeFileSync(path.join(dir, "assets", "index-abc.js.br"), brotliCompressSync(SCRIPT));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the Studio of a bare agent server on loopback (its default: on)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { studioDir: dir, jobsPerWorker: 0 });
    expect(server.handle.studioUrl).toBe(`${server.url}/studio/`);
  });
  afterAll(() => server?.close());

  it("serves the page at /studio/ and at its tabs, with the pages' security headers", async () => {
    for (const p of ["/studio/", "/studio/graph", "/studio/threads?assistant=chat"]) {
      const res = await get(`${server.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.text()).toContain("<title>Berth Studio</title>");
    }
  });

  it("sends /studio to /studio/ (relative, so a mount prefix stays), keeping the query", async () => {
    const res = await get(`${server.url}/studio?assistant=chat`);
    expect(res.status).toBe(308);
    expect(res.headers.get("location")).toBe("studio/?assistant=chat");
  });

  it("serves the assets, precompressed to clients that accept it; an unknown path is a 404", async () => {
    const plain = await get(`${server.url}/studio/assets/index-abc.js`, { "accept-encoding": "identity" });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toMatch(/javascript/);
    expect(plain.headers.get("cache-control")).toMatch(/immutable/);
    expect(plain.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await plain.text()).toBe(SCRIPT);
    const br = await get(`${server.url}/studio/assets/index-abc.js`, { "accept-encoding": "br" });
    expect(br.headers.get("content-encoding")).toBe("br");
    expect(await br.text()).toBe(SCRIPT); // fetch decodes it
    expect((await get(`${server.url}/studio/assets/missing.js`)).status).toBe(404);
    const deep = await get(`${server.url}/studio/threads/abc`);
    expect(deep.status).toBe(404);
    expect(typeof ((await deep.json()) as { detail?: unknown }).detail).toBe("string");
  });

  it("keeps the Host and Origin rules: a foreign page cannot drive the API, a rebound name gets no page", async () => {
    const foreign = await fetch(`${server.url}/assistants/search`, { method: "POST", headers: { origin: "https://evil.example", "content-type": "application/json" }, body: "{}" });
    expect(foreign.status).toBe(403);
    expect((await get(`${server.url}/studio/`, { origin: "https://evil.example" })).status).toBe(403);
    // DNS rebinding: the attacker's name in Host
    const port = new URL(server.url).port;
    const rebound = await new Promise<number>((resolve, reject) => {
      import("node:http").then(({ request }) => {
        const req = request({ host: "127.0.0.1", port, path: "/studio/", headers: { host: `rebind.evil.example:${port}` } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      }, reject);
    });
    expect(rebound).toBe(421);
    // the page's own calls (same origin) pass
    const own = await fetch(`${server.url}/assistants/search`, { method: "POST", headers: { origin: server.url, "content-type": "application/json" }, body: "{}" });
    expect(own.status).toBe(200);
  });
});

describe("the Studio of an agent server that requires a key", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { studioDir: dir, jobsPerWorker: 0, apiKey: KEY });
  });
  afterAll(() => server?.close());

  it("serves the page without the key (it holds no data); the API still needs one, and /info says which auth", async () => {
    expect((await get(`${server.url}/studio/`)).status).toBe(200);
    expect((await get(`${server.url}/studio/assets/index-abc.js`)).status).toBe(200);
    expect((await fetch(`${server.url}/assistants/search`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    expect((await fetch(`${server.url}/assistants/search`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": KEY }, body: "{}" })).status).toBe(200);
    expect(((await (await get(`${server.url}/info`)).json()) as { auth: { mode: string } }).auth.mode).toBe("platform");
  });
});

describe("turning the Studio off", () => {
  it("--no-studio (studio: false): no page, no assets, the API unchanged", async () => {
    const server = await startTestServer("pglite", { studioDir: dir, jobsPerWorker: 0, studio: false });
    try {
      expect(server.handle.studioUrl).toBeUndefined();
      for (const p of ["/studio", "/studio/", "/studio/assets/index-abc.js"]) expect((await get(`${server.url}${p}`)).status, p).toBe(404);
      expect((await get(`${server.url}/ok`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("BERTH_STUDIO turns it on or off; beyond loopback it is off unless asked", () => {
    const settings = (env: Record<string, string>, flags: Record<string, unknown> = {}) => resolveAgentServerSettings({ configPath: "x.json", ...flags }, env, () => "/tmp/x");
    expect(studioEnabled(settings({}))).toBe(true);
    expect(studioEnabled(settings({ BERTH_STUDIO: "false" }))).toBe(false);
    expect(studioEnabled(settings({ BERTH_STUDIO: "0" }))).toBe(false);
    expect(studioEnabled(settings({ HOST: "0.0.0.0" }))).toBe(false);
    expect(studioEnabled(settings({ HOST: "0.0.0.0", BERTH_STUDIO: "true" }))).toBe(true);
    expect(studioEnabled(settings({ BERTH_STUDIO: "true" }, { studio: false }))).toBe(false);
    expect(studioEnabled(settings({}, { serveHttp: false }))).toBe(false);
    expect(() => settings({ BERTH_STUDIO: "maybe" })).toThrow(/BERTH_STUDIO: must be true or false/);
  });
});

/**
 * The control plane serves the web console's build at `/`: index.html (strict CSP, never cached)
 * for every console route so reloads and shared links work, hashed assets cached for good, and
 * the APIs untouched beside it. A build that is missing gets a page saying how to build it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { brotliCompressSync, gzipSync } from "node:zlib";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";

const SCRIPT = "console.log('berth')";
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';

async function start(dir: string, consoleDir: string): Promise<ControlPlaneServerHandle> {
  return startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: path.join(dir, ".berth"), logLevel: "silent", consoleDir }, {}), silentLogger);
}

describe("the console's static files", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "berth-console-"));
    const build = path.join(dir, "console");
    mkdirSync(path.join(build, "assets"), { recursive: true });
    writeFileSync(path.join(build, "index.html"), INDEX);
    writeFileSync(path.join(build, "assets", "index-abc123.js"), SCRIPT);
    // what the build writes beside each script (vite.config.ts); the CSS has no compressed copy
    writeFileSync(path.join(build, "assets", "index-abc123.js.br"), brotliCompressSync(SCRIPT));
    writeFileSync(path.join(build, "assets", "index-abc123.js.gz"), gzipSync(SCRIPT));
    writeFileSync(path.join(build, "assets", "index-abc123.css"), "body{margin:0}");
    dev = await start(dir, build);
  });
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("answers / and every console route with index.html under a strict policy", async () => {
    for (const p of ["/", "/sign-in", "/deployments", "/deployments/6a1f0d43-8c38-4f5e-9d7b-0d3c3d6f7a11", "/projects/x/dashboard", "/traces/abc?run=def", "/prices"]) {
      const res = await fetch(`${dev.url}${p}`);
      expect(res.status, p).toBe(200);
      expect(res.headers.get("content-type"), p).toMatch(/^text\/html/);
      expect(await res.text(), p).toBe(INDEX);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, p).toContain("script-src 'self'");
      expect(csp, p).toContain("frame-ancestors 'none'");
      expect(csp, p).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(res.headers.get("cache-control"), p).toBe("no-cache");
      expect(res.headers.get("x-content-type-options"), p).toBe("nosniff");
    }
  });

  it("serves hashed assets for a year and 404s a missing one", async () => {
    const res = await fetch(`${dev.url}/assets/index-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(await res.text()).toBe("console.log('berth')");
    expect((await fetch(`${dev.url}/assets/nope.js`)).status).toBe(404);
    expect((await fetch(`${dev.url}/assets/../index.html`)).status).not.toBe(500);
  });

  it("serves the build's compressed copies to clients that accept them, with the original's type", async () => {
    const get = (name: string, acceptEncoding: string) => fetch(`${dev.url}/assets/${name}`, { headers: { "accept-encoding": acceptEncoding } });
    for (const [accept, encoding] of [
      ["br, gzip", "br"],
      ["gzip", "gzip"],
      ["gzip;q=1, br;q=0.5", "gzip"],
    ] as const) {
      const res = await get("index-abc123.js", accept);
      expect(res.status, accept).toBe(200);
      expect(res.headers.get("content-encoding"), accept).toBe(encoding);
      expect(res.headers.get("content-type"), accept).toMatch(/javascript/);
      expect(res.headers.get("vary"), accept).toMatch(/accept-encoding/i);
      expect(res.headers.get("cache-control"), accept).toContain("immutable");
      expect(await res.text(), accept).toBe(SCRIPT); // fetch decodes it: the same script
    }
    const plain = await get("index-abc123.js", "identity");
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(await plain.text()).toBe(SCRIPT);
    // no compressed copy: the file itself
    const css = await get("index-abc123.css", "br, gzip");
    expect(css.headers.get("content-encoding")).toBeNull();
    expect(css.headers.get("content-type")).toMatch(/text\/css/);
    // an asset that does not exist is still a 404
    expect((await get("nope.js", "br")).status).toBe(404);
  });

  it("leaves the APIs as they were", async () => {
    const res = await fetch(`${dev.url}/v2/deployments`, { headers: { "x-api-key": dev.adminKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/json/);
    expect((await fetch(`${dev.url}/tracing/info`)).headers.get("content-type")).toMatch(/json/);
    // not a console route: the API's 404 in its documented shape
    const missing = await fetch(`${dev.url}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toHaveProperty("detail");
  });

  it("sends a browser opening /tracing to the console's tracing pages; API clients keep the API's answer", async () => {
    const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8";
    for (const p of ["/tracing", "/tracing/"]) {
      const res = await fetch(`${dev.url}${p}`, { headers: { accept: browser }, redirect: "manual" });
      expect(res.status, p).toBe(302);
      expect(res.headers.get("location"), p).toBe("/projects");
      expect(res.headers.get("vary"), p).toMatch(/accept/i);
      // followed, it is the console's page
      const page = await fetch(`${dev.url}${p}`, { headers: { accept: browser } });
      expect(page.url, p).toBe(`${dev.url}/projects`);
      expect(await page.text(), p).toBe(INDEX);
    }
    // curl (*/*), no Accept at all, and JSON clients: the API's own 404 in its documented shape
    for (const accept of ["*/*", undefined, "application/json"]) {
      const res = await fetch(`${dev.url}/tracing`, { headers: accept ? { accept } : {}, redirect: "manual" });
      expect(res.status, accept).toBe(404);
      expect(res.headers.get("content-type"), accept).toMatch(/json/);
      expect(await res.json(), accept).toHaveProperty("detail");
    }
    // the API under /tracing is untouched for browsers too
    const info = await fetch(`${dev.url}/tracing/info`, { headers: { accept: browser } });
    expect(info.status).toBe(200);
    expect(info.headers.get("content-type")).toMatch(/json/);
  });

  it("tells who a key acts for (the console's sign-in)", async () => {
    const me = await fetch(`${dev.url}/v2/whoami`, { headers: { "x-api-key": dev.adminKey } });
    expect(me.status).toBe(200);
    const body = (await me.json()) as { tenant_id: string; tenants: unknown };
    expect(body).toMatchObject({ tenant_id: expect.any(String), via: "api_key", key_id: expect.any(String) });
    expect(body.tenants).toEqual([{ id: body.tenant_id, name: "default" }]);
    expect((await fetch(`${dev.url}/v2/whoami`, { headers: { "x-api-key": "berth_wrong_key_wrong_key" } })).status).toBe(401);
  });
});

describe("a console that is not built", () => {
  it("says how to build it instead of failing", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "berth-console-"));
    const dev = await start(dir, path.join(dir, "missing"));
    try {
      const res = await fetch(`${dev.url}/deployments`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain("npm run build");
      expect((await fetch(`${dev.url}/ok`)).status).toBe(200);
    } finally {
      await dev.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

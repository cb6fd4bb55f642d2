/**
 * The deployment proxy against plain node:http upstreams: paths, query strings and headers kept,
 * chunked bodies both ways, SSE streamed as it comes, atomic target swaps with requests in flight
 * finishing on the old target, holding during a swap, 503 when down and 502 for a dead target.
 */
import http from "node:http";
import net from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DeploymentProxy } from "../../src/runtime/local/proxy.js";

interface Upstream {
  url: string;
  server: http.Server;
  closedStreams: number;
  /** /held requests wait until the test calls this (their response ends then). */
  releaseHeld(): void;
}

async function upstream(name: string): Promise<Upstream> {
  const held: (() => void)[] = [];
  const u: Upstream = { url: "", server: http.createServer(), closedStreams: 0, releaseHeld: () => held.splice(0).forEach((f) => f()) };
  u.server.on("request", (req, res) => {
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/echo") {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        res.setHeader("content-type", "application/json");
        res.setHeader("x-upstream", name);
        res.end(JSON.stringify({ name, method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
      });
    } else if (url.pathname === "/held") {
      held.push(() => res.end(`held by ${name}`));
    } else if (url.pathname === "/slow") {
      setTimeout(() => res.end(`slow from ${name}`), Number(url.searchParams.get("ms") ?? 500));
    } else if (url.pathname === "/sse") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      let i = 0;
      const timer = setInterval(() => {
        res.write(`event: tick\ndata: ${i++}\n\n`);
        if (url.searchParams.has("end") && i === 3) {
          clearInterval(timer);
          res.end();
        }
      }, 150);
      res.on("close", () => {
        clearInterval(timer);
        u.closedStreams++;
      });
    } else if (url.pathname === "/chunked") {
      res.write("one,");
      setTimeout(() => res.end("two"), 50);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => u.server.listen(0, "127.0.0.1", () => r()));
  u.url = `http://127.0.0.1:${(u.server.address() as net.AddressInfo).port}`;
  return u;
}

describe("deployment proxy", () => {
  let a: Upstream;
  let b: Upstream;
  let proxy: DeploymentProxy;

  beforeAll(async () => {
    a = await upstream("a");
    b = await upstream("b");
  });
  afterEach(async () => proxy?.close());
  afterAll(async () => {
    for (const u of [a, b]) {
      u.server.closeAllConnections();
      await new Promise<void>((r) => u.server.close(() => r()));
    }
  });

  it("forwards method, path, query string, headers and body; adds X-Forwarded-*", async () => {
    proxy = await DeploymentProxy.listen({});
    proxy.setTarget(a.url);
    const res = await fetch(`${proxy.url}/echo?x=1&y=%20two`, { method: "PUT", headers: { "x-api-key": "k", "content-type": "text/plain" }, body: "payload" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-upstream")).toBe("a");
    const body = (await res.json()) as { method: string; path: string; headers: Record<string, string>; body: string };
    expect(body).toMatchObject({ method: "PUT", path: "/echo?x=1&y=%20two", body: "payload" });
    expect(body.headers["x-api-key"]).toBe("k");
    expect(body.headers["x-forwarded-for"]).toMatch(/127\.0\.0\.1/);
    expect(body.headers["x-forwarded-host"]).toBe(new URL(proxy.url).host);
    expect(body.headers.host).toBe(new URL(proxy.url).host);
  });

  it("streams chunked request and response bodies", async () => {
    proxy = await DeploymentProxy.listen({});
    proxy.setTarget(a.url);
    const { port } = new URL(proxy.url);
    const echoed = await new Promise<{ te?: string; body: string }>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/echo", headers: { "transfer-encoding": "chunked" } }, (res) => {
        let data = "";
        res.on("data", (c: Buffer) => (data += c));
        res.on("end", () => {
          const j = JSON.parse(data) as { headers: Record<string, string>; body: string };
          resolve({ te: j.headers["transfer-encoding"], body: j.body });
        });
      });
      req.on("error", reject);
      req.write("part1-");
      setTimeout(() => req.end("part2"), 50);
    });
    expect(echoed).toEqual({ te: "chunked", body: "part1-part2" });
    const res = await fetch(`${proxy.url}/chunked`);
    expect(res.headers.get("transfer-encoding")).toBe("chunked");
    expect(await res.text()).toBe("one,two");
  });

  it("streams server-sent events as they come, and a client that leaves closes the upstream stream", async () => {
    proxy = await DeploymentProxy.listen({});
    proxy.setTarget(a.url);
    const ctl = new AbortController();
    const res = await fetch(`${proxy.url}/sse`, { signal: ctl.signal });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toBe("event: tick\ndata: 0\n\n"); // before the upstream ended (it never does)
    const closedBefore = a.closedStreams;
    ctl.abort();
    await expect.poll(() => a.closedStreams).toBe(closedBefore + 1);
    const whole = await (await fetch(`${proxy.url}/sse?end`)).text();
    expect(whole).toBe("event: tick\ndata: 0\n\nevent: tick\ndata: 1\n\nevent: tick\ndata: 2\n\n");
  });

  it("swaps targets atomically: requests in flight finish on the old target, retire() waits for them", async () => {
    proxy = await DeploymentProxy.listen({});
    proxy.setTarget(a.url);
    // a request that stays in flight on a until the test lets it end
    const slow = fetch(`${proxy.url}/held`).then((r) => r.text());
    await expect.poll(() => proxy.inFlight(a.url)).toBe(1);
    proxy.setTarget(b.url);
    expect((await fetch(`${proxy.url}/echo`)).headers.get("x-upstream")).toBe("b");
    let retired = false;
    const retiring = proxy.retire(a.url, 120_000).then((drained) => ((retired = true), drained));
    // retire() waits while the request is in flight (a round trip through the proxy gives it time to answer wrongly)
    expect((await fetch(`${proxy.url}/echo`)).headers.get("x-upstream")).toBe("b");
    expect(retired).toBe(false);
    a.releaseHeld();
    expect(await retiring).toBe(true);
    expect(await slow).toBe("held by a");
    expect(proxy.target).toBe(b.url);
  });

  it("holds requests during a swap until there is a target, and 503s after holdMs or when down", async () => {
    // a hold far longer than the test: the held request can only be answered by the new target
    proxy = await DeploymentProxy.listen({ holdMs: 120_000 });
    const down = await fetch(`${proxy.url}/echo`);
    expect(down.status).toBe(503);
    expect(((await down.json()) as { detail: string }).detail).toMatch(/no running revision/);

    proxy.hold();
    let answered = false;
    const held = fetch(`${proxy.url}/echo?q=1`, { method: "POST", body: "kept" }).then((r) => ((answered = true), r));
    await new Promise((r) => setTimeout(r, 150));
    expect(answered).toBe(false);
    proxy.setTarget(b.url);
    const res = await held;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ name: "b", body: "kept", path: "/echo?q=1" });
    await proxy.close();

    // a short hold: 503 once it is over (never before it; a busy machine only makes it later)
    proxy = await DeploymentProxy.listen({ holdMs: 400 });
    proxy.hold();
    const started = Date.now();
    expect((await fetch(`${proxy.url}/echo`)).status).toBe(503);
    expect(Date.now() - started).toBeGreaterThanOrEqual(350);
  });

  it("answers 502 when the target does not answer", async () => {
    proxy = await DeploymentProxy.listen({});
    // Nothing listens on port 1 (tcpmux, unused), and unlike a port picked with listen(0) and closed
    // again it cannot be taken meanwhile by another test's server: listen(0) only hands out ports
    // from the ephemeral range.
    proxy.setTarget("http://127.0.0.1:1");
    const res = await fetch(`${proxy.url}/echo`, { method: "POST", body: "x" });
    expect(res.status).toBe(502);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/ECONNREFUSED/);
    expect((await fetch(`${proxy.url}/echo`)).status).toBe(502); // after its retries

    // a request without a body that found the process gone is retried on the next target
    const retried = fetch(`${proxy.url}/echo?again`);
    await new Promise((r) => setTimeout(r, 50));
    proxy.setTarget(a.url);
    const ok = await retried;
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ name: "a", method: "GET", path: "/echo?again" });
  });
});

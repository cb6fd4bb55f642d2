/**
 * Server-side request forgery: run webhooks and A2A push notifications may only reach public
 * addresses unless the operator allows more (BERTH_ALLOW_PRIVATE_WEBHOOKS). Real listeners record
 * every request they get, so "refused" means nothing arrived, not just an error status.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverWebhook } from "../../src/agent-server/runs/webhooks.js";
import { silentLogger } from "../../src/shared/logging.js";
import { addressProblem, parseOutboundPolicy, PUBLIC_ONLY } from "../../src/shared/outbound.js";
import { eventually, startTestServer, userMessage, type TestServer } from "../helpers/server.js";

/** An HTTP listener on `host` that records each request and answers with `answer`. */
async function listener(host: string, answer: (res: http.ServerResponse) => void = (res) => res.writeHead(200).end("ok")) {
  const hits: { path: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      hits.push({ path: req.url ?? "", body });
      answer(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  const port = (server.address() as AddressInfo).port;
  return { hits, port, url: `http://${host}:${port}/hook`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function a2aSend(url: string, pushUrl: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "text", text: "hi" }] },
        configuration: { blocking: true, pushNotificationConfig: { url: pushUrl, token: "t" } },
      },
    }),
  });
  return (await res.json()) as { result?: { id: string; status: { state: string } }; error?: { code: number; message: string; data?: { detail?: string } } };
}

describe("outbound policy: addresses", () => {
  it("refuses loopback, private, link-local, CGNAT, unspecified, multicast and their IPv6 forms; allows public ones", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fc00::1", "fd12::1", "::ffff:127.0.0.1", "::ffff:a9fe:a9fe", "64:ff9b::a00:1"]) {
      expect(addressProblem(a, PUBLIC_ONLY), a).toBeDefined();
    }
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) expect(addressProblem(a, PUBLIC_ONLY), a).toBeUndefined();
  });

  it("an operator allows everything, or listed addresses and ranges; a bad entry is an error", () => {
    expect(addressProblem("127.0.0.1", parseOutboundPolicy("true"))).toBeUndefined();
    const some = parseOutboundPolicy("10.0.0.0/8, 127.0.0.2");
    expect(addressProblem("10.9.9.9", some)).toBeUndefined();
    expect(addressProblem("127.0.0.2", some)).toBeUndefined();
    expect(addressProblem("127.0.0.1", some)).toBeDefined();
    expect(addressProblem("192.168.0.1", parseOutboundPolicy("false"))).toBeDefined();
    expect(() => parseOutboundPolicy("10.0.0.0/8,intranet")).toThrow(/intranet/);
  });
});

describe("outbound policy: delivery", () => {
  it("a loopback target, by address or by a name resolving to it, is not contacted; allowed, it is", async () => {
    const target = await listener("127.0.0.1");
    try {
      expect(await deliverWebhook(target.url, { n: 1 }, silentLogger, { attempts: 1 })).toBe(false);
      expect(await deliverWebhook(`http://localhost:${target.port}/hook`, { n: 2 }, silentLogger, { attempts: 1 })).toBe(false);
      expect(await deliverWebhook(`http://[::ffff:127.0.0.1]:${target.port}/hook`, { n: 3 }, silentLogger, { attempts: 1 })).toBe(false);
      expect(target.hits).toEqual([]);
      expect(await deliverWebhook(target.url, { n: 4 }, silentLogger, { attempts: 1, policy: parseOutboundPolicy("true") })).toBe(true);
      expect(target.hits.map((h) => JSON.parse(h.body))).toEqual([{ n: 4 }]);
    } finally {
      await target.close();
    }
  });

  it("a redirect from an allowed target to a refused one is not followed", async () => {
    const inside = await listener("127.0.0.1");
    const allowed = await listener("127.0.0.2", (res) => res.writeHead(307, { location: inside.url }).end());
    try {
      const policy = parseOutboundPolicy("127.0.0.2/32");
      expect(await deliverWebhook(allowed.url, { n: 1 }, silentLogger, { attempts: 1, policy })).toBe(false);
      expect(allowed.hits).toHaveLength(1);
      expect(inside.hits).toEqual([]);
    } finally {
      await allowed.close();
      await inside.close();
    }
  });
});

describe("outbound policy: the agent server", () => {
  let server: TestServer;
  let target: Awaited<ReturnType<typeof listener>>;
  beforeAll(async () => {
    server = await startTestServer("pglite");
    target = await listener("127.0.0.1");
  });
  afterAll(async () => {
    await target?.close();
    await server?.close();
  });

  it("refuses a loopback run webhook at creation (422 naming the field) and on crons", async () => {
    const thread = await server.client.threads.create();
    for (const webhook of [target.url, `http://localhost:${target.port}/x`, "http://169.254.169.254/latest/meta-data/"]) {
      const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "chat", input: userMessage("x"), webhook }),
      });
      expect(res.status, webhook).toBe(422);
      const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
      expect(body.detail[0]!.loc).toEqual(["body", "webhook"]);
      expect(body.detail[0]!.msg).toMatch(/not allowed/);
    }
    const batch = await fetch(`${server.url}/runs/batch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify([{ assistant_id: "chat", input: userMessage("x") }, { assistant_id: "chat", input: userMessage("y"), webhook: target.url }]),
    });
    expect(batch.status).toBe(422);
    expect(((await batch.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(["body", 1, "webhook"]);
    await expect(server.client.crons.create("chat", { schedule: "* * * * *", webhook: target.url })).rejects.toMatchObject({ status: 422 });
    expect(await server.client.runs.list(thread.thread_id)).toEqual([]);
    expect(target.hits).toEqual([]);
  });

  it("refuses an unauthenticated A2A push target on loopback: no task is started and nothing is POSTed", async () => {
    const answer = await a2aSend(`${server.url}/a2a/chat`, `${target.url}/internal-admin`);
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.data?.detail).toMatch(/not allowed/);
    const answer2 = await a2aSend(`${server.url}/a2a/chat`, `http://localhost:${target.port}/internal-admin`);
    expect(answer2.error?.code).toBe(-32602);
    expect(target.hits).toEqual([]);
  });

  it("with the operator's switch on, the same push target is delivered to", async () => {
    const open = await startTestServer("pglite", { allowPrivateWebhooks: "true" });
    try {
      const answer = await a2aSend(`${open.url}/a2a/chat`, target.url);
      expect(answer.result?.status.state).toBe("completed");
      await eventually(async () => target.hits.length > 0);
      expect(JSON.parse(target.hits[0]!.body)).toMatchObject({ id: answer.result!.id });
    } finally {
      await open.close();
    }
  });
});

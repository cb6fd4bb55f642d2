/**
 * A2A behind an authenticator: the server's own app (`createAgentServerApp`) over a running
 * server's context, with a small API-key authenticator in place of the process's (the platform and
 * custom authenticators are chosen at start from settings this suite does not have). Public cards
 * announce the schemes; the extended card is for authenticated callers only.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import type { Request } from "express";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAgentServerApp } from "../../src/agent-server/api/app.js";
import type { RequestAuthenticator } from "../../src/agent-server/auth/index.js";
import { ApiError } from "../../src/shared/errors.js";
import { a2aSchemaErrors } from "../helpers/a2a-schema.js";
import { describeBackends, serverForSuite, type TestServer } from "../helpers/server.js";

/** Accepts `X-Api-Key: good` (alice); `X-Api-Key: anonymous` passes as a user that is not authenticated. */
const keyAuthenticator: RequestAuthenticator = {
  mode: "platform",
  describe: () => ({ mode: "platform", bearer: true }),
  authenticate: async (req: Request) => {
    const key = req.get("x-api-key");
    if (key === "good") return { identity: "alice", permissions: [], is_authenticated: true };
    if (key === "anonymous") return { identity: "anonymous", permissions: [], is_authenticated: false };
    throw new ApiError(401, "missing or invalid API key");
  },
};

describeBackends("A2A with authentication", (backend) => {
  let server: TestServer;
  let secured: http.Server;
  let url: string;
  serverForSuite(backend, (s) => (server = s));
  beforeAll(async () => {
    const app = createAgentServerApp({ ...server.handle.ctx, auth: keyAuthenticator }, server.handle.runs);
    secured = http.createServer(app);
    await new Promise<void>((r) => secured.listen(0, "127.0.0.1", () => r()));
    url = `http://127.0.0.1:${(secured.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => secured.close(() => r())));

  const rpc = (method: string, key?: string) =>
    fetch(`${url}/a2a/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: {} }),
    });

  it("the public cards announce the API key and bearer schemes and the extended card, in both versions", async () => {
    const v03 = (await (await fetch(`${url}/a2a/chat/.well-known/agent-card.json`)).json()) as any;
    expect(a2aSchemaErrors("AgentCard", v03)).toEqual([]);
    expect(v03.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "X-Api-Key" });
    expect(v03.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer" });
    expect(v03.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(v03.supportsAuthenticatedExtendedCard).toBe(true);
    const res = await fetch(`${url}/a2a/chat/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    expect(res.headers.get("vary")).toMatch(/A2A-Version/i);
    const v1 = (await res.json()) as any;
    expect(v1.securitySchemes.apiKey).toEqual({ apiKeySecurityScheme: expect.objectContaining({ location: "header", name: "X-Api-Key" }) });
    expect(v1.securityRequirements).toEqual([{ schemes: { apiKey: { list: [] } } }, { schemes: { bearer: { list: [] } } }]);
    expect(v1.capabilities.extendedAgentCard).toBe(true);
  });

  it("the extended card answers an authenticated caller (1.x client and v0.3 method) and nobody else", async () => {
    // the 1.x client fetches the extended card itself when the card declares it
    const methods: string[] = [];
    const withKey: typeof fetch = async (input, init) => {
      if (init?.body) methods.push(JSON.parse(String(init.body)).method);
      return fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), "x-api-key": "good" } });
    };
    const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl: withKey })] }));
    const client = await factory.createFromUrl(url, "/a2a/chat/.well-known/agent-card.json");
    const extended = await client.getAgentCard();
    expect(methods).toEqual(["GetExtendedAgentCard"]);
    expect(extended.capabilities?.extendedAgentCard).toBe(true);
    expect(Object.keys(extended.securitySchemes)).toEqual(["apiKey", "bearer"]);

    const legacy = (await (await rpc("agent/getAuthenticatedExtendedCard", "good")).json()) as any;
    expect(a2aSchemaErrors("AgentCard", legacy.result)).toEqual([]);
    expect(legacy.result.supportsAuthenticatedExtendedCard).toBe(true);

    // no key, a wrong key, or a user the authenticator does not vouch for: 401, no card
    for (const key of [undefined, "bad", "anonymous"]) {
      for (const method of ["GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"]) {
        const res = await rpc(method, key);
        expect(res.status, `${method} with ${key}`).toBe(401);
        expect(JSON.stringify(await res.json())).not.toContain("securitySchemes");
      }
    }
    // the rest of A2A behind the same key
    expect((await rpc("ListTasks")).status).toBe(401);
    expect(((await (await rpc("ListTasks", "good")).json()) as any).result.tasks).toEqual(expect.any(Array));
  });
});

/**
 * The MCP endpoint (`POST /mcp`) through the official MCP client SDK: every assistant a tool with
 * its graph's input schema, calls that really run the graph (statelessly, or on the thread named
 * by `X-Thread-Id`), errors in MCP's shapes, `http.disable_mcp`, auth, and hostile requests.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Request } from "express";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import type { RequestAuthenticator } from "../../src/agent-server/auth/index.js";
import { ApiError } from "../../src/shared/errors.js";
import { silentLogger } from "../../src/shared/logging.js";
import { createTestDatabase, describeBackends, eventually, ROOT, serverForSuite, startTestServer, testSettings, type TestDatabase, type TestServer } from "../helpers/server.js";

const MCP_CONFIG = path.join(ROOT, "test/fixtures/mcp/langgraph.json");
const ACCEPT = "application/json, text/event-stream";

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "berth-mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

const textOf = (result: unknown) => ((result as { content: { type: string; text: string }[] }).content[0]!).text;

/** A raw JSON-RPC POST (for requests the client cannot send); the answer, from JSON or the SSE stream. */
async function rawRpc(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT, ...headers }, body });
  const text = await res.text();
  const data = res.headers.get("content-type")?.startsWith("text/event-stream")
    ? text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).at(-1) ?? "null"
    : text;
  let json: any;
  try {
    json = JSON.parse(data);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}
const callBody = (name: string, args: unknown, id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

describeBackends("MCP endpoint", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s), { configPath: MCP_CONFIG });

  it("lists one tool per assistant: its name, its description, its graph's input schema", async () => {
    // the schemas derived from TypeScript types arrive in the background: compare once they are in
    const typeSchemas = server.handle.ctx.typeSchemas!;
    await eventually(async () => server.handle.ctx.registry.graphIds().every((g) => !typeSchemas.isPending(g)), 120_000);
    // an assistant of its own becomes a tool; a second assistant named like an existing tool does not shadow it
    const helper = await server.client.assistants.create({ graphId: "qa", name: `helper-${randomUUID().slice(0, 6)}`, description: "Helps" });
    await server.client.assistants.create({ graphId: "failing", name: "qa" });
    const client = await connect(server.url);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(tools.map((t) => t.name).slice(0, 4)).toEqual(["echo", "qa", "failing", "whoami"]);
    expect(tools.filter((t) => t.name === "qa")).toHaveLength(1);
    expect(byName.get("echo")!.description).toBe("Echoes the last message back");
    expect(byName.get("qa")!.description).toBe("Answers one question");
    expect(byName.get("failing")!.description).toBeUndefined();
    expect(byName.get(helper.name)!.description).toBe("Helps");
    for (const name of ["echo", "qa", "failing", "whoami"]) {
      const schemas = await server.client.assistants.getSchemas(name);
      expect(byName.get(name)!.inputSchema, name).toEqual(schemas.input_schema);
    }
    // the zod graph's schema is exact: a string question and nothing else
    expect(byName.get("qa")!.inputSchema).toMatchObject({ type: "object", properties: { question: { type: "string", minLength: 1 } }, additionalProperties: false });
  });

  /** The runs of an assistant, straight from the database (stateless runs live on hidden temporary threads). */
  const runsOf = async (assistantId: string) =>
    (await server.handle.ctx.pool.query<{ run_id: string; status: string }>("SELECT run_id, status FROM runs WHERE assistant_id = $1", [assistantId])).rows;

  it("a call runs the graph statelessly and answers its final state; its temporary thread is deleted", async () => {
    const client = await connect(server.url);
    const result = await client.callTool({ name: "qa", arguments: { question: "what is MCP?" } });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(textOf(result))).toEqual({ question: "what is MCP?", answer: "Answer to: what is MCP?" });
    // a user-made assistant runs its own graph under its own name
    const asker = await server.client.assistants.create({ graphId: "qa", name: `asker-${randomUUID().slice(0, 6)}` });
    expect(JSON.parse(textOf(await client.callTool({ name: asker.name, arguments: { question: "q2" } }))).answer).toBe("Answer to: q2");
    // as for POST /runs/wait, the run's temporary thread (and the run with it) is deleted once it ends
    await eventually(async () => (await runsOf(asker.assistant_id)).length === 0);
    await eventually(async () => (await server.handle.ctx.pool.query("SELECT 1 FROM threads WHERE temporary")).rowCount === 0);
  });

  it("with X-Thread-Id the calls build up one thread: each input is stored once, in order", async () => {
    const threadId = randomUUID();
    const client = await connect(server.url, { "X-Thread-Id": threadId });
    const first = await client.callTool({ name: "echo", arguments: { messages: [{ role: "user", content: "one" }] } });
    expect(JSON.parse(textOf(first)).messages.map((m: { content: string }) => m.content)).toEqual(["one", "You said: one"]);
    await client.callTool({ name: "echo", arguments: { messages: [{ role: "user", content: "two" }] } });
    const state = await server.client.threads.getState<{ messages: { content: string }[] }>(threadId);
    expect(state.values.messages.map((m) => m.content)).toEqual(["one", "You said: one", "two", "You said: two"]);
    const runs = await server.client.runs.list(threadId);
    expect(runs.map((r) => r.status)).toEqual(["success", "success"]);
  });

  it("a graph that throws is a tool error (isError) carrying its message, not a protocol error", async () => {
    const client = await connect(server.url);
    const result = await client.callTool({ name: "failing", arguments: { messages: [{ role: "user", content: "hi" }] } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("TypeError: the tool is broken");
  });

  it("an unknown tool is a JSON-RPC error (-32602)", async () => {
    const client = await connect(server.url);
    const err = await client.callTool({ name: "no-such-agent", arguments: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain("Unknown tool: no-such-agent");
  });

  it("arguments that do not match the input schema are a validation error, and start no run", async () => {
    const threadId = randomUUID();
    const client = await connect(server.url, { "X-Thread-Id": threadId });
    for (const args of [{ question: 42 }, { question: "" }, { question: "ok", extra: true }]) {
      const result = await client.callTool({ name: "qa", arguments: args });
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(textOf(result)).toMatch(/^Input validation error: the arguments of tool "qa" do not match its input schema/);
    }
    // nothing ran: the thread the header names was never created
    await expect(server.client.threads.get(threadId)).rejects.toThrow(/404|not found/i);
    // arguments that are not an object are refused by the protocol itself
    const notObject = await rawRpc(server.url, callBody("qa", "a string"));
    expect(notObject.json.error.code).toBe(-32602);
    expect(notObject.json.error.message).toMatch(/Invalid tools\/call request/);
  });

  it("a malformed X-Thread-Id is a JSON-RPC error naming the header", async () => {
    const client = await connect(server.url, { "X-Thread-Id": "not-a-uuid" });
    const err = (await client.callTool({ name: "qa", arguments: { question: "x" } }).catch((e: unknown) => e)) as McpError;
    expect(err.code).toBe(-32602);
    expect(err.message).toContain("x-thread-id");
  });

  it("GET and DELETE answer 405 (no sessions, as on the platform); the client copes", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { accept: ACCEPT } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
    }
    // the official client's stream probe and session end are harmless against it
    const client = await connect(server.url);
    const transport = client.transport as StreamableHTTPClientTransport;
    expect(transport.sessionId).toBeUndefined();
    await transport.terminateSession();
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it("a client that leaves during a stateless call stops its run (nobody could read its result)", async () => {
    // an echo assistant that takes ten minutes per turn, unless it is cancelled
    const slow = await server.client.assistants.create({ graphId: "echo", name: `slow-${randomUUID().slice(0, 6)}`, config: { configurable: { delay_ms: 600_000 } } });
    const gone = new AbortController();
    const call = fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT },
      body: callBody(slow.name, { messages: [{ role: "user", content: "take your time" }] }),
      signal: gone.signal,
    })
      .then((r) => r.text())
      .catch(() => "");
    const [running] = await eventually(async () => {
      const rows = await runsOf(slow.assistant_id);
      return rows[0]?.status === "running" && rows;
    });
    gone.abort();
    await call.catch(() => undefined);
    // the run is cancelled and its temporary thread deleted, long before the ten minutes are up
    await eventually(async () => !(await runsOf(slow.assistant_id)).some((r) => r.run_id === running!.run_id));
  });

  it("hostile bodies get JSON-RPC errors, never a 500 or a hang; the server keeps answering", async () => {
    // nested 100 000 levels deep: refused by name before anything recurses into it
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const nested = await rawRpc(server.url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"messages":${deep}}}}`);
    expect(nested.status).toBe(200);
    expect(nested.json.id).toBe(7);
    expect(nested.json.result.isError).toBe(true);
    expect(nested.json.result.content[0].text).toMatch(/nested more than \d+ levels deep/);
    // not JSON, and JSON that is not JSON-RPC
    expect((await rawRpc(server.url, "{nope")).json.error.code).toBe(-32700);
    expect((await rawRpc(server.url, "[1,2,3]")).status).toBe(400);
    // a client that does not accept both JSON and SSE, as the transport requires
    expect((await rawRpc(server.url, callBody("qa", { question: "x" }), { accept: "text/html" })).status).toBe(406);
    // on loopback a non-JSON body is refused before any route (the browser guard)
    const plain = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "text/plain", accept: ACCEPT }, body: callBody("qa", { question: "x" }) });
    expect(plain.status).toBe(415);
    // a page on another site cannot drive a loopback server's agents (DNS rebinding / CSRF guard)
    const threadId = randomUUID();
    const foreign = await rawRpc(server.url, callBody("echo", { messages: [{ role: "user", content: "pwned" }] }), { origin: "https://evil.example", "x-thread-id": threadId });
    expect(foreign.status).toBe(403);
    await expect(server.client.threads.get(threadId)).rejects.toThrow(/404|not found/i);
    const ok = await rawRpc(server.url, callBody("qa", { question: "still here?" }));
    expect(JSON.parse(ok.json.result.content[0].text).answer).toBe("Answer to: still here?");
  });
});

describe("MCP endpoint off loopback: its own limits", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { configPath: MCP_CONFIG, host: "0.0.0.0", maxBodyBytes: 64 * 1024 });
  });
  afterAll(() => server?.close());

  it("a body over the server's limit is 413 in JSON-RPC, a wrong content type 415 in JSON-RPC", async () => {
    const huge = callBody("qa", { question: "x".repeat(256 * 1024) });
    const tooBig = await rawRpc(server.url, huge);
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.error.code).toBe(-32000);
    expect(tooBig.json.error.message).toMatch(/65536|too large|exceed/i);
    const plain = await rawRpc(server.url, callBody("qa", { question: "x" }), { "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    expect(plain.json.error.message).toMatch(/Content-Type must be application\/json/);
    const client = await connect(server.url);
    expect(JSON.parse(textOf(await client.callTool({ name: "qa", arguments: { question: "fine" } }))).answer).toBe("Answer to: fine");
  });
});

describe("MCP disabled with http.disable_mcp", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite", { configPath: path.join(ROOT, "test/fixtures/mcp/langgraph-disabled.json") });
  });
  afterAll(() => server?.close());

  it("answers 404 on /mcp, the client cannot connect, and /info says so", async () => {
    const res = await fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT }, body: callBody("echo", {}) });
    expect(res.status).toBe(404);
    await expect(connect(server.url)).rejects.toThrow();
    expect(((await (await fetch(`${server.url}/info`)).json()) as { flags: { mcp: boolean } }).flags.mcp).toBe(false);
  });
});

describe("MCP behind the server's authentication", () => {
  let db: TestDatabase;
  let handle: AgentServerHandle;
  // a stand-in for platform or custom auth: one key, one user
  const keyAuth: RequestAuthenticator = {
    mode: "custom",
    describe: () => ({ mode: "custom" }),
    async authenticate(req: Request) {
      if (req.header("x-api-key") !== "alice-key") throw new ApiError(401, "missing or invalid API key");
      return { identity: "alice", permissions: ["read"], is_authenticated: true };
    },
  };
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    handle = await startAgentServer(testSettings(db, { configPath: MCP_CONFIG }), silentLogger, { authenticator: keyAuth });
  });
  afterAll(async () => {
    await handle?.close(0);
    await db?.drop();
  });

  it("refuses a client without credentials; with them, the graph sees the caller", async () => {
    const refused = (await connect(handle.url!).catch((e: unknown) => e)) as { code?: number; message: string };
    expect(refused.code).toBe(401);
    expect(refused.message).toContain("missing or invalid API key");
    const client = await connect(handle.url!, { "X-Api-Key": "alice-key" });
    const result = await client.callTool({ name: "whoami", arguments: {} });
    expect(JSON.parse(textOf(result))).toEqual({ caller: "alice" });
  });
});

/**
 * Strings Postgres cannot store (NUL, lone surrogates) and other bad input on the agent server's
 * API and its A2A endpoint (issue 13 items 11, 13): the API answers 422 naming the field, A2A a
 * JSON-RPC -32602 naming it — before anything is written, so nothing half-made is left behind.
 * A2A method names that are Object.prototype members are unknown methods (-32601), a body over the
 * limit is a JSON-RPC error, and ListTasks refuses a pageSize outside 1..100.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { describeBackends, serverForSuite, type TestServer } from "../helpers/server.js";

describeBackends("agent server: unstorable text and odd A2A requests", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s), { maxBodyBytes: 64 * 1024 });

  const call = async (method: string, path: string, body?: unknown, raw?: string) => {
    const res = await fetch(`${server.url}${path}`, { method, headers: { "content-type": "application/json" }, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const rpc = (body: unknown, raw?: string) => call("POST", "/a2a/chat", body, raw);

  it("refuses NUL and lone surrogates with 422 naming the field, and stores nothing", async () => {
    const threadId = randomUUID();
    const cases: [string, string, unknown, (string | number)[]][] = [
      ["POST", "/threads", { thread_id: threadId, metadata: { owner: "a\u0000b" } }, ["body", "metadata", "owner"]],
      ["POST", "/threads", { thread_id: threadId, metadata: { ["k\ud800"]: 1 } }, ["body", "metadata", "k\ud800"]],
      ["POST", "/assistants", { graph_id: "chat", name: "x\udc00" }, ["body", "name"]],
      ["POST", "/runs/wait", { assistant_id: "chat", input: { messages: [{ role: "user", content: "hi\u0000" }] } }, ["body", "input", "messages", 0, "content"]],
      ["PUT", "/store/items", { namespace: ["a\u0000"], key: "k", value: { v: 1 } }, ["body", "namespace", 0]],
    ];
    for (const [method, path, body, loc] of cases) {
      const res = await call(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc, type: "string_unstorable" });
    }
    expect((await call("GET", `/threads/${threadId}`)).status).toBe(404);
    expect((await call("GET", "/threads/a%00b")).status).toBe(422);
  });

  it("answers A2A params with NUL or lone surrogates with -32602 naming the field, creating no task", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const bad = [
      { message: { kind: "message", messageId: "m1", role: "user", contextId, parts: [{ kind: "text", text: "hi\u0000" }] } },
      { message: { kind: "message", messageId: "m1", role: "user", contextId: `${contextId}\ud800`, parts: [{ kind: "text", text: "hi" }] } },
    ];
    for (const params of bad) {
      const res = await rpc({ jsonrpc: "2.0", id: 7, method: "message/send", params });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32602, message: "Invalid parameters" } });
      expect(res.body.error.data.detail).toMatch(/^params\.message\.(parts\[0\]\.text|contextId): must not contain/);
    }
    const listed = await rpc({ jsonrpc: "2.0", id: 8, method: "ListTasks", params: { contextId } });
    expect(listed.body.result.tasks).toEqual([]);
    const filter = await rpc({ jsonrpc: "2.0", id: 9, method: "ListTasks", params: { contextId: "a\u0000" } });
    expect(filter.body.error).toMatchObject({ code: -32602 });
  });

  it("treats Object.prototype names as unknown methods", async () => {
    for (const method of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      const res = await rpc({ jsonrpc: "2.0", id: 1, method, params: {} });
      expect(res.body, method).toMatchObject({ id: 1, error: { code: -32601, message: "Method not found" } });
    }
  });

  it("answers a body over the limit with a JSON-RPC error, not {detail}", async () => {
    const text = "x".repeat(100 * 1024);
    const res = await rpc(undefined, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { kind: "message", messageId: "m", role: "user", parts: [{ kind: "text", text }] } } }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Request payload validation error" } });
    expect(res.body.error.data.detail).toMatch(/larger than the limit/);
    // the REST API keeps its own documented shape for the same thing
    const rest = await call("POST", "/threads", undefined, JSON.stringify({ metadata: { text } }));
    expect(rest.status).toBe(413);
    expect(typeof rest.body.detail).toBe("string");
  });

  it("refuses ListTasks pageSize and historyLength out of range", async () => {
    for (const params of [{ pageSize: -1 }, { pageSize: 101 }, { pageSize: 1.5 }, { pageSize: "10" }, { historyLength: -1 }, { status: "bogus" }]) {
      const res = await rpc({ jsonrpc: "2.0", id: 2, method: "ListTasks", params });
      expect(res.body.error, JSON.stringify(params)).toMatchObject({ code: -32602 });
    }
    const ok = await rpc({ jsonrpc: "2.0", id: 3, method: "ListTasks", params: { pageSize: 5 } });
    expect(ok.body.result).toMatchObject({ pageSize: 5 });
  });
});

/**
 * Bad input of every kind (issue "Bad input"): schema errors → 422 naming the field, unknown
 * resources → 404, invalid UUIDs → 422 naming the path parameter, malformed JSON → 400, wrong
 * content type → 415, huge bodies → 413, `if_not_exists`, `reject` on a busy thread → 409 — and
 * never a 500. Afterwards the server still serves a normal run. Also `/openapi.json` and `/docs`.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeBackends, startTestServer, userMessage, type Backend, type TestServer } from "../helpers/server.js";

interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** Every response any test in this file received, to assert that none was a 5xx. */
const seen: { method: string; path: string; status: number }[] = [];

async function call(
  server: TestServer,
  method: string,
  path: string,
  init: { json?: unknown; body?: string | Uint8Array; contentType?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | Uint8Array | undefined = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers["content-type"] = "application/json";
  }
  if (init.contentType) headers["content-type"] = init.contentType;
  const res = await fetch(`${server.url}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  seen.push({ method, path, status: res.status });
  return { status: res.status, body: parsed, text, headers: res.headers };
}

/** Assert a §2.8 validation body and return its items. */
function expectValidation(res: { status: number; body: any }): ValidationItem[] {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(Array.isArray(res.body?.detail)).toBe(true);
  const items = res.body.detail as ValidationItem[];
  expect(items.length).toBeGreaterThan(0);
  for (const item of items) {
    expect(Array.isArray(item.loc)).toBe(true);
    for (const part of item.loc) expect(["string", "number"]).toContain(typeof part);
    expect(typeof item.msg).toBe("string");
    expect(item.msg.length).toBeGreaterThan(0);
    expect(typeof item.type).toBe("string");
    expect(item.type.length).toBeGreaterThan(0);
  }
  return items;
}

function expectLoc(items: ValidationItem[], loc: (string | number)[]): void {
  expect(
    items.some((i) => JSON.stringify(i.loc.slice(0, loc.length)) === JSON.stringify(loc)),
    `expected an item at ${JSON.stringify(loc)}, got ${JSON.stringify(items)}`,
  ).toBe(true);
}

/** A thrown SDK HTTPError: its status and message. */
async function sdkError(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await p;
  } catch (err) {
    return { status: (err as { status: number }).status, message: (err as Error).message };
  }
  throw new Error("expected the SDK call to fail");
}

describeBackends("bad input", (backend: Backend) => {
  let server: TestServer;
  let small: TestServer;
  let threadId: string;
  beforeAll(async () => {
    // `small` listens beyond loopback, where text/plain bodies are read as JSON (see jsonBody)
    [server, small] = await Promise.all([startTestServer(backend), startTestServer(backend, { maxBodyBytes: 2048, host: "0.0.0.0" })]);
    threadId = (await server.client.threads.create()).thread_id;
  });
  afterAll(async () => {
    await Promise.all([server?.close(), small?.close()]);
  });

  describe("schema errors → 422 naming the field", () => {
    it("a run without assistant_id names body.assistant_id", async () => {
      const res = await call(server, "POST", `/threads/${threadId}/runs`, { json: { input: {} } });
      expectLoc(expectValidation(res), ["body", "assistant_id"]);
    });

    it("wrong types name each field", async () => {
      const res = await call(server, "POST", `/threads/${threadId}/runs`, {
        json: { assistant_id: 5, metadata: "not an object", stream_subgraphs: "yes" },
      });
      const items = expectValidation(res);
      expectLoc(items, ["body", "assistant_id"]);
      expectLoc(items, ["body", "metadata"]);
      expectLoc(items, ["body", "stream_subgraphs"]);
    });

    it("an unknown multitask_strategy is 422 and creates no run", async () => {
      const thread = await server.client.threads.create();
      const res = await call(server, "POST", `/threads/${thread.thread_id}/runs`, {
        json: { assistant_id: "chat", input: userMessage("hi"), multitask_strategy: "shove" },
      });
      const items = expectValidation(res);
      expectLoc(items, ["body", "multitask_strategy"]);
      expect(await server.client.runs.list(thread.thread_id)).toEqual([]);
    });

    it("a bad stream_mode (single or in a list) names body.stream_mode", async () => {
      for (const stream_mode of ["everything", ["values", "everything"]]) {
        const res = await call(server, "POST", `/threads/${threadId}/runs/stream`, {
          json: { assistant_id: "chat", input: userMessage("hi"), stream_mode },
        });
        expectLoc(expectValidation(res), ["body", "stream_mode"]);
      }
    });

    it("limit out of range in a body or a query names it", async () => {
      for (const limit of [0, -1, 100_000]) {
        const res = await call(server, "POST", "/threads/search", { json: { limit } });
        expectLoc(expectValidation(res), ["body", "limit"]);
      }
      const q = await call(server, "GET", `/threads/${threadId}/runs?limit=5000`);
      expectLoc(expectValidation(q), ["query", "limit"]);
      const nan = await call(server, "GET", `/threads/${threadId}/runs?limit=lots`);
      expectLoc(expectValidation(nan), ["query", "limit"]);
      const off = await call(server, "POST", "/assistants/search", { json: { offset: -3 } });
      expectLoc(expectValidation(off), ["body", "offset"]);
    });

    it("a body that is not an object (array, string, null) is 422", async () => {
      for (const body of ["[]", '"hello"', "null", "42"]) {
        const res = await call(server, "POST", `/threads/${threadId}/runs`, { body, contentType: "application/json" });
        expectLoc(expectValidation(res), ["body"]);
      }
    });

    it("a missing body on a route that needs one is 422", async () => {
      const res = await call(server, "POST", `/threads/${threadId}/runs`);
      expectLoc(expectValidation(res), ["body"]);
    });

    it("bad values elsewhere: if_exists, cancel action, store namespace, thread status", async () => {
      expectLoc(expectValidation(await call(server, "POST", "/threads", { json: { if_exists: "replace" } })), ["body", "if_exists"]);
      expectLoc(expectValidation(await call(server, "POST", "/threads", { json: { thread_id: "nope" } })), ["body", "thread_id"]);
      expectLoc(expectValidation(await call(server, "POST", "/threads/search", { json: { status: "sleepy" } })), ["body", "status"]);
      expectLoc(expectValidation(await call(server, "PUT", "/store/items", { json: { namespace: [], key: "k", value: {} } })), ["body", "namespace"]);
      expectLoc(expectValidation(await call(server, "PUT", "/store/items", { json: { namespace: ["a.b"], key: "k", value: {} } })), ["body", "namespace", 0]);
      const cancel = await call(server, "POST", `/threads/${threadId}/runs/${randomUUID()}/cancel?action=explode`);
      expectLoc(expectValidation(cancel), ["query", "action"]);
    });

    it("the SDK sees a 422 for an invalid multitask strategy", async () => {
      const err = await sdkError(
        server.client.runs.create(threadId, "chat", { input: userMessage("x"), multitaskStrategy: "bogus" as never }),
      );
      expect(err.status).toBe(422);
      expect(err.message).toContain("multitask_strategy");
    });
  });

  describe("unknown resources → 404 with a clear message", () => {
    it("unknown thread", async () => {
      const id = randomUUID();
      const res = await call(server, "GET", `/threads/${id}`);
      expect(res.status).toBe(404);
      expect(typeof res.body.detail).toBe("string");
      expect(res.body.detail).toContain(id);
      expect(res.body.detail.toLowerCase()).toContain("thread");
      for (const path of [`/threads/${id}/state`, `/threads/${id}/runs`, `/threads/${id}/history`]) {
        const r = await call(server, "GET", path);
        expect(r.status, path).toBe(404);
        expect(typeof r.body.detail).toBe("string");
      }
      const patch = await call(server, "PATCH", `/threads/${id}`, { json: { metadata: { a: 1 } } });
      expect(patch.status).toBe(404);
      expect((await sdkError(server.client.threads.get(id))).status).toBe(404);
      expect((await sdkError(server.client.threads.getState(id))).status).toBe(404);
      expect((await sdkError(server.client.threads.delete(id))).status).toBe(404);
    });

    it("unknown assistant, by uuid and by name", async () => {
      const id = randomUUID();
      const byId = await call(server, "GET", `/assistants/${id}`);
      expect(byId.status).toBe(404);
      expect(byId.body.detail).toContain(id);
      const byName = await call(server, "GET", "/assistants/no-such-graph");
      expect(byName.status).toBe(404);
      expect(byName.body.detail).toContain("no-such-graph");
      expect((await call(server, "GET", `/assistants/${id}/graph`)).status).toBe(404);
      expect((await call(server, "GET", `/assistants/${id}/schemas`)).status).toBe(404);
      expect((await sdkError(server.client.assistants.get(id))).status).toBe(404);

      const run = await call(server, "POST", `/threads/${threadId}/runs`, { json: { assistant_id: "no-such-graph", input: {} } });
      expect(run.status).toBe(404);
      expect(run.body.detail).toContain("no-such-graph");
      const stateless = await sdkError(server.client.runs.wait(null, "no-such-graph", { input: {} }));
      expect(stateless.status).toBe(404);
    });

    it("unknown run", async () => {
      const runId = randomUUID();
      const res = await call(server, "GET", `/threads/${threadId}/runs/${runId}`);
      expect(res.status).toBe(404);
      expect(res.body.detail).toContain(runId);
      expect((await call(server, "GET", `/threads/${threadId}/runs/${runId}/join`)).status).toBe(404);
      expect((await call(server, "GET", `/threads/${threadId}/runs/${runId}/stream`)).status).toBe(404);
      expect((await call(server, "POST", `/threads/${threadId}/runs/${runId}/cancel`)).status).toBe(404);
      expect((await call(server, "DELETE", `/threads/${threadId}/runs/${runId}`)).status).toBe(404);
      expect((await sdkError(server.client.runs.get(threadId, runId))).status).toBe(404);
      expect((await sdkError(server.client.runs.join(threadId, runId))).status).toBe(404);
    });

    it("a run of another thread is not found under this thread", async () => {
      const other = await server.client.threads.create();
      const run = await server.client.runs.create(other.thread_id, "chat", { input: userMessage("mine") });
      const res = await call(server, "GET", `/threads/${threadId}/runs/${run.run_id}`);
      expect(res.status).toBe(404);
      await server.client.runs.join(other.thread_id, run.run_id);
    });

    it("unknown cron", async () => {
      const id = randomUUID();
      const res = await call(server, "GET", `/runs/crons/${id}`);
      expect(res.status).toBe(404);
      expect(typeof res.body.detail).toBe("string");
      expect((await call(server, "DELETE", `/runs/crons/${id}`)).status).toBe(404);
    });
  });

  describe("invalid UUIDs in paths → 422 naming the parameter", () => {
    const cases: [string, string, string][] = [
      ["GET", "/threads/not-a-uuid", "thread_id"],
      ["PATCH", "/threads/1234", "thread_id"],
      ["DELETE", "/threads/zzz", "thread_id"],
      ["GET", "/threads/not-a-uuid/state", "thread_id"],
      ["POST", "/threads/not-a-uuid/runs", "thread_id"],
      ["GET", "/threads/not-a-uuid/runs", "thread_id"],
      ["GET", `/threads/{thread}/runs/not-a-uuid`, "run_id"],
      ["GET", `/threads/{thread}/runs/not-a-uuid/join`, "run_id"],
      ["POST", `/threads/{thread}/runs/not-a-uuid/cancel`, "run_id"],
      ["GET", "/runs/not-a-uuid/stream", "run_id"],
      ["GET", "/runs/crons/not-a-uuid", "cron_id"],
      ["GET", `/threads/${"0".repeat(36)}`, "thread_id"],
    ];
    it.each(cases)("%s %s names %s", async (method, rawPath, param) => {
      const path = rawPath.replace("{thread}", threadId);
      const res = await call(server, method, path, method === "GET" || method === "DELETE" ? {} : { json: { assistant_id: "chat" } });
      const items = expectValidation(res);
      expectLoc(items, ["path", param]);
    });

    it("the SDK sees 422 for a malformed thread id", async () => {
      expect((await sdkError(server.client.threads.get("definitely-not-a-uuid"))).status).toBe(422);
    });

    it("UUIDs inside bodies are validated too", async () => {
      const res = await call(server, "POST", "/threads/search", { json: { ids: [randomUUID(), "bad"] } });
      expectLoc(expectValidation(res), ["body", "ids", 1]);
      const prune = await call(server, "POST", "/threads/prune", { json: { thread_ids: ["bad"] } });
      expectLoc(expectValidation(prune), ["body", "thread_ids", 0]);
    });
  });

  describe("transport errors", () => {
    it("malformed JSON → 400", async () => {
      for (const body of ["{", '{"assistant_id": "chat",}', "{'a': 1}", "undefined"]) {
        const res = await call(server, "POST", `/threads/${threadId}/runs`, { body, contentType: "application/json" });
        expect(res.status, body).toBe(400);
        expect(typeof res.body.detail).toBe("string");
        expect(res.body.detail.toLowerCase()).toContain("json");
      }
      const plain = await call(small, "POST", "/threads", { body: "{nope", contentType: "text/plain" });
      expect(plain.status).toBe(400);
    });

    it("JSON sent as text/plain (as LangGraph Studio does) is accepted beyond loopback, refused (415) on loopback", async () => {
      const res = await call(small, "POST", "/threads", { body: JSON.stringify({ metadata: { via: "text" } }), contentType: "text/plain;charset=UTF-8" });
      expect(res.status).toBe(200);
      expect(res.body.metadata).toEqual({ via: "text" });
      // a keyless server on loopback: a plain-text POST is what any web page may send it unasked
      const local = await call(server, "POST", "/threads", { body: JSON.stringify({ metadata: { via: "text" } }), contentType: "text/plain;charset=UTF-8" });
      expect(local.status).toBe(415);
    });

    it("wrong content type → 415", async () => {
      const xml = await call(server, "POST", `/threads/${threadId}/runs`, { body: "<run><assistant_id>chat</assistant_id></run>", contentType: "text/xml" });
      expect(xml.status).toBe(415);
      expect(xml.body.detail).toContain("text/xml");
      const form = new FormData();
      form.set("assistant_id", "chat");
      const res = await fetch(`${server.url}/threads/${threadId}/runs`, { method: "POST", body: form });
      seen.push({ method: "POST", path: "multipart", status: res.status });
      expect(res.status).toBe(415);
      expect(((await res.json()) as { detail: string }).detail).toContain("multipart/form-data");
      const urlencoded = await call(server, "POST", "/threads", { body: "a=1", contentType: "application/x-www-form-urlencoded" });
      expect(urlencoded.status).toBe(415);
      const octet = await call(server, "POST", "/threads", { body: new Uint8Array([1, 2, 3]), contentType: "application/octet-stream" });
      expect(octet.status).toBe(415);
    });

    it("a body over the configured limit → 413; one under it works", async () => {
      const big = { metadata: { blob: "x".repeat(4000) } };
      const res = await call(small, "POST", "/threads", { json: big });
      expect(res.status).toBe(413);
      expect(res.body.detail).toMatch(/2048/);
      const chunked = await fetch(`${small.url}/threads`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(c) {
            c.enqueue(new TextEncoder().encode(JSON.stringify(big)));
            c.close();
          },
        }),
        duplex: "half",
      } as RequestInit);
      seen.push({ method: "POST", path: "chunked", status: chunked.status });
      expect(chunked.status).toBe(413);
      const ok = await call(small, "POST", "/threads", { json: { metadata: { blob: "x".repeat(500) } } });
      expect(ok.status).toBe(200);
      const sdk = await sdkError(small.client.threads.create({ metadata: { blob: "y".repeat(5000) } }));
      expect(sdk.status).toBe(413);
    });

    it("broken percent-encoding, an unsupported charset and a bad Last-Event-ID are 4xx", async () => {
      const enc = await call(server, "GET", "/threads/%E0%A4%A");
      expect(enc.status).toBe(400);
      expect(typeof enc.body.detail).toBe("string");
      const charset = await call(server, "POST", "/threads", { body: "{}", contentType: "application/json; charset=klingon" });
      expect(charset.status).toBe(415);
      expect(typeof charset.body.detail).toBe("string");
      const run = await server.client.runs.create(threadId, "chat", { input: userMessage("for last-event-id") });
      const header = await call(server, "GET", `/threads/${threadId}/runs/${run.run_id}/stream`, { headers: { "last-event-id": "abc" } });
      expectLoc(expectValidation(header), ["header", "Last-Event-ID"]);
      await server.client.runs.join(threadId, run.run_id);
    });

    it("unknown routes → 404 JSON", async () => {
      for (const [method, path] of [
        ["GET", "/nope"],
        ["POST", "/threads/x/y/z/w"],
        ["GET", "/assistants/search"],
        ["PUT", "/threads"],
      ] as const) {
        const res = await call(server, method, path, method === "GET" ? {} : { json: {} });
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.headers.get("content-type")).toMatch(/application\/json/);
        expect(typeof res.body.detail).toBe("string");
      }
    });
  });

  describe("if_not_exists and reject", () => {
    it("a run on a missing thread: 404 by default, created with if_not_exists=create", async () => {
      const missing = randomUUID();
      const res = await call(server, "POST", `/threads/${missing}/runs`, { json: { assistant_id: "chat", input: userMessage("hi") } });
      expect(res.status).toBe(404);
      expect(res.body.detail).toContain(missing);
      expect((await call(server, "GET", `/threads/${missing}`)).status).toBe(404);
      const explicit = await sdkError(server.client.runs.create(missing, "chat", { input: userMessage("hi"), ifNotExists: "reject" }));
      expect(explicit.status).toBe(404);

      const run = await server.client.runs.create(missing, "chat", { input: userMessage("hi"), ifNotExists: "create" });
      expect(run.thread_id).toBe(missing);
      await server.client.runs.join(missing, run.run_id);
      const state = await server.client.threads.getState<{ messages: { content: string }[] }>(missing);
      expect(state.values.messages.map((m) => m.content)).toEqual(["hi", "You said: hi"]);
    });

    it("reject on a busy thread → 409 and the run is not created", async () => {
      const thread = await server.client.threads.create();
      const first = await server.client.runs.create(thread.thread_id, "slow", {
        input: userMessage("first"),
        config: { configurable: { delay_ms: 4000 } },
      });
      const res = await call(server, "POST", `/threads/${thread.thread_id}/runs`, {
        json: { assistant_id: "slow", input: userMessage("second"), multitask_strategy: "reject" },
      });
      expect(res.status).toBe(409);
      expect(typeof res.body.detail).toBe("string");
      const sdk = await sdkError(
        server.client.runs.create(thread.thread_id, "slow", { input: userMessage("third"), multitaskStrategy: "reject" }),
      );
      expect(sdk.status).toBe(409);
      const runs = await server.client.runs.list(thread.thread_id);
      expect(runs.map((r) => r.run_id)).toEqual([first.run_id]);
      await server.client.runs.join(thread.thread_id, first.run_id);
      const state = await server.client.threads.getState<{ messages: { content: string }[] }>(thread.thread_id);
      expect(state.values.messages.map((m) => m.content)).toEqual(["first", "You said: first"]);
      expect((await server.client.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
    });
  });

  describe("no route answers 500 to garbage", () => {
    it("every declared operation, with bad ids and garbage bodies, answers 4xx or 2xx", async () => {
      const doc = (await call(server, "GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
      const bodies = ['{"x":[1,{"y":null}]}', "[]", "null", '"s"', '{"limit":"many","metadata":[]}'];
      const failures: string[] = [];
      for (const [template, ops] of Object.entries(doc.paths)) {
        for (const method of Object.keys(ops)) {
          // Skip routes that legitimately block (streams and waits would succeed on a real run).
          for (const id of ["not-a-uuid", randomUUID()]) {
            const path = template.replace(/\{[^}]+\}/g, id);
            for (const body of method === "get" || method === "delete" ? [undefined] : bodies) {
              const res = await call(server, method.toUpperCase(), path, body === undefined ? {} : { body, contentType: "application/json" });
              if (res.status >= 500 || (res.status !== 204 && res.body === undefined)) {
                failures.push(`${method.toUpperCase()} ${path} ${body ?? ""} → ${res.status} ${res.text}`);
              }
            }
          }
        }
      }
      expect(failures).toEqual([]);
    });

    it("store search with an empty namespace prefix (the SDK's default) searches everything", async () => {
      await server.client.store.putItem(["bad-input", "ns"], "k1", { v: 1 });
      const found = await server.client.store.searchItems([]);
      expect(found.items.map((i) => i.key)).toContain("k1");
      const raw = await call(server, "POST", "/store/items/search", { json: {} });
      expect(raw.status).toBe(200);
    });
  });

  describe("after all of that", () => {
    it("nothing answered 500", () => {
      expect(seen.length).toBeGreaterThan(50);
      expect(seen.filter((s) => s.status >= 500)).toEqual([]);
    });

    it("the server still serves a normal run and lost nothing accepted", async () => {
      const ok = await call(server, "GET", "/ok");
      expect(ok.status).toBe(200);
      const thread = await server.client.threads.create({ metadata: { after: "bad input" } });
      const result = await server.client.runs.wait(thread.thread_id, "chat", { input: userMessage("still alive?") });
      expect((result as { messages: { content: string }[] }).messages.map((m) => m.content)).toEqual([
        "still alive?",
        "You said: still alive?",
      ]);
      // The thread created before the bad requests and its accepted run are intact.
      const runs = await server.client.runs.list(threadId);
      for (const r of runs) expect(["success", "pending", "running"]).toContain(r.status);
      expect((await server.client.threads.get(threadId)).thread_id).toBe(threadId);
      const found = await server.client.threads.search({ metadata: { after: "bad input" } });
      expect(found.map((t) => t.thread_id)).toEqual([thread.thread_id]);
    });
  });
});

describe("OpenAPI and docs", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer("pglite");
  });
  afterAll(() => server?.close());

  it("GET /openapi.json is an OpenAPI 3.1 document with the main paths and request schemas", async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(typeof doc.info.title).toBe("string");
    expect(typeof doc.info.version).toBe("string");
    for (const [path, method] of [
      ["/threads", "post"],
      ["/threads/{thread_id}", "get"],
      ["/threads/{thread_id}/runs", "post"],
      ["/threads/{thread_id}/runs", "get"],
      ["/threads/{thread_id}/runs/stream", "post"],
      ["/threads/{thread_id}/runs/{run_id}/join", "get"],
      ["/threads/{thread_id}/state", "get"],
      ["/assistants/search", "post"],
      ["/assistants/{assistant_id}", "get"],
      ["/runs/wait", "post"],
      ["/store/items", "put"],
      ["/runs/crons", "post"],
      ["/ok", "get"],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const createRun = doc.paths["/threads/{thread_id}/runs"].post;
    const schema = createRun.requestBody.content["application/json"].schema;
    expect(schema.type).toBe("object");
    expect(schema.required).toContain("assistant_id");
    expect(schema.properties.multitask_strategy).toBeDefined();
    expect(JSON.stringify(schema.properties.multitask_strategy)).toContain("enqueue");
    expect(createRun.parameters).toContainEqual(expect.objectContaining({ name: "thread_id", in: "path", required: true }));
    expect(createRun.responses["422"]).toBeDefined();
    const search = doc.paths["/assistants/search"].post.requestBody.content["application/json"].schema;
    expect(search.properties.limit).toBeDefined();
    const listRuns = doc.paths["/threads/{thread_id}/runs"].get;
    expect(listRuns.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(["thread_id", "limit", "offset"]));
    // Every $ref resolves inside the document, and every operation id is unique.
    const text = JSON.stringify(doc);
    for (const m of text.matchAll(/"\$ref":"([^"]+)"/g)) {
      const ref = m[1]!;
      expect(ref, ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.slice("#/components/schemas/".length)], ref).toBeDefined();
    }
    // Schemas are in the 3.1 dialect (JSON Schema 2020-12), not 3.0's `nullable` / boolean exclusive bounds.
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}[${i}]`));
      if (node === null || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      expect(o, where).not.toHaveProperty("nullable");
      for (const k of ["exclusiveMinimum", "exclusiveMaximum"]) if (k in o) expect(typeof o[k], `${where}.${k}`).toBe("number");
      for (const [k, v] of Object.entries(o)) walk(v, `${where}.${k}`);
    };
    walk(doc.paths, "paths");
    const assistantCreate = doc.paths["/assistants"].post.requestBody.content["application/json"].schema;
    expect(JSON.stringify(assistantCreate.properties.description)).toContain('"null"');
    const ids = Object.values(doc.paths).flatMap((ops: any) => Object.values(ops).map((op: any) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.components.schemas.HTTPValidationError.properties.detail.items.required).toEqual(["loc", "msg", "type"]);
  });

  it("GET /docs is HTML whose assets load", async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(2);
    expect(html).toContain("/openapi.json");
    for (const asset of assets) {
      const a = await fetch(new URL(asset, `${server.url}/docs`));
      expect(a.status, asset).toBe(200);
      const body = await a.text();
      expect(body.length, asset).toBeGreaterThan(1000);
    }
  });
});

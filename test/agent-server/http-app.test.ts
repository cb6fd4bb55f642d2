/**
 * `http` of langgraph.json as on LangGraph Platform: a user's Hono app or plain fetch handler
 * (`http.app`) mounted in front of Berth's routes, `http.configurable_headers`, `http.mount_prefix`.
 */
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { createTestDatabase, ROOT, testSettings, userMessage, type TestDatabase } from "../helpers/server.js";
import { tempProject } from "../helpers/projects.js";

const FIXTURES = path.join(ROOT, "test/fixtures/custom-app");

function serverOn(config: string) {
  const s = { url: "", handle: undefined as AgentServerHandle | undefined, db: undefined as TestDatabase | undefined };
  beforeAll(async () => {
    s.db = await createTestDatabase("pglite");
    s.handle = await startAgentServer(testSettings(s.db, { configPath: path.join(FIXTURES, config) }), silentLogger);
    s.url = s.handle.url!;
  });
  afterAll(async () => {
    await s.handle?.close(0);
    await s.db?.drop();
  });
  return s;
}

describe("http.app: a Hono app with middleware, and http.configurable_headers", () => {
  const s = serverOn("langgraph.hono.json");

  it("serves the app's routes (with their bodies) and lets it override a built-in route", async () => {
    const hello = await fetch(`${s.url}/custom/hello`);
    expect(hello.status).toBe(200);
    expect(await hello.json()).toEqual({ hello: "world", path: "/custom/hello" });
    const echo = await fetch(`${s.url}/custom/echo`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ a: [1, 2] }) });
    expect(await echo.json()).toEqual({ got: { a: [1, 2] } });
    expect(await (await fetch(`${s.url}/info`)).json()).toEqual({ overridden: true });
  });

  it("runs its middleware before Berth's routes: headers it adds stay, a request it refuses never reaches Berth", async () => {
    const client = new Client({ apiUrl: s.url, callerOptions: { maxRetries: 0 } });
    const ok = await fetch(`${s.url}/ok`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-custom-mw")).toBe("seen");
    // a body Berth parses still arrives whole after the middleware
    const t = await client.threads.create({ metadata: { via: "middleware" } });
    expect((await client.threads.get(t.thread_id)).metadata).toMatchObject({ via: "middleware" });

    const before = await client.threads.count();
    const blocked = await fetch(`${s.url}/threads`, { method: "POST", headers: { "content-type": "application/json", "x-block": "yes" }, body: "{}" });
    expect(blocked.status).toBe(403);
    expect(await blocked.json()).toEqual({ detail: "blocked by the custom middleware" });
    expect(await client.threads.count()).toBe(before);
  });

  it("copies only the headers configurable_headers selects into the run's configurable", async () => {
    const client = new Client({
      apiUrl: s.url,
      callerOptions: { maxRetries: 0 },
      defaultHeaders: { "x-tenant-name": "acme", "x-tenant-secret": "hunter2", "x-request-id": "req-1", "x-other": "o" },
    });
    const out = (await client.runs.wait(null, "introspect", { input: userMessage("hi") })) as { messages: { content: string }[] };
    const seen = JSON.parse(out.messages.at(-1)!.content) as { configurable: Record<string, unknown> };
    expect(seen.configurable["x-tenant-name"]).toBe("acme");
    expect(seen.configurable["x-request-id"]).toBe("req-1");
    expect(seen.configurable).not.toHaveProperty("x-tenant-secret");
    expect(seen.configurable).not.toHaveProperty("x-other");
  });
});

describe("http.app as a plain fetch handler, under http.mount_prefix", () => {
  const s = serverOn("langgraph.fetch.json");

  it("mounts every route under the prefix; the handler's 404s fall through to Berth", async () => {
    const hello = await fetch(`${s.url}/api/hello`);
    expect(await hello.json()).toEqual({ hello: "from a fetch handler", path: "/hello" });
    expect((await fetch(`${s.url}/api/ok`)).status).toBe(200);
    const outside = await fetch(`${s.url}/ok`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toHaveProperty("detail");
    const client = new Client({ apiUrl: `${s.url}/api`, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const out = (await client.runs.wait(thread.thread_id, "chat", { input: userMessage("under a prefix") })) as { messages: unknown[] };
    expect(out.messages).toHaveLength(2);
  });

  it("names run and stream URLs under the prefix (Location, Content-Location), and they answer there", async () => {
    const post = (path: string, body: unknown) => fetch(`${s.url}/api${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const thread = (await (await post("/threads", {})).json()) as { thread_id: string };
    const created = await post(`/threads/${thread.thread_id}/runs`, { assistant_id: "chat", input: userMessage("located") });
    const run = (await created.json()) as { run_id: string };
    expect(created.headers.get("content-location")).toBe(`/api/threads/${thread.thread_id}/runs/${run.run_id}`);
    const got = await fetch(`${s.url}${created.headers.get("content-location")}`);
    expect(((await got.json()) as { run_id: string }).run_id).toBe(run.run_id);

    const streamed = await post(`/threads/${thread.thread_id}/runs/stream`, { assistant_id: "chat", input: userMessage("streamed") });
    await streamed.text();
    const location = streamed.headers.get("location")!;
    expect(location).toMatch(new RegExp(`^/api/threads/${thread.thread_id}/runs/[0-9a-f-]{36}/stream$`));
    expect(streamed.headers.get("content-location")).toBe(location.replace(/\/stream$/, ""));
    const joined = await fetch(`${s.url}${location}`);
    expect(joined.status).toBe(200);
    await joined.text();

    const threadStream = await fetch(`${s.url}/api/threads/${thread.thread_id}/stream`, { headers: { "last-event-id": "-1" }, signal: AbortSignal.timeout(60_000) });
    expect(threadStream.headers.get("content-location")).toBe(`/api/threads/${thread.thread_id}/stream`);
    await threadStream.body?.cancel();
  });
});

describe("http.app that cannot be used", () => {
  it("stops start-up with a message naming the problem", async () => {
    const project = await tempProject(
      { "package.json": JSON.stringify({ type: "module" }), "app.js": "export const app = 42;\n", "agent.js": "export const graph = 1;\n" },
      {},
    );
    const db = await createTestDatabase("pglite");
    try {
      const write = async (app: string) => {
        const { writeFile } = await import("node:fs/promises");
        await writeFile(project.config, JSON.stringify({ graphs: { chat: path.join(ROOT, "examples/chat/agent.ts:graph") }, http: { app } }));
        return startAgentServer(testSettings(db, { configPath: project.config }), silentLogger).then(
          async (h) => {
            await h.close(0);
            return "started";
          },
          (e: Error) => e.message,
        );
      };
      expect(await write("./app.js:app")).toContain(`http.app "./app.js:app": the export "app" is not a Hono app or a fetch handler`);
      expect(await write("./missing.js:app")).toContain("file not found");
    } finally {
      await project.remove();
      await db.drop();
    }
  });
});

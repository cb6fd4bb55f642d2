import { randomUUID } from "node:crypto";
import path from "node:path";
import { it } from "vitest";
import { ROOT, startTestServer, sleep } from "../helpers/server.js";
it("scratch", async () => {
  const server = await startTestServer("pglite", { configPath: path.join(ROOT, "test/fixtures/mcp/langgraph.json") });
  const slow = await server.client.assistants.create({ graphId: "echo", name: `slow-${randomUUID().slice(0, 6)}`, config: { configurable: { delay_ms: 600_000 } } });
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: slow.name, arguments: { messages: [{ role: "user", content: "x" }] } } });
  const gone = new AbortController();
  const p = fetch(`${server.url}/mcp`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" }, body, signal: gone.signal }).then(async (r) => { console.log("status", r.status, r.headers.get("content-type")); return r.text(); }).then((t) => console.log("TEXT", t)).catch((e) => console.log("ERR", e.message));
  for (let i = 0; i < 10; i++) { await sleep(500); console.log("threads", JSON.stringify((await server.client.threads.search({ limit: 10 })).map((t) => [t.thread_id, t.status]))); }
  gone.abort(); await p;
  for (let i = 0; i < 6; i++) { await sleep(500); console.log("threads after", JSON.stringify((await server.client.threads.search({ limit: 10 })).map((t) => [t.thread_id, t.status]))); }
  await server.close();
}, 120000);

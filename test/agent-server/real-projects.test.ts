/**
 * Real LangGraph.js project shapes, deployed unchanged: the fixtures under test/fixtures/projects/
 * are our own small projects laid out like the public templates (ReAct agent, memory agent,
 * retrieval agent, data enrichment; the memory agent again with `store.index`), like the generative UI
 * examples (`ui`, `typedUi`) and like a project with custom routes (`http.app`). Each is
 * served as `berth serve` serves it (its langgraph.json, embedded PGlite) and driven through the
 * SDK; their model calls (`initChatModel`, `new ChatOpenAI`) and embeddings (`"openai:<model>"`) go
 * to a scripted LLM on loopback.
 * The last suite deploys one of them from a git repository through `berth dev`'s local runtime.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { projectBrain } from "../helpers/project-brain.js";
import { startScriptedLlm, type ScriptedLlm } from "../helpers/scripted-llm.js";
import { createTestDatabase, ROOT, testSettings, type TestDatabase } from "../helpers/server.js";
import { createRepo, scratchDir } from "../runtime/local-repo.js";
import { cosine, vocabVector } from "../fixtures/store-index/vocab.js";

export const PROJECTS = path.join(ROOT, "test/fixtures/projects");

const LLM_ENV = ["OPENAI_BASE_URL", "OPENAI_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"] as const;
let llm: ScriptedLlm;
const savedEnv: Record<string, string | undefined> = {};

/** The scripted LLM's embeddings: word counts of a small vocabulary, padded to the template's 1536 dims. */
const embed = (text: string) => [...vocabVector(text), ...new Array<number>(1536 - 8).fill(0)];

/** Where the projects' model clients look for their provider: the scripted LLM, nothing remote. */
export function llmEnv(l: ScriptedLlm): Record<(typeof LLM_ENV)[number], string> {
  return { OPENAI_BASE_URL: l.openaiUrl, OPENAI_API_KEY: "sk-scripted", ANTHROPIC_BASE_URL: l.anthropicUrl, ANTHROPIC_API_KEY: "sk-ant-scripted" };
}

beforeAll(async () => {
  llm = await startScriptedLlm(projectBrain, embed);
  for (const [k, v] of Object.entries(llmEnv(llm))) {
    savedEnv[k] = process.env[k];
    process.env[k] = v;
  }
});
afterAll(async () => {
  for (const k of LLM_ENV) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
  await llm?.close();
});

/** Serve one project for the enclosing suite, as `berth serve --config <project>/<config>` does. */
function serveProject(shape: string, config = "langgraph.json") {
  const s = { url: "", client: undefined as unknown as Client, handle: undefined as AgentServerHandle | undefined, db: undefined as TestDatabase | undefined };
  beforeAll(async () => {
    s.db = await createTestDatabase("pglite");
    s.handle = await startAgentServer(testSettings(s.db, { configPath: path.join(PROJECTS, shape, config) }), silentLogger);
    s.url = s.handle.url!;
    s.client = new Client({ apiUrl: s.url, callerOptions: { maxRetries: 0 } });
  }, 60_000);
  afterAll(async () => {
    await s.handle?.close(0);
    await s.db?.drop();
  });
  return s;
}

type Msg = { type: string; content: unknown; tool_calls?: { name: string; args: Record<string, unknown> }[]; name?: string; status?: string };
const user = (content: string) => ({ messages: [{ role: "user", content }] });
const text = (m: Msg | undefined) => (typeof m?.content === "string" ? m.content : JSON.stringify(m?.content));

describe("ReAct agent (tools in a ToolNode loop; model from configurable `model` via initChatModel)", () => {
  const s = serveProject("react-agent");

  it("with the template's default Anthropic model: parallel tool calls, their results in state, an answer built from them", async () => {
    const thread = await s.client.threads.create();
    const out = (await s.client.runs.wait(thread.thread_id, "agent", { input: user("capital of France and tallest mountain") })) as { messages: Msg[] };
    expect(out.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "tool", "ai"]);
    expect(out.messages[1]!.tool_calls!.map((c) => c.args.query)).toEqual(["capital of France", "tallest mountain"]);
    expect(out.messages.filter((m) => m.type === "tool").map(text)).toEqual(["Paris is the capital of France.", "Mount Everest is the tallest mountain above sea level."]);
    expect(text(out.messages.at(-1))).toBe("From my searches: Paris is the capital of France. Mount Everest is the tallest mountain above sea level.");
    expect(llm.requests.filter((r) => r.api === "anthropic" && r.model === "claude-sonnet-4-5").length).toBeGreaterThanOrEqual(2);
    // the checkpointed thread holds the same conversation
    const state = await s.client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(state.values.messages).toHaveLength(5);
  });

  it("an assistant choosing an OpenAI model by config, streamed: the tool result and the answer arrive as messages", async () => {
    const assistant = await s.client.assistants.create({ graphId: "agent", config: { configurable: { model: "openai/gpt-4o-mini" } } });
    const before = llm.requests.length;
    const thread = await s.client.threads.create();
    const seen: Msg[] = [];
    for await (const chunk of s.client.runs.stream(thread.thread_id, assistant.assistant_id, { input: user("capital of France"), streamMode: ["messages-tuple"] })) {
      if (chunk.event === "messages") seen.push((chunk.data as [Msg, unknown])[0]);
    }
    expect(seen.some((m) => m.type === "tool" && text(m) === "Paris is the capital of France.")).toBe(true);
    expect(seen.filter((m) => /^ai/i.test(m.type)).map(text).join("")).toContain("From my searches: Paris is the capital of France.");
    expect(llm.requests.slice(before).map((r) => `${r.api}:${r.model}`)).toEqual(["openai:gpt-4o-mini", "openai:gpt-4o-mini"]);
  });
});

describe("memory agent (store put/search inside nodes, namespaced per user from configurable)", () => {
  const s = serveProject("memory-agent");
  const as = (userId: string) => ({ config: { configurable: { userId } } });

  it("a memory saved in one thread is in the store under the user's namespace and reaches the model in another thread", async () => {
    const saved = (await s.client.runs.wait(null, "agent", { input: user("remember that I like green tea"), ...as("alice") })) as { messages: Msg[] };
    expect(saved.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(text(saved.messages[2])).toMatch(/^Stored memory [0-9a-f-]{36}$/);
    await s.client.runs.wait(null, "agent", { input: user("remember that I live in Lyon"), ...as("alice") });

    const items = (await s.client.store.searchItems(["memories", "alice"])).items;
    expect(items.map((i) => i.value).sort((a: any, b: any) => a.content.localeCompare(b.content))).toEqual([
      { content: "I like green tea", context: "said in chat" },
      { content: "I live in Lyon", context: "said in chat" },
    ]);
    expect(text(saved.messages[2])).toBe(`Stored memory ${items.find((i) => i.value.content === "I like green tea")!.key}`);

    const thread = await s.client.threads.create();
    const recalled = (await s.client.runs.wait(thread.thread_id, "agent", { input: user("what do you know about me?"), ...as("alice") })) as { messages: Msg[] };
    expect(text(recalled.messages.at(-1))).toBe("I remember: I like green tea; I live in Lyon");
  });

  it("another user sees none of it; text search over the store finds a memory by its words", async () => {
    const bob = (await s.client.runs.wait(null, "agent", { input: user("what do you know about me?"), ...as("bob") })) as { messages: Msg[] };
    expect(text(bob.messages.at(-1))).toBe("I know nothing about you yet.");
    expect((await s.client.store.searchItems(["memories", "bob"])).items).toEqual([]);
    const tea = (await s.client.store.searchItems(["memories"], { query: "tea" })).items;
    expect(tea.map((i) => [i.namespace, i.value.content])).toEqual([[["memories", "alice"], "I like green tea"]]);
  });

});

describe("memory agent with store.index (langgraph.semantic.json: openai:text-embedding-3-small, 1536 dims)", () => {
  const s = serveProject("memory-agent", "langgraph.semantic.json");
  const as = { config: { configurable: { userId: "dana" } } };
  const memories = ["my dog is my pet", "I feed my dog pizza", "I love pizza and pasta food"];
  const ask = async (q: string) => text(((await s.client.runs.wait(null, "agent", { input: user(q), ...as })) as { messages: Msg[] }).messages.at(-1));

  it("the graph's store.search(ns, { query }) recalls the memories closest in meaning, best first, embedded by the named model", async () => {
    for (const m of memories) await s.client.runs.wait(null, "agent", { input: user(`remember that ${m}`), ...as });
    // the tool's puts were embedded: a query search over HTTP ranks them with the expected scores
    const query = "dog food for my pet dog";
    const found = (await s.client.store.searchItems(["memories", "dana"], { query })).items;
    expect(found.map((i) => i.value.content)).toEqual(["my dog is my pet", "I feed my dog pizza", "I love pizza and pasta food"]);
    found.forEach((i) => expect(i.score).toBeCloseTo(cosine(vocabVector(query), vocabVector(JSON.stringify(i.value))), 5));

    // the graph recalls the best two for what was asked, in order of similarity
    expect(await ask(query)).toBe("Most relevant: my dog is my pet; I feed my dog pizza");
    expect(await ask("pizza or pasta tonight?")).toBe("Most relevant: I love pizza and pasta food; I feed my dog pizza");
    // the model named in langgraph.json embedded the memories (whole values, `fields` defaulting to "$") and the queries
    expect(new Set(llm.embeddings.map((e) => e.model))).toEqual(new Set(["text-embedding-3-small"]));
    const embedded = llm.embeddings.flatMap((e) => e.input);
    for (const m of memories) expect(embedded).toContain(JSON.stringify({ content: m, context: "said in chat" }));
    expect(embedded).toEqual(expect.arrayContaining([query, "pizza or pasta tonight?"]));
  });
});

describe("generative UI project (langgraph.json `ui`: a stockbroker agent pushing components with typedUi)", () => {
  const s = serveProject("generative-ui");

  it("a run's pushed UI message reaches the custom stream and the final state's ui key, tied to the model's message", async () => {
    const thread = await s.client.threads.create();
    const chunks: { event: string; data: any }[] = [];
    for await (const c of s.client.runs.stream(thread.thread_id, "agent", { input: user("What is the price of AAPL?"), streamMode: ["custom", "values"] })) chunks.push(c);
    const runId = chunks.find((c) => c.event === "metadata")!.data.run_id as string;
    const custom = chunks.filter((c) => c.event === "custom").map((c) => c.data);
    expect(custom).toEqual([
      { type: "ui", id: expect.any(String), name: "stock-price", props: { ticker: "AAPL", price: 187.5, change: 1.2 }, metadata: expect.objectContaining({ run_id: runId, id: expect.any(String) }) },
    ]);
    const state = await s.client.threads.getState<{ ui: any[]; messages: (Msg & { id: string })[] }>(thread.thread_id);
    expect(state.values.ui).toEqual(custom);
    expect(chunks.filter((c) => c.event === "values").at(-1)!.data.ui).toEqual(custom);
    // the component belongs to the model's tool-calling message, and the conversation went on after it
    const messages = state.values.messages;
    expect(messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(custom[0].metadata.id).toBe(messages[1]!.id);
    expect(text(messages.at(-1))).toBe("Here is the price card. AAPL is at 187.5 USD (+1.2%).");
  });

  it("POST /ui/agent answers the snippet for the component; the bundle and stylesheet it names are served", async () => {
    const res = await fetch(`${s.url}/ui/agent`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "stock-price", props: { ticker: "AAPL" } }) });
    expect(res.status).toBe(200);
    const html = await res.text();
    const js = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)" \/>/g)].map((m) => m[1]!);
    expect(js).toHaveLength(1);
    expect(css).toHaveLength(1);
    expect(/onload='([^']*)'/.exec(html)![1]!.replace(/&#34;/g, '"')).toBe('__LGUI_agent.render("stock-price", "{{shadowRootId}}")');
    const bundle = await fetch(js[0]!);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    const source = await bundle.text();
    expect(source).toContain("__LGUI_agent");
    expect(source).toContain('"stock-price"');
    expect(source).toContain("toFixed(2)"); // the project's component, built from src/agent/uis/stock-price.tsx
    const sheet = await fetch(css[0]!);
    expect(sheet.status).toBe(200);
    expect(await sheet.text()).toContain("rgb(22, 163, 74)");
  });
});

describe("retrieval agent (two graphs in one langgraph.json: an indexer and a retrieval graph over a store-backed retriever)", () => {
  const s = serveProject("retrieval-agent");
  const index = (userId: string, docs: string[]) => s.client.runs.wait(null, "indexer", { input: { docs }, config: { configurable: { userId } } });

  it("indexes documents per user, answers from them, and lets a model write the follow-up query", async () => {
    expect(((await s.client.assistants.search()).map((a) => a.graph_id)).sort()).toEqual(["indexer", "retrieval_graph"]);
    expect(await index("u1", ["Apples are red or green and grow on trees.", "Bananas are yellow and grow in bunches."])).toEqual({ docs: [] });
    await index("u2", ["Cherries are small and red."]);
    const stored = (await s.client.store.searchItems(["documents", "u1"])).items;
    expect(stored.map((i) => [i.value.pageContent, i.value.metadata.user_id]).sort()).toEqual([
      ["Apples are red or green and grow on trees.", "u1"],
      ["Bananas are yellow and grow in bunches.", "u1"],
    ]);

    const assistant = await s.client.assistants.create({ graphId: "retrieval_graph", config: { configurable: { queryModel: "openai/gpt-4o-mini" } } });
    const thread = await s.client.threads.create();
    const ask = (q: string, userId: string) =>
      s.client.runs.wait(thread.thread_id, assistant.assistant_id, { input: user(q), config: { configurable: { userId } } }) as Promise<{ messages: Msg[]; queries: string[] }>;
    const first = await ask("What are apples?", "u1");
    expect(text(first.messages.at(-1))).toBe("According to the documents: Apples are red or green and grow on trees.");
    const second = await ask("What about bananas?", "u1");
    // the first query is the question itself, the second one the query model wrote (structured output)
    expect(second.queries).toEqual(["What are apples?", "bananas"]);
    expect(text(second.messages.at(-1))).toBe("According to the documents: Bananas are yellow and grow in bunches.");

    const other = (await s.client.runs.wait(null, "retrieval_graph", { input: user("What are apples?"), config: { configurable: { userId: "u2" } } })) as { messages: Msg[] };
    expect(text(other.messages.at(-1))).toBe("The documents say nothing about it.");
  });

  it("a run without the userId the project requires fails with the project's own message", async () => {
    const thread = await s.client.threads.create();
    const run = await s.client.runs.create(thread.thread_id, "indexer", { input: { docs: ["x"] } });
    await s.client.runs.join(thread.thread_id, run.run_id);
    const done = await s.client.runs.get(thread.thread_id, run.run_id);
    expect(done.status).toBe("error");
    expect(JSON.stringify((await s.client.threads.get(thread.thread_id)).error ?? "")).toContain("configurable.userId is required");
  });
});

describe("data enrichment (user-given JSON schema as a tool, structured-output reflection, configurable maxLoops)", () => {
  const s = serveProject("data-enrichment");
  const input = {
    topic: "Acme Rockets",
    extractionSchema: {
      type: "object",
      properties: { name: { type: "string" }, headquarters: { type: "string" }, founded: { type: "integer" } },
      required: ["name", "headquarters", "founded"],
    },
  };
  type Out = { info?: Record<string, unknown>; loopStep: number; messages: Msg[] };
  let assistantId: string;
  beforeAll(async () => {
    assistantId = (await s.client.assistants.create({ graphId: "agent", config: { configurable: { model: "openai/gpt-4o-mini" } } })).assistant_id;
  });

  it("searches, scrapes, is told by the reflection what is missing, and ends with the complete record", async () => {
    const out = (await s.client.runs.wait(null, assistantId, { input })) as Out;
    expect(out.info).toEqual({ name: "Acme Rockets", headquarters: "Tucson", founded: 1947 });
    expect(out.loopStep).toBe(4);
    const infos = out.messages.filter((m) => m.type === "tool" && m.name === "Info");
    expect(infos.map((m) => m.status)).toEqual(["error", "success"]);
    expect(text(infos[0])).toBe("Unsatisfactory response:\nfind the year Acme Rockets was founded");
    expect(out.messages.filter((m) => m.type === "tool" && m.name !== "Info").map(text)).toEqual([
      '[{"url":"https://example.com/acme","snippet":"Acme Rockets was fou"}]',
      "Acme Rockets was founded in 1947 and is based in Tucson. It builds small rockets.",
    ]);
  });

  it("maxLoops from the run's config stops the loop early with the partial record", async () => {
    const out = (await s.client.runs.wait(null, assistantId, { input, config: { configurable: { maxLoops: 3 } } })) as Out;
    expect(out.loopStep).toBe(3);
    expect(out.info).toEqual({ name: "Acme Rockets", headquarters: "Tucson" });
    expect(out.messages.at(-1)).toMatchObject({ type: "tool", name: "Info", status: "error" });
  });
});

describe("a project with custom routes (http.app: a Hono app whose route runs the graph) beside its graph", () => {
  const s = serveProject("http-app");

  it("serves the custom routes: one runs the graph inline and answers from its result; bad input gets the app's own 422", async () => {
    expect(await (await fetch(`${s.url}/status`)).json()).toEqual({ service: "support-desk", graphs: ["support"] });
    const res = await fetch(`${s.url}/tickets`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ text: "I was charged twice on my invoice" }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ queue: "billing", answer: "[billing] We are on it: I was charged twice on my invoice" });
    const bad = await fetch(`${s.url}/tickets`, { method: "POST", headers: { "content-type": "application/json" }, body: "[" });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toEqual({ error: 'send {"text": "..."}' });
  });

  it("the same graph runs through the API with streamed tokens, and the Berth routes still answer", async () => {
    const thread = await s.client.threads.create();
    let tokens = "";
    for await (const chunk of s.client.runs.stream(thread.thread_id, "support", { input: user("The app crashes on start"), streamMode: ["messages-tuple"] })) {
      const [m, meta] = chunk.event === "messages" ? (chunk.data as [Msg, { langgraph_node?: string }]) : [];
      if (m && meta?.langgraph_node === "answer") tokens += text(m);
    }
    expect(tokens).toBe("[technical] We are on it: The app crashes on start");
    const state = await s.client.threads.getState<{ category: string }>(thread.thread_id);
    expect(state.values.category).toBe("technical");
    expect((await fetch(`${s.url}/ok`)).status).toBe(200);
  });
});

/** A fixture's files (relative path → content) under `prefix`, as a user's repository holds them. */
function projectFiles(shape: string, prefix: string): Record<string, string> {
  const root = path.join(PROJECTS, shape);
  const files: Record<string, string> = {};
  for (const rel of readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
    const abs = path.join(rel.parentPath, rel.name);
    files[path.join(prefix, path.relative(root, abs))] = readFileSync(abs, "utf8");
  }
  return files;
}

describe("berth dev's local runtime: projects deployed unchanged from a git repository", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${dev.url}${p}`, { method, headers: { "x-api-key": dev.adminKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const t = await res.text();
    return { status: res.status, body: t ? JSON.parse(t) : undefined };
  };

  beforeAll(async () => {
    process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources
    // under scratch/ so the projects resolve their packages from this checkout's node_modules
    dir = scratchDir("real-projects");
    createRepo(dir, { ...projectFiles("memory-agent", "memory"), ...projectFiles("react-agent", "react") });
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent" }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 300,
    });
  });
  afterAll(async () => {
    await dev?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("the memory agent and the ReAct agent deploy (no .env in git: provider settings as secrets) and run through the SDK with the platform key", async () => {
    const secrets = Object.entries(llmEnv(llm)).map(([name, value]) => ({ name, value }));
    const deploy = async (name: string, folder: string) => {
      const created = await api("POST", "/v2/deployments", {
        name,
        source: "hosted_git",
        source_config: { integration_id: dev.integrationId, repo_url: `file://${dir}/repo`, install_command: "true" },
        source_revision_config: { repo_ref: "main", agent_config_path: `${folder}/langgraph.json` },
        secrets,
      });
      expect(created.status).toBe(201);
      const revision = (await api("GET", `/v2/deployments/${created.body.id}/revisions/${created.body.latest_revision_id}?wait=120`)).body;
      expect(revision.status).toBe("DEPLOYED");
      const url = (await api("GET", `/v2/deployments/${created.body.id}`)).body.source_config.custom_url as string;
      return new Client({ apiUrl: url, apiKey: dev.adminKey, callerOptions: { maxRetries: 0 } });
    };
    const [memory, react] = await Promise.all([deploy("memory-agent", "memory"), deploy("react-agent", "react")]);

    const as = { config: { configurable: { userId: "carol" } } };
    await memory.runs.wait(null, "agent", { input: user("remember that I play the cello"), ...as });
    expect((await memory.store.searchItems(["memories", "carol"])).items.map((i) => i.value)).toEqual([{ content: "I play the cello", context: "said in chat" }]);
    const thread = await memory.threads.create();
    const recalled = (await memory.runs.wait(thread.thread_id, "agent", { input: user("what do you know about me?"), ...as })) as { messages: Msg[] };
    expect(text(recalled.messages.at(-1))).toBe("I remember: I play the cello");

    const out = (await react.runs.wait(null, "agent", { input: user("tallest mountain") })) as { messages: Msg[] };
    expect(out.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "ai"]);
    expect(text(out.messages.at(-1))).toBe("From my searches: Mount Everest is the tallest mountain above sea level.");
  }, 300_000);
});

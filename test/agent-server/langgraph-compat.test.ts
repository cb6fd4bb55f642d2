/**
 * LangGraph Platform behaviours real LangGraph.js projects rely on (issue 15, "Defects found"),
 * through `@langchain/langgraph-sdk`:
 * 1. `getLogger()` of `@langchain/langgraph-sdk/logging` works at import time and inside nodes;
 * 2. checkpoints carry the run's metadata and ids, so history filters by run metadata;
 * 3. subgraph tasks name their checkpoint; nested states; reading and editing a subgraph's state;
 * 4. state reads/updates build factory graphs with the thread's assistant config;
 * 5. `LANGGRAPH_CONFIG`'s `context` is the system assistant's context;
 * 6. a graph whose imports cannot be resolved is reported with what to do;
 * 7. zod schema metadata is read with the project's own `@langchain/langgraph` copy.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import { systemAssistantId } from "../../src/agent-server/graphs/registry.js";
import { silentLogger } from "../../src/shared/logging.js";
import { installPackages, tempProject, type TempProject } from "../helpers/projects.js";
import { createTestDatabase, describeBackends, ROOT, testSettings, userMessage, type TestDatabase } from "../helpers/server.js";

const COMPAT_CONFIG = path.join(ROOT, "test/fixtures/compat/langgraph.json");

/** A server on the compat fixtures whose log lines are kept (parsed) for inspection. */
async function startCompatServer(db: TestDatabase, env: Record<string, string> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) });
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  let handle: AgentServerHandle;
  try {
    handle = await startAgentServer(testSettings(db, { configPath: COMPAT_CONFIG }), logger);
  } finally {
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
  return { handle, lines, client: new Client({ apiUrl: handle.url!, callerOptions: { maxRetries: 0 } }) };
}

type Log = { log: string[] };
/** The fixture module is imported once per test process: only the first server logs its import-time line. */
let compatModuleImported = false;

describeBackends("LangGraph Platform compatibility", (backend) => {
  let db: TestDatabase;
  let handle: AgentServerHandle;
  let client: Client;
  let lines: Record<string, unknown>[];
  let firstImport = false;

  beforeAll(async () => {
    firstImport = !compatModuleImported;
    compatModuleImported = true;
    db = await createTestDatabase(backend);
    ({ handle, client, lines } = await startCompatServer(db, {
      LANGGRAPH_CONFIG: JSON.stringify({ context_echo: { context: { tenant: "acme" }, configurable: { x: 1 } } }),
    }));
  });
  afterAll(async () => {
    await handle?.close(0);
    await db?.drop();
  });

  it("1. registers the platform logger: getLogger() works at import time and inside nodes, tagged with the run", async () => {
    // The fixture module calls getLogger() at import time: the server started, and its line is here
    // (test 7 proves the same for a project's own copy of the SDK, imported fresh).
    if (firstImport) expect(lines.some((l) => l.marker === "import-time" && l.msg === "compat graphs module loaded" && l.level === 30)).toBe(true);
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "logging", { input: userMessage("hi") });
    await client.runs.join(thread.thread_id, run.run_id);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    const inNode = lines.find((l) => l.marker === "in-node");
    expect(inNode).toMatchObject({ msg: "hello from inside a node", level: 40, run_id: run.run_id, thread_id: thread.thread_id, langgraph_node: "speak" });
  });

  it("2. checkpoints carry the run's metadata and ids; history filters by run metadata", async () => {
    const thread = await client.threads.create();
    const tag = randomUUID();
    const first = await client.runs.create(thread.thread_id, "chat", {
      input: userMessage("one"),
      metadata: { campaign: tag, step: 999, source: "forged" },
      config: { configurable: { user_id: "user-7" } },
    });
    await client.runs.join(thread.thread_id, first.run_id);
    const second = await client.runs.create(thread.thread_id, "chat", { input: userMessage("two"), metadata: { campaign: "other" } });
    await client.runs.join(thread.thread_id, second.run_id);

    const mine = await client.threads.getHistory(thread.thread_id, { metadata: { campaign: tag }, limit: 100 });
    expect(mine.length).toBeGreaterThanOrEqual(2); // the input checkpoint and at least one step
    for (const s of mine) {
      expect(s.metadata).toMatchObject({
        campaign: tag,
        run_id: first.run_id,
        thread_id: thread.thread_id,
        graph_id: "chat",
        assistant_id: systemAssistantId("chat"),
        user_id: "user-7",
      });
      // LangGraph's own keys are not overwritten by the run's metadata
      expect(s.metadata?.source).not.toBe("forged");
      expect(s.metadata?.step).not.toBe(999);
    }
    const byRun = await client.threads.getHistory(thread.thread_id, { metadata: { run_id: second.run_id }, limit: 100 });
    expect(byRun.length).toBeGreaterThanOrEqual(2);
    expect(byRun.every((s) => s.metadata?.campaign === "other" && s.metadata?.user_id === undefined)).toBe(true);
    const all = await client.threads.getHistory(thread.thread_id, { limit: 100 });
    expect(all.length).toBe(mine.length + byRun.length);
  });

  it("3. subgraph tasks: checkpoint names the task's namespace; nested states; the subgraph's state is read and edited through the SDK", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "review", { input: { topic: "cats" } });
    const state = await client.threads.getState<Log & { topic: string }>(thread.thread_id);
    expect(state.next).toEqual(["reviewer"]);
    const task = state.tasks[0]!;
    expect(task.name).toBe("reviewer");
    expect(task.checkpoint).toMatchObject({ thread_id: thread.thread_id, checkpoint_ns: `reviewer:${task.id}` });
    expect(task.state).toBeNull();
    expect(task).toHaveProperty("result", null);
    expect(task.interrupts[0]?.value).toMatchObject({ question: "approve this draft?", draft: "draft about cats" });

    const nested = await client.threads.getState(thread.thread_id, undefined, { subgraphs: true });
    const sub = nested.tasks[0]!.state as { values: Record<string, unknown>; next: string[]; checkpoint: { checkpoint_ns: string } } | null;
    expect(sub?.values).toMatchObject({ topic: "cats", draft: "draft about cats" });
    expect(sub?.next).toEqual(["ask"]);
    expect(sub?.checkpoint.checkpoint_ns).toBe(`reviewer:${task.id}`);
    expect(nested.tasks[0]!.checkpoint?.checkpoint_ns).toBe(`reviewer:${task.id}`);

    // The platform's flow: read the subgraph's state at the task's checkpoint, edit it there.
    const inner = await client.threads.getState<{ draft: string }>(thread.thread_id, task.checkpoint!);
    expect(inner.values.draft).toBe("draft about cats");
    expect(inner.next).toEqual(["ask"]);
    await client.threads.updateState(thread.thread_id, { values: { draft: "a better draft" }, checkpoint: task.checkpoint! });
    expect((await client.threads.getState<{ draft: string }>(thread.thread_id, task.checkpoint!)).values.draft).toBe("a better draft");
    // the parent graph's state was not touched (it has no draft)
    const root = await client.threads.getState<Record<string, unknown>>(thread.thread_id);
    expect(root.values).toEqual({ topic: "cats", log: [] });
    expect(root.next).toEqual(["reviewer"]);

    const done = (await client.runs.wait(thread.thread_id, "review", { command: { resume: "approved" } })) as Log;
    expect(done.log).toEqual(["approved:a better draft", "published cats"]);
  });

  it("4. state reads and updates build a graph factory with the thread's assistant config", async () => {
    const assistant = await client.assistants.create({ graphId: "configured", config: { configurable: { with_audit: true } } });
    const thread = await client.threads.create();
    const out = (await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: { log: [] } })) as Log;
    expect(out.log).toEqual(["work", "audit"]);
    // `audit` exists only in the graph built with this assistant's config
    await client.threads.updateState(thread.thread_id, { values: { log: ["by hand"] }, asNode: "audit" });
    const state = await client.threads.getState<Log>(thread.thread_id);
    expect(state.values.log).toEqual(["work", "audit", "by hand"]);
    expect(state.next).toEqual([]);
    expect((state.metadata as { source?: string }).source).toBe("update");
    // a thread of the system assistant (no audit node) still refuses it
    const plain = await client.threads.create();
    await client.runs.wait(plain.thread_id, "configured", { input: { log: [] } });
    await expect(client.threads.updateState(plain.thread_id, { values: { log: ["x"] }, asNode: "audit" })).rejects.toThrow(/422|audit/);
  });

  it("5. LANGGRAPH_CONFIG's context becomes the system assistant's context, and runs see it", async () => {
    const a = await client.assistants.get(systemAssistantId("context_echo"));
    expect(a.context).toEqual({ tenant: "acme" });
    expect(a.config).toEqual({ configurable: { x: 1 } });
    const out = (await client.runs.wait(null, "context_echo", { input: userMessage("hi") })) as { messages: { content: string }[] };
    expect(JSON.parse(out.messages.at(-1)!.content)).toEqual({ context: { tenant: "acme" }, configurable: { x: 1 } });
  });
});

describe("graph projects as users bring them", () => {
  const projects: TempProject[] = [];
  const dbs: TestDatabase[] = [];
  afterAll(async () => {
    for (const p of projects) await p.remove();
    for (const d of dbs) await d.drop();
  });
  async function start(project: TempProject) {
    const db = await createTestDatabase("pglite");
    dbs.push(db);
    return startAgentServer(testSettings(db, { configPath: project.config }), silentLogger);
  }

  it("6. a graph whose imports cannot be resolved: which module, from where, and what to do", async () => {
    const notInstalled = await tempProject(
      {
        "package.json": JSON.stringify({ type: "module", dependencies: { "left-pad-nope": "^1.0.0" } }),
        "package-lock.json": "{}",
        "src/agent.js": 'import pad from "left-pad-nope";\nexport const graph = pad;\n',
      },
      { chat: "./src/agent.js:graph" },
    );
    projects.push(notInstalled);
    const err1 = await start(notInstalled).then(() => undefined, (e: Error) => e);
    expect(err1?.message).toContain(`graph "chat"`);
    expect(err1?.message).not.toContain("file not found");
    expect(err1?.message).toContain(`the package "left-pad-nope" imported from ${path.join(notInstalled.dir, "src/agent.js")} cannot be resolved`);
    expect(err1?.message).toContain(`${notInstalled.dir} has no node_modules`);
    expect(err1?.message).toContain(`run "npm ci" in ${notInstalled.dir}`);

    const undeclared = await tempProject(
      {
        "package.json": JSON.stringify({ type: "module" }),
        "agent.js": 'import "./helpers.js";\nexport const graph = 1;\n',
        "helpers.js": 'import x from "@acme/tools/sub";\nexport default x;\n',
      },
      { chat: "./agent.js:graph" },
    );
    projects.push(undeclared);
    const err2 = await start(undeclared).then(() => undefined, (e: Error) => e);
    expect(err2?.message).toContain(`the package "@acme/tools" imported from ${path.join(undeclared.dir, "helpers.js")} cannot be resolved`);
    expect(err2?.message).toContain("not among the dependencies");
    expect(err2?.message).toContain("npm install @acme/tools");

    const badPath = await tempProject(
      { "package.json": JSON.stringify({ type: "module" }), "agent.js": 'import "./util";\nexport const graph = 1;\n' },
      { chat: "./agent.js:graph" },
    );
    projects.push(badPath);
    const err3 = await start(badPath).then(() => undefined, (e: Error) => e);
    expect(err3?.message).toContain(`the module "./util" imported from ${path.join(badPath.dir, "agent.js")} does not exist`);

    // a graph file that really is missing still says so
    const missing = await tempProject({ "package.json": "{}" }, { chat: "./nope.js:graph" });
    projects.push(missing);
    expect((await start(missing).then(() => undefined, (e: Error) => e))?.message).toContain("file not found");
  });

  it("7. schemas come from the project's own @langchain/langgraph copy (zod registry metadata); its own SDK copy gets the logger (1)", async () => {
    const project = await tempProject(
      {
        "package.json": JSON.stringify({ type: "module", dependencies: { "@langchain/langgraph": "*", zod: "*" } }),
        "graph.js": [
          'import { z } from "zod";',
          'import { StateGraph, MessagesZodMeta } from "@langchain/langgraph";',
          'import { registry, withLangGraph } from "@langchain/langgraph/zod";',
          'import { getLogger } from "@langchain/langgraph-sdk/logging";',
          'getLogger().info("project copy of the SDK found the logger");',
          "const State = z.object({",
          "  messages: z.array(z.any()).register(registry, MessagesZodMeta),",
          '  mood: withLangGraph(z.string(), { default: () => "calm", jsonSchemaExtra: { "x-ui": "mood-picker" } }),',
          "});",
          'export const graph = new StateGraph(State).addNode("n", () => ({ mood: "ok" })).addEdge("__start__", "n").compile();',
        ].join("\n"),
      },
      { moods: "./graph.js:graph" },
    );
    projects.push(project);
    await installPackages(
      project,
      ["@langchain/langgraph", "@langchain/langgraph-sdk"],
      ["@langchain/core", "@langchain/langgraph-checkpoint", "@langchain/protocol", "@standard-schema/spec", "zod"],
    );
    const handle = await start(project);
    try {
      const client = new Client({ apiUrl: handle.url!, callerOptions: { maxRetries: 0 } });
      const schemas = await client.assistants.getSchemas(systemAssistantId("moods"));
      for (const s of [schemas.state_schema, schemas.input_schema] as { properties: Record<string, Record<string, unknown>> }[]) {
        expect(s.properties.messages).toMatchObject({ type: "array", langgraph_type: "messages" });
        expect(s.properties.mood).toMatchObject({ type: "string", "x-ui": "mood-picker" });
      }
      // and the project's graph runs on Berth's checkpointer
      const out = (await client.runs.wait(null, "moods", { input: { messages: [] } })) as { mood: string };
      expect(out.mood).toBe("ok");
    } finally {
      await handle.close(0);
    }
  });
});

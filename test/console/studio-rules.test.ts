/**
 * The Studio's pure parts, without a browser: the layout input from `/assistants/{id}/graph` JSON
 * (xray subgraphs as clusters, conditional edges kept apart, edges to unknown nodes dropped) and
 * dagre's answer; forms from JSON Schema and the values they stand for; LangGraph messages as
 * native ones; the run view reduced from streamed events; the proxy's target URL and headers.
 */
import { describe, expect, it } from "vitest";
import { layoutGraph, layoutInput } from "../../src/console/studio/graph-layout";
import { formFields, formTexts, formValue, hasMessagesInput } from "../../src/console/studio/schema-form";
import { mergeChunk, toNative } from "../../src/console/studio/lc-messages";
import { applyEvent, EMPTY_RUN, ROLLED_BACK, runPaused, settledRunStatus, splitEvent, threadRunStatuses, type RunView } from "../../src/console/studio/run-events";
import { nodeState } from "../../src/console/studio/GraphView";
import { deploymentAgentUrl, sessionHeaders } from "../../src/console/studio/client";
import { agentTargetUrl, forwardedHeaders } from "../../src/control-plane/api/agent-proxy";

/** What the agent server answers for a graph with a conditional edge and (xray) a subgraph. */
const GRAPH = {
  nodes: [
    { id: "__start__", type: "schema", data: "__start__" },
    { id: "agent", type: "runnable", data: { id: ["x"], name: "agent" } },
    { id: "tools", type: "runnable", data: { name: "tools" } },
    { id: "research:__start__", type: "schema" },
    { id: "research:search", type: "runnable" },
    { id: "research:__end__", type: "schema" },
    { id: "__end__", type: "schema", data: "__end__" },
  ],
  edges: [
    { source: "__start__", target: "agent" },
    { source: "agent", target: "tools", conditional: true, data: "call" },
    { source: "agent", target: "__end__", conditional: true },
    { source: "tools", target: "agent" },
    { source: "agent", target: "research:__start__" },
    { source: "research:__start__", target: "research:search" },
    { source: "research:search", target: "research:__end__" },
    { source: "research:__end__", target: "__end__" },
    { source: "agent", target: "nowhere" },
  ],
};

describe("graph layout input", () => {
  it("gives each node its own name and kind, subgraph nodes a cluster, and keeps conditional edges apart", () => {
    const input = layoutInput(GRAPH);
    expect(input.nodes.map((n) => [n.id, n.label, n.kind])).toEqual([
      ["__start__", "start", "start"],
      ["agent", "agent", "node"],
      ["tools", "tools", "node"],
      ["research:__start__", "start", "start"],
      ["research:search", "search", "node"],
      ["research:__end__", "end", "end"],
      ["__end__", "end", "end"],
    ]);
    expect(input.nodes.find((n) => n.id === "research:search")?.parent).toBe("cluster:research");
    expect(input.clusters).toEqual([{ id: "cluster:research", label: "research" }]);
    expect(input.edges.filter((e) => e.conditional).map((e) => `${e.source}->${e.target}`)).toEqual(["agent->tools", "agent->__end__"]);
    expect(input.edges.find((e) => e.target === "tools")?.label).toBe("call");
    // an edge to a node the graph does not list is left out (the library would invent the node)
    expect(input.edges.some((e) => e.target === "nowhere")).toBe(false);
  });

  it("nests clusters of nested subgraphs", () => {
    const input = layoutInput({ nodes: [{ id: "a:b:c" }], edges: [] });
    expect(input.clusters).toEqual([
      { id: "cluster:a", label: "a" },
      { id: "cluster:a:b", label: "b", parent: "cluster:a" },
    ]);
    expect(input.nodes[0]).toMatchObject({ label: "c", parent: "cluster:a:b" });
  });

  it("turns shapes it does not know into an empty graph, not a throw", () => {
    for (const bad of [null, undefined, {}, { nodes: "x" }, { nodes: [null, { id: {} }], edges: [null] }]) expect(layoutInput(bad as never)).toEqual({ nodes: [], edges: [], clusters: [] });
  });

  it("lays out top to bottom with dagre: start above agent above end, clusters around their nodes, edges with points", () => {
    const layout = layoutGraph(layoutInput(GRAPH));
    const at = (id: string) => layout.nodes.find((n) => n.id === id)!;
    expect(at("__start__").y).toBeLessThan(at("agent").y);
    expect(at("agent").y).toBeLessThan(at("__end__").y);
    const cluster = layout.clusters[0]!;
    const inner = at("research:search");
    expect(Math.abs(inner.x - cluster.x)).toBeLessThan(cluster.width / 2);
    expect(Math.abs(inner.y - cluster.y)).toBeLessThan(cluster.height / 2);
    expect(layout.edges.every((e) => e.points.length >= 2)).toBe(true);
    expect(layout.width).toBeGreaterThan(0);
    // no two nodes overlap
    for (const a of layout.nodes)
      for (const b of layout.nodes) {
        if (a === b) continue;
        const apart = Math.abs(a.x - b.x) >= (a.width + b.width) / 2 || Math.abs(a.y - b.y) >= (a.height + b.height) / 2;
        expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
      }
  });
});

/** A config schema as zod-to-json-schema writes it (refs, nullable unions, enums). */
const CONFIG_SCHEMA = {
  type: "object",
  properties: {
    model: { type: "string", enum: ["gpt-4o", "claude"], description: "Which model" },
    temperature: { anyOf: [{ type: "number" }, { type: "null" }], default: 0.2 },
    max_steps: { type: "integer" },
    verbose: { type: "boolean" },
    system_prompt: { $ref: "#/definitions/Prompt" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["model"],
  definitions: { Prompt: { type: "string", title: "System prompt" } },
};

describe("forms from JSON Schema", () => {
  it("makes one field per property, resolving refs and nullable unions", () => {
    const fields = formFields(CONFIG_SCHEMA)!;
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["model", "enum", true],
      ["temperature", "number", false],
      ["max_steps", "integer", false],
      ["verbose", "boolean", false],
      ["system_prompt", "string", false],
      ["tags", "json", false],
    ]);
    expect(fields[0]!.options).toEqual(["gpt-4o", "claude"]);
    expect(fields[4]!.label).toBe("System prompt");
    expect(fields[1]!.default).toBe(0.2);
  });

  it("has no form for a schema without properties (raw JSON then)", () => {
    for (const s of [undefined, null, {}, { type: "object" }, { type: "string" }, "x"]) expect(formFields(s)).toBeUndefined();
  });

  it("round-trips a value through the inputs, typed, keeping keys the schema does not list", () => {
    const fields = formFields(CONFIG_SCHEMA)!;
    const value = { model: "claude", max_steps: 3, verbose: true, tags: ["a"], extra: { kept: 1 } };
    const texts = formTexts(fields, value);
    expect(texts).toMatchObject({ model: "claude", temperature: "0.2", max_steps: "3", verbose: "true", system_prompt: "" });
    const back = formValue(fields, texts, value);
    expect(back).toEqual({ ok: true, value: { model: "claude", temperature: 0.2, max_steps: 3, verbose: true, tags: ["a"], extra: { kept: 1 } } });
  });

  it("says which inputs are wrong instead of guessing", () => {
    const fields = formFields(CONFIG_SCHEMA)!;
    const r = formValue(fields, { model: "", max_steps: "2.5", temperature: "warm", tags: "[oops", verbose: "yes" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(["max_steps", "model", "tags", "temperature", "verbose"]);
  });

  it("tells a chat graph (input has messages) from a form graph", () => {
    expect(hasMessagesInput({ type: "object", properties: { messages: { type: "array" } } })).toBe(true);
    expect(hasMessagesInput({ type: "object", properties: { topic: { type: "string" } } })).toBe(false);
    expect(hasMessagesInput(undefined)).toBe(false);
  });
});

describe("LangGraph messages in the console's renderer", () => {
  it("maps types to roles, text to blocks, tool calls to tool_call blocks", () => {
    expect(toNative({ type: "human", content: "hi" })).toEqual({ role: "user", content: [{ type: "text", text: "hi" }] });
    expect(toNative({ type: "ai", content: [{ type: "text", text: "ok" }], tool_calls: [{ id: "c1", name: "get", args: { q: 1 } }] })).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "ok" },
        { type: "tool_call", name: "get", args: { q: 1 }, id: "c1" },
      ],
    });
    expect(toNative({ type: "tool", content: "42", tool_call_id: "c1" })).toEqual({ role: "tool", content: [{ type: "text", text: "42" }], tool_call_id: "c1" });
  });

  it("merges streamed chunks of one message by id", () => {
    let list = mergeChunk([], { id: "m1", type: "AIMessageChunk", content: "Hel" });
    list = mergeChunk(list, { id: "m1", type: "AIMessageChunk", content: "lo" });
    expect(list).toEqual([{ id: "m1", type: "ai", content: "Hello" }]);
  });
});

describe("the run view from streamed events", () => {
  it("lights the running node, marks it done, streams tokens and takes each values snapshot", () => {
    let v = applyEvent(EMPTY_RUN, "tasks", { id: "t1", name: "agent", input: {}, triggers: [] });
    expect(v.running).toEqual(["agent"]);
    v = applyEvent(v, "messages", [{ id: "m1", type: "AIMessageChunk", content: "He" }, { langgraph_node: "agent" }]);
    v = applyEvent(v, "messages", [{ id: "m1", type: "AIMessageChunk", content: "y" }, { langgraph_node: "agent" }]);
    expect(v.messages.map((m) => m.content)).toEqual(["Hey"]);
    v = applyEvent(v, "tasks", { id: "t1", name: "agent", result: [], interrupts: [] });
    expect(v.running).toEqual([]);
    expect(v.done).toEqual(["agent"]);
    v = applyEvent(v, "values", { messages: [{ type: "human", content: "q" }, { id: "m1", type: "ai", content: "Hey" }] });
    expect(v.messages).toHaveLength(2);
  });

  it("records an interrupt with the node that raised it, once across modes", () => {
    let v = applyEvent(EMPTY_RUN, "tasks", { id: "t2", name: "review", input: {} });
    v = applyEvent(v, "updates", { __interrupt__: [{ value: { question: "Send?" }, id: "i1" }] });
    v = applyEvent(v, "tasks", { id: "t2", name: "review", result: [], interrupts: [{ value: { question: "Send?" }, id: "i1" }] });
    v = applyEvent(v, "values", { messages: [], __interrupt__: [{ value: { question: "Send?" }, id: "i1" }] });
    expect(v.interrupts).toEqual([{ value: { question: "Send?" }, id: "i1", node: "review" }]);
  });

  it("marks a node stopped at interrupt() as waiting, not done, until it runs again and finishes", () => {
    let v = applyEvent(EMPTY_RUN, "tasks", { id: "t1", name: "draft", input: {} });
    v = applyEvent(v, "tasks", { id: "t1", name: "draft", result: [], interrupts: [] });
    v = applyEvent(v, "tasks", { id: "t2", name: "review", input: {} });
    v = applyEvent(v, "tasks", { id: "t2", name: "review", result: [], interrupts: [{ value: "Send?", id: "i1" }] });
    expect(v.done).toEqual(["draft"]);
    expect(v.waiting).toEqual(["review"]);
    const h = (x: RunView) => ({ running: x.running, done: x.done, interrupted: x.waiting });
    expect(nodeState("review", h(v))).toBe("interrupted");
    expect(nodeState("draft", h(v))).toBe("done");
    // only updates mode: the interrupt is the running node's
    let u = applyEvent(EMPTY_RUN, "tasks", { id: "t2", name: "review", input: {} });
    u = applyEvent(u, "updates", { __interrupt__: [{ value: "Send?", id: "i1" }] });
    expect(u.waiting).toEqual(["review"]);
    expect(u.done).toEqual([]);
    // a node done earlier in the run (round a loop) and waiting now is shown waiting
    expect(nodeState("review", { running: [], done: ["review"], interrupted: ["review"] })).toBe("interrupted");
    // resumed: it runs again, then is done
    let r = applyEvent(v, "tasks", { id: "t3", name: "review", input: {} });
    expect(nodeState("review", h(r))).toBe("running");
    r = applyEvent(r, "tasks", { id: "t3", name: "review", result: [], interrupts: [] });
    expect(r.waiting).toEqual([]);
    expect(nodeState("review", h(r))).toBe("done");
  });

  it("applies messages idempotently by id: a run replayed from its first event shows each message once", () => {
    const run = [
      ["values", { messages: [{ id: "h1", type: "human", content: "hi" }] }],
      ["messages", [{ id: "a1", type: "AIMessageChunk", content: "Hel" }, { langgraph_node: "agent" }]],
      ["messages", [{ id: "a1", type: "AIMessageChunk", content: "lo" }, { langgraph_node: "agent" }]],
      // a message a node returned whole (no model streaming) comes once, as one delta
      ["messages", [{ id: "t1", type: "tool", content: "42", tool_call_id: "c" }, { langgraph_node: "tools" }]],
      ["values", { messages: [{ id: "h1", type: "human", content: "hi" }, { id: "a1", type: "ai", content: "Hello" }, { id: "t1", type: "tool", content: "42", tool_call_id: "c" }] }],
    ] as const;
    let v = EMPTY_RUN;
    for (const [e, d] of run) v = applyEvent(v, e, d);
    const shown = v.messages.map((m) => `${m.id}:${String(m.content)}`);
    expect(shown).toEqual(["h1:hi", "a1:Hello", "t1:42"]);
    // joined again from Last-Event-ID -1: every event a second time, and at no point a message twice or doubled
    for (const [e, d] of run.slice(1)) {
      v = applyEvent(v, e, d);
      expect(v.messages.map((m) => `${m.id}:${String(m.content)}`)).toEqual(shown);
    }
    // a message still streaming when a snapshot without it arrives is kept, and goes on streaming
    let p = applyEvent(EMPTY_RUN, "messages", [{ id: "a2", type: "AIMessageChunk", content: "Wo" }, {}]);
    p = applyEvent(p, "values", { messages: [{ id: "h1", type: "human", content: "hi" }] });
    p = applyEvent(p, "messages", [{ id: "a2", type: "AIMessageChunk", content: "rld" }, {}]);
    expect(p.messages.map((m) => `${m.id}:${String(m.content)}`)).toEqual(["h1:hi", "a2:World"]);
  });

  it("leaves a run cancelled with rollback showing that, not success (the server no longer knows it)", () => {
    expect(settledRunStatus("gone", false, "rollback")).toBe(ROLLED_BACK);
    // rolled back from elsewhere: deleted all the same
    expect(settledRunStatus("gone", false)).toBe(ROLLED_BACK);
    // the deletion under way when asked
    expect(settledRunStatus({ status: "interrupted" }, false, "rollback")).toBe(ROLLED_BACK);
    // it had finished before the cancel landed: what it did stands
    expect(settledRunStatus({ status: "success" }, false, "rollback")).toBe("success");
    // no answer: never a guessed success
    expect(settledRunStatus("failed", false)).toBe("unknown");
    expect(settledRunStatus("failed", false, "interrupt")).toBe("interrupted");
    expect(settledRunStatus({ status: "success" }, true)).toBe("interrupted");
    expect(settledRunStatus({ status: "interrupted" }, false, "interrupt")).toBe("interrupted");
  });

  it("shows a thread's run that stopped at an interrupt as interrupted, as the run panel does", () => {
    const runs = [
      { run_id: "r3", status: "success" },
      { run_id: "r2", status: "success" },
      { run_id: "r1", status: "error" },
    ];
    // the thread waits in the run that wrote its checkpoint
    expect(threadRunStatuses(runs, "interrupted", "r3")).toEqual(["interrupted", "success", "error"]);
    expect(threadRunStatuses(runs, "interrupted", "r2")).toEqual(["success", "interrupted", "error"]);
    // the checkpoint is an edit (no run): the newest finished run
    expect(threadRunStatuses([{ run_id: "q", status: "pending" }, ...runs], "interrupted", undefined)).toEqual(["pending", "interrupted", "success", "error"]);
    // a thread not waiting: as the server says
    expect(threadRunStatuses(runs, "idle", "r3")).toEqual(["success", "success", "error"]);
    // an earlier run that paused and was resumed since: known from its newest checkpoint
    expect(threadRunStatuses(runs, "idle", "r3", new Set(["r2"]))).toEqual(["success", "interrupted", "error"]);
    expect(runPaused({ next: ["review"], tasks: [{ interrupts: [{ value: "Send?" }] }] })).toBe(true);
    expect(runPaused({ next: ["agent"], tasks: [] })).toBe(true); // a breakpoint
    expect(runPaused({ next: [], tasks: [] })).toBe(false);
    expect(runPaused(undefined)).toBe(false);
  });

  it("names a subgraph's nodes with their path", () => {
    expect(splitEvent("tasks|research:abc|deep:def")).toEqual({ mode: "tasks", path: "research:deep" });
    const v = applyEvent(EMPTY_RUN, "tasks|research:abc", { id: "t", name: "search", input: {} });
    expect(v.running).toEqual(["research:search"]);
  });
});

describe("the way to the agent server", () => {
  it("goes through the control plane's proxy with nothing but the session's headers", () => {
    expect(deploymentAgentUrl("http://127.0.0.1:8080", "a b")).toBe("http://127.0.0.1:8080/v2/deployments/a%20b/agent");
    expect(sessionHeaders({ apiKey: "k", tenantId: "t" })).toEqual({ "X-Api-Key": "k", "X-Tenant-Id": "t" });
    expect(sessionHeaders({})).toEqual({});
  });

  it("joins the deployment URL with the tail and query, and passes the accepted credential, not the browser's cookies or origin", () => {
    expect(agentTargetUrl("http://10.0.0.5:8000/base/", "threads/t1/runs/stream", "?x=1").href).toBe("http://10.0.0.5:8000/base/threads/t1/runs/stream?x=1");
    expect(agentTargetUrl("http://127.0.0.1:9000", "", "").href).toBe("http://127.0.0.1:9000/");
    const h = forwardedHeaders({ host: "console", origin: "http://console", cookie: "c=1", "x-api-key": "mine", "x-tenant-id": "other", connection: "keep-alive", accept: "text/event-stream" }, { apiKey: "mine" }, "tenant-1");
    expect(h).toEqual({ accept: "text/event-stream", "x-api-key": "mine", "x-tenant-id": "tenant-1" });
    expect(forwardedHeaders({ authorization: "Bearer a.b.c" }, { authorization: "Bearer a.b.c" }, "t")).toEqual({ authorization: "Bearer a.b.c", "x-tenant-id": "t" });
  });
});

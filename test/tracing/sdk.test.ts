/**
 * The real `langsmith` SDK sends to a running Berth tracing server; what it sent is read back
 * through the query API: trees, messages, tokens, costs and time to first token.
 */
import Anthropic from "@anthropic-ai/sdk";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { RunTree, type Client } from "langsmith";
import { traceable } from "langsmith/traceable";
import { wrapOpenAI } from "langsmith/wrappers";
import { wrapAnthropic } from "langsmith/wrappers/anthropic";
import OpenAI from "openai";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "../helpers/fake-provider.js";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

// traceable and the wrappers only trace when tracing is on (this test file runs in its own process)
process.env.LANGSMITH_TRACING = "true";

describeBackends("tracing through the langsmith SDK", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  let provider: FakeProvider;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });
  beforeAll(async () => {
    provider = await startFakeProvider();
    // a tenant price with round numbers, so costs can be asserted exactly
    const price = await server.api("/model-prices", {
      method: "POST",
      body: JSON.stringify({
        model_name: "gpt-4o-mini",
        match_pattern: "^gpt-4o-mini",
        provider: "openai",
        input_per_million: 2,
        output_per_million: 3,
        input_details_per_million: { cache_read: 1 },
      }),
    });
    expect(price.status).toBe(201);
  });
  afterAll(() => provider?.close());

  const project = (name: string) => `${name}-${backend}`;
  const roots = async (projectName: string) => (await server.api(`/runs?project_name=${projectName}&is_root=true`)).body.runs as any[];
  const detail = async (id: string) => (await server.api(`/runs/${id}`)).body;

  it("stores traceable nested runs as one tree, counting LLM usage once", async () => {
    const projectName = project("nested");
    const generate = traceable(
      async (question: string) => ({
        messages: [{ role: "assistant", content: [{ type: "text", text: `echo: ${question}` }] }],
        usage_metadata: { input_tokens: 20, output_tokens: 10, total_tokens: 30, input_token_details: { cache_read: 5 } },
      }),
      { name: "generate", run_type: "llm", client, project_name: projectName, metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" } },
    );
    const retrieve = traceable(async (q: string) => [`doc about ${q}`], { name: "retrieve", run_type: "retriever", client, project_name: projectName });
    const pipeline = traceable(
      async (q: string) => {
        const docs = await retrieve(q);
        const answer = await generate(`${q} ${docs.length}`);
        // a parent repeating its child's usage must not be counted twice
        return { answer, usage_metadata: answer.usage_metadata };
      },
      { name: "pipeline", client, project_name: projectName, metadata: { thread_id: "conv-1" } },
    );
    await pipeline("hello");
    await client.awaitPendingTraceBatches();

    const [root] = await roots(projectName);
    expect(root).toMatchObject({ name: "pipeline", run_type: "chain", status: "success", thread_id: "conv-1" });
    expect(root.trace).toMatchObject({ run_count: 3, llm_count: 1, input_tokens: 20, output_tokens: 10, total_tokens: 30 });
    // cost: 5 cache_read at $1/M + 15 other input at $2/M + 10 output at $3/M
    expect(root.trace.total_cost).toBeCloseTo((5 * 1 + 15 * 2 + 10 * 3) / 1e6, 12);

    const tree = (await server.api(`/traces/${root.trace_id}`)).body;
    expect(tree.runs).toHaveLength(1);
    expect(tree.runs[0].children.map((c: any) => c.name)).toEqual(["retrieve", "generate"]);
    const llm = tree.runs[0].children[1];
    expect(llm).toMatchObject({ parent_run_id: root.id, model: "gpt-4o-mini", provider: "openai", prompt_tokens: 20, completion_tokens: 10 });
    expect(llm.cost).toMatchObject({ source: "price", input_cost_details: { cache_read: 5e-6 } });

    const messages = (await detail(llm.id)).messages;
    expect(messages.rendered).toBe(true);
    expect(messages.messages.at(-1)).toMatchObject({ role: "assistant", content: [{ type: "text", text: "echo: hello 1" }] });
  });

  it("takes time to first token from a manual RunTree's new_token event (POST /runs then PATCH)", async () => {
    const direct = server.client({ autoBatchTracing: false });
    const projectName = project("manual");
    const start = Date.now() - 1000;
    const run = new RunTree({
      name: "my-llm",
      run_type: "llm",
      inputs: { messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }] },
      client: direct,
      project_name: projectName,
      start_time: start,
      metadata: { trace_provider: "acme", trace_model_name: "acme-large" },
    });
    await run.postRun();
    run.addEvent({ name: "new_token", time: new Date(start + 250).toISOString() });
    await run.end({ messages: [{ role: "assistant", content: [{ type: "text", text: "Hello" }] }] }, undefined, start + 900);
    await run.patchRun();
    await direct.awaitPendingTraceBatches();

    const [root] = await roots(projectName);
    expect(root).toMatchObject({ name: "my-llm", status: "success", model: "acme-large", provider: "acme", latency_ms: 900 });
    expect(root.ttft_ms).toBe(250);
    // no usage sent: estimated with a tokenizer and marked so; no price for the model: no cost, and why
    expect(root.usage).toMatchObject({ estimated: true });
    expect(root.usage.input_tokens).toBeGreaterThan(0);
    expect(root.cost).toBeNull();
    expect(root.cost_reason).toMatch(/no price/i);
  });

  it("traces wrapOpenAI calls: tool calls, cached tokens, cost, and TTFT when streaming", async () => {
    const projectName = project("openai");
    const openai = wrapOpenAI(new OpenAI({ apiKey: "sk-test", baseURL: `${provider.url}/v1` }), { client, project_name: projectName } as any);
    await openai.chat.completions.create({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: "You are terse." },
        { role: "user", content: [{ type: "text", text: "Weather in Paris?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${Buffer.alloc(64 * 1024, 1).toString("base64")}` } }] },
      ],
      tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    });
    const stream = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Say hello" }], stream: true, stream_options: { include_usage: true } });
    for await (const _chunk of stream) {
      // consume
    }
    await client.awaitPendingTraceBatches();

    const runs = await roots(projectName);
    expect(runs).toHaveLength(2);
    const [streamed, toolCall] = runs; // newest first
    const d = await detail(toolCall.id);
    expect(d).toMatchObject({ model: "gpt-4o-mini", provider: "openai", usage: { input_tokens: 20, output_tokens: 10, input_token_details: { cache_read: 5 } } });
    expect(d.cost.total_cost).toBeCloseTo((5 * 1 + 15 * 2 + 10 * 3) / 1e6, 12);
    const msgs = d.messages.messages;
    expect(msgs.map((m: any) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(msgs[2].content).toContainEqual({ type: "tool_call", id: "call_weather", name: "get_weather", args: { city: "Paris" } });
    // the 64 KB image moved to attachment storage; the message points at it
    const image = msgs[1].content.find((b: any) => b.type === "image");
    expect(image).toMatchObject({ mime_type: "image/png" });
    expect(image.url).toMatch(/\/runs\/.+\/attachments\//);
    const fetched = await fetch(new URL(image.url, server.url).toString().replace(/\/tracing\/tracing\//, "/tracing/"), { headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get("content-type")).toBe("image/png");
    expect((await fetched.arrayBuffer()).byteLength).toBe(64 * 1024);

    expect(streamed.ttft_ms).toBeGreaterThan(0);
    expect(streamed.ttft_ms).toBeLessThanOrEqual(streamed.latency_ms);
    expect(streamed.usage).toMatchObject({ input_tokens: 12, output_tokens: 3, estimated: false });
  });

  it("traces wrapAnthropic calls: system prompt, thinking, and cache tokens counted as input", async () => {
    const projectName = project("anthropic");
    const anthropic = wrapAnthropic(new Anthropic({ apiKey: "sk-ant-test", baseURL: provider.url }), { client, project_name: projectName } as any);
    await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 100, system: "Answer in French.", messages: [{ role: "user", content: "Hello" }] });
    await client.awaitPendingTraceBatches();

    const [run] = await roots(projectName);
    const d = await detail(run.id);
    expect(d).toMatchObject({ provider: "anthropic", usage: { input_tokens: 135, output_tokens: 20, input_token_details: { cache_read: 30 } } });
    // priced from the default table shipped with Berth
    expect(d.cost).toMatchObject({ source: "price" });
    expect(d.cost.total_cost).toBeGreaterThan(0);
    const msgs = d.messages.messages;
    expect(msgs[0]).toMatchObject({ role: "system", content: [{ type: "text", text: "Answer in French." }] });
    expect(msgs.at(-1).content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: "reasoning", text: "The user greets me in French." }), expect.objectContaining({ type: "text", text: "Bonjour !" })]),
    );
  });

  it("traces LangChain chat models (FakeListChatModel), estimating tokens when none are reported", async () => {
    const projectName = project("langchain");
    const tracer = new LangChainTracer({ client: client as any, projectName });
    const model = new FakeListChatModel({ responses: ["I am a fake model."] });
    await model.invoke([new SystemMessage("Be brief."), new HumanMessage("Who are you?")], { callbacks: [tracer], metadata: { thread_id: "lc-thread" } });
    await client.awaitPendingTraceBatches();

    const [run] = await roots(projectName);
    expect(run).toMatchObject({ run_type: "llm", status: "success", thread_id: "lc-thread" });
    const d = await detail(run.id);
    expect(d.messages).toMatchObject({ rendered: true, format: "langchain" });
    expect(d.messages.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(d.messages.messages[2].content).toEqual([{ type: "text", text: "I am a fake model." }]);
    expect(d.usage.estimated).toBe(true);
    expect(d.usage.output_tokens).toBeGreaterThan(0);

    const threads = (await server.api(`/projects/${run.project_id}/threads`)).body.threads;
    expect(threads).toEqual([expect.objectContaining({ thread_id: "lc-thread", turn_count: 1 })]);
  });

  it("rolls all of it up into project stats", async () => {
    const list = (await server.api(`/projects?name=${project("openai")}`)).body.projects;
    expect(list).toHaveLength(1);
    expect(list[0].stats).toMatchObject({ trace_count: 2, llm_count: 2, input_tokens: 32, output_tokens: 13, error_rate: 0 });
    expect(list[0].stats.latency_p50).toBeGreaterThan(0);
    expect(list[0].stats.first_token_p50).toBeGreaterThan(0);
    const stats = (await server.api(`/projects/${list[0].id}/stats?bucket=hour`)).body;
    const busy = stats.buckets.filter((b: any) => b.trace_count > 0);
    expect(busy.reduce((n: number, b: any) => n + b.trace_count, 0)).toBe(2);
    expect(stats.by_model).toEqual([expect.objectContaining({ model: "gpt-4o-mini", llm_count: 2, input_tokens: 32 })]);
  });
});

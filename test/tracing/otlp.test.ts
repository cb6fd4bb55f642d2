/**
 * OpenTelemetry traces through the official OTLP exporters (`@opentelemetry/exporter-trace-otlp-proto`
 * and `-http`) into a running Berth tracing server: spans become runs with the right tree, tokens,
 * cost and rendered messages; bad bodies get OTLP-shaped errors and store nothing; keys are checked
 * like the LangSmith ingest routes'.
 */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Tracer } from "@opentelemetry/api";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter as HttpExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import protobuf from "protobufjs";
import { beforeAll, expect, it } from "vitest";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/index.js";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

/** Spans recorded in memory (so a test decides how and when they are exported). */
async function record(build: (tracer: Tracer) => void | Promise<void>, resource: Record<string, string> = {}): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "otlp-test", ...resource }), spanProcessors: [new SimpleSpanProcessor(memory)] });
  await build(provider.getTracer("berth-otlp-test", "1.0.0"));
  await provider.forceFlush();
  return memory.getFinishedSpans();
}

function exportSpans(exporter: SpanExporter, spans: ReadableSpan[]): Promise<ExportResult> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

/** google.rpc.Status, to read OTLP error bodies sent as protobuf. */
const Status = protobuf.Root.fromJSON({
  nested: { google: { nested: { rpc: { nested: { Status: { fields: { code: { type: "int32", id: 1 }, message: { type: "string", id: 2 } } } } } } } },
}).lookupType("google.rpc.Status");

const T0 = Date.parse("2026-11-20T10:00:00.000Z");

/** An agent calling a model (GenAI conventions, newest attributes) and then a tool. */
async function agentTrace(tracer: Tracer): Promise<void> {
  const root = tracer.startSpan("invoke_agent weather", { startTime: T0, attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "conv-7" } });
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  const llm = tracer.startSpan(
    "chat gpt-4o-mini",
    {
      kind: SpanKind.CLIENT,
      startTime: T0 + 100,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.request.temperature": 0.2,
        "gen_ai.usage.input_tokens": 20,
        "gen_ai.usage.output_tokens": 10,
        "gen_ai.usage.cache_read.input_tokens": 5,
        "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "You are terse." }]),
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] }]),
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Checking." }, { type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Paris" } }], finish_reason: "tool_call" }]),
      },
    },
    ctx,
  );
  llm.addEvent("new_token", T0 + 350);
  llm.end(T0 + 600);
  const tool = tracer.startSpan("execute_tool get_weather", { startTime: T0 + 700, attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.arguments": '{"city":"Paris"}', "gen_ai.tool.call.result": '{"temp":18}' } }, ctx);
  tool.end(T0 + 800);
  root.end(T0 + 1000);
}

describeBackends("OTLP trace ingestion", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const headers = (project: string, key = server.apiKey) => ({ ...(key ? { "x-api-key": key } : {}), "Langsmith-Project": project });
  const project = (name: string) => `otel-${name}-${backend}-${randomUUID().slice(0, 6)}`;
  const roots = async (name: string) => (await server.api(`/runs?project_name=${encodeURIComponent(name)}&is_root=true`)).body.runs as any[];
  const allRuns = async (name: string) => ((await server.api(`/runs?project_name=${encodeURIComponent(name)}`)).body.runs ?? []) as any[];

  beforeAll(async () => {
    const price = await server.api("/model-prices", {
      method: "POST",
      body: JSON.stringify({ model_name: "gpt-4o-mini", match_pattern: "^gpt-4o-mini", provider: "openai", input_per_million: 2, output_per_million: 3, input_details_per_million: { cache_read: 1 } }),
    });
    expect(price.status).toBe(201);
  });

  it("stores a protobuf export as one tree with tokens, cost, TTFT and rendered GenAI messages, children first", async () => {
    const name = project("proto");
    const spans = await record(agentTrace);
    const exporter = new ProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: headers(name) });
    // children end (and are exported) before their parent: two requests, the root last
    const root = spans.find((s) => !s.parentSpanContext)!;
    expect((await exportSpans(exporter, spans.filter((s) => s !== root))).code).toBe(ExportResultCode.SUCCESS);
    expect((await exportSpans(exporter, [root])).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();

    const [r] = await roots(name);
    expect(r).toMatchObject({ name: "invoke_agent weather", run_type: "chain", status: "success", thread_id: "conv-7", latency_ms: 1000 });
    expect(r.trace_id).toBe(`${root.spanContext().traceId.slice(0, 8)}-${root.spanContext().traceId.slice(8, 12)}-${root.spanContext().traceId.slice(12, 16)}-${root.spanContext().traceId.slice(16, 20)}-${root.spanContext().traceId.slice(20)}`);
    expect(r.trace).toMatchObject({ run_count: 3, llm_count: 1, input_tokens: 20, output_tokens: 10 });
    expect(r.trace.total_cost).toBeCloseTo((5 * 1 + 15 * 2 + 10 * 3) / 1e6, 12);

    const tree = (await server.api(`/traces/${r.trace_id}`)).body;
    expect(tree.runs).toHaveLength(1);
    const children = tree.runs[0].children;
    expect(children.map((c: any) => [c.name, c.run_type])).toEqual([
      ["chat gpt-4o-mini", "llm"],
      ["execute_tool get_weather", "tool"],
    ]);
    // dotted orders were filled in once the root arrived
    const stored = await allRuns(name);
    expect(stored.every((x: any) => typeof x.dotted_order === "string" && x.dotted_order.startsWith(stored.find((y: any) => y.id === r.id).dotted_order))).toBe(true);

    const llm = (await server.api(`/runs/${children[0].id}`)).body;
    expect(llm).toMatchObject({ model: "gpt-4o-mini", provider: "openai", ttft_ms: 250, usage: { input_tokens: 20, output_tokens: 10, input_token_details: { cache_read: 5 } } });
    expect(llm.cost).toMatchObject({ source: "price" });
    expect(llm.messages.rendered).toBe(true);
    expect(llm.messages.messages.map((m: any) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(llm.messages.messages[2].content).toEqual([
      { type: "text", text: "Checking." },
      { type: "tool_call", id: "call_1", name: "get_weather", args: { city: "Paris" } },
    ]);
    const tool = (await server.api(`/runs/${children[1].id}`)).body;
    expect(tool).toMatchObject({ inputs: { city: "Paris" }, outputs: { temp: 18 } });

    // the same export again (an exporter retry) changes nothing
    const again = new ProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: headers(name) });
    expect((await exportSpans(again, spans)).code).toBe(ExportResultCode.SUCCESS);
    await again.shutdown();
    expect((await roots(name))[0].trace).toMatchObject({ run_count: 3, input_tokens: 20 });
  });

  it("takes gzipped JSON from the http exporter at LangSmith's self-hosted path: older GenAI events, OpenInference, errors", async () => {
    const name = project("json");
    const spans = await record(async (tracer) => {
      const root = tracer.startSpan("pipeline", { startTime: T0, attributes: { "openinference.span.kind": "CHAIN", "input.value": '{"question":"hi"}', "output.value": "done" } });
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      const llm = tracer.startSpan("anthropic.messages", { startTime: T0 + 10, attributes: { "gen_ai.system": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5", "gen_ai.usage.input_tokens": 100, "gen_ai.usage.output_tokens": 7 } }, ctx);
      llm.addEvent("gen_ai.system.message", { content: "Answer in French." }, T0 + 10);
      llm.addEvent("gen_ai.user.message", { content: "Hello" }, T0 + 10);
      llm.addEvent("gen_ai.choice", { index: 0, finish_reason: "stop", message: JSON.stringify({ role: "assistant", content: "Bonjour !" }) }, T0 + 50);
      llm.end(T0 + 60);
      const oi = tracer.startSpan(
        "openai.chat",
        {
          startTime: T0 + 70,
          attributes: {
            "openinference.span.kind": "LLM",
            "llm.model_name": "gpt-4o-mini",
            "llm.provider": "openai",
            "llm.token_count.prompt": 8,
            "llm.token_count.completion": 2,
            "llm.input_messages.0.message.role": "user",
            "llm.input_messages.0.message.content": "Ping",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": "Pong",
          },
        },
        ctx,
      );
      oi.end(T0 + 80);
      const failing = tracer.startSpan("lookup", { startTime: T0 + 90 }, ctx);
      failing.recordException(new TypeError("no such city"));
      failing.setStatus({ code: SpanStatusCode.ERROR });
      failing.end(T0 + 95);
      root.end(T0 + 100);
    });
    const exporter = new HttpExporter({ url: `${server.url}/api/v1/otel/v1/traces`, headers: headers(name), compression: "gzip" as any });
    expect((await exportSpans(exporter, spans)).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();

    const [r] = await roots(name);
    expect(r).toMatchObject({ name: "pipeline", status: "success" });
    expect((await server.api(`/runs/${r.id}`)).body).toMatchObject({ inputs: { question: "hi" }, outputs: { output: "done" } });
    const runs = await allRuns(name);
    const byName = (n: string) => runs.find((x: any) => x.name === n);
    const claude = (await server.api(`/runs/${byName("anthropic.messages").id}`)).body;
    expect(claude).toMatchObject({ run_type: "llm", model: "claude-sonnet-4-5", provider: "anthropic", usage: { input_tokens: 100, output_tokens: 7 } });
    expect(claude.cost.total_cost).toBeGreaterThan(0); // priced from the default table
    expect(claude.messages.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "Answer in French." }] },
      { role: "user", content: [{ type: "text", text: "Hello" }] },
      { role: "assistant", content: [{ type: "text", text: "Bonjour !" }] },
    ]);
    const oi = (await server.api(`/runs/${byName("openai.chat").id}`)).body;
    expect(oi).toMatchObject({ run_type: "llm", model: "gpt-4o-mini", provider: "openai", usage: { input_tokens: 8, output_tokens: 2 } });
    expect(oi.messages.messages.map((m: any) => [m.role, m.content[0].text])).toEqual([
      ["user", "Ping"],
      ["assistant", "Pong"],
    ]);
    expect(oi.cost.total_cost).toBeCloseTo((8 * 2 + 2 * 3) / 1e6, 12);
    expect(byName("lookup")).toMatchObject({ status: "error" });
    expect((await server.api(`/runs/${byName("lookup").id}`)).body.error).toMatch(/TypeError: no such city/);
  });

  it("answers a bad protobuf body with 400 in OTLP's shape and stores nothing", async () => {
    const name = project("bad");
    const res = await fetch(`${server.url}/otel/v1/traces`, { method: "POST", headers: { ...headers(name), "content-type": "application/x-protobuf" }, body: new Uint8Array([0x0a, 0xff, 0xff, 0x03, 0x01]) });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/application\/x-protobuf/);
    const status = Status.toObject(Status.decode(new Uint8Array(await res.arrayBuffer()))) as { code: number; message: string };
    expect(status.code).toBe(3);
    expect(status.message).toMatch(/protobuf/);

    const zipped = await fetch(`${server.url}/otel/v1/traces`, { method: "POST", headers: { ...headers(name), "content-type": "application/x-protobuf", "content-encoding": "gzip" }, body: gzipSync(Buffer.from([0x0a, 0xff, 0xff, 0x03, 0x01])) });
    expect(zipped.status).toBe(400);
    const plain = await fetch(`${server.url}/otel/v1/traces`, { method: "POST", headers: { ...headers(name), "content-type": "application/json" }, body: "{not json" });
    expect(plain.status).toBe(400);
    expect(await plain.json()).toMatchObject({ code: 3, message: expect.stringMatching(/JSON/) });
    const text = await fetch(`${server.url}/otel/v1/traces`, { method: "POST", headers: { ...headers(name), "content-type": "text/plain" }, body: "hello" });
    expect(text.status).toBe(415);
    expect(await allRuns(name)).toEqual([]);
  });

  it("stores the good spans of a JSON export and reports the bad ones as a partial success", async () => {
    const name = project("partial");
    const traceId = randomUUID().replaceAll("-", "");
    const span = (spanId: string, extra: Record<string, unknown> = {}) => ({ traceId, spanId, name: `s-${spanId}`, kind: 1, startTimeUnixNano: `${BigInt(T0) * 1_000_000n}`, endTimeUnixNano: `${BigInt(T0 + 5) * 1_000_000n}`, ...extra });
    const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "raw" }, spans: [span("00000000000000a1"), span("xyz"), span("00000000000000a2", { traceId: "00" })] }] }] });
    const res = await fetch(`${server.url}/otel/v1/traces`, { method: "POST", headers: { ...headers(name), "content-type": "application/json", "content-encoding": "gzip" }, body: gzipSync(body) });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const out = (await res.json()) as any;
    expect(out.partialSuccess).toMatchObject({ rejectedSpans: 2, errorMessage: expect.stringMatching(/spanId|traceId/) });
    expect((await allRuns(name)).map((r: any) => r.name)).toEqual(["s-00000000000000a1"]);
  });

  it("refuses a wrong key with 401, and another tenant's key neither sees nor touches this tenant's traces", async () => {
    const name = project("tenants");
    const spans = await record(agentTrace);
    const wrong = new ProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: headers(name, "lsv2_pt_0123456789abcdef0123456789abcdef_0123456789") });
    const refused = await exportSpans(wrong, spans);
    expect(refused.code).toBe(ExportResultCode.FAILED);
    expect((refused.error as { code?: number }).code).toBe(401);
    await wrong.shutdown();
    expect(await allRuns(name)).toEqual([]);

    const other = await server.handle.facility.auth.createTenant(`other-${randomUUID().slice(0, 6)}`);
    const otherKey = (await server.handle.facility.auth.createKey([other.id])).key;
    const theirs = new HttpExporter({ url: `${server.url}/otel/v1/traces`, headers: headers(name, otherKey) });
    expect((await exportSpans(theirs, spans)).code).toBe(ExportResultCode.SUCCESS);
    await theirs.shutdown();
    // stored for the other tenant only: this tenant has no such project, the other one has the trace
    expect(await allRuns(name)).toEqual([]);
    const seen = await fetch(`${server.url}/runs?project_name=${name}&is_root=true`, { headers: { "x-api-key": otherKey } });
    expect(((await seen.json()) as any).runs.map((r: any) => r.name)).toEqual(["invoke_agent weather"]);
    // the same trace sent by this tenant is its own, independent copy
    const mine = new ProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: headers(name) });
    expect((await exportSpans(mine, spans)).code).toBe(ExportResultCode.SUCCESS);
    await mine.shutdown();
    expect((await roots(name)).map((r: any) => r.trace.run_count)).toEqual([3]);
  });

  it("a deployment's tracing key writes spans into its own project only", async () => {
    const own = project("dep");
    const key = (await server.handle.facility.auth.createDeploymentKey(DEFAULT_TENANT_ID, { id: randomUUID(), name: own })).key;
    const spans = await record(agentTrace);
    const exporter = new ProtoExporter({ url: `${server.url}/otel/v1/traces`, headers: { "x-api-key": key } });
    expect((await exportSpans(exporter, spans)).code).toBe(ExportResultCode.SUCCESS);
    await exporter.shutdown();
    expect((await roots(own)).map((r: any) => r.name)).toEqual(["invoke_agent weather"]);

    const elsewhere = project("not-mine");
    const res = await fetch(`${server.url}/v1/traces`, {
      method: "POST",
      headers: { "x-api-key": key, "Langsmith-Project": elsewhere, "content-type": "application/json" },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: randomUUID().replaceAll("-", ""), spanId: "00000000000000b1", name: "x", startTimeUnixNano: "1700000000000000000", endTimeUnixNano: "1700000000100000000" }] }] }] }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).partialSuccess).toMatchObject({ rejectedSpans: 1, errorMessage: expect.stringContaining(own) });
    expect(await allRuns(elsewhere)).toEqual([]);
  });
});

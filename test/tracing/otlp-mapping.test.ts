/**
 * Span → run mapping of the vocabularies the exporter tests do not emit (pure): OpenLLMetry's
 * flattened prompts with tool calls, LangSmith's own OTel attributes, the AI SDK's time to first
 * chunk, and hostile flattened keys.
 */
import { describe, expect, it } from "vitest";
import type { OtlpSpan } from "../../src/tracing/otlp/decode.js";
import { spanToRun } from "../../src/tracing/otlp/span-to-run.js";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";

const NS = 1_700_000_000_000_000_000n;
const span = (attributes: OtlpSpan["attributes"], extra: Partial<OtlpSpan> = {}): OtlpSpan => ({
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "b7ad6b7169203331",
  name: "call",
  kind: 3,
  startTimeUnixNano: NS,
  endTimeUnixNano: NS + 2_000_000_000n,
  attributes,
  events: [],
  status: { code: 0 },
  resource: {},
  scope: {},
  ...extra,
});
const ctx = { runIdOf: new Map<string, string>() };

describe("OTLP span → run", () => {
  it("reads OpenLLMetry's flattened prompt and completion, with tool calls, into rendered native messages", () => {
    const run = spanToRun(
      span({
        "traceloop.span.kind": "task",
        "gen_ai.system": "OpenAI",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.usage.prompt_tokens": 12,
        "gen_ai.usage.completion_tokens": 4,
        "gen_ai.prompt.0.role": "system",
        "gen_ai.prompt.0.content": "Be brief.",
        "gen_ai.prompt.1.role": "user",
        "gen_ai.prompt.1.content": "Weather?",
        "gen_ai.completion.0.role": "assistant",
        "gen_ai.completion.0.tool_calls.0.id": "c1",
        "gen_ai.completion.0.tool_calls.0.name": "weather",
        "gen_ai.completion.0.tool_calls.0.arguments": '{"city":"Oslo"}',
      }),
      ctx,
    );
    expect(run).toMatchObject({ id: "0af76519-16cd-43dd-b7ad-6b7169203331", trace_id: "0af76519-16cd-43dd-8448-eb211c80319c", parent_run_id: null, run_type: "chain" });
    expect(run.extra.metadata).toMatchObject({ ls_model_name: "gpt-4o", ls_provider: "openai", usage_metadata: { input_tokens: 12, output_tokens: 4, total_tokens: 16 } });
    const n = normalizeLlmRun(run.inputs, run.outputs)!;
    expect(n.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(n.messages[2]!.content).toEqual([{ type: "tool_call", id: "c1", name: "weather", args: { city: "Oslo" } }]);
  });

  it("takes LangSmith's own attributes: run type, name, ids, payloads, metadata, tags, usage", () => {
    const run = spanToRun(
      span({
        "langsmith.span.kind": "LLM",
        "langsmith.trace.name": "ChatOpenAI",
        "langsmith.span.id": "11111111-2222-4333-8444-555555555555",
        "langsmith.trace.id": "11111111-2222-4333-8444-000000000000",
        "langsmith.span.parent_id": "11111111-2222-4333-8444-000000000000",
        "langsmith.trace.session_name": "from-span",
        "langsmith.metadata.user": "ada",
        "langsmith.span.tags": "a, b",
        "langsmith.usage_metadata": JSON.stringify({ input_tokens: 3, output_tokens: 2, total_tokens: 5 }),
        "gen_ai.prompt": JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
        "gen_ai.completion": JSON.stringify({ choices: [{ message: { role: "assistant", content: "yo" } }] }),
      }),
      { ...ctx, project: "from-header" },
    );
    expect(run).toMatchObject({ id: "11111111-2222-4333-8444-555555555555", trace_id: "11111111-2222-4333-8444-000000000000", parent_run_id: "11111111-2222-4333-8444-000000000000", name: "ChatOpenAI", run_type: "llm", session_name: "from-span", tags: ["a", "b"] });
    expect(run.extra.metadata).toMatchObject({ user: "ada", usage_metadata: { input_tokens: 3 } });
    expect(normalizeLlmRun(run.inputs, run.outputs)!.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    // consumed attributes are not repeated raw
    expect(Object.keys(run.extra.otel.attributes)).toEqual([]);
  });

  it("turns the AI SDK's msToFirstChunk into a new_token event and keeps microseconds", () => {
    const run = spanToRun(span({ "gen_ai.request.model": "gpt-4o-mini", "ai.response.msToFirstChunk": 123.5 }, { startTimeUnixNano: NS + 1_234_567n }), ctx);
    expect(run.start_time).toBe("2023-11-14T22:13:20.001234Z");
    expect(run.events).toEqual([{ name: "new_token", time: "2023-11-14T22:13:20.124734Z" }]);
    expect(run.run_type).toBe("llm");
  });

  it("ignores flattened keys that would reach Object.prototype", () => {
    const run = spanToRun(span({ "gen_ai.prompt.0.__proto__.polluted": "yes", "gen_ai.prompt.0.role": "user", "gen_ai.prompt.0.content": "ok" }), ctx);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(run.inputs.messages).toEqual([{ role: "user", content: [{ type: "text", text: "ok" }] }]);
  });
});

import { describe, expect, it } from "vitest";
import { computeCost, findPrice, type ModelPrice } from "../../src/tracing/accounting/cost.js";
import { timeToFirstToken } from "../../src/tracing/accounting/ttft.js";
import { addUsage, normalizeUsage } from "../../src/tracing/accounting/usage.js";
import { accountRun } from "../../src/tracing/accounting/account.js";
import { countTokens, encodingFor, estimateUsage, TOKENIZE_LIMIT_CHARS } from "../../src/tracing/accounting/estimate.js";
import { extractClientCost, extractUsage } from "../../src/tracing/accounting/extract.js";
import { identifyModel, inferProvider } from "../../src/tracing/accounting/model.js";
import type { RunRecord } from "../../src/tracing/run.js";

describe("usage normalisation", () => {
  it("converts OpenAI usage, details included", () => {
    expect(
      normalizeUsage({
        prompt_tokens: 100,
        completion_tokens: 20,
        total_tokens: 120,
        prompt_tokens_details: { cached_tokens: 40, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 8 },
      }),
    ).toEqual({ input_tokens: 100, output_tokens: 20, total_tokens: 120, input_token_details: { cache_read: 40 }, output_token_details: { reasoning: 8 } });
  });

  it("adds Anthropic cache tokens to input (they are reported beside it)", () => {
    expect(normalizeUsage({ input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 5, cache_read_input_tokens: 30 })).toEqual({
      input_tokens: 135,
      output_tokens: 10,
      total_tokens: 145,
      input_token_details: { cache_read: 30, cache_creation: 5 },
    });
  });

  it("keeps usage_metadata as is, normalising the 1hr spelling, and ignores non-usage objects", () => {
    expect(normalizeUsage({ input_tokens: 3, output_tokens: 2, input_token_details: { ephemeral_1hr_input_tokens: 1 } })).toEqual({
      input_tokens: 3,
      output_tokens: 2,
      total_tokens: 5,
      input_token_details: { ephemeral_1h_input_tokens: 1 },
    });
    expect(normalizeUsage({ foo: 1 })).toBeUndefined();
    expect(normalizeUsage(null)).toBeUndefined();
  });

  it("adds usages with their details", () => {
    const sum = addUsage(normalizeUsage({ input_tokens: 1, output_tokens: 1, input_token_details: { cache_read: 1 } }), normalizeUsage({ input_tokens: 2, output_tokens: 3 }));
    expect(sum).toEqual({ input_tokens: 3, output_tokens: 4, total_tokens: 7, input_token_details: { cache_read: 1 } });
  });
});

describe("cost", () => {
  const prices: ModelPrice[] = [
    { id: "gpt-4o-mini", match_pattern: "^gpt-4o-mini", provider: "openai", input_per_million: 2, output_per_million: 3, input_details_per_million: { cache_read: 1 } },
    { id: "gpt-4o-mini-2027", match_pattern: "^gpt-4o-mini", provider: "openai", effective_from: "2027-01-01", input_per_million: 1, output_per_million: 1 },
    { id: "broken", match_pattern: "(", input_per_million: 9, output_per_million: 9 },
  ];

  it("charges priced detail tokens at their price and the rest at the base price (LangSmith's example)", () => {
    const r = computeCost({ input_tokens: 20, output_tokens: 10, total_tokens: 30, input_token_details: { cache_read: 5 } }, "gpt-4o-mini", "openai", new Date("2026-11-21"), prices);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.cost.input_cost).toBeCloseTo(3.5e-5, 12);
    expect(r.cost.output_cost).toBeCloseTo(3e-5, 12);
    expect(r.cost.total_cost).toBeCloseTo(6.5e-5, 12);
    expect(r.cost.input_cost_details?.cache_read).toBeCloseTo(5e-6, 12);
    expect(r.cost.price_id).toBe("gpt-4o-mini");
  });

  it("uses the price in effect at the run's time, and reports why there is no cost instead of $0", () => {
    expect(findPrice(prices, "gpt-4o-mini-2024-07-18", "openai", new Date("2027-02-01"))?.id).toBe("gpt-4o-mini-2027");
    expect(findPrice(prices, "gpt-4o-mini", "anthropic", new Date("2026-11-21"))).toBeUndefined();
    const none = computeCost({ input_tokens: 1, output_tokens: 1, total_tokens: 2 }, "mystery-model", undefined, new Date(), prices);
    expect(none).toEqual({ ok: false, reason: 'no price for model "mystery-model"' });
    expect(computeCost(undefined, "gpt-4o-mini", undefined, new Date(), prices)).toEqual({ ok: false, reason: "no token usage" });
  });
});

describe("time to first token", () => {
  it("is the first new_token event after the start, or a supplied first_token_time", () => {
    const start = "2026-11-21T10:00:00.000Z";
    const events = [
      { name: "start", time: "2026-11-21T10:00:00.001Z" },
      { name: "new_token", time: "2026-11-21T10:00:00.350Z" },
      { name: "new_token", time: "2026-11-21T10:00:00.250Z" },
    ];
    expect(timeToFirstToken(start, events)).toBe(250);
    expect(timeToFirstToken(start, [], "2026-11-21T10:00:01.000Z")).toBe(1000);
    expect(timeToFirstToken(Date.parse(start), events)).toBe(250);
    expect(timeToFirstToken(start, [{ name: "end", time: start }])).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Realistic runs (shapes from the tracing reference §1.7 and §2.1)

const START = "2026-11-21T09:45:42.705001Z";
const END = "2026-11-21T09:45:43.905000Z";

/** wrapOpenAI: raw request in, raw completion out with `usage` replaced by `usage_metadata`. */
function wrapOpenAIRun(over: Partial<RunRecord> = {}): RunRecord {
  const usage_metadata = {
    input_tokens: 1200,
    output_tokens: 300,
    total_tokens: 1500,
    input_token_details: { cache_read: 1000, audio: 0 },
    output_token_details: { reasoning: 0, audio: 0 },
  };
  return {
    id: "0193a1b2-0000-7000-8000-000000000001",
    name: "ChatOpenAI",
    run_type: "llm",
    start_time: START,
    end_time: END,
    inputs: { model: "gpt-4o-mini", messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "Capital of France?" }], temperature: 0 },
    outputs: {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "gpt-4o-mini-2024-07-18",
      choices: [{ index: 0, message: { role: "assistant", content: "Paris." }, finish_reason: "stop" }],
      usage_metadata,
    },
    extra: {
      metadata: { ls_provider: "openai", ls_model_type: "chat", ls_model_name: "gpt-4o-mini", ls_temperature: 0, ls_invocation_params: { model: "gpt-4o-mini" }, usage_metadata },
      runtime: { library: "langsmith", runtime: "nodejs", sdk: "langsmith-js" },
    },
    ...over,
  };
}

/** wrapAnthropic: system moved into messages; usage_metadata input is inclusive (100 + 5 + 30). */
function wrapAnthropicRun(): RunRecord {
  const usage_metadata = { input_tokens: 135, output_tokens: 10, total_tokens: 145, input_token_details: { cache_read: 30, ephemeral_5m_input_tokens: 5 } };
  return {
    id: "0193a1b2-0000-7000-8000-000000000002",
    name: "ChatAnthropic",
    run_type: "llm",
    start_time: START,
    end_time: END,
    inputs: { model: "claude-sonnet-4-5", max_tokens: 1024, messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }] },
    outputs: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "Hello!" }], stop_reason: "end_turn", usage_metadata },
    extra: { metadata: { ls_provider: "anthropic", ls_model_name: "claude-sonnet-4-5", usage_metadata } },
  };
}

const lc = (cls: string, kwargs: Record<string, unknown>) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs });

/** LangChain ChatOpenAI: batch-nested constructor messages in, an LLMResult out. */
function langChainRun(opts: { messageUsage?: boolean; metadataUsage?: boolean } = {}): RunRecord {
  const usage_metadata = { input_tokens: 42, output_tokens: 8, total_tokens: 50, input_token_details: { cache_read: 0 }, output_token_details: { reasoning: 0 } };
  return {
    id: "0193a1b2-0000-7000-8000-000000000003",
    name: "ChatOpenAI",
    run_type: "llm",
    start_time: START,
    end_time: END,
    inputs: { messages: [[lc("SystemMessage", { content: "You are a bot." }), lc("HumanMessage", { content: "What is 2+2?" })]] },
    outputs: {
      generations: [
        [
          {
            text: "4",
            message: lc("AIMessage", {
              content: "4",
              tool_calls: [],
              ...(opts.messageUsage === false ? {} : { usage_metadata }),
              response_metadata: { model_name: "gpt-4o-2024-08-06", finish_reason: "stop" },
            }),
            generationInfo: { finish_reason: "stop" },
          },
        ],
      ],
      llmOutput: { tokenUsage: { promptTokens: 40, completionTokens: 7, totalTokens: 47 } },
    },
    extra: {
      invocation_params: { model: "gpt-4o", temperature: 0 },
      metadata: { ls_provider: "openai", ls_model_name: "gpt-4o", ls_model_type: "chat", ...(opts.metadataUsage ? { usage_metadata } : {}) },
    },
    events: [
      { name: "start", time: "2026-11-21T09:45:42.705Z" },
      { name: "new_token", time: "2026-11-21T09:45:43.105Z" },
      { name: "new_token", time: "2026-11-21T09:45:43.125Z" },
      { name: "end", time: "2026-11-21T09:45:43.905Z" },
    ],
  };
}

const PRICES: ModelPrice[] = [
  { id: "p-mini", match_pattern: "^gpt-4o-mini", provider: "openai", input_per_million: 0.15, output_per_million: 0.6, input_details_per_million: { cache_read: 0.075 } },
  { id: "p-4o", match_pattern: "^gpt-4o(?!-mini)", provider: "openai", input_per_million: 2.5, output_per_million: 10, input_details_per_million: { cache_read: 1.25 } },
  { id: "p-sonnet", match_pattern: "^claude-sonnet-4-5", provider: "anthropic", input_per_million: 3, output_per_million: 15, input_details_per_million: { cache_read: 0.3, ephemeral_5m_input_tokens: 3.75 } },
  { id: "p-gemini", match_pattern: "^gemini-2\\.5-pro", provider: "google", input_per_million: 1.25, output_per_million: 10 },
  { id: "p-example", match_pattern: "^my-model$", input_per_million: 2, output_per_million: 3, input_details_per_million: { cache_read: 1 } },
];

describe("model identification", () => {
  it("takes the model from each source in order", () => {
    // every source set, each to a different name; removing the winner exposes the next one
    const run: RunRecord = {
      id: "r",
      inputs: { model: "from-inputs-model", model_name: "from-inputs-model-name" },
      outputs: {
        model: "from-outputs-model",
        response_metadata: { model_name: "from-outputs-response-metadata" },
        generations: [[{ message: lc("AIMessage", { content: "", response_metadata: { model_name: "from-generation-model-name", model: "from-generation-model" } }) }]],
      },
      extra: {
        invocation_params: { model: "from-inv-model", model_name: "from-inv-model_name", modelName: "from-inv-modelName", model_id: "from-inv-model_id" },
        metadata: { trace_model_name: "from-trace-model-name", ls_model_name: "from-ls-model-name", ls_invocation_params: { model: "from-ls-invocation-params" } },
      },
    };
    const removals: [string, () => void][] = [
      ["from-trace-model-name", () => delete run.extra!.metadata.trace_model_name],
      ["from-ls-model-name", () => delete run.extra!.metadata.ls_model_name],
      ["from-inputs-model", () => delete run.inputs!.model],
      ["from-inputs-model-name", () => delete run.inputs!.model_name],
      ["from-inv-model", () => delete run.extra!.invocation_params.model],
      ["from-inv-model_name", () => delete run.extra!.invocation_params.model_name],
      ["from-inv-modelName", () => delete run.extra!.invocation_params.modelName],
      ["from-inv-model_id", () => delete run.extra!.invocation_params.model_id],
      ["from-ls-invocation-params", () => delete run.extra!.metadata.ls_invocation_params],
      ["from-outputs-model", () => delete run.outputs!.model],
      ["from-outputs-response-metadata", () => delete run.outputs!.response_metadata],
      ["from-generation-model-name", () => delete run.outputs!.generations[0][0].message.kwargs.response_metadata.model_name],
      ["from-generation-model", () => delete run.outputs!.generations[0][0].message.kwargs.response_metadata.model],
    ];
    for (const [expected, remove] of removals) {
      expect(identifyModel(run).model).toBe(expected);
      remove();
    }
    expect(identifyModel(run)).toEqual({});
  });

  it("reads the wrappers' and LangChain's runs", () => {
    expect(identifyModel(wrapOpenAIRun())).toEqual({ model: "gpt-4o-mini", provider: "openai" });
    expect(identifyModel(wrapAnthropicRun())).toEqual({ model: "claude-sonnet-4-5", provider: "anthropic" });
    const chain = langChainRun();
    delete chain.extra!.metadata.ls_model_name;
    expect(identifyModel(chain).model).toBe("gpt-4o"); // invocation params before the response's dated name
  });

  it("takes the provider from trace_provider, then ls_provider, then infers it from the name", () => {
    expect(identifyModel({ id: "r", extra: { metadata: { trace_provider: "my-host", ls_provider: "openai", trace_model_name: "x" } } }).provider).toBe("my-host");
    expect(identifyModel({ id: "r", extra: { metadata: { ls_provider: "azure" } }, inputs: { model: "gpt-4o" } })).toEqual({ model: "gpt-4o", provider: "azure" });
    expect(identifyModel({ id: "r", inputs: { model: "claude-3-5-haiku-latest" } })).toEqual({ model: "claude-3-5-haiku-latest", provider: "anthropic" });
    const cases: [string, string | undefined][] = [
      ["gpt-4o", "openai"],
      ["o1", "openai"],
      ["o3-mini", "openai"],
      ["o4-mini-2025-04-16", "openai"],
      ["chatgpt-4o-latest", "openai"],
      ["claude-opus-4-1", "anthropic"],
      ["gemini-2.5-flash", "google"],
      ["deepseek-chat", "deepseek"],
      ["grok-4", "xai"],
      ["mistral-large-latest", "mistral"],
      ["o10-model", undefined],
      ["omni", undefined],
      ["openai/gpt-4o", undefined],
      ["anthropic.claude-3-5-sonnet-20241022-v2:0", undefined],
      ["llama-3.3-70b", undefined],
    ];
    for (const [model, provider] of cases) expect([model, inferProvider(model)]).toEqual([model, provider]);
    expect(identifyModel({ id: "r", extra: { metadata: { ls_model_name: "   " } }, inputs: { model: " gpt-4o " } }).model).toBe("gpt-4o");
  });
});

describe("usage extraction", () => {
  it("reads wrapOpenAI's outputs.usage_metadata first", () => {
    const run = wrapOpenAIRun();
    run.extra!.metadata.usage_metadata = { input_tokens: 1, output_tokens: 1 }; // loses to outputs
    expect(extractUsage(run)).toEqual({
      source: "outputs",
      usage: { input_tokens: 1200, output_tokens: 300, total_tokens: 1500, input_token_details: { cache_read: 1000 } },
    });
  });

  it("reads wrapAnthropic's inclusive usage with its cache details", () => {
    expect(extractUsage(wrapAnthropicRun())).toEqual({
      source: "outputs",
      usage: { input_tokens: 135, output_tokens: 10, total_tokens: 145, input_token_details: { cache_read: 30, ephemeral_5m_input_tokens: 5 } },
    });
  });

  it("falls back to metadata, then LangChain generations, then llmOutput", () => {
    expect(extractUsage(langChainRun({ metadataUsage: true }))?.source).toBe("metadata");
    expect(extractUsage(langChainRun())).toEqual({
      source: "generations",
      usage: { input_tokens: 42, output_tokens: 8, total_tokens: 50 },
    });
    // no message usage: llmOutput.tokenUsage (camelCase, JS) …
    expect(extractUsage(langChainRun({ messageUsage: false }))).toEqual({ source: "generations", usage: { input_tokens: 40, output_tokens: 7, total_tokens: 47 } });
    // … or llm_output.token_usage (Python)
    const py = langChainRun({ messageUsage: false });
    delete py.outputs!.llmOutput;
    py.outputs!.llm_output = { token_usage: { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 } };
    expect(extractUsage(py)).toEqual({ source: "generations", usage: { input_tokens: 11, output_tokens: 3, total_tokens: 14 } });
  });

  it("adds the usage of each prompt of a batch, once per prompt", () => {
    const run = langChainRun();
    const gen = run.outputs!.generations[0][0];
    run.outputs!.generations = [[gen, gen], [gen]];
    expect(extractUsage(run)?.usage).toMatchObject({ input_tokens: 84, output_tokens: 16, total_tokens: 100 });
  });

  it("reads raw provider usage: OpenAI chat, OpenAI Responses, Anthropic, Gemini", () => {
    const raw = (usage: unknown, key = "usage"): RunRecord => ({ id: "r", run_type: "llm", outputs: { [key]: usage } });
    expect(
      extractUsage(raw({ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_tokens_details: { cached_tokens: 40 }, completion_tokens_details: { reasoning_tokens: 8 } })),
    ).toEqual({ source: "provider", usage: { input_tokens: 100, output_tokens: 20, total_tokens: 120, input_token_details: { cache_read: 40 }, output_token_details: { reasoning: 8 } } });
    expect(
      extractUsage(raw({ input_tokens: 1200, input_tokens_details: { cached_tokens: 1000 }, output_tokens: 300, output_tokens_details: { reasoning_tokens: 200 }, total_tokens: 1500 })),
    ).toEqual({ source: "provider", usage: { input_tokens: 1200, output_tokens: 300, total_tokens: 1500, input_token_details: { cache_read: 1000 }, output_token_details: { reasoning: 200 } } });
    expect(extractUsage(raw({ input_tokens: 100, cache_creation_input_tokens: 5, cache_read_input_tokens: 30, output_tokens: 10 }))).toEqual({
      source: "provider",
      usage: { input_tokens: 135, output_tokens: 10, total_tokens: 145, input_token_details: { cache_read: 30, cache_creation: 5 } },
    });
    expect(extractUsage(raw({ promptTokenCount: 50, candidatesTokenCount: 10, thoughtsTokenCount: 5, totalTokenCount: 65, cachedContentTokenCount: 20 }, "usageMetadata"))).toEqual({
      source: "provider",
      usage: { input_tokens: 50, output_tokens: 15, total_tokens: 65, input_token_details: { cache_read: 20 }, output_token_details: { reasoning: 5 } },
    });
  });

  it("reads the run's own token fields last, and clamps negative counts to 0", () => {
    expect(extractUsage({ id: "r", prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 })).toEqual({ source: "fields", usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 } });
    expect(extractUsage({ id: "r", outputs: { usage_metadata: { input_tokens: -5, output_tokens: 10, total_tokens: 5 } } })).toEqual({
      source: "outputs",
      usage: { input_tokens: 0, output_tokens: 10, total_tokens: 10 },
    });
    expect(extractUsage({ id: "r", outputs: { usage_metadata: { input_tokens: 3, output_tokens: 2, total_tokens: -1 } } })?.usage.total_tokens).toBe(5);
    expect(extractUsage({ id: "r", outputs: { text: "no usage" } })).toBeUndefined();
    // costs alone are not usage
    expect(extractUsage({ id: "r", outputs: { usage_metadata: { total_cost: 0.01 } } })).toBeUndefined();
  });
});

describe("client-supplied costs", () => {
  it("reads usage_metadata costs and details", () => {
    const run = wrapOpenAIRun();
    Object.assign(run.outputs!.usage_metadata, { input_cost: 0.001, output_cost: 0.002, input_cost_details: { cache_read: 0.0004 } });
    expect(extractClientCost(run)).toEqual({ input_cost: 0.001, output_cost: 0.002, total_cost: 0.003, input_cost_details: { cache_read: 0.0004 }, source: "client" });
  });

  it("takes details alone as their side's cost, a total alone as an other cost, and the run's fields", () => {
    expect(extractClientCost({ id: "r", extra: { metadata: { usage_metadata: { output_cost_details: { reasoning: 0.01, text: 0.02 } } } } })).toEqual({
      input_cost: 0,
      output_cost: 0.03,
      total_cost: 0.03,
      output_cost_details: { reasoning: 0.01, text: 0.02 },
      source: "client",
    });
    expect(extractClientCost({ id: "r", run_type: "tool", outputs: { usage_metadata: { total_cost: 0.05 } } })).toEqual({ input_cost: 0, output_cost: 0, total_cost: 0.05, source: "client" });
    expect(extractClientCost({ id: "r", prompt_cost: 0.1, completion_cost: 0.2 })).toEqual({ input_cost: 0.1, output_cost: 0.2, total_cost: expect.closeTo(0.3, 12), source: "client" });
    expect(extractClientCost({ id: "r", prompt_cost: -1, completion_cost: 0.2, total_cost: 0.2 })).toMatchObject({ input_cost: 0, total_cost: 0.2 });
    expect(extractClientCost(wrapOpenAIRun())).toBeUndefined();
  });
});

describe("token estimation", () => {
  it("picks o200k for recent OpenAI families and cl100k otherwise", () => {
    for (const m of ["gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-5", "gpt-5.1-codex", "o1", "o3-mini", "o4-mini", "openai/gpt-4o", "chatgpt-4o-latest"]) expect([m, encodingFor(m)]).toEqual([m, "o200k_base"]);
    for (const m of ["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "text-embedding-3-small", "claude-sonnet-4-5", "gemini-2.5-pro", "omni", undefined])
      expect([m, encodingFor(m)]).toEqual([m, "cl100k_base"]);
  });

  it("counts with the right tokenizer, special-token markup included as text", () => {
    expect(countTokens("Hello, world!", "o200k_base")).toBe(4);
    // "<|endoftext|>" is one special token, but in a message it is just text
    expect(countTokens("<|endoftext|>", "cl100k_base")).toBeGreaterThan(1);
    // the two tokenizers differ on non-English text
    const text = "Привет, как дела? これは日本語の文章です。";
    expect(countTokens(text, "o200k_base")).not.toBe(countTokens(text, "cl100k_base"));
    expect(countTokens("", "o200k_base")).toBe(0);
  });

  it("estimates a chat run: message text plus OpenAI's per-message overhead, and the output", () => {
    const run = wrapOpenAIRun();
    delete run.outputs!.usage_metadata;
    const e = estimateUsage(run, "gpt-4o-mini")!;
    const t = (s: string) => countTokens(s, "o200k_base");
    const input = t("You are terse.") + t("Capital of France?") + 2 * 3 + 3;
    expect(e).toEqual({ usage: { input_tokens: input, output_tokens: t("Paris."), total_tokens: input + t("Paris.") }, estimated: true, encoding: "o200k_base" });
  });

  it("counts tool schemas offered and tool calls made", () => {
    const tools = [{ type: "function", function: { name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
    const base: RunRecord = { id: "r", run_type: "llm", inputs: { model: "gpt-4o", messages: [{ role: "user", content: "Weather in Paris?" }] }, outputs: { choices: [{ message: { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] } }] } };
    const without = estimateUsage(base, "gpt-4o")!;
    const withTools = estimateUsage({ ...base, inputs: { ...base.inputs, tools } }, "gpt-4o")!;
    expect(withTools.usage.input_tokens - without.usage.input_tokens).toBe(countTokens(JSON.stringify(tools), "o200k_base"));
    expect(without.usage.output_tokens).toBe(countTokens("get_weather", "o200k_base") + countTokens('{"city":"Paris"}', "o200k_base"));
  });

  it("estimates LangChain runs with cl100k for non-OpenAI models", () => {
    const run = langChainRun({ messageUsage: false });
    const e = estimateUsage(run, "claude-sonnet-4-5")!;
    const t = (s: string) => countTokens(s, "cl100k_base");
    expect(e.encoding).toBe("cl100k_base");
    expect(e.usage.input_tokens).toBe(t("You are a bot.") + t("What is 2+2?") + 9);
    expect(e.usage.output_tokens).toBe(t("4"));
  });

  it("falls back to the strings of unreadable payloads, and gives up on empty ones", () => {
    const run: RunRecord = { id: "r", run_type: "llm", inputs: { prompts: ["Tell me a joke"] }, outputs: { generations: [[{ text: "No." }]] } };
    const e = estimateUsage(run, "gpt-3.5-turbo-instruct")!;
    expect(e.usage.input_tokens).toBe(countTokens("Tell me a joke", "cl100k_base"));
    expect(e.usage.output_tokens).toBe(countTokens("No.", "cl100k_base"));
    expect(estimateUsage({ id: "r", run_type: "llm", inputs: {}, outputs: {} }, "gpt-4o")).toBeUndefined();
  });

  it("estimates huge texts as characters / 4 and stays fast on pathological ones", () => {
    const big = "word ".repeat(Math.ceil(TOKENIZE_LIMIT_CHARS / 5) + 10);
    const run: RunRecord = { id: "r", run_type: "llm", inputs: { messages: [{ role: "user", content: big }] }, outputs: { choices: [{ message: { role: "assistant", content: "ok" } }] } };
    expect(estimateUsage(run, "gpt-4o")!.usage).toEqual({ input_tokens: Math.ceil(big.length / 4) + 6, output_tokens: 1, total_tokens: Math.ceil(big.length / 4) + 7 });
    countTokens("warm up", "o200k_base");
    const started = performance.now();
    const nasty = "a".repeat(200_000) + " " + ("b".repeat(63) + " ").repeat(3000);
    const n = estimateUsage({ id: "r", run_type: "llm", inputs: { messages: [{ role: "user", content: nasty }] } }, "gpt-4o")!.usage.input_tokens;
    // a hang guard, not a speed test: a tokenizer that backtracks or goes quadratic on this input takes
    // minutes; the linear one well under a second on an idle machine
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(n).toBeGreaterThan(nasty.length / 10);
    expect(n).toBeLessThan(nasty.length);
  });
});

describe("accountRun", () => {
  it("costs a wrapOpenAI run from its usage and the price table", () => {
    const acc = accountRun(wrapOpenAIRun(), PRICES);
    expect(acc).toMatchObject({ model: "gpt-4o-mini", provider: "openai", usage_source: "outputs", usage_estimated: false, cost_source: "price", price_id: "p-mini" });
    expect(acc.cost_reason).toBeUndefined();
    // 200 × 0.15 + 1000 × 0.075 per 1M; 300 × 0.6 per 1M
    expect(acc.cost!.input_cost).toBeCloseTo((200 * 0.15 + 1000 * 0.075) / 1e6, 15);
    expect(acc.cost!.output_cost).toBeCloseTo((300 * 0.6) / 1e6, 15);
    expect(acc.cost!.input_cost_details).toEqual({ cache_read: expect.closeTo(7.5e-5, 15) });
  });

  it("computes LangSmith's worked example: 20 input (5 cache_read), 10 output at $2/$1/$3 per 1M", () => {
    const acc = accountRun({ id: "r", run_type: "llm", start_time: START, end_time: END, extra: { metadata: { ls_model_name: "my-model" } }, outputs: { usage_metadata: { input_tokens: 20, output_tokens: 10, total_tokens: 30, input_token_details: { cache_read: 5 } } } }, PRICES);
    expect(acc.price_id).toBe("p-example");
    expect(acc.cost!.input_cost).toBeCloseTo(3.5e-5, 15);
    expect(acc.cost!.output_cost).toBeCloseTo(3e-5, 15);
    expect(acc.cost!.total_cost).toBeCloseTo(6.5e-5, 15);
  });

  it("costs wrapAnthropic's cache writes and reads", () => {
    const acc = accountRun(wrapAnthropicRun(), PRICES);
    expect(acc.price_id).toBe("p-sonnet");
    expect(acc.cost!.input_cost).toBeCloseTo((100 * 3 + 5 * 3.75 + 30 * 0.3) / 1e6, 15);
  });

  it("lets client costs win over prices", () => {
    const run = wrapOpenAIRun();
    Object.assign(run.outputs!.usage_metadata, { total_cost: 0.5 });
    const acc = accountRun(run, PRICES);
    expect(acc).toMatchObject({ cost_source: "client", cost: { input_cost: 0, output_cost: 0, total_cost: 0.5 } });
    expect(acc.price_id).toBeUndefined();
  });

  it("gives the reason when there is no cost", () => {
    const unknown = wrapOpenAIRun();
    unknown.extra!.metadata.ls_model_name = "gpt-9-ultra";
    expect(accountRun(unknown, PRICES)).toMatchObject({ cost: null, cost_source: null, cost_reason: 'no price for model "gpt-9-ultra" (openai)' });
    const pending: RunRecord = { id: "r", run_type: "llm", start_time: START, inputs: { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] } };
    expect(accountRun(pending, PRICES)).toMatchObject({ usage_estimated: false, cost: null, cost_reason: "no token usage (the run has not ended)" });
    expect(accountRun(pending, PRICES).usage).toBeUndefined();
  });

  it("estimates ended LLM runs sent without usage, and costs the estimate", () => {
    const run = langChainRun({ messageUsage: false });
    delete run.outputs!.llmOutput;
    const acc = accountRun(run, PRICES);
    expect(acc).toMatchObject({ model: "gpt-4o", usage_source: "estimate", usage_estimated: true, cost_source: "price", price_id: "p-4o" });
    const t = (s: string) => countTokens(s, "o200k_base");
    expect(acc.usage).toEqual({ input_tokens: t("You are a bot.") + t("What is 2+2?") + 9, output_tokens: t("4"), total_tokens: t("You are a bot.") + t("What is 2+2?") + 9 + t("4") });
    // a failed call is not estimated
    expect(accountRun({ ...run, error: "Error: 429 rate limited", outputs: undefined }, PRICES)).toMatchObject({ usage_estimated: false, cost: null, cost_reason: "no token usage" });
  });

  it("gives other runs only what their client sent", () => {
    const chain: RunRecord = { id: "r", run_type: "chain", start_time: START, end_time: END, inputs: { model: "gpt-4o", question: "hi" }, outputs: { usage: { prompt_tokens: 5, completion_tokens: 5 } } };
    const acc = accountRun(chain, PRICES);
    expect(acc).toMatchObject({ usage_estimated: false, cost: null, cost_source: null });
    expect(acc.usage).toBeUndefined();
    expect(acc.cost_reason).toContain("chain");
    const tool: RunRecord = { id: "t", run_type: "tool", start_time: START, end_time: END, outputs: { usage_metadata: { input_tokens: 3, output_tokens: 4, total_cost: 0.02 } } };
    expect(accountRun(tool, PRICES)).toMatchObject({ usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 }, usage_source: "outputs", cost_source: "client", cost: { total_cost: 0.02 } });
  });

  it("looks the price up under the provider's price-table name (google_genai → google)", () => {
    const run: RunRecord = { id: "r", run_type: "llm", start_time: START, end_time: END, extra: { metadata: { ls_provider: "google_genai", ls_model_name: "gemini-2.5-pro" } }, outputs: { usage_metadata: { input_tokens: 1000, output_tokens: 100 } } };
    const acc = accountRun(run, PRICES);
    expect(acc).toMatchObject({ provider: "google_genai", price_id: "p-gemini" });
    expect(acc.cost!.total_cost).toBeCloseTo((1000 * 1.25 + 100 * 10) / 1e6, 15);
  });

  it("takes the first token time from the run or its first new_token event", () => {
    const acc = accountRun(langChainRun(), PRICES);
    expect(acc.first_token_time).toBe("2026-11-21T09:45:43.105Z");
    expect(acc.ttft_ms).toBe(400); // the start's microseconds are below the millisecond
    const sent = accountRun({ id: "r", run_type: "llm", start_time: "2026-11-21T10:00:00Z", first_token_time: "2026-11-21T10:00:00.120Z", events: [{ name: "new_token", time: Date.parse("2026-11-21T10:00:00.050Z") }] }, PRICES);
    expect(sent).toMatchObject({ first_token_time: "2026-11-21T10:00:00.120Z", ttft_ms: 120 });
    const epoch = accountRun({ id: "r", run_type: "llm", start_time: "2026-11-21T10:00:00Z", events: [{ name: "new_token", time: Date.parse("2026-11-21T10:00:00.050Z") }] }, PRICES);
    expect(epoch).toMatchObject({ first_token_time: "2026-11-21T10:00:00.050Z", ttft_ms: 50 });
    expect(accountRun(wrapOpenAIRun(), PRICES).ttft_ms).toBeUndefined();
  });
});

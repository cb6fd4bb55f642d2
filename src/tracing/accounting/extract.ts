/**
 * The token usage and costs a client sent with a run (pure), wherever the SDKs put them, in the
 * one convention of usage.ts.
 */
import type { CostFigures } from "./cost.js";
import { metadataOf, type Json, type RunRecord } from "../run.js";
import { normalizeUsage, type Usage } from "./usage.js";

export type UsageSource = "outputs" | "metadata" | "generations" | "provider" | "fields";

const obj = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

/** Negative counts (broken clients, Bedrock-style exclusive counts gone wrong) become 0. */
function clamp(u: Usage): Usage {
  const input = Math.max(0, u.input_tokens);
  const output = Math.max(0, u.output_tokens);
  const negative = u.input_tokens < 0 || u.output_tokens < 0 || u.total_tokens < 0;
  return { ...u, input_tokens: input, output_tokens: output, total_tokens: negative ? Math.max(0, u.total_tokens, input + output) : u.total_tokens };
}

/** Any usage shape normalizeUsage reads, plus OpenAI Responses and Gemini's `usageMetadata`. */
function readUsage(raw: unknown): Usage | undefined {
  const u = obj(raw);
  if (!u) return undefined;
  // OpenAI Responses: input_tokens/output_tokens with *_tokens_details (cached, reasoning)
  if (("input_tokens_details" in u || "output_tokens_details" in u) && !("cache_creation_input_tokens" in u)) {
    return normalizeUsage({
      prompt_tokens: u.input_tokens,
      completion_tokens: u.output_tokens,
      total_tokens: u.total_tokens,
      prompt_tokens_details: obj(u.input_tokens_details) ?? {},
      completion_tokens_details: obj(u.output_tokens_details) ?? {},
    });
  }
  // Gemini: thoughts are reported beside the candidates (output), cached content inside the prompt
  if ("promptTokenCount" in u || "candidatesTokenCount" in u) {
    const thoughts = num(u.thoughtsTokenCount) ?? 0;
    return normalizeUsage({
      prompt_tokens: num(u.promptTokenCount) ?? 0,
      completion_tokens: (num(u.candidatesTokenCount) ?? 0) + thoughts,
      total_tokens: u.totalTokenCount,
      prompt_tokens_details: { cached_tokens: u.cachedContentTokenCount },
      completion_tokens_details: { reasoning_tokens: thoughts },
    });
  }
  // LangChain JS llmOutput.tokenUsage: camelCase OpenAI names
  if ("promptTokens" in u || "completionTokens" in u) {
    return normalizeUsage({ prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens });
  }
  return normalizeUsage(u);
}

/** LangChain LLMResult: the usage on each prompt's first generation, summed; else llmOutput's. */
function fromGenerations(outputs: Json | undefined): Usage | undefined {
  const gens = outputs?.generations;
  if (!Array.isArray(gens)) return undefined;
  let sum: Usage | undefined;
  // generations[prompt][candidate]: candidates of one call repeat the call's usage, so one each
  for (const perPrompt of gens) {
    const candidates: unknown[] = Array.isArray(perPrompt) ? perPrompt : [perPrompt];
    for (const g of candidates) {
      const m = obj(obj(g)?.message);
      const fields = m ? (obj(m.kwargs) ?? m) : undefined;
      const rm = obj(fields?.response_metadata);
      const u = readUsage(fields?.usage_metadata) ?? readUsage(rm?.usage) ?? readUsage(rm?.token_usage) ?? readUsage(rm?.tokenUsage);
      if (!u) continue;
      sum = sum
        ? {
            input_tokens: sum.input_tokens + u.input_tokens,
            output_tokens: sum.output_tokens + u.output_tokens,
            total_tokens: sum.total_tokens + u.total_tokens,
            ...mergeDetails("input_token_details", sum, u),
            ...mergeDetails("output_token_details", sum, u),
          }
        : u;
      break;
    }
  }
  if (sum) return sum;
  const llmOutput = obj(outputs?.llmOutput) ?? obj(outputs?.llm_output);
  return readUsage(llmOutput?.tokenUsage) ?? readUsage(llmOutput?.token_usage) ?? readUsage(llmOutput?.usage);
}

function mergeDetails(key: "input_token_details" | "output_token_details", a: Usage, b: Usage) {
  if (!a[key] && !b[key]) return {};
  const out: Record<string, number> = { ...(a[key] ?? {}) };
  for (const [k, v] of Object.entries(b[key] ?? {})) out[k] = (out[k] ?? 0) + v;
  return { [key]: out };
}

/**
 * The usage sent with a run; the first of these wins: `outputs.usage_metadata`,
 * `extra.metadata.usage_metadata`, LangChain generations (message `usage_metadata`, then
 * `llmOutput.tokenUsage` / `llm_output.token_usage`), the provider's raw `outputs.usage` (OpenAI
 * chat completions and Responses, Anthropic; Gemini `usageMetadata`), then the run's own
 * `prompt_tokens` / `completion_tokens` / `total_tokens`. Negative counts become 0.
 */
export function extractUsage(run: RunRecord): { usage: Usage; source: UsageSource } | undefined {
  const outputs = obj(run.outputs);
  const candidates: [UsageSource, () => Usage | undefined][] = [
    ["outputs", () => readUsage(outputs?.usage_metadata)],
    ["metadata", () => readUsage(metadataOf(run).usage_metadata)],
    ["generations", () => fromGenerations(outputs)],
    ["provider", () => readUsage(outputs?.usage) ?? readUsage(outputs?.usageMetadata)],
    [
      "fields",
      () =>
        [run.prompt_tokens, run.completion_tokens, run.total_tokens].some((v) => num(v) !== undefined)
          ? normalizeUsage({ prompt_tokens: num(run.prompt_tokens) ?? 0, completion_tokens: num(run.completion_tokens) ?? 0, total_tokens: num(run.total_tokens) })
          : undefined,
    ],
  ];
  for (const [source, read] of candidates) {
    const usage = read();
    if (usage) return { usage: clamp(usage), source };
  }
  return undefined;
}

export interface ClientCost extends CostFigures {
  source: "client";
}

const money = (v: unknown) => {
  const n = num(v);
  return n === undefined ? undefined : Math.max(0, n);
};

function costDetails(v: unknown): Record<string, number> | undefined {
  const d = obj(v);
  if (!d) return undefined;
  const out = Object.fromEntries(Object.entries(d).flatMap(([k, x]) => (money(x) === undefined ? [] : [[k, money(x)!]])));
  return Object.keys(out).length ? out : undefined;
}

const sum = (d: Record<string, number> | undefined) => (d ? Object.values(d).reduce((a, b) => a + b, 0) : undefined);

function costFrom(u: Json | undefined, names: { input: string; output: string; total: string; inDetails: string; outDetails: string }): ClientCost | undefined {
  if (!u) return undefined;
  const input = money(u[names.input]);
  const output = money(u[names.output]);
  const total = money(u[names.total]);
  const inDetails = costDetails(u[names.inDetails]);
  const outDetails = costDetails(u[names.outDetails]);
  if (input === undefined && output === undefined && total === undefined && !inDetails && !outDetails) return undefined;
  // details alone stand for their side's cost; a total alone is an "other" cost (tools, retrievers)
  const inCost = input ?? sum(inDetails) ?? 0;
  const outCost = output ?? sum(outDetails) ?? 0;
  return {
    input_cost: inCost,
    output_cost: outCost,
    total_cost: total ?? inCost + outCost,
    ...(inDetails ? { input_cost_details: inDetails } : {}),
    ...(outDetails ? { output_cost_details: outDetails } : {}),
    source: "client",
  };
}

const USAGE_METADATA = { input: "input_cost", output: "output_cost", total: "total_cost", inDetails: "input_cost_details", outDetails: "output_cost_details" };
const RUN_FIELDS = { input: "prompt_cost", output: "completion_cost", total: "total_cost", inDetails: "prompt_cost_details", outDetails: "completion_cost_details" };

/**
 * Costs the client computed (dollars): `usage_metadata`'s `input_cost` / `output_cost` /
 * `total_cost` / `*_cost_details` (in outputs, then metadata), else the run's own `prompt_cost` /
 * `completion_cost` / `total_cost`. Client costs win over prices (LangSmith's rule). Negative
 * amounts become 0.
 */
export function extractClientCost(run: RunRecord): ClientCost | undefined {
  return (
    costFrom(obj(obj(run.outputs)?.usage_metadata), USAGE_METADATA) ??
    costFrom(obj(metadataOf(run).usage_metadata), USAGE_METADATA) ??
    costFrom(run as unknown as Json, RUN_FIELDS)
  );
}

/**
 * Which model a run called, and from which provider (pure).
 *
 * The model name is the first non-empty string of: metadata `trace_model_name` (spec §4.4),
 * `ls_model_name` (LangSmith wrappers and LangChain), the request (`inputs.model`,
 * `inputs.model_name`), LangChain's `extra.invocation_params` (`model`, `model_name`,
 * `modelName`, `model_id`, `modelId`), metadata `ls_invocation_params.model`, then the model the
 * response names (`outputs.model`, `outputs.response_metadata.model_name`, the first LangChain
 * generation's `response_metadata.model_name` / `.model`).
 *
 * The provider is metadata `trace_provider`, else `ls_provider`, else inferred from the model
 * name's start (`inferProvider`).
 */
import { metadataOf, type Json, type RunRecord } from "../run.js";

const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : undefined);
const obj = (v: unknown): Json | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);

/** The first LangChain generation's message fields (constructor form `{lc, kwargs}` or plain). */
function firstGenerationMessage(outputs: Json | undefined): Json | undefined {
  const gens = outputs?.generations;
  if (!Array.isArray(gens)) return undefined;
  const g = Array.isArray(gens[0]) ? gens[0][0] : gens[0];
  const m = obj(obj(g)?.message);
  return m ? (obj(m.kwargs) ?? m) : undefined;
}

/**
 * The provider a bare model name implies, by its start: `gpt-`, `chatgpt-`, `o1`/`o3`/`o4`
 * (alone or followed by `-`) → openai; `claude` → anthropic; `gemini` → google; `deepseek` →
 * deepseek; `grok` → xai; `mistral`/`mixtral`/`codestral`/`magistral`/`ministral`/`pixtral` →
 * mistral. Names with a route or vendor prefix (`openai/gpt-4o`, `anthropic.claude-…` on
 * Bedrock) imply nothing: they are priced by whichever host serves them under that name.
 */
export function inferProvider(model: string | undefined): string | undefined {
  const m = model?.trim().toLowerCase();
  if (!m) return undefined;
  if (/^(?:gpt-|chatgpt-|o[134](?:$|-))/.test(m)) return "openai";
  if (m.startsWith("claude")) return "anthropic";
  if (m.startsWith("gemini")) return "google";
  if (m.startsWith("deepseek")) return "deepseek";
  if (m.startsWith("grok")) return "xai";
  if (/^(?:mistral|mixtral|codestral|magistral|ministral|pixtral)/.test(m)) return "mistral";
  return undefined;
}

export function identifyModel(run: RunRecord): { model?: string; provider?: string } {
  const meta = metadataOf(run);
  const inputs = obj(run.inputs);
  const outputs = obj(run.outputs);
  const inv = obj(run.extra?.invocation_params);
  const gen = firstGenerationMessage(outputs);
  const genMeta = obj(gen?.response_metadata);
  const model =
    str(meta.trace_model_name) ??
    str(meta.ls_model_name) ??
    str(inputs?.model) ??
    str(inputs?.model_name) ??
    str(inv?.model) ??
    str(inv?.model_name) ??
    str(inv?.modelName) ??
    str(inv?.model_id) ??
    str(inv?.modelId) ??
    str(obj(meta.ls_invocation_params)?.model) ??
    str(outputs?.model) ??
    str(obj(outputs?.response_metadata)?.model_name) ??
    str(genMeta?.model_name) ??
    str(genMeta?.model);
  const provider = str(meta.trace_provider) ?? str(meta.ls_provider) ?? inferProvider(model);
  return { ...(model ? { model } : {}), ...(provider ? { provider } : {}) };
}

/**
 * Provider names runs carry (LangChain's `ls_provider`, SDK wrappers) → the provider ids of the
 * default price table (@pydantic/genai-prices). Checked against the package's own provider
 * matching in test/unit/tracing-prices.test.ts.
 */
const PRICE_PROVIDER: Record<string, string> = {
  google_genai: "google",
  google_vertexai: "google",
  google_anthropic_vertex: "anthropic", // Claude on Vertex: the package sends it to Anthropic's prices
  vertexai: "google",
  gemini: "google",
  amazon_bedrock: "aws",
  bedrock: "aws",
  bedrock_converse: "aws",
  xai: "x-ai",
  mistralai: "mistral",
  together_ai: "together",
  moonshot: "moonshotai",
};

/**
 * Providers whose prices also apply (genai-prices `fallback_model_providers`): Azure serves
 * OpenAI, Anthropic, DeepSeek, xAI and Moonshot models at their makers' prices; Vertex serves
 * Claude at Anthropic's.
 */
const FALLBACK_PROVIDERS: Record<string, string[]> = {
  azure: ["openai", "anthropic", "deepseek", "x-ai", "moonshotai"],
  google: ["anthropic"],
};

/**
 * The providers to look a price up under, in order: the run's own (tenant prices are entered
 * with the names runs carry), the price table's id for it, then that id's fallbacks.
 * No provider → `[undefined]` (any entry may match).
 */
export function priceProviders(provider: string | undefined): (string | undefined)[] {
  if (!provider) return [undefined];
  const canonical = PRICE_PROVIDER[provider.toLowerCase()] ?? provider.toLowerCase();
  return [...new Set([provider, canonical, ...(FALLBACK_PROVIDERS[canonical] ?? [])])];
}

/** For tests: the alias and fallback tables. */
export const PROVIDER_TABLES = { aliases: PRICE_PROVIDER, fallbacks: FALLBACK_PROVIDERS } as const;

/**
 * Token estimation for LLM runs sent without usage (LangSmith does the same "using tiktoken").
 *
 * - Tokenizer: js-tiktoken, offline. `o200k_base` for OpenAI's gpt-4o, gpt-4.1, gpt-4.5, gpt-5+,
 *   gpt-oss, chatgpt-4o and the o-series; `cl100k_base` for other OpenAI models and, as an
 *   approximation, for every other provider's model (Claude, Gemini, Llama… have tokenizers of
 *   their own, not all available offline in JS; how far off cl100k is depends on the model).
 * - Input: each input message's text, reasoning and tool calls (name + arguments as JSON), plus
 *   OpenAI's chat overhead (3 tokens per message, 3 to prime the reply), plus the tool schemas
 *   the request offered (`inputs.tools`/`functions`, or LangChain's invocation params) as JSON —
 *   LangSmith users note its estimate leaves schemas out (langsmith-sdk#786). Images, audio and
 *   other media are not counted.
 * - Output: the output messages' text, reasoning and tool calls.
 * - CPU cap: when the run's text exceeds ~1 MB, every part is estimated as characters / 4, and
 *   so is whatever is left after TOKENIZE_BUDGET_MS of tokenizing (ordinary text tokenizes at
 *   ~5 MB/s; some shapes are far slower: BPE is quadratic in the length of one piece, 10,000
 *   repeated letters take seconds). Runs of 64+ characters without a break (base64, hex) are
 *   tokenized in 32-character slices, and beyond 2 KB extrapolated from their first 2 KB.
 *
 * The encoders load lazily, on first use (~0.5 s for o200k), and are kept: importing this module
 * loads no ranks.
 */
import { createRequire } from "node:module";
import { Tiktoken, type TiktokenBPE } from "js-tiktoken/lite";
import type { NativeMessage } from "../messages/native.js";
import { normalizeLlmRun } from "../messages/normalize.js";
import type { Json, RunRecord } from "../run.js";
import type { Usage } from "./usage.js";

export type EncodingName = "o200k_base" | "cl100k_base";

export interface Estimate {
  usage: Usage;
  estimated: true;
  encoding: EncodingName;
}

/** Above this many characters of text in a run, estimate by characters / 4. */
export const TOKENIZE_LIMIT_CHARS = 1_000_000;
const LONG_RUN = /\S{64,}|\s{64,}/g;
const SLICE = 32;
const SAMPLE = 2048;
const CHUNK = 4096;
/** Tokenizing time per run; the rest is estimated as characters / 4. */
export const TOKENIZE_BUDGET_MS = 300;
const TOKENS_PER_MESSAGE = 3;
const REPLY_PRIMING = 3;

const require = createRequire(import.meta.url);
const encoders = new Map<EncodingName, Tiktoken>();

function encoder(name: EncodingName): Tiktoken {
  let enc = encoders.get(name);
  if (!enc) {
    const mod = require(`js-tiktoken/ranks/${name}`) as TiktokenBPE & { default?: TiktokenBPE };
    enc = new Tiktoken(mod.default ?? mod);
    encoders.set(name, enc);
  }
  return enc;
}

/** The tokenizer for a model name (a route prefix like `openai/` or `azure/` is ignored). */
export function encodingFor(model: string | undefined): EncodingName {
  const m = (model ?? "").toLowerCase().split("/").pop()!;
  return /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-(?:[5-9]|\d\d)|gpt-oss|chatgpt-4o|o[1-9](?:$|-)|codex-)/.test(m) ? "o200k_base" : "cl100k_base";
}

/**
 * Token count of one text (special-token markup counted as plain text, never an error). Past
 * `deadline` (a performance.now() time) the rest is estimated as characters / 4.
 */
export function countTokens(text: string, encoding: EncodingName, deadline = Infinity): number {
  if (!text) return 0;
  const enc = encoder(encoding);
  const late = () => performance.now() > deadline;
  let tokens = 0;
  // long unbroken runs (base64, hex, repeated characters): sliced, and sampled when very long
  const rest = text.replace(LONG_RUN, (run) => {
    if (late()) {
      tokens += Math.ceil(run.length / 4);
      return " ";
    }
    const sample = run.slice(0, SAMPLE);
    let n = 0;
    for (let i = 0; i < sample.length; i += SLICE) n += enc.encode(sample.slice(i, i + SLICE), [], []).length;
    tokens += sample.length === run.length ? n : Math.round((n * run.length) / sample.length);
    return " ";
  });
  // the rest in chunks cut before a whitespace (tiktoken attaches a space to the word after it)
  const space = /\s/g;
  for (let i = 0; i < rest.length; ) {
    if (late()) return tokens + Math.ceil((rest.length - i) / 4);
    space.lastIndex = i + CHUNK;
    const end = i + CHUNK >= rest.length ? rest.length : (space.exec(rest)?.index ?? rest.length);
    tokens += enc.encode(rest.slice(i, end), [], []).length;
    i = end;
  }
  return tokens;
}

/** The texts of a message that the model reads or writes. */
function messageTexts(m: NativeMessage): string[] {
  const out: string[] = [];
  for (const b of m.content) {
    switch (b.type) {
      case "text":
      case "reasoning":
        out.push(b.text);
        break;
      case "tool_call":
      case "server_tool_call":
        out.push(b.name, JSON.stringify(b.args));
        break;
      case "invalid_tool_call":
        out.push(b.name ?? "", b.args);
        break;
      case "server_tool_result":
        out.push(typeof b.output === "string" ? b.output : JSON.stringify(b.output ?? ""));
        break;
      default:
        break; // media and unmapped content: not counted
    }
  }
  return out;
}

const SKIP_KEYS = new Set(["id", "type", "role", "lc", "model", "model_name", "finish_reason", "tool_call_id", "object", "system_fingerprint", "usage", "usage_metadata", "response_metadata"]);

/** Fallback when no messages can be read (LangChain LLM `prompts`, custom shapes): the strings inside. */
function strings(v: unknown, out: string[], depth = 0): string[] {
  if (depth > 8) return out;
  if (typeof v === "string") {
    if (!v.startsWith("data:")) out.push(v);
  } else if (Array.isArray(v)) for (const x of v) strings(x, out, depth + 1);
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) if (!SKIP_KEYS.has(k)) strings(x, out, depth + 1);
  return out;
}

// A placeholder request so normalizeLlmRun reads outputs on their own (its message is dropped).
const PLACEHOLDER_INPUT = [{ role: "user", content: "" }];

function toolSchemas(run: RunRecord): unknown[] {
  const inputs = (run.inputs ?? {}) as Json;
  const inv = (run.extra?.invocation_params ?? {}) as Json;
  for (const v of [inputs.tools, inputs.functions, inv.tools, inv.functions]) if (Array.isArray(v) && v.length) return v;
  return [];
}

/**
 * Estimated usage of an LLM run from its inputs and outputs; undefined when there is nothing to
 * count. The result is marked `estimated: true`.
 */
export function estimateUsage(run: RunRecord, model: string | undefined): Estimate | undefined {
  const inMessages = normalizeLlmRun(run.inputs, null)?.messages;
  const withOutput = normalizeLlmRun(PLACEHOLDER_INPUT, run.outputs ?? null)?.messages;
  const outMessages = withOutput?.slice(1);

  // each part: [texts, per-message overhead]
  const input: { texts: string[]; overhead: number } = inMessages
    ? { texts: inMessages.flatMap(messageTexts), overhead: inMessages.length * TOKENS_PER_MESSAGE + REPLY_PRIMING }
    : { texts: strings(run.inputs, []), overhead: 0 };
  const tools = toolSchemas(run);
  if (tools.length) input.texts.push(JSON.stringify(tools));
  const outputTexts = outMessages ? outMessages.flatMap(messageTexts) : strings(run.outputs, []);

  const chars = [...input.texts, ...outputTexts].reduce((n, t) => n + t.length, 0);
  if (chars === 0 && !inMessages?.length) return undefined;
  const encoding = encodingFor(model);
  let count: (texts: string[]) => number;
  if (chars > TOKENIZE_LIMIT_CHARS) count = (texts) => texts.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
  else {
    encoder(encoding); // loading the ranks is not tokenizing time
    const deadline = performance.now() + TOKENIZE_BUDGET_MS;
    count = (texts) => texts.reduce((n, t) => n + countTokens(t, encoding, deadline), 0);
  }
  const inputTokens = count(input.texts) + input.overhead;
  const outputTokens = count(outputTexts);
  return { usage: { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens }, estimated: true, encoding };
}

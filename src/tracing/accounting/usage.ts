/**
 * Token usage in one convention (pure), LangSmith's `usage_metadata`: `input_tokens` and
 * `output_tokens` include every token type (cache reads and writes count as input), with the
 * breakdowns in `input_token_details` / `output_token_details`. Provider shapes are converted:
 * OpenAI (`prompt_tokens`… with `*_details`) and Anthropic (cache tokens reported *beside*
 * input, so they are added to it).
 */

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_token_details?: Record<string, number>;
  output_token_details?: Record<string, number>;
}

type Json = Record<string, any>;
const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);

function details(entries: [string, unknown][]): Record<string, number> | undefined {
  const out = Object.fromEntries(entries.filter(([, v]) => typeof v === "number" && v > 0)) as Record<string, number>;
  return Object.keys(out).length ? out : undefined;
}

function finish(input: number, output: number, total: unknown, inDetails?: Record<string, number>, outDetails?: Record<string, number>): Usage {
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: typeof total === "number" && total > 0 ? total : input + output,
    ...(inDetails ? { input_token_details: inDetails } : {}),
    ...(outDetails ? { output_token_details: outDetails } : {}),
  };
}

/** Any supported usage object → the one convention; undefined when it is not a usage object. */
export function normalizeUsage(raw: unknown): Usage | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const u = raw as Json;
  // OpenAI chat completions / responses
  if ("prompt_tokens" in u || "completion_tokens" in u) {
    const pd = u.prompt_tokens_details ?? u.input_tokens_details ?? {};
    const cd = u.completion_tokens_details ?? u.output_tokens_details ?? {};
    return finish(
      n(u.prompt_tokens),
      n(u.completion_tokens),
      u.total_tokens,
      details([
        ["cache_read", pd.cached_tokens],
        ["audio", pd.audio_tokens],
      ]),
      details([
        ["reasoning", cd.reasoning_tokens],
        ["audio", cd.audio_tokens],
      ]),
    );
  }
  // Anthropic: cache creation and reads are reported outside input_tokens
  if ("cache_creation_input_tokens" in u || "cache_read_input_tokens" in u || (u.cache_creation && typeof u.cache_creation === "object")) {
    const creation = n(u.cache_creation_input_tokens);
    const read = n(u.cache_read_input_tokens);
    const cc = (u.cache_creation ?? {}) as Json;
    return finish(
      n(u.input_tokens) + creation + read,
      n(u.output_tokens),
      undefined,
      details([
        ["cache_read", read],
        ["cache_creation", cc.ephemeral_5m_input_tokens || cc.ephemeral_1h_input_tokens ? 0 : creation],
        ["ephemeral_5m_input_tokens", cc.ephemeral_5m_input_tokens],
        ["ephemeral_1h_input_tokens", cc.ephemeral_1h_input_tokens],
      ]),
    );
  }
  // Already the convention (LangChain / LangSmith usage_metadata)
  if ("input_tokens" in u || "output_tokens" in u) {
    const rename = (d: Json | undefined) =>
      d ? details(Object.entries(d).map(([k, v]) => [k === "ephemeral_1hr_input_tokens" ? "ephemeral_1h_input_tokens" : k, v])) : undefined;
    return finish(n(u.input_tokens), n(u.output_tokens), u.total_tokens, rename(u.input_token_details), rename(u.output_token_details));
  }
  return undefined;
}

/** Add usages (per trace, thread, project). */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const merge = (x?: Record<string, number>, y?: Record<string, number>) => {
    if (!x && !y) return undefined;
    const out: Record<string, number> = { ...(x ?? {}) };
    for (const [k, v] of Object.entries(y ?? {})) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return finish(
    a.input_tokens + b.input_tokens,
    a.output_tokens + b.output_tokens,
    a.total_tokens + b.total_tokens,
    merge(a.input_token_details, b.input_token_details),
    merge(a.output_token_details, b.output_token_details),
  );
}

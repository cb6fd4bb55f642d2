/**
 * A traced run as the LangSmith SDKs send it (RunCreate / RunUpdate merged), after timestamps are
 * normalised to ISO strings. Every field but `id` is optional: a patch may arrive before its post.
 */

export type Json = Record<string, any>;

export interface RunEvent {
  name?: string;
  time?: string | number;
  kwargs?: Json;
}

export interface RunRecord {
  id: string;
  trace_id?: string;
  parent_run_id?: string | null;
  dotted_order?: string;
  name?: string;
  /** llm, chain, tool, retriever, embedding, prompt, parser. */
  run_type?: string;
  /** ISO 8601 with a zone (normalised on ingest). */
  start_time?: string;
  end_time?: string;
  inputs?: Json;
  outputs?: Json;
  error?: string | null;
  /** `metadata`, `runtime`, and for LangChain runs `invocation_params`, `options`. */
  extra?: Json;
  events?: RunEvent[];
  tags?: string[];
  session_name?: string;
  session_id?: string;
  serialized?: Json;
  reference_example_id?: string | null;
  /** Fields a client may set directly (LangSmith's run schema). */
  first_token_time?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_cost?: number;
  completion_cost?: number;
  total_cost?: number;
}

/** The run's metadata (LangSmith keeps it in `extra.metadata`). */
export function metadataOf(run: Pick<RunRecord, "extra">): Json {
  const m = run.extra?.metadata;
  return m && typeof m === "object" && !Array.isArray(m) ? m : {};
}

/**
 * Stored runs → what the query API returns (pure). Field names follow LangSmith's run schema where
 * one exists (`prompt_tokens`, `total_cost`, `first_token_time`…) so existing tooling reads them,
 * with the structured `usage` / `cost` objects beside them.
 */
import { normalizeLlmRun } from "../messages/normalize.js";
import { normalizeTurn } from "../messages/turn.js";
import type { NativeBlock, NativeMessage } from "../messages/native.js";
import { ATTACHMENT_SCHEME } from "../ingest/payload.js";
import type { RunRow } from "../storage/runs.js";

export interface AttachmentInfo {
  name: string;
  content_type: string;
  size: number;
}

const latency = (r: RunRow) => (r.start_time && r.end_time ? Math.max(0, Date.parse(r.end_time) - Date.parse(r.start_time)) : null);

/** The light form used in lists and trees: no payloads. */
export function presentRun(r: RunRow) {
  const usage =
    r.input_tokens === null && r.output_tokens === null
      ? null
      : {
          input_tokens: r.input_tokens ?? 0,
          output_tokens: r.output_tokens ?? 0,
          total_tokens: r.total_tokens ?? 0,
          input_token_details: r.input_token_details ?? {},
          output_token_details: r.output_token_details ?? {},
          estimated: r.usage_estimated,
        };
  const cost =
    r.total_cost === null
      ? null
      : {
          input_cost: r.input_cost,
          output_cost: r.output_cost,
          total_cost: r.total_cost,
          input_cost_details: r.input_cost_details ?? {},
          output_cost_details: r.output_cost_details ?? {},
          source: r.cost_source,
          price_id: r.price_id,
        };
  return {
    id: r.id,
    trace_id: r.trace_id,
    parent_run_id: r.parent_run_id,
    dotted_order: r.dotted_order,
    project_id: r.project_id,
    session_id: r.project_id,
    name: r.name,
    run_type: r.run_type,
    status: r.status,
    start_time: r.start_time,
    end_time: r.end_time,
    latency_ms: latency(r),
    error: r.error,
    tags: r.tags ?? [],
    metadata: (r.extra?.metadata as Record<string, unknown> | undefined) ?? {},
    thread_id: r.thread_id,
    model: r.model,
    provider: r.provider,
    usage,
    cost,
    cost_reason: r.cost_reason,
    first_token_time: r.first_token_time,
    ttft_ms: r.ttft_ms,
    prompt_tokens: r.input_tokens,
    completion_tokens: r.output_tokens,
    total_tokens: r.total_tokens,
    prompt_cost: r.input_cost,
    completion_cost: r.output_cost,
    total_cost: r.total_cost,
    problems: r.problems ?? [],
  };
}
export type PresentedRun = ReturnType<typeof presentRun>;

/**
 * The full form: payloads, attachments and, for LLM runs (and runs called with messages, such as a
 * LangGraph turn), the messages in the native format.
 * `attachmentUrl` turns an attachment name into a URL the client can fetch.
 */
export function presentRunDetail(r: RunRow, attachments: AttachmentInfo[], attachmentUrl: (name: string) => string) {
  const byName = new Map(attachments.map((a) => [a.name, a]));
  let messages: { rendered: boolean; format?: string; messages?: NativeMessage[]; warnings?: string[]; reason?: string } | null = null;
  if (r.run_type === "llm") {
    let normalized;
    try {
      normalized = normalizeLlmRun(r.inputs ?? undefined, r.outputs ?? undefined);
    } catch {
      normalized = undefined; // rendering is best effort: the raw payload is always there
    }
    messages = normalized
      ? { rendered: true, format: normalized.format, messages: normalized.messages.map((m) => resolveMedia(m, byName, attachmentUrl)), warnings: normalized.warnings }
      : { rendered: false, reason: "inputs/outputs are in a format Berth does not render; shown raw" };
  } else {
    // a graph or chain called with messages (a LangGraph turn): its input and what it added
    const turn = normalizeTurn(r.inputs ?? undefined, r.outputs ?? undefined);
    if (turn) messages = { rendered: true, format: turn.format, messages: turn.messages.map((m) => resolveMedia(m, byName, attachmentUrl)), warnings: turn.warnings };
  }
  return {
    ...presentRun(r),
    inputs: r.inputs,
    outputs: r.outputs,
    extra: r.extra,
    events: r.events ?? [],
    serialized: r.serialized,
    reference_example_id: r.reference_example_id,
    attachments: attachments.map((a) => ({ ...a, url: attachmentUrl(a.name) })),
    messages,
  };
}

/** Media blocks that point at a moved attachment get a URL to it (and its type). */
function resolveMedia(m: NativeMessage, attachments: Map<string, AttachmentInfo>, url: (name: string) => string): NativeMessage {
  const fix = (b: NativeBlock): NativeBlock => {
    if (b.type !== "image" && b.type !== "file" && b.type !== "audio" && b.type !== "video") return b;
    const ref = [b.url, b.base64].find((v) => typeof v === "string" && v.startsWith(ATTACHMENT_SCHEME));
    if (!ref) return b;
    const name = ref.slice(ATTACHMENT_SCHEME.length);
    const { base64: _drop, ...rest } = b;
    return { ...rest, url: url(name), id: name, mime_type: b.mime_type ?? attachments.get(name)?.content_type };
  };
  return { ...m, content: m.content.map(fix) };
}

/**
 * One OTLP span → one LangSmith-shaped run (pure), ready for the ingest service, which merges,
 * accounts and stores it like an SDK run. Read, in order of precedence:
 * - LangSmith's own OTel attributes (`langsmith.*`, `gen_ai.prompt`/`gen_ai.completion` JSON);
 * - the OpenTelemetry GenAI conventions (`gen_ai.*` attributes and events);
 * - OpenInference (`openinference.span.kind`, `llm.*`, `input.value`/`output.value`);
 * - OpenLLMetry (`traceloop.*`, flattened `gen_ai.prompt.N.*`).
 * Messages become native messages, usage becomes `usage_metadata` and the model/provider the
 * `ls_model_name`/`ls_provider` metadata, so the run renders and is costed like an SDK one.
 */
import { isUuid } from "../../shared/http.js";
import { genAiMessages } from "../messages/genai.js";
import type { NativeMessage } from "../messages/native.js";
import type { AttrValue, Attributes, OtlpSpan } from "./decode.js";
import { isoFromNanos, runUuid, traceUuid } from "./ids.js";

type Json = Record<string, any>;
const isObj = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const num = (v: unknown): number | undefined => {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isFinite(n) ? n : undefined;
};
function parseJson(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

export interface SpanContext {
  /** The project named by the request (`Langsmith-Project` header), if any. */
  project?: string;
  /** Run ids of the spans of this export, by span id (a child finds its LangSmith-id parent). */
  runIdOf: Map<string, string>;
}

/** Keys consumed into fields of the run: not repeated in `extra.otel.attributes`. */
const CONSUMED = /^(gen_ai\.(input|output)\.messages|gen_ai\.system_instructions|gen_ai\.prompt|gen_ai\.completion|gen_ai\.(prompt|completion)\.\d+\..*|llm\.(input|output)_messages\..*|input\.value|output\.value|langsmith\.(span\.(id|parent_id|dotted_order|tags|kind)|trace\.(id|name|session_name|session_id)|metadata\..*|usage_metadata))$/;

/** LangSmith's run types; anything else maps to one of them. */
const RUN_TYPES = new Set(["llm", "chain", "tool", "retriever", "embedding", "prompt", "parser"]);
const OPENINFERENCE_KINDS: Record<string, string> = { LLM: "llm", CHAIN: "chain", TOOL: "tool", RETRIEVER: "retriever", RERANKER: "retriever", EMBEDDING: "embedding", AGENT: "chain", GUARDRAIL: "chain", EVALUATOR: "chain", PROMPT: "prompt" };
const GENAI_OPERATIONS: Record<string, string> = { chat: "llm", text_completion: "llm", generate_content: "llm", embeddings: "embedding", execute_tool: "tool", invoke_agent: "chain", create_agent: "chain" };

function runType(a: Attributes): string {
  const ls = str(a["langsmith.span.kind"])?.toLowerCase();
  if (ls && RUN_TYPES.has(ls)) return ls;
  const oi = str(a["openinference.span.kind"])?.toUpperCase();
  if (oi && Object.hasOwn(OPENINFERENCE_KINDS, oi)) return OPENINFERENCE_KINDS[oi]!;
  const op = str(a["gen_ai.operation.name"]);
  if (op && Object.hasOwn(GENAI_OPERATIONS, op)) return GENAI_OPERATIONS[op]!;
  const tl = str(a["traceloop.span.kind"]);
  if (tl === "tool") return "tool";
  if (tl) return "chain";
  if (str(a["gen_ai.request.model"]) || str(a["llm.model_name"]) || str(a["gen_ai.system"]) || str(a["gen_ai.provider.name"])) return "llm";
  return "chain";
}

/** GenAI provider names → the provider names Berth's price table uses. */
const PROVIDERS: Record<string, string> = {
  "gcp.gen_ai": "google",
  "gcp.vertex_ai": "google",
  "gcp.gemini": "google",
  vertex_ai: "google",
  gemini: "google",
  "azure.ai.openai": "azure_openai",
  "azure.ai.inference": "azure",
  "aws.bedrock": "bedrock",
  "x_ai": "xai",
  "mistral_ai": "mistral",
};
function provider(a: Attributes): string | undefined {
  const p = str(a["gen_ai.provider.name"]) ?? str(a["gen_ai.system"]) ?? str(a["llm.provider"]) ?? str(a["llm.system"]);
  if (!p) return undefined;
  const lower = p.toLowerCase();
  return Object.hasOwn(PROVIDERS, lower) ? PROVIDERS[lower] : lower;
}

/** Token usage in LangSmith's `usage_metadata` shape (input inclusive of cache tokens). */
function usage(a: Attributes): Json | undefined {
  const given = parseJson(a["langsmith.usage_metadata"]);
  if (isObj(given)) return given;
  const input = num(a["gen_ai.usage.input_tokens"]) ?? num(a["gen_ai.usage.prompt_tokens"]) ?? num(a["llm.token_count.prompt"]);
  const output = num(a["gen_ai.usage.output_tokens"]) ?? num(a["gen_ai.usage.completion_tokens"]) ?? num(a["llm.token_count.completion"]);
  if (input === undefined && output === undefined) return undefined;
  const total = num(a["gen_ai.usage.total_tokens"]) ?? num(a["llm.usage.total_tokens"]) ?? num(a["llm.token_count.total"]) ?? (input ?? 0) + (output ?? 0);
  const details = (pairs: [string, number | undefined][]) => {
    const d = Object.fromEntries(pairs.filter(([, v]) => v !== undefined));
    return Object.keys(d).length ? d : undefined;
  };
  const inDetails =
    details([
      ["cache_read", num(a["gen_ai.usage.cache_read.input_tokens"]) ?? num(a["gen_ai.usage.cache_read_input_tokens"]) ?? num(a["llm.token_count.prompt_details.cache_read"])],
      ["cache_creation", num(a["gen_ai.usage.cache_creation.input_tokens"]) ?? num(a["gen_ai.usage.cache_creation_input_tokens"]) ?? num(a["llm.token_count.prompt_details.cache_write"])],
    ]) ?? (isObj(parseJson(a["gen_ai.usage.input_token_details"])) ? (parseJson(a["gen_ai.usage.input_token_details"]) as Json) : undefined);
  const outDetails =
    details([["reasoning", num(a["gen_ai.usage.reasoning.output_tokens"]) ?? num(a["llm.token_count.completion_details.reasoning"])]]) ??
    (isObj(parseJson(a["gen_ai.usage.output_token_details"])) ? (parseJson(a["gen_ai.usage.output_token_details"]) as Json) : undefined);
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    total_tokens: total,
    ...(inDetails ? { input_token_details: inDetails } : {}),
    ...(outDetails ? { output_token_details: outDetails } : {}),
  };
}

/** A payload attribute: JSON objects as they are, anything else wrapped like traceable wraps. */
function payload(v: unknown, key: "input" | "output"): Json | undefined {
  if (v === undefined || v === null) return undefined;
  const parsed = typeof v === "string" ? (parseJson(v) ?? v) : v;
  return isObj(parsed) ? parsed : { [key]: parsed };
}

/** Time to first token, as a `new_token` event: from events named so, or the AI SDK's attribute. */
function firstTokenEvents(span: OtlpSpan): { name: string; time: string }[] {
  const named = span.events.find((e) => /^(new_token|first_token|gen_ai\.first_token|ai\.stream\.firstChunk|llm\.first_token)$/i.test(e.name));
  if (named) return [{ name: "new_token", time: isoFromNanos(named.timeUnixNano) }];
  const ms = num(span.attributes["ai.response.msToFirstChunk"]) ?? num(span.attributes["ai.stream.msToFirstChunk"]);
  const seconds = num(span.attributes["gen_ai.response.time_to_first_chunk"]) ?? num(span.attributes["gen_ai.server.time_to_first_token"]);
  const offset = ms !== undefined ? ms : seconds !== undefined ? seconds * 1000 : undefined;
  if (offset === undefined || offset < 0) return [];
  return [{ name: "new_token", time: isoFromNanos(span.startTimeUnixNano + BigInt(Math.round(offset * 1e6))) }];
}

/** Events kept on the run as they are (message events become messages; exceptions become the error). */
const MESSAGE_EVENT = /^gen_ai\.(system|user|assistant|tool)\.message$|^gen_ai\.choice$|^gen_ai\.client\.inference\.operation\.details$/;

function errorOf(span: OtlpSpan): string | undefined {
  if (span.status.code !== 2) return undefined;
  const ex = span.events.find((e) => e.name === "exception");
  const described = ex ? [str(ex.attributes["exception.type"]), str(ex.attributes["exception.message"])].filter(Boolean).join(": ") : "";
  const stack = ex ? str(ex.attributes["exception.stacktrace"]) : undefined;
  const head = span.status.message || described || str(span.attributes["error.type"]) || "error";
  return stack ? `${head}\n\n${stack}` : head;
}

function tags(v: AttrValue | undefined): string[] | undefined {
  if (Array.isArray(v)) return v.map(String);
  if (typeof v === "string" && v.trim()) return v.split(",").map((t) => t.trim()).filter(Boolean);
  return undefined;
}

/** Metadata from `langsmith.metadata.<key>` attributes (values may be JSON). */
function langsmithMetadata(a: Attributes): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(a)) {
    if (!k.startsWith("langsmith.metadata.")) continue;
    const key = k.slice("langsmith.metadata.".length);
    const parsed = typeof v === "string" && /^[[{]/.test(v) ? (parseJson(v) ?? v) : v;
    if (key && key !== "__proto__") out[key] = parsed;
  }
  return out;
}

/** The LangSmith run and trace ids a span carries (LangSmith's OTel mode), when both are UUIDs. */
function langsmithIds(a: Attributes): { id: string; traceId: string } | undefined {
  const id = str(a["langsmith.span.id"]);
  const traceId = str(a["langsmith.trace.id"]);
  return id && isUuid(id) && traceId && isUuid(traceId) ? { id: id.toLowerCase(), traceId: traceId.toLowerCase() } : undefined;
}

/** The run id a span is stored under (its children need it before the span itself is mapped). */
export function spanRunId(span: OtlpSpan): string {
  return langsmithIds(span.attributes)?.id ?? runUuid(span.traceId, span.spanId);
}

/** The run of one span (a LangSmith RunCreate, as `POST /runs` takes it). */
export function spanToRun(span: OtlpSpan, ctx: SpanContext): Json {
  const a = span.attributes;
  const ls = langsmithIds(a);
  const own = Boolean(ls);
  const id = ls?.id ?? runUuid(span.traceId, span.spanId);
  const traceId = ls?.traceId ?? traceUuid(span.traceId);
  const lsParent = str(a["langsmith.span.parent_id"]);
  const parentId = own && lsParent && isUuid(lsParent) ? lsParent.toLowerCase() : span.parentSpanId ? (ctx.runIdOf.get(span.parentSpanId) ?? runUuid(span.traceId, span.parentSpanId)) : null;
  const type = runType(a);
  const model = str(a["gen_ai.response.model"]) ?? str(a["gen_ai.request.model"]) ?? str(a["llm.model_name"]);
  const prov = provider(a);
  const use = usage(a);

  // inputs/outputs: LangSmith's JSON payloads, then GenAI messages, then OpenInference values
  const messages = genAiMessages(a, span.events);
  const msgs = (list: NativeMessage[] | undefined) => (list ? { messages: list } : undefined);
  const inputs = payload(a["gen_ai.prompt"], "input") ?? msgs(messages.input) ?? payload(a["input.value"], "input") ?? payload(a["gen_ai.tool.call.arguments"], "input");
  const outputs = payload(a["gen_ai.completion"], "output") ?? msgs(messages.output) ?? payload(a["output.value"], "output") ?? payload(a["gen_ai.tool.call.result"], "output");

  const threadId = str(a["gen_ai.conversation.id"]) ?? str(a["session.id"]);
  const invocation: Json = {};
  for (const [k, name] of [["gen_ai.request.temperature", "temperature"], ["gen_ai.request.max_tokens", "max_tokens"], ["gen_ai.request.top_p", "top_p"], ["gen_ai.request.model", "model"]] as const) {
    if (a[k] !== undefined) invocation[name] = a[k];
  }
  const rest: Json = {};
  for (const [k, v] of Object.entries(a)) if (!CONSUMED.test(k)) rest[k] = v;
  const metadata: Json = {
    ...(model ? { ls_model_name: model } : {}),
    ...(prov ? { ls_provider: prov } : {}),
    ...(use ? { usage_metadata: use } : {}),
    ...(threadId ? { thread_id: threadId } : {}),
    ...langsmithMetadata(a),
  };
  const events = [
    ...firstTokenEvents(span),
    ...span.events.filter((e) => !MESSAGE_EVENT.test(e.name)).map((e) => ({ name: e.name, time: isoFromNanos(e.timeUnixNano), kwargs: e.attributes })),
  ];
  const project = str(a["langsmith.trace.session_name"]) ?? ctx.project ?? str(span.resource["langsmith.project"]) ?? str(span.resource["langsmith.trace.session_name"]);
  const dotted = str(a["langsmith.span.dotted_order"]);
  return {
    id,
    trace_id: traceId,
    parent_run_id: parentId,
    ...(own && dotted ? { dotted_order: dotted } : {}),
    name: str(a["langsmith.trace.name"]) ?? (span.name || "span"),
    run_type: type,
    start_time: isoFromNanos(span.startTimeUnixNano),
    ...(span.endTimeUnixNano > 0n ? { end_time: isoFromNanos(span.endTimeUnixNano) } : {}),
    ...(inputs ? { inputs } : {}),
    ...(outputs ? { outputs } : {}),
    ...(errorOf(span) ? { error: errorOf(span) } : {}),
    extra: {
      metadata,
      ...(Object.keys(invocation).length ? { invocation_params: invocation } : {}),
      otel: { trace_id: span.traceId, span_id: span.spanId, ...(span.parentSpanId ? { parent_span_id: span.parentSpanId } : {}), kind: span.kind, scope: span.scope, resource: span.resource, attributes: rest },
    },
    ...(events.length ? { events } : {}),
    ...(tags(a["langsmith.span.tags"]) ? { tags: tags(a["langsmith.span.tags"]) } : {}),
    ...(project ? { session_name: project } : {}),
  };
}

/**
 * One message in any supported form → native messages (pure): the role form (native, OpenAI chat
 * completions, Anthropic, OpenAI Responses message items), the `[role, content]` pair and the
 * LangChain forms (constructor, plain `type`, `{type, data}` short form; camelCase or snake_case).
 * More than one message can come out: Anthropic tool results become tool messages of their own.
 */
import { toAnnotations } from "./annotations.js";
import { contentToBlocks, partToBlocks, partsFormat, splitToolResults } from "./blocks.js";
import { arr, idStr, isObj, lookup, str, toolCall, type Json } from "./fields.js";
import { toRole, type NativeBlock, type NativeMessage, type NativeRole, type SourceFormat } from "./native.js";

export interface Read {
  messages: NativeMessage[];
  format: SourceFormat;
}

/** LangChain message classes (`id[-1]` of the constructor form; also seen as `type`) → roles. */
const LC_CLASSES: Record<string, NativeRole> = {
  HumanMessage: "user",
  HumanMessageChunk: "user",
  AIMessage: "assistant",
  AIMessageChunk: "assistant",
  SystemMessage: "system",
  SystemMessageChunk: "system",
  ToolMessage: "tool",
  ToolMessageChunk: "tool",
  FunctionMessage: "tool",
  FunctionMessageChunk: "tool",
};

/** `type` names of LangChain's plain and short forms (Python `message.type`). */
const LC_TYPES: Record<string, NativeRole> = { human: "user", ai: "assistant", system: "system", tool: "tool", function: "tool" };

/** LangChain fields are camelCase in JS, snake_case in Python. */
const pick = (o: Json, snake: string, camel: string): unknown => o[snake] ?? o[camel];

/** Reasoning sent beside the content: DeepSeek/vLLM `reasoning_content`, OpenRouter `reasoning`, Ollama `thinking`. */
function sideReasoning(f: Json): NativeBlock[] {
  const text = str(f.reasoning_content) ?? str(f.reasoning) ?? str(f.thinking);
  if (text) return [{ type: "reasoning", text }];
  // LangChain ChatOpenAI (Responses API, v0 output) keeps the reasoning item in additional_kwargs
  return isObj(f.reasoning) ? partToBlocks({ ...f.reasoning, type: "reasoning" }) : [];
}

/** Tool calls already present as content blocks are not added twice. */
function dedupeCalls(content: NativeBlock[], calls: NativeBlock[]): NativeBlock[] {
  const seen = new Set(content.flatMap((b) => (b.type === "tool_call" || b.type === "invalid_tool_call") && b.id ? [b.id] : []));
  return calls.filter((c) => !((c.type === "tool_call" || c.type === "invalid_tool_call") && c.id && seen.has(c.id)));
}

/** OpenAI-format tool calls ({id, function: {name, arguments}}), also accepting {id, name, args}. */
const openAiCalls = (list: unknown): NativeBlock[] =>
  arr(list).filter(isObj).map((c) => (isObj(c.function) ? toolCall(c.id, c.function.name, c.function.arguments) : toolCall(c.id, c.name, c.args)));

interface Parts {
  role: NativeRole;
  content: unknown;
  calls: NativeBlock[];
  /** Where provider extras (reasoning_content, refusal, annotations, audio) are looked up. */
  side: Json;
  toolCallId?: unknown;
  status?: unknown;
  usage?: unknown;
}

function build({ role, content: raw, calls, side, toolCallId, status, usage }: Parts): NativeMessage[] {
  const { results, rest } = splitToolResults(raw);
  const content = contentToBlocks(rest);
  // chat completions puts web-search citations on the message, not on a part
  const annotations = toAnnotations(side.annotations);
  const lastText = content.findLast((b) => b.type === "text");
  if (annotations.length && lastText?.type === "text") lastText.annotations = [...(lastText.annotations ?? []), ...annotations];
  const reasoning = content.some((b) => b.type === "reasoning") ? [] : sideReasoning(side);
  const refusal: NativeBlock[] = str(side.refusal) ? [{ type: "text", text: side.refusal, extras: { refusal: true } }] : [];
  // OpenAI audio output: the data (and transcript) in the response, only the id when sent back
  const a = isObj(side.audio) ? side.audio : undefined;
  const audio: NativeBlock[] = a && (str(a.data) || str(a.id)) ? [{ type: "audio", ...(str(a.data) ? { base64: a.data } : {}), ...(str(a.id) ? { id: a.id } : {}), ...(str(a.transcript) ? { extras: { transcript: a.transcript } } : {}) }] : [];
  const blocks = [...reasoning, ...content, ...refusal, ...audio, ...dedupeCalls(content, calls)];
  if (!blocks.length && results.length) return results;
  const msg: NativeMessage = { role, content: blocks };
  if (role === "tool" && idStr(toolCallId)) msg.tool_call_id = idStr(toolCallId);
  if (role === "tool" && status === "error") msg.status = "error";
  if (isObj(usage)) msg.usage_metadata = usage;
  return [...results, msg];
}

function fromLangChainFields(role: NativeRole, k: Json): NativeMessage[] {
  const akw = pick(k, "additional_kwargs", "additionalKwargs");
  const side = isObj(akw) ? akw : {};
  // current versions: tool_calls [{id, name, args}]; older ones: OpenAI-format calls in additional_kwargs
  let calls = arr(pick(k, "tool_calls", "toolCalls")).filter(isObj).map((c) => toolCall(c.id, c.name, c.args));
  if (!calls.length) calls = openAiCalls(side.tool_calls);
  if (!calls.length && isObj(side.function_call)) calls = [toolCall(undefined, side.function_call.name, side.function_call.arguments)];
  const invalid = arr(pick(k, "invalid_tool_calls", "invalidToolCalls")).flatMap((c) => partToBlocks(isObj(c) ? { ...c, type: "invalid_tool_call" } : c));
  return build({
    role,
    content: k.content,
    calls: [...calls, ...invalid],
    side,
    toolCallId: pick(k, "tool_call_id", "toolCallId"),
    status: k.status,
    usage: pick(k, "usage_metadata", "usageMetadata"),
  });
}

/** The LangChain forms; undefined when `o` is not one of them (or names an unknown class). */
function readLangChain(o: Json): NativeMessage[] | undefined {
  if (o.lc === 1 && o.type === "constructor" && Array.isArray(o.id)) {
    const cls = idStr(o.id.at(-1));
    const k = isObj(o.kwargs) ? o.kwargs : {};
    const role = lookup(LC_CLASSES, cls) ?? (cls.startsWith("ChatMessage") ? toRole(k.role) : undefined);
    return role ? fromLangChainFields(role, k) : undefined;
  }
  // a `role` beside the `type` is the role form (Responses {type: "message", role}), except ChatMessage
  if (typeof o.type !== "string" || ("role" in o && o.type !== "chat")) return undefined;
  const fields = isObj(o.data) && !("content" in o) ? o.data : o;
  const role = o.type === "chat" ? toRole(fields.role) : (lookup(LC_TYPES, o.type) ?? lookup(LC_CLASSES, o.type));
  return role ? fromLangChainFields(role, fields) : undefined;
}

/** One message in any supported form; undefined when it is none of them. */
export function readMessage(m: unknown): Read | undefined {
  if (Array.isArray(m)) {
    if (m.length !== 2) return undefined;
    const role = toRole(m[0]);
    return role ? { messages: [{ role, content: contentToBlocks(m[1]) }], format: "native" } : undefined;
  }
  if (!isObj(m)) return undefined;
  const lc = readLangChain(m);
  if (lc) return { messages: lc, format: "langchain" };
  const role = toRole(m.role);
  if (!role) return undefined;
  const calls = openAiCalls(m.tool_calls);
  // legacy OpenAI function calling
  if (isObj(m.function_call)) calls.push(toolCall(undefined, m.function_call.name, m.function_call.arguments));
  const messages = build({
    role,
    content: m.content,
    calls,
    side: m,
    toolCallId: pick(m, "tool_call_id", "toolCallId"),
    status: m.status,
    usage: pick(m, "usage_metadata", "usageMetadata"),
  });
  const openai = Array.isArray(m.tool_calls) || isObj(m.function_call) || m.role === "developer" || str(m.reasoning_content) !== undefined || str(m.refusal) !== undefined;
  return { messages, format: partsFormat(m.content) ?? (openai ? "openai" : "native") };
}

/** Chooses one format for a list read from several messages: a provider beats "native". */
export function mergeFormats(formats: Iterable<SourceFormat>): SourceFormat {
  const seen = new Set(formats);
  return (["langchain", "anthropic", "openai"] as const).find((f) => seen.has(f)) ?? "native";
}

/** A list of messages; undefined unless every item is readable. */
export function readList(list: unknown): Read | undefined {
  if (!Array.isArray(list)) return undefined;
  // LangChain chat model inputs nest one level per prompt: messages: [[...]] (a batch: the first)
  const nested = list.length > 0 && list.every((x) => Array.isArray(x) && !(x.length === 2 && typeof x[0] === "string"));
  const flat = nested ? (list[0] as unknown[]) : list;
  const out: NativeMessage[] = [];
  const formats: SourceFormat[] = [];
  for (const m of flat) {
    const r = readMessage(m);
    if (!r) return undefined;
    out.push(...r.messages);
    formats.push(r.format);
  }
  return { messages: out, format: mergeFormats(formats) };
}

/**
 * Inputs and outputs of traced LLM runs → native messages (pure). Reads the native format,
 * OpenAI chat completions, Anthropic messages, LangChain serialized messages (constructor form,
 * plain `type` form, `{type, data}` short form) and the loose output shapes the spec lists.
 * Anything it cannot read is reported as not rendered — never an error: the raw payload stays.
 */
import { contentToBlocks, toolCall } from "./blocks.js";
import type { NativeBlock, NativeMessage, NativeRole, SourceFormat } from "./native.js";

type Json = Record<string, any>;

const ROLE_ALIASES: Record<string, NativeRole> = {
  system: "system",
  developer: "system",
  user: "user",
  human: "user",
  assistant: "assistant",
  ai: "assistant",
  model: "assistant",
  tool: "tool",
  function: "tool",
  reasoning: "reasoning",
};

/** LangChain message classes → roles. */
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
};

export interface Normalized {
  messages: NativeMessage[];
  format: SourceFormat;
  /** Things that look wrong but do not stop rendering (e.g. a tool_call_id with no earlier call). */
  warnings: string[];
}

interface Read {
  messages: NativeMessage[];
  format: SourceFormat;
}

/** LangChain fields are camelCase in JS, snake_case in Python. */
const pick = (o: Json, snake: string, camel: string) => o?.[snake] ?? o?.[camel];

function fromLangChainFields(role: NativeRole, k: Json): NativeMessage {
  const content = contentToBlocks(k.content);
  const toolCalls = (pick(k, "tool_calls", "toolCalls") as Json[] | undefined) ?? [];
  const legacy = (k.additional_kwargs?.tool_calls ?? k.additionalKwargs?.tool_calls) as Json[] | undefined;
  const calls = toolCalls.length
    ? toolCalls.map((c) => toolCall(c.id, String(c.name ?? ""), c.args))
    : (legacy ?? []).map((c) => toolCall(c.id, String(c.function?.name ?? ""), c.function?.arguments));
  const reasoning = k.additional_kwargs?.reasoning_content;
  const msg: NativeMessage = {
    role,
    content: [...(typeof reasoning === "string" && reasoning ? [{ type: "reasoning" as const, text: reasoning }] : []), ...content, ...dedupeCalls(content, calls)],
  };
  const toolCallId = pick(k, "tool_call_id", "toolCallId");
  if (role === "tool" && toolCallId) msg.tool_call_id = String(toolCallId);
  const usage = pick(k, "usage_metadata", "usageMetadata");
  if (usage) msg.usage_metadata = usage;
  return msg;
}

/** Tool calls already present as content blocks are not added twice. */
function dedupeCalls(content: NativeBlock[], calls: NativeBlock[]): NativeBlock[] {
  const seen = new Set(content.filter((b) => b.type === "tool_call").map((b) => (b as { id?: string }).id));
  return calls.filter((c) => !(c.type === "tool_call" && c.id && seen.has(c.id)));
}

/** One message in any supported form → native messages (Anthropic tool results split into their own). */
function readMessage(m: unknown): { messages: NativeMessage[]; format: SourceFormat } | undefined {
  if (Array.isArray(m) && m.length === 2 && typeof m[0] === "string") {
    const role = ROLE_ALIASES[m[0]];
    return role ? { messages: [{ role, content: contentToBlocks(m[1]) }], format: "native" } : undefined;
  }
  if (!m || typeof m !== "object") return undefined;
  const o = m as Json;
  // LangChain constructor form: {lc: 1, type: "constructor", id: [..., "HumanMessage"], kwargs}
  if (o.lc === 1 && o.type === "constructor" && Array.isArray(o.id)) {
    const cls = String(o.id.at(-1));
    const role = LC_CLASSES[cls] ?? (cls.startsWith("ChatMessage") ? ROLE_ALIASES[o.kwargs?.role] : undefined);
    return role ? { messages: [fromLangChainFields(role, o.kwargs ?? {})], format: "langchain" } : undefined;
  }
  // LangChain short form {type, data: {...}} and plain form {type: "human", content}
  if (typeof o.type === "string" && !("role" in o)) {
    const role = ROLE_ALIASES[o.type] ?? LC_CLASSES[o.type];
    if (!role) return undefined;
    const fields = o.data && typeof o.data === "object" && !("content" in o) ? o.data : o;
    return { messages: [fromLangChainFields(role, fields)], format: "langchain" };
  }
  if (typeof o.role !== "string") return undefined;
  const role = ROLE_ALIASES[o.role];
  if (!role) return undefined;
  const parts = Array.isArray(o.content) ? (o.content as Json[]) : undefined;
  const anthropic = parts?.some((p) => ["tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use"].includes(p?.type) || (p?.type === "image" && p?.source));
  const openai = Array.isArray(o.tool_calls) || parts?.some((p) => ["image_url", "input_audio"].includes(p?.type)) || typeof o.reasoning_content === "string";
  // Anthropic puts tool results in user messages: each becomes a tool message of its own
  const toolResults = (parts ?? []).filter((p) => p?.type === "tool_result");
  const rest = toolResults.length ? (parts ?? []).filter((p) => p?.type !== "tool_result") : o.content;
  const content = contentToBlocks(rest);
  if (typeof o.reasoning_content === "string" && o.reasoning_content) content.unshift({ type: "reasoning", text: o.reasoning_content });
  const calls = ((o.tool_calls as Json[] | undefined) ?? []).map((c) =>
    c.function ? toolCall(c.id, String(c.function.name ?? ""), c.function.arguments) : toolCall(c.id, String(c.name ?? ""), c.args),
  );
  const messages: NativeMessage[] = [];
  for (const r of toolResults) {
    const blocks = contentToBlocks(r.content);
    messages.push({ role: "tool", tool_call_id: String(r.tool_use_id ?? ""), content: r.is_error ? [{ type: "text", text: "[error] " }, ...blocks] : blocks });
  }
  if (content.length || calls.length || !toolResults.length) {
    const msg: NativeMessage = { role, content: [...content, ...dedupeCalls(content, calls)] };
    if (role === "tool" && o.tool_call_id) msg.tool_call_id = String(o.tool_call_id);
    if (o.usage_metadata) msg.usage_metadata = o.usage_metadata;
    messages.push(msg);
  }
  return { messages, format: anthropic ? "anthropic" : openai ? "openai" : "native" };
}

/** A list of messages; undefined unless every item is readable. */
function readList(list: unknown): Read | undefined {
  if (!Array.isArray(list)) return undefined;
  // LangChain chat model inputs nest one level: messages: [[...]]
  const flat = list.length === 1 && Array.isArray(list[0]) && !(list[0].length === 2 && typeof list[0][0] === "string") ? list[0] : list;
  const out: NativeMessage[] = [];
  const formats = new Set<SourceFormat>();
  for (const m of flat) {
    const r = readMessage(m);
    if (!r) return undefined;
    out.push(...r.messages);
    formats.add(r.format);
  }
  const format = (["langchain", "anthropic", "openai"] as const).find((f) => formats.has(f)) ?? "native";
  return { messages: out, format };
}

export function readInputs(inputs: unknown): Read | undefined {
  if (Array.isArray(inputs)) return readList(inputs);
  if (!inputs || typeof inputs !== "object") return undefined;
  const i = inputs as Json;
  const read = readList(i.messages);
  if (!read) return undefined;
  // Anthropic: the system prompt sits beside the messages
  if (i.system !== undefined) {
    read.messages.unshift({ role: "system", content: contentToBlocks(i.system) });
    if (read.format === "native") read.format = "anthropic";
  }
  return read;
}

export function readOutputs(outputs: unknown): Read | undefined {
  if (Array.isArray(outputs)) return readList(outputs.length === 2 && typeof outputs[0] === "string" ? [outputs] : outputs);
  if (!outputs || typeof outputs !== "object") return undefined;
  const o = outputs as Json;
  if (Array.isArray(o.choices)) {
    // OpenAI: the first choice; usage sits beside it
    const m = readMessage(o.choices[0]?.message ?? o.choices[0]?.delta);
    if (!m) return undefined;
    const last = m.messages.at(-1);
    if (last && o.usage && !last.usage_metadata) last.usage_metadata = o.usage;
    return { messages: m.messages, format: m.format === "native" ? "openai" : m.format };
  }
  if (Array.isArray(o.generations)) {
    // LangChain LLMResult: generations[0][0].message
    const g = Array.isArray(o.generations[0]) ? o.generations[0][0] : o.generations[0];
    const m = readMessage(g?.message) ?? (typeof g?.text === "string" ? { messages: [{ role: "assistant" as const, content: contentToBlocks(g.text) }], format: "langchain" as const } : undefined);
    return m ? { messages: m.messages, format: "langchain" } : undefined;
  }
  if (o.message !== undefined) {
    const m = readMessage(o.message);
    return m ? { messages: m.messages, format: m.format } : undefined;
  }
  if (Array.isArray(o.messages)) return readList(o.messages);
  if (typeof o.role === "string" || typeof o.type === "string") {
    const m = readMessage(o);
    if (!m) return undefined;
    // Anthropic response: usage beside the content
    const last = m.messages.at(-1);
    if (last && o.usage && !last.usage_metadata) last.usage_metadata = o.usage;
    return { messages: m.messages, format: o.type === "message" ? "anthropic" : m.format };
  }
  return undefined;
}

/** Tool messages must answer an earlier assistant tool call; report those that do not. */
export function checkToolCallIds(messages: NativeMessage[]): string[] {
  const calls = new Set<string>();
  const warnings: string[] = [];
  messages.forEach((m, i) => {
    if (m.role === "assistant") for (const b of m.content) if ((b.type === "tool_call" || b.type === "invalid_tool_call") && b.id) calls.add(b.id);
    if (m.role === "tool") {
      if (!m.tool_call_id) warnings.push(`message ${i}: a tool message without tool_call_id`);
      else if (!calls.has(m.tool_call_id)) warnings.push(`message ${i}: tool_call_id ${m.tool_call_id} answers no earlier assistant tool call`);
    }
  });
  return warnings;
}

/**
 * The messages of an LLM run: its input messages followed by its output message(s). `undefined`
 * means "not rendered": the run is stored and shown raw.
 */
export function normalizeLlmRun(inputs: unknown, outputs: unknown): Normalized | undefined {
  const input = readInputs(inputs);
  if (!input) return undefined;
  const output = outputs === undefined || outputs === null ? { messages: [], format: input.format } : readOutputs(outputs);
  if (!output) return undefined;
  const messages = [...input.messages, ...output.messages];
  const format = input.format !== "native" ? input.format : output.format;
  return { messages, format, warnings: checkToolCallIds(messages) };
}

/**
 * LangGraph state messages (LangChain's serialised form: `type` human/ai/tool/system, `content` a
 * string or blocks, `tool_calls`) as the console's native messages, so the Studio shows them with
 * the same renderer as traces (pure). Streamed chunks of one message (`messages-tuple`) are merged
 * by id into the message they build.
 */
import type { NativeBlock, NativeMessage } from "../api/types";

export interface LcMessage {
  id?: string;
  type?: string;
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string; name?: string; args?: unknown }[];
  tool_call_id?: string;
  status?: string;
  usage_metadata?: Record<string, unknown>;
  [k: string]: unknown;
}

const ROLES: Record<string, NativeMessage["role"]> = {
  human: "user",
  user: "user",
  ai: "assistant",
  assistant: "assistant",
  AIMessageChunk: "assistant",
  tool: "tool",
  system: "system",
  developer: "system",
};

function blocksOf(content: unknown): NativeBlock[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return content == null ? [] : [{ type: "text", text: JSON.stringify(content) }];
  const out: NativeBlock[] = [];
  for (const b of content) {
    if (typeof b === "string") out.push({ type: "text", text: b });
    else if (b && typeof b === "object" && (b as { type?: unknown }).type === "text" && typeof (b as { text?: unknown }).text === "string") out.push({ type: "text", text: (b as { text: string }).text });
    else if (b && typeof b === "object" && ((b as { type?: unknown }).type === "reasoning" || (b as { type?: unknown }).type === "thinking")) {
      const text = (b as { reasoning?: unknown; thinking?: unknown; text?: unknown }).reasoning ?? (b as { thinking?: unknown }).thinking ?? (b as { text?: unknown }).text;
      if (typeof text === "string") out.push({ type: "reasoning", text });
    } else out.push({ type: "text", text: JSON.stringify(b) });
  }
  return out;
}

/** One LangChain message as a native one (pure). */
export function toNative(m: LcMessage): NativeMessage {
  const role = ROLES[String(m.type ?? m.role ?? "")] ?? "user";
  const content = blocksOf(m.content);
  if (role === "assistant" && Array.isArray(m.tool_calls)) {
    for (const c of m.tool_calls) {
      content.push({ type: "tool_call", name: String(c?.name ?? ""), args: c?.args && typeof c.args === "object" ? (c.args as Record<string, unknown>) : {}, ...(c?.id ? { id: c.id } : {}) } as NativeBlock);
    }
  }
  return {
    role,
    content,
    ...(role === "tool" && typeof m.tool_call_id === "string" ? { tool_call_id: m.tool_call_id } : {}),
    ...(role === "tool" && m.status === "error" ? { status: "error" as const } : {}),
    ...(m.usage_metadata && typeof m.usage_metadata === "object" ? { usage_metadata: m.usage_metadata } : {}),
  };
}

/** A streamed chunk merged into the messages so far (pure): same id → its text appended, else a new message. */
export function mergeChunk(messages: LcMessage[], chunk: LcMessage): LcMessage[] {
  const i = chunk.id ? messages.findIndex((m) => m.id === chunk.id) : -1;
  if (i < 0) return [...messages, { ...chunk, type: chunk.type === "AIMessageChunk" ? "ai" : chunk.type }];
  const prev = messages[i]!;
  const merged: LcMessage = { ...prev, content: concatContent(prev.content, chunk.content) };
  if (Array.isArray(chunk.tool_calls) && chunk.tool_calls.length) merged.tool_calls = chunk.tool_calls;
  if (chunk.usage_metadata) merged.usage_metadata = chunk.usage_metadata;
  const next = messages.slice();
  next[i] = merged;
  return next;
}

function concatContent(a: unknown, b: unknown): unknown {
  if (typeof a === "string" && typeof b === "string") return a + b;
  if (b === "" || b == null || (Array.isArray(b) && b.length === 0)) return a;
  const list = (x: unknown) => (Array.isArray(x) ? x : typeof x === "string" ? (x ? [{ type: "text", text: x }] : []) : x == null ? [] : [x]);
  return [...list(a), ...list(b)];
}

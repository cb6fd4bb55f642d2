/**
 * LLM calls traced with OpenTelemetry → native messages (pure). Three vocabularies are read:
 * - OpenTelemetry GenAI semantic conventions: the JSON attributes `gen_ai.system_instructions`,
 *   `gen_ai.input.messages`, `gen_ai.output.messages` (messages of `{role, parts}`), and the older
 *   per-message events `gen_ai.system|user|assistant|tool.message` and `gen_ai.choice`;
 * - OpenLLMetry's flattened `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes;
 * - OpenInference's flattened `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`.
 * What cannot be read is left alone (undefined): the raw attributes stay on the run.
 */
import { contentToBlocks } from "./blocks.js";
import { arr, idStr, isObj, mediaFromData, mediaFromUrl, str, toolCall, type Json } from "./fields.js";
import { toRole, type MediaType, type NativeBlock, type NativeMessage } from "./native.js";

export type FlatAttributes = Record<string, unknown>;

export interface GenAiEvent {
  name: string;
  attributes: FlatAttributes;
}

export interface GenAiMessages {
  input?: NativeMessage[];
  output?: NativeMessage[];
}

/** A JSON attribute value: already structured, or a JSON string. */
function json(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return undefined;
  }
}

const MODALITY: Record<string, MediaType> = { image: "image", audio: "audio", video: "video" };

/** One GenAI `part` → native blocks. */
function partBlocks(p: unknown): NativeBlock[] {
  if (typeof p === "string") return contentToBlocks(p);
  if (!isObj(p)) return [];
  const modality = typeof p.modality === "string" && Object.hasOwn(MODALITY, p.modality) ? MODALITY[p.modality]! : "file";
  switch (p.type) {
    case "text":
      return typeof p.content === "string" ? contentToBlocks(p.content) : [];
    case "reasoning":
    case "thinking":
      return typeof p.content === "string" ? [{ type: "reasoning", text: p.content }] : [];
    case "tool_call":
      return [toolCall(p.id, p.name, p.arguments)];
    case "blob": {
      const mime = str(p.mime_type);
      return typeof p.content === "string" ? [{ type: modality, base64: p.content, ...(mime ? { mime_type: mime } : {}) }] : [];
    }
    case "uri":
      return typeof p.uri === "string" ? [{ ...mediaFromUrl(modality, p.uri), ...(str(p.mime_type) ? { mime_type: str(p.mime_type) } : {}) } as NativeBlock] : [];
    case "file":
      return typeof p.file_id === "string" ? [{ type: modality, id: p.file_id, ...(str(p.mime_type) ? { mime_type: str(p.mime_type) } : {}) }] : [];
    default:
      return [{ type: "non_standard", value: p }];
  }
}

/** `[{role, parts}]` (GenAI JSON attributes) → native messages; tool responses become tool messages. */
export function readGenAiMessages(value: unknown): NativeMessage[] | undefined {
  const list = json(value);
  if (!Array.isArray(list)) return undefined;
  const out: NativeMessage[] = [];
  for (const m of list) {
    if (!isObj(m)) continue;
    const role = toRole(m.role) ?? "user";
    const blocks: NativeBlock[] = [];
    for (const p of arr(m.parts)) {
      if (isObj(p) && p.type === "tool_call_response") {
        const response = p.response ?? p.result;
        out.push({ role: "tool", tool_call_id: idStr(p.id), content: typeof response === "string" ? contentToBlocks(response) : [{ type: "text", text: JSON.stringify(response ?? null) }] });
        continue;
      }
      blocks.push(...partBlocks(p));
    }
    if (blocks.length || !arr(m.parts).length) out.push({ role, content: blocks });
  }
  return out;
}

/** `gen_ai.system_instructions`: parts (or one string) → a system message. */
function systemInstructions(value: unknown): NativeMessage | undefined {
  const v = json(value) ?? value;
  const blocks = typeof v === "string" ? contentToBlocks(v) : Array.isArray(v) ? v.flatMap(partBlocks) : [];
  return blocks.length ? { role: "system", content: blocks } : undefined;
}

/** An OpenAI-style message (events, flattened attributes): content + tool_calls. */
function chatMessage(role: NativeMessage["role"], m: Json): NativeMessage {
  const content = m.content === undefined || m.content === null ? [] : contentToBlocks(json(m.content) ?? m.content);
  for (const c of arr(m.tool_calls)) {
    if (!isObj(c)) continue;
    const f = isObj(c.function) ? c.function : c;
    content.push(toolCall(c.id, f.name, f.arguments ?? f.args));
  }
  const id = idStr(m.id ?? m.tool_call_id);
  return role === "tool" ? { role, content, ...(id ? { tool_call_id: id } : {}) } : { role, content };
}

const EVENT_ROLES: Record<string, NativeMessage["role"]> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};

/** The older per-message events (their fields as event attributes, JSON or flat). */
function fromEvents(events: GenAiEvent[]): GenAiMessages {
  const input: NativeMessage[] = [];
  const output: NativeMessage[] = [];
  for (const e of events) {
    const fields = eventFields(e.attributes);
    if (Object.hasOwn(EVENT_ROLES, e.name)) input.push(chatMessage(toRole(fields.role) ?? EVENT_ROLES[e.name]!, fields));
    else if (e.name === "gen_ai.choice") {
      const msg = isObj(json(fields.message)) ? (json(fields.message) as Json) : fields;
      output.push(chatMessage(toRole(msg.role) ?? "assistant", msg));
    }
  }
  return { ...(input.length ? { input } : {}), ...(output.length ? { output } : {}) };
}

/** Event attributes: `{content, tool_calls}` as sent, or nested from dotted keys (`message.content`). */
function eventFields(attrs: FlatAttributes): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "gen_ai.system" || k === "gen_ai.provider.name") continue;
    const parsed = k === "tool_calls" || k === "message" ? (json(v) ?? v) : v;
    setPath(out, k.split("."), parsed);
  }
  return out;
}

/** `prefix.0.a.b` keys → nested arrays/objects (numeric segments are indices). */
export function unflatten(attrs: FlatAttributes, prefix: string): unknown[] | undefined {
  const root: Json = {};
  let found = false;
  for (const [k, v] of Object.entries(attrs)) {
    if (!k.startsWith(`${prefix}.`)) continue;
    const path = k.slice(prefix.length + 1).split(".");
    if (!/^\d+$/.test(path[0]!)) continue;
    setPath(root, path, v);
    found = true;
  }
  return found ? toArrays(root) as unknown[] : undefined;
}

function setPath(target: Json, path: string[], value: unknown): void {
  let o = target;
  for (const seg of path.slice(0, -1)) {
    if (seg === "__proto__" || seg === "constructor" || seg === "prototype") return;
    if (!isObj(o[seg])) o[seg] = {};
    o = o[seg] as Json;
  }
  const last = path.at(-1)!;
  if (last !== "__proto__" && last !== "constructor" && last !== "prototype") o[last] = value;
}

/** Objects whose keys are all indices become arrays (in index order). */
function toArrays(v: unknown): unknown {
  if (!isObj(v)) return v;
  const keys = Object.keys(v);
  if (keys.length && keys.every((k) => /^\d+$/.test(k))) return keys.sort((a, b) => Number(a) - Number(b)).map((k) => toArrays(v[k]));
  return Object.fromEntries(keys.map((k) => [k, toArrays(v[k])]));
}

/** OpenLLMetry: `gen_ai.prompt.N.{role,content,tool_call_id}`, `gen_ai.completion.N.{role,content,tool_calls.M.*}`. */
function fromOpenLlmetry(attrs: FlatAttributes): GenAiMessages {
  const read = (prefix: string, fallback: NativeMessage["role"]) =>
    unflatten(attrs, prefix)
      ?.filter(isObj)
      .map((m) => chatMessage(toRole(m.role) ?? fallback, m));
  const input = read("gen_ai.prompt", "user");
  const output = read("gen_ai.completion", "assistant");
  return { ...(input?.length ? { input } : {}), ...(output?.length ? { output } : {}) };
}

/** OpenInference: `llm.{input,output}_messages.N.message.{role,content,contents,tool_calls,tool_call_id}`. */
function fromOpenInference(attrs: FlatAttributes): GenAiMessages {
  const read = (prefix: string, fallback: NativeMessage["role"]) =>
    unflatten(attrs, prefix)
      ?.map((x) => (isObj(x) && isObj(x.message) ? x.message : undefined))
      .filter(isObj)
      .map((m) => {
        const role = toRole(m.role) ?? fallback;
        const content: NativeBlock[] = [];
        if (typeof m.content === "string") content.push(...contentToBlocks(m.content));
        for (const c of arr(m.contents)) {
          const mc = isObj(c) && isObj(c.message_content) ? c.message_content : undefined;
          if (!mc) continue;
          if (mc.type === "text" && typeof mc.text === "string") content.push(...contentToBlocks(mc.text));
          else if (mc.type === "image" && isObj(mc.image) && isObj(mc.image.image) && typeof mc.image.image.url === "string") content.push(mediaFromData("image", mc.image.image.url));
        }
        for (const t of arr(m.tool_calls)) {
          const call = isObj(t) && isObj(t.tool_call) ? t.tool_call : undefined;
          const f = call && isObj(call.function) ? call.function : undefined;
          if (f) content.push(toolCall(call!.id, f.name, f.arguments));
        }
        const id = idStr(m.tool_call_id);
        return role === "tool" && id ? { role, content, tool_call_id: id } : { role, content };
      });
  const input = read("llm.input_messages", "user");
  const output = read("llm.output_messages", "assistant");
  return { ...(input?.length ? { input } : {}), ...(output?.length ? { output } : {}) };
}

/**
 * The messages of an OTel-traced LLM call, from whichever vocabulary the span uses (the newest
 * GenAI attributes first). Input and output are looked up independently.
 */
export function genAiMessages(attrs: FlatAttributes, events: GenAiEvent[]): GenAiMessages {
  // the newest convention may also arrive as attributes of an operation-details event
  const details = events.find((e) => e.name === "gen_ai.client.inference.operation.details")?.attributes ?? {};
  const pick = (k: string) => attrs[k] ?? details[k];
  let input = readGenAiMessages(pick("gen_ai.input.messages"));
  const output = readGenAiMessages(pick("gen_ai.output.messages"));
  const system = systemInstructions(pick("gen_ai.system_instructions"));
  if (system) input = [system, ...(input ?? [])];
  const fallbacks = [fromEvents(events), fromOpenLlmetry(attrs), fromOpenInference(attrs)];
  return {
    input: input?.length ? input : fallbacks.find((f) => f.input)?.input,
    output: output?.length ? output : fallbacks.find((f) => f.output)?.output,
  };
}

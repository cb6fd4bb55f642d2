/**
 * Content parts of every supported format → native blocks (pure). Part `type` names hardly
 * collide across formats; where they do (`image`, `text`, `reasoning`), the fields tell them apart.
 * Unknown parts are kept as `non_standard` so nothing a client sent disappears from the view.
 */
import { toAnnotations } from "./annotations.js";
import { idStr, isObj, mediaFromData, mediaFromUrl, objectArgs, str, toolCall, withExtras, type Json } from "./fields.js";
import type { MediaType, NativeBlock, NativeMessage, SourceFormat } from "./native.js";
import { responsesItemToBlocks } from "./responses-items.js";

const extrasOf = (p: Json): Record<string, unknown> | undefined => (isObj(p.extras) ? p.extras : undefined);

function text(p: Json, value: unknown, extras?: Record<string, unknown>): NativeBlock[] {
  if (typeof value !== "string" || value === "") return [];
  const annotations = toAnnotations(p.annotations ?? p.citations);
  return [withExtras({ type: "text" as const, text: value, ...(annotations.length ? { annotations } : {}) }, extras)];
}

/**
 * Reasoning: native `text`, langchain-core `reasoning`, or an OpenAI Responses reasoning item
 * (one block per summary entry; the raw `content` only when there is no summary).
 */
function reasoning(p: Json): NativeBlock[] {
  const own = str(p.text) ?? str(p.reasoning);
  if (own !== undefined) return [withExtras({ type: "reasoning" as const, text: own }, extrasOf(p))];
  const texts = (list: unknown) => (Array.isArray(list) ? list : []).map((s) => (isObj(s) ? str(s.text) : str(s))).filter((t): t is string => !!t);
  const summary = texts(p.summary);
  return (summary.length ? summary : texts(p.content)).map((t) => ({ type: "reasoning", text: t }));
}

/** Media in Anthropic (`source`), OpenAI chat (`file`) and native/LangChain (flat fields) shapes. */
function media(p: Json): NativeBlock[] | undefined {
  const type: MediaType = p.type === "document" ? "file" : p.type;
  // Anthropic document metadata; the rest of a native block's extras ride along
  const extras = { ...extrasOf(p), title: p.title, context: p.context };
  if (isObj(p.source)) {
    const s = p.source;
    if (s.type === "base64") return [withExtras({ type, base64: idStr(s.data), ...(str(s.media_type) ? { mime_type: s.media_type } : {}) }, extras)];
    if (s.type === "url") return [withExtras({ type, url: idStr(s.url) }, extras)];
    if (s.type === "file") return [withExtras({ type, id: idStr(s.file_id) }, extras)];
    // a plain-text document is shown as the text it is, not as an opaque file
    if (s.type === "text") return [withExtras({ type: "text" as const, text: idStr(s.data) }, { ...extras, document: true, mime_type: s.media_type })];
    if (s.type === "content") return contentToBlocks(s.content);
  }
  if (isObj(p.file)) {
    const f = p.file;
    if (typeof f.file_data === "string") return [mediaFromData("file", f.file_data, { filename: f.filename })];
    if (typeof f.file_id === "string") return [withExtras({ type: "file" as const, id: f.file_id }, { filename: f.filename })];
  }
  // native and LangChain: url | base64 (v0: data) | id (LangChain v1: file_id / fileId), mime_type | mimeType
  const mime = str(p.mime_type) ?? str(p.mimeType);
  const url = str(p.url);
  const base64 = str(p.base64) ?? str(p.data);
  const id = str(p.file_id) ?? str(p.fileId) ?? str(p.id);
  if (url !== undefined && base64 === undefined) {
    const b = mediaFromUrl(type, url, extras) as Json;
    return [{ ...b, ...(id ? { id } : {}), ...(b.mime_type || !mime ? {} : { mime_type: mime }) } as NativeBlock];
  }
  if (url === undefined && base64 === undefined && id === undefined) return undefined;
  return [withExtras({ type, ...(url ? { url } : {}), ...(base64 !== undefined ? { base64 } : {}), ...(id ? { id } : {}), ...(mime ? { mime_type: mime } : {}) }, extras)];
}

/** One content part (any supported format) → native blocks. */
export function partToBlocks(part: unknown): NativeBlock[] {
  if (typeof part === "string") return part === "" ? [] : [{ type: "text", text: part }];
  if (!isObj(part)) return part === null || part === undefined ? [] : [{ type: "non_standard", value: part }];
  const p = part;
  switch (p.type) {
    case "text":
    case "input_text":
    case "output_text":
      if (typeof p.text !== "string") break;
      return text(p, p.text, extrasOf(p));
    case "text-plain": // LangChain v1 plain-text document
      if (typeof p.text !== "string") break;
      return text(p, p.text, { ...extrasOf(p), document: true, title: p.title, mime_type: p.mime_type });
    case "refusal": // OpenAI: the model declined; shown as text, marked
      return text(p, p.refusal, { refusal: true });
    case "reasoning":
      return reasoning(p);
    case "thinking": // Anthropic
      return [withExtras({ type: "reasoning" as const, text: idStr(p.thinking) }, { signature: p.signature })];
    case "redacted_thinking":
      // Anthropic encrypts it: shown as a reasoning placeholder (so the view says reasoning happened),
      // the opaque data kept in extras so the block can be sent back as it was
      return [withExtras({ type: "reasoning" as const, text: "[redacted thinking]" }, { redacted: true, data: p.data })];
    case "image_url": {
      // OpenAI chat: {image_url: {url, detail}} (a bare string url in old clients)
      const iu = typeof p.image_url === "string" ? { url: p.image_url } : isObj(p.image_url) ? p.image_url : {};
      if (typeof iu.url !== "string") break;
      return [mediaFromUrl("image", iu.url, { detail: iu.detail })];
    }
    case "input_image": // OpenAI Responses: image_url is a string (URL or data URI), or a file_id
    case "computer_screenshot":
      if (typeof p.image_url === "string") return [mediaFromUrl("image", p.image_url, { detail: p.detail })];
      if (typeof p.file_id === "string") return [withExtras({ type: "image" as const, id: p.file_id }, { detail: p.detail })];
      break;
    case "input_file": // OpenAI Responses
      if (typeof p.file_data === "string") return [mediaFromData("file", p.file_data, { filename: p.filename })];
      if (typeof p.file_id === "string") return [withExtras({ type: "file" as const, id: p.file_id }, { filename: p.filename })];
      if (typeof p.file_url === "string") return [mediaFromUrl("file", p.file_url, { filename: p.filename })];
      break;
    case "input_audio": {
      const a = isObj(p.input_audio) ? p.input_audio : {};
      if (typeof a.data !== "string") break;
      return [{ type: "audio", base64: a.data, mime_type: `audio/${str(a.format) ?? "wav"}` }];
    }
    case "tool_use": // Anthropic
      return [toolCall(p.id, p.name, p.input)];
    case "tool_call":
    case "tool_call_chunk":
      return [toolCall(p.id, p.name, p.args)];
    case "server_tool_use": // Anthropic server tools run by the provider
    case "mcp_tool_use":
      return [withExtras({ type: "server_tool_call" as const, id: idStr(p.id), name: idStr(p.name), args: objectArgs(p.input) }, { server_name: p.server_name })];
    case "server_tool_call":
      return [withExtras({ type: "server_tool_call" as const, id: idStr(p.id), name: idStr(p.name), args: objectArgs(p.args) }, extrasOf(p))];
    case "server_tool_result":
    case "server_tool_call_result": // JS langchain-core spelling
      return [
        {
          type: "server_tool_result",
          tool_call_id: idStr(p.tool_call_id ?? p.toolCallId),
          ...(idStr(p.id) ? { id: idStr(p.id) } : {}),
          status: p.status === "error" ? "error" : "success",
          ...(p.output === undefined ? {} : { output: p.output }),
        },
      ];
    case "invalid_tool_call":
      return [{ type: "invalid_tool_call", ...(idStr(p.id) ? { id: idStr(p.id) } : {}), ...(str(p.name) ? { name: p.name } : {}), args: typeof p.args === "string" ? p.args : p.args === undefined ? "" : JSON.stringify(p.args), error: str(p.error) ?? "invalid" }];
    case "non_standard":
      return [{ type: "non_standard", value: "value" in p ? p.value : p }];
    case "image":
    case "file":
    case "audio":
    case "video":
    case "document": {
      const blocks = media(p);
      if (blocks) return blocks;
      break;
    }
  }
  const item = responsesItemToBlocks(p);
  if (item) return item;
  // Anthropic server tool results: web_search_tool_result, code_execution_tool_result, mcp_tool_result, …
  if (typeof p.type === "string" && p.type.endsWith("_tool_result") && p.tool_use_id !== undefined) {
    const error = p.is_error === true || (isObj(p.content) && p.content.error_code !== undefined);
    return [{ type: "server_tool_result", tool_call_id: idStr(p.tool_use_id), status: error ? "error" : "success", ...(p.content === undefined ? {} : { output: p.content }) }];
  }
  return [{ type: "non_standard", value: p }];
}

/** A message's content (a string, or an array of parts of any format) → native blocks. */
export function contentToBlocks(content: unknown): NativeBlock[] {
  if (content === undefined || content === null) return [];
  if (Array.isArray(content)) return content.flatMap(partToBlocks);
  return partToBlocks(content);
}

const isToolResult = (p: unknown): p is Json => isObj(p) && p.type === "tool_result";

/**
 * Anthropic sends tool results inside user messages; each becomes a tool message of its own
 * (before the rest of the user message, which usually follows up on them).
 */
export function splitToolResults(content: unknown): { results: NativeMessage[]; rest: unknown } {
  if (!Array.isArray(content) || !content.some(isToolResult)) return { results: [], rest: content };
  const results = content.filter(isToolResult).map(
    (r): NativeMessage => ({ role: "tool", tool_call_id: idStr(r.tool_use_id), content: contentToBlocks(r.content), ...(r.is_error === true ? { status: "error" as const } : {}) }),
  );
  return { results, rest: content.filter((p) => !isToolResult(p)) };
}

const ANTHROPIC_PARTS = new Set(["tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use", "document"]);
const NATIVE_PARTS = new Set(["text", "reasoning", "tool_call", "server_tool_call", "server_tool_result", "invalid_tool_call", "non_standard"]);
const OPENAI_PARTS = new Set(["image_url", "input_audio", "input_text", "input_image", "input_file", "output_text", "refusal", "function_call"]);

/** Which provider a list of parts comes from, when a part gives it away (for display only). */
export function partsFormat(content: unknown): SourceFormat | undefined {
  for (const p of Array.isArray(content) ? content : []) {
    if (!isObj(p) || typeof p.type !== "string") continue;
    if (Array.isArray(p.citations) || isObj(p.source)) return "anthropic";
    if (NATIVE_PARTS.has(p.type)) continue;
    if (ANTHROPIC_PARTS.has(p.type) || p.type.endsWith("_tool_result")) return "anthropic";
    if (OPENAI_PARTS.has(p.type) || p.type.endsWith("_call") || isObj(p.file)) return "openai";
  }
  return undefined;
}

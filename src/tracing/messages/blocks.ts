/**
 * Content parts of every supported provider format → native blocks (pure). Part `type` names
 * hardly collide across formats; where they do (`image`, `text`), the fields tell them apart.
 */
import type { MediaType, NativeBlock } from "./native.js";

type Json = Record<string, any>;

const DATA_URI = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** A URL, or a data: URI split into base64 + mime type. */
export function mediaFromUrl(type: MediaType, url: string, extras?: Record<string, unknown>): NativeBlock {
  const m = DATA_URI.exec(url);
  const base = m ? { type, base64: m[2]!, mime_type: m[1]! } : { type, url };
  return extras && Object.keys(extras).length ? { ...base, extras } : base;
}

/** Tool-call arguments: an object as is, a JSON string parsed — or kept raw with the error. */
export function toolCall(id: string | undefined, name: string, args: unknown): NativeBlock {
  if (typeof args === "string") {
    if (args.trim() === "") return { type: "tool_call", ...(id ? { id } : {}), name, args: {} };
    try {
      const parsed = JSON.parse(args) as unknown;
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return { type: "tool_call", ...(id ? { id } : {}), name, args: parsed as Json };
      return { type: "invalid_tool_call", ...(id ? { id } : {}), name, args, error: "arguments are JSON but not an object" };
    } catch (err) {
      return { type: "invalid_tool_call", ...(id ? { id } : {}), name, args, error: `arguments are not valid JSON: ${(err as Error).message}` };
    }
  }
  if (args && typeof args === "object" && !Array.isArray(args)) return { type: "tool_call", ...(id ? { id } : {}), name, args: args as Json };
  return { type: "tool_call", ...(id ? { id } : {}), name, args: {} };
}

/** One content part (any supported format) → native blocks; unknown parts are kept as non_standard. */
export function partToBlocks(part: unknown): NativeBlock[] {
  if (typeof part === "string") return part === "" ? [] : [{ type: "text", text: part }];
  if (!part || typeof part !== "object") return [{ type: "non_standard", value: part }];
  const p = part as Json;
  switch (p.type) {
    case "text":
    case "input_text":
    case "output_text":
      if (typeof p.text !== "string") break;
      if (p.text === "") return [];
      return [{ type: "text", text: p.text, ...(p.annotations?.length || p.citations?.length ? { annotations: p.annotations ?? p.citations } : {}) }];
    case "reasoning":
      // LangSmith docs say `text`; langchain-core uses `reasoning`
      return [{ type: "reasoning", text: String(p.text ?? p.reasoning ?? "") }];
    case "thinking": // Anthropic
      return [{ type: "reasoning", text: String(p.thinking ?? ""), ...(p.signature ? { extras: { signature: p.signature } } : {}) }];
    case "redacted_thinking":
      return [{ type: "non_standard", value: p }];
    case "image_url": {
      // OpenAI: {image_url: {url, detail}} (or a bare string url in old clients)
      const iu = typeof p.image_url === "string" ? { url: p.image_url } : (p.image_url ?? {});
      if (typeof iu.url !== "string") break;
      return [mediaFromUrl("image", iu.url, iu.detail ? { detail: iu.detail } : undefined)];
    }
    case "input_audio": {
      const a = p.input_audio ?? {};
      return [{ type: "audio", base64: String(a.data ?? ""), mime_type: `audio/${a.format ?? "wav"}` }];
    }
    case "tool_use": // Anthropic
      return [toolCall(p.id, String(p.name ?? ""), p.input)];
    case "server_tool_use":
    case "mcp_tool_use":
      return [{ type: "server_tool_call", id: String(p.id ?? ""), name: String(p.name ?? ""), args: (p.input ?? {}) as Json }];
    case "tool_call":
      return [toolCall(p.id, String(p.name ?? ""), p.args)];
    case "server_tool_call":
      return [{ type: "server_tool_call", id: String(p.id ?? ""), name: String(p.name ?? ""), args: (p.args ?? {}) as Json }];
    case "server_tool_result":
    case "server_tool_call_result":
      return [
        {
          type: "server_tool_result",
          tool_call_id: String(p.tool_call_id ?? p.toolCallId ?? ""),
          ...(p.id ? { id: p.id } : {}),
          status: p.status === "error" ? "error" : "success",
          output: p.output,
        },
      ];
    case "invalid_tool_call":
      return [{ type: "invalid_tool_call", ...(p.id ? { id: p.id } : {}), name: p.name, args: String(p.args ?? ""), error: String(p.error ?? "invalid") }];
    case "image":
    case "file":
    case "audio":
    case "video":
    case "document": {
      const type: MediaType = p.type === "document" ? "file" : p.type;
      // Anthropic: {source: {type: base64|url|file, media_type, data|url|file_id}}
      if (p.source && typeof p.source === "object") {
        const s = p.source as Json;
        if (s.type === "base64") return [{ type, base64: String(s.data ?? ""), mime_type: s.media_type }];
        if (s.type === "url") return [{ type, url: String(s.url ?? "") }];
        if (s.type === "file") return [{ type, id: String(s.file_id ?? "") }];
        if (s.type === "text") return [{ type: "text", text: String(s.data ?? "") }];
      }
      // OpenAI file part: {file: {file_data: data-URI, filename} | {file_id}}
      if (p.file && typeof p.file === "object") {
        const f = p.file as Json;
        if (typeof f.file_data === "string") return [mediaFromUrl("file", f.file_data, f.filename ? { filename: f.filename } : undefined)];
        if (typeof f.file_id === "string") return [{ type: "file", id: f.file_id }];
      }
      // native / langchain: url | base64 | data | id | file_id, mime_type | mimeType
      const mime = p.mime_type ?? p.mimeType;
      const base = {
        ...(typeof p.url === "string" ? { url: p.url } : {}),
        ...(typeof p.base64 === "string" ? { base64: p.base64 } : typeof p.data === "string" ? { base64: p.data } : {}),
        ...(typeof (p.id ?? p.file_id ?? p.fileId) === "string" ? { id: p.id ?? p.file_id ?? p.fileId } : {}),
        ...(mime ? { mime_type: mime } : {}),
      };
      if (base.url && !base.base64) return [mediaFromUrl(type, base.url)].map((b) => ({ ...b, ...(mime ? { mime_type: mime } : {}) }) as NativeBlock);
      if (Object.keys(base).length) return [{ type, ...base }];
      break;
    }
  }
  // Anthropic server tool results: web_search_tool_result, code_execution_tool_result, …
  if (typeof p.type === "string" && p.type.endsWith("_tool_result") && p.tool_use_id) {
    const error = Boolean(p.is_error) || Boolean(p.content?.error_code);
    return [{ type: "server_tool_result", tool_call_id: String(p.tool_use_id), status: error ? "error" : "success", output: p.content }];
  }
  return [{ type: "non_standard", value: p }];
}

/** A message's content (a string, or an array of parts of any format) → native blocks. */
export function contentToBlocks(content: unknown): NativeBlock[] {
  if (content === undefined || content === null) return [];
  if (Array.isArray(content)) return content.flatMap(partToBlocks);
  return partToBlocks(content);
}

/**
 * The native LLM message format of traces (spec §4.4): what every accepted input/output shape is
 * normalised into before rendering and token accounting.
 */

export type NativeRole = "system" | "reasoning" | "user" | "assistant" | "tool";

export type MediaType = "image" | "file" | "audio" | "video";

export type NativeBlock =
  | { type: "text"; text: string; annotations?: unknown[]; extras?: Record<string, unknown> }
  | { type: "reasoning"; text: string; extras?: Record<string, unknown> }
  | { type: MediaType; url?: string; base64?: string; id?: string; mime_type?: string; extras?: Record<string, unknown> }
  | { type: "tool_call"; id?: string; name: string; args: Record<string, unknown> }
  | { type: "server_tool_call"; id: string; name: string; args: Record<string, unknown>; extras?: Record<string, unknown> }
  | { type: "server_tool_result"; tool_call_id: string; id?: string; status: "success" | "error"; output?: unknown }
  /** A tool call whose arguments were not valid JSON: kept as sent, with the parse error. */
  | { type: "invalid_tool_call"; id?: string; name?: string; args: string; error: string }
  /** Content we keep but cannot map: shown raw. */
  | { type: "non_standard"; value: unknown };

export interface NativeMessage {
  role: NativeRole;
  content: NativeBlock[];
  tool_call_id?: string;
  /**
   * Only on tool messages, only when the tool reported a failure (Anthropic `is_error`, LangChain
   * `status: "error"`). Not in the spec's table; kept beside the content so the text stays as sent.
   */
  status?: "error";
  usage_metadata?: Record<string, unknown>;
}

/** Which source format a run's messages were read from (for display and debugging). */
export type SourceFormat = "native" | "openai" | "anthropic" | "langchain";

/** Role names of every supported format (OpenAI `developer`, LangChain `human`/`ai`, Gemini `model`). */
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

export function toRole(name: unknown): NativeRole | undefined {
  return typeof name === "string" && Object.hasOwn(ROLE_ALIASES, name) ? ROLE_ALIASES[name] : undefined;
}

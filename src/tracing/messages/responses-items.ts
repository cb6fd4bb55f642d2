/**
 * OpenAI Responses API output items → native blocks (pure). These items appear both as entries of
 * `response.output` / `request.input` and, in LangChain's "responses/v1" output, as content parts
 * of an AIMessage — so they are read here, once, as blocks.
 */
import { idStr, isObj, objectArgs, str, toolCall, withExtras, type Json } from "./fields.js";
import type { NativeBlock } from "./native.js";

interface ServerCall {
  name: string;
  args: Record<string, unknown>;
  output: unknown;
  extras?: Record<string, unknown>;
}

const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** Tools OpenAI runs itself: what was asked and what came back. */
const SERVER_CALLS: Record<string, (i: Json) => ServerCall> = {
  web_search_call: (i) => {
    // `action` holds the query; `sources` (when requested) are what the search returned
    const { sources, ...action } = isObj(i.action) ? i.action : ({} as Json);
    return { name: "web_search", args: action, output: sources === undefined ? undefined : { sources } };
  },
  file_search_call: (i) => ({ name: "file_search", args: defined({ queries: i.queries }), output: i.results ?? undefined }),
  code_interpreter_call: (i) => ({ name: "code_interpreter", args: defined({ code: i.code, container_id: i.container_id }), output: i.outputs ?? undefined }),
  mcp_call: (i) => ({ name: idStr(i.name), args: objectArgs(i.arguments), output: i.error ?? i.output ?? undefined, extras: { server_label: i.server_label } }),
};

/** Tools the client runs: they become ordinary tool calls, answered by a `*_call_output` item. */
const CLIENT_CALLS = new Set(["function_call", "custom_tool_call", "computer_call", "local_shell_call", "shell_call", "apply_patch_call"]);

/**
 * completed → success, failed (or an error, or cut off) → error. A call still running has no
 * result yet, so none is invented.
 */
function resultStatus(i: Json): "success" | "error" | undefined {
  if (i.status === "failed" || i.status === "incomplete" || (i.error !== undefined && i.error !== null)) return "error";
  if (i.status === "completed" || i.status === undefined || i.status === null) return "success";
  return undefined;
}

function serverCall(i: Json, read: (i: Json) => ServerCall): NativeBlock[] {
  const id = idStr(i.id);
  const { name, args, output, extras } = read(i);
  const call = withExtras({ type: "server_tool_call" as const, id, name, args }, extras);
  const status = resultStatus(i);
  if (!status) return [call];
  return [call, { type: "server_tool_result", tool_call_id: id, status, ...(output === undefined ? {} : { output }) }];
}

function clientCall(i: Json): NativeBlock {
  const name = str(i.name) ?? String(i.type).replace(/_call$/, "");
  // function_call: JSON-string `arguments`; custom tools: free-text `input`; computer/shell: `action`
  const args = "arguments" in i ? i.arguments : typeof i.input === "string" ? { input: i.input } : (i.action ?? i.operation);
  return toolCall(i.call_id ?? i.id, name, args);
}

/** One Responses output item as blocks; undefined when the item is not one of these kinds. */
export function responsesItemToBlocks(i: Json): NativeBlock[] | undefined {
  const read = typeof i.type === "string" && Object.hasOwn(SERVER_CALLS, i.type) ? SERVER_CALLS[i.type] : undefined;
  if (read) return serverCall(i, read);
  if (CLIENT_CALLS.has(i.type)) return [clientCall(i)];
  if (i.type === "image_generation_call") {
    if (typeof i.result !== "string" || i.result === "") return [{ type: "non_standard", value: i }];
    const format = str(i.output_format) ?? "png";
    return [withExtras({ type: "image" as const, base64: i.result, mime_type: `image/${format}` }, { id: i.id, revised_prompt: i.revised_prompt })];
  }
  return undefined;
}

/** Item types a client (not the model) produces: answers to client tool calls. */
export function isCallOutput(i: Json): boolean {
  return typeof i.type === "string" && i.type.endsWith("_call_output");
}

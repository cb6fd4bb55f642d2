/**
 * OpenAI Responses API → native messages (pure): the request (`input` as a string or an item
 * list, plus `instructions`) and the response (`{output: [...], usage}`). Items are not messages:
 * reasoning, text and tool calls of one model turn come as separate items, so consecutive
 * model-side items are gathered into one assistant message, the way chat completions shows a turn.
 */
import { contentToBlocks, partToBlocks } from "./blocks.js";
import { idStr, isObj, type Json } from "./fields.js";
import { readMessage, type Read } from "./message.js";
import type { NativeMessage } from "./native.js";
import { isCallOutput } from "./responses-items.js";

/** Model-side item types besides `*_call` ones (so a list can be told to be a Responses list). */
const OTHER_ITEMS = new Set(["reasoning", "item_reference", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response", "compaction"]);

const isResponsesItem = (i: Json) => typeof i.type === "string" && (isCallOutput(i) || i.type.endsWith("_call") || OTHER_ITEMS.has(i.type));

/**
 * An item list → messages; undefined unless it is one: every item an object, and either all of
 * them messages or at least one a Responses item (then unknown item types are kept as non_standard).
 */
function readItems(items: unknown): NativeMessage[] | undefined {
  if (!Array.isArray(items) || !items.every(isObj)) return undefined;
  if (!items.every((i) => typeof i.role === "string") && !items.some(isResponsesItem)) return undefined;
  const out: NativeMessage[] = [];
  const assistant = (): NativeMessage => {
    const last = out.at(-1);
    if (last?.role === "assistant") return last;
    const m: NativeMessage = { role: "assistant", content: [] };
    out.push(m);
    return m;
  };
  for (const item of items) {
    if (typeof item.role === "string") {
      // message items, with `type: "message"` or in the short {role, content} form
      const r = readMessage(item);
      if (!r) return undefined;
      for (const m of r.messages) {
        if (m.role === "assistant") assistant().content.push(...m.content);
        else out.push(m);
      }
    } else if (isCallOutput(item)) {
      // the client's answer to a tool call; local_shell_call_output names the call by `id`
      out.push({ role: "tool", tool_call_id: idStr(item.call_id ?? item.id), content: contentToBlocks(item.output) });
    } else {
      assistant().content.push(...partToBlocks(item));
    }
  }
  return out;
}

/** The request: `input` (a string is one user message) with `instructions` as the system prompt. */
export function readResponsesInput(input: unknown, instructions: unknown): Read | undefined {
  const messages = readItems(typeof input === "string" ? [{ role: "user", content: input }] : input);
  if (!messages) return undefined;
  if (typeof instructions === "string" && instructions !== "") messages.unshift({ role: "system", content: [{ type: "text", text: instructions }] });
  return { messages, format: "openai" };
}

/** The response: its output items, with the response's usage on the last message. */
export function readResponsesOutput(o: Json): Read | undefined {
  const messages = readItems(o.output);
  if (!messages) return undefined;
  const last = messages.at(-1);
  // wrapOpenAI replaces `usage` by a LangSmith-style `usage_metadata`
  const usage = o.usage_metadata ?? o.usage;
  if (last && isObj(usage) && !last.usage_metadata) last.usage_metadata = usage;
  return { messages, format: "openai" };
}

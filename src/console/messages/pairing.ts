/**
 * Tool calls ↔ tool results by id (pure), so the view can show each result right under the call it
 * answers. Two kinds:
 * - a client tool call (`tool_call` / `invalid_tool_call` in an assistant message) is answered by a
 *   later `tool` message whose `tool_call_id` is the call's id — the rule the normaliser's
 *   warnings use, so a result the view leaves unpaired is one the warnings name;
 * - a server tool call (`server_tool_call`, run by the provider) is answered by a later
 *   `server_tool_result` block whose `tool_call_id` is its id, in the same or a later message.
 * Pairs are kept by position (message, block), not by id: ids can be missing or repeated, and every
 * result must be shown exactly once — under its call, or where it is when it answers none.
 */
import type { NativeBlock, NativeMessage } from "../api/types";

/** A block's position: `messages[message].content[block]`. */
export interface BlockRef {
  message: number;
  block: number;
}

export const refKey = (r: BlockRef): string => `${r.message}:${r.block}`;

export interface Pairing {
  /** Tool messages (indexes) answering each client call, keyed by the call's `refKey`. */
  toolResults: Map<string, number[]>;
  /** For each tool message shown under a call: that call. */
  answers: Map<number, BlockRef>;
  /** Server tool results answering each server call, keyed by the call's `refKey`. */
  serverResults: Map<string, BlockRef[]>;
  /** `refKey`s of the server results shown under their call (not where they stand). */
  pairedServerResults: Set<string>;
}

const str = (x: unknown): string | undefined => (typeof x === "string" && x !== "" ? x : undefined);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Pairs every result with the latest earlier call of its id (a result before its call, or for an
 * id no call has, stays unpaired). One call can collect several results (a retried tool).
 */
export function pairToolResults(messages: readonly NativeMessage[]): Pairing {
  const out: Pairing = { toolResults: new Map(), answers: new Map(), serverResults: new Map(), pairedServerResults: new Set() };
  const clientCalls = new Map<string, BlockRef>();
  const serverCalls = new Map<string, BlockRef>();
  messages.forEach((m: NativeMessage, message: number) => {
    const toolCallId = str(m?.tool_call_id);
    if (m?.role === "tool" && toolCallId) {
      const call = clientCalls.get(toolCallId);
      if (call) {
        push(out.toolResults, refKey(call), message);
        out.answers.set(message, call);
      }
    }
    const blocks: NativeBlock[] = Array.isArray(m?.content) ? m.content : [];
    blocks.forEach((b: NativeBlock, block: number) => {
      const ref = { message, block };
      if (b?.type === "tool_call" || b?.type === "invalid_tool_call") {
        const id = str(b.id);
        if (id && m.role === "assistant") clientCalls.set(id, ref);
      } else if (b?.type === "server_tool_call") {
        const id = str(b.id);
        if (id) serverCalls.set(id, ref);
      } else if (b?.type === "server_tool_result") {
        const id = str(b.tool_call_id);
        const call = id ? serverCalls.get(id) : undefined;
        if (call) {
          push(out.serverResults, refKey(call), ref);
          out.pairedServerResults.add(refKey(ref));
        }
      }
    });
  });
  return out;
}

/** Why a tool message is shown on its own: the same reasons the normaliser warns about. */
export function unpairedReason(m: NativeMessage): string {
  const id = str(m?.tool_call_id);
  return id ? `answers no earlier tool call (tool_call_id ${id})` : "has no tool_call_id";
}

/**
 * The messages of one conversation turn whose run is not an LLM call: a LangGraph graph (or any
 * chain) called with `{messages: [...]}` and answering with its state, `{messages: [...]}` — the
 * whole conversation so far. The turn is its input messages and what the graph added after them;
 * the echoed history is left out, so a thread reads as a conversation rather than one growing copy
 * of it per turn. Pure; never throws.
 */
import { isObj } from "./fields.js";
import type { NativeMessage } from "./native.js";
import { checkToolCallIds, readInputs, readOutputs, type Normalized } from "./normalize.js";

const same = (a: NativeMessage, b: NativeMessage) => a.role === b.role && JSON.stringify(a.content) === JSON.stringify(b.content);

/** What the outputs add after the inputs: after the last input message's copy, when the state echoes it. */
function addedAfter(input: NativeMessage[], output: NativeMessage[]): NativeMessage[] {
  const last = input.at(-1);
  if (!last) return output;
  for (let i = output.length - 1; i >= 0; i--) if (same(output[i]!, last)) return output.slice(i + 1);
  return output;
}

export function normalizeTurn(inputs: unknown, outputs: unknown): Normalized | undefined {
  try {
    // only runs that were called with messages: anything else stays raw
    if (!isObj(inputs) || !Array.isArray(inputs.messages)) return undefined;
    const input = readInputs(inputs);
    if (!input) return undefined;
    const output = outputs === undefined || outputs === null ? undefined : readOutputs(outputs);
    const messages = [...input.messages, ...(output ? addedAfter(input.messages, output.messages) : [])];
    const format = input.format !== "native" ? input.format : (output?.format ?? "native");
    return { messages, format, warnings: checkToolCallIds(messages) };
  } catch {
    return undefined;
  }
}

/**
 * Inputs and outputs of traced LLM runs → native messages (pure). Finds the messages wherever the
 * SDKs put them (raw requests, LangChain runs, `traceable`'s argument wrapping) and reads them with
 * the per-format readers. Anything it cannot read is reported as not rendered — never an error:
 * the raw payload stays, and is what the UI shows.
 */
import { contentToBlocks } from "./blocks.js";
import { isObj, type Json } from "./fields.js";
import { readList, readMessage, type Read } from "./message.js";
import type { NativeMessage, SourceFormat } from "./native.js";
import { readResponsesInput, readResponsesOutput } from "./openai-responses.js";

export interface Normalized {
  messages: NativeMessage[];
  format: SourceFormat;
  /** Things that look wrong but do not stop rendering (e.g. a tool_call_id with no earlier call). */
  warnings: string[];
}

/** The request of one model call: `messages` (chat completions, Anthropic, LangChain) or `input` (Responses). */
function readRequest(i: Json): Read | undefined {
  const read = readList(i.messages);
  if (read) {
    // Anthropic: the system prompt sits beside the messages (a string or text blocks)
    if (i.system !== undefined && i.system !== null) {
      read.messages.unshift({ role: "system", content: contentToBlocks(i.system) });
      if (read.format === "native") read.format = "anthropic";
    }
    return read;
  }
  if (i.input === undefined) return undefined;
  // `input` is a Responses request's, or traceable's wrapping of a single non-object argument
  const list = readList(i.input);
  if (!list) return readResponsesInput(i.input, i.instructions);
  if (typeof i.instructions === "string" && i.instructions !== "") {
    list.messages.unshift({ role: "system", content: [{ type: "text", text: i.instructions }] });
    if (list.format === "native") list.format = "openai";
  }
  return list;
}

/**
 * traceable wraps arguments: one plain object is used as is, one other value becomes
 * `{input: x}`, several become `{args: [...]}` (the first is the one holding the messages).
 */
export function readInputs(inputs: unknown): Read | undefined {
  if (Array.isArray(inputs)) return readList(inputs);
  if (!isObj(inputs)) return undefined;
  const read = readRequest(inputs);
  if (read || !Array.isArray(inputs.args)) return read;
  const first: unknown = inputs.args[0];
  return Array.isArray(first) ? readList(first) : isObj(first) ? readRequest(first) : undefined;
}

/** The usage beside a response (wrappers rename `usage` to `usage_metadata`) goes on its last message. */
function withUsage(read: Read, o: Json): Read {
  const last = read.messages.at(-1);
  const usage = o.usage_metadata ?? o.usage;
  if (last && isObj(usage) && !last.usage_metadata) last.usage_metadata = usage;
  return read;
}

function readOutput(outputs: unknown, unwrap: boolean): Read | undefined {
  if (Array.isArray(outputs)) return readList(outputs.length === 2 && typeof outputs[0] === "string" ? [outputs] : outputs);
  if (!isObj(outputs)) return undefined;
  const o = outputs;
  // a run that ended without output (errored or cancelled) has nothing to add
  if (Object.keys(o).length === 0) return { messages: [], format: "native" };
  if (Array.isArray(o.choices)) {
    // OpenAI chat completions: the first choice (n > 1 is rare in traces); streamed ones carry `delta`
    const c: unknown = o.choices[0];
    const msg: unknown = isObj(c) ? (c.message ?? c.delta) : undefined;
    const m = isObj(msg) ? readMessage({ role: "assistant", ...msg }) : undefined;
    return m && withUsage({ messages: m.messages, format: m.format === "native" ? "openai" : m.format }, o);
  }
  if (Array.isArray(o.output)) return readResponsesOutput(o);
  if (Array.isArray(o.generations)) {
    // LangChain LLMResult: generations[prompt][candidate], each {text, message}
    const g0: unknown = o.generations[0];
    const g: unknown = Array.isArray(g0) ? g0[0] : g0;
    if (!isObj(g)) return undefined;
    if (g.message !== undefined) {
      const m = readMessage(g.message);
      return m && { messages: m.messages, format: "langchain" };
    }
    return typeof g.text === "string" ? { messages: [{ role: "assistant", content: contentToBlocks(g.text) }], format: "langchain" } : undefined;
  }
  if (o.message !== undefined) {
    const m = readMessage(o.message);
    return m && withUsage(m, o);
  }
  if (Array.isArray(o.messages)) return readList(o.messages);
  // traceable wraps a return value that is not a plain object (an array, a class instance): {outputs: x}
  if (unwrap && "outputs" in o) return o.outputs === null || o.outputs === undefined ? { messages: [], format: "native" } : readOutput(o.outputs, false);
  if (typeof o.role === "string" || typeof o.type === "string") {
    const m = readMessage(o);
    // Anthropic's response is a message with `type: "message"` and usage beside the content
    return m && withUsage({ messages: m.messages, format: o.type === "message" && m.format === "native" ? "anthropic" : m.format }, o);
  }
  return undefined;
}

export function readOutputs(outputs: unknown): Read | undefined {
  return readOutput(outputs, true);
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
 * means "not rendered": the run is stored and shown raw. Never throws: the readers check every
 * field, and a bug in them must cost the rendered view of one run, not the ingestion of a batch.
 */
export function normalizeLlmRun(inputs: unknown, outputs: unknown): Normalized | undefined {
  try {
    const input = readInputs(inputs);
    if (!input) return undefined;
    const output = outputs === undefined || outputs === null ? { messages: [], format: input.format } : readOutputs(outputs);
    if (!output) return undefined;
    const messages = [...input.messages, ...output.messages];
    const format = input.format !== "native" ? input.format : output.format;
    return { messages, format, warnings: checkToolCallIds(messages) };
  } catch {
    return undefined;
  }
}

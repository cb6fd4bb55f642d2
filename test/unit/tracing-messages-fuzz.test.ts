/**
 * Random payloads at the normaliser: it must never throw, and whatever it renders must be
 * well-formed native messages. The readers are fuzzed directly too, because normalizeLlmRun's own
 * safety net (a catch-all) would otherwise hide a reader that throws.
 */
import { describe, expect, it } from "vitest";
import { normalizeLlmRun, readInputs, readOutputs } from "../../src/tracing/messages/normalize.js";

/** mulberry32: a small seeded PRNG, so a failure can be replayed. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Keys and strings the readers look at, so random values reach deep into them.
const KEYS = [
  "role", "content", "type", "messages", "input", "instructions", "args", "outputs", "choices", "message", "delta", "generations", "output",
  "tool_calls", "toolCalls", "function", "function_call", "arguments", "name", "id", "call_id", "tool_call_id", "toolCallId", "tool_use_id",
  "lc", "kwargs", "data", "source", "text", "thinking", "reasoning", "reasoning_content", "summary", "refusal", "annotations", "citations",
  "url_citation", "image_url", "url", "input_audio", "file", "file_data", "file_id", "result", "status", "error", "is_error", "usage",
  "usage_metadata", "additional_kwargs", "additionalKwargs", "system", "audio", "action", "sources", "__proto__", "constructor", "toString",
];
const STRINGS = [
  "", "user", "assistant", "system", "developer", "tool", "reasoning", "human", "ai", "chat", "function", "constructor", "message",
  "text", "image", "file", "audio", "video", "document", "image_url", "input_audio", "input_text", "input_image", "input_file", "output_text",
  "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "web_search_tool_result", "tool_call", "server_tool_call",
  "server_tool_result", "invalid_tool_call", "non_standard", "function_call", "function_call_output", "web_search_call", "mcp_call",
  "image_generation_call", "reasoning", "url_citation", "char_location", "base64", "completed", "failed", "in_progress",
  "HumanMessage", "AIMessage", "ChatMessage", "ToolMessage", "data:image/png;base64,iVBOR", "data:;base64,", "https://x.test/a.png",
  "{", '{"a":1}', "[1]", "null", "__proto__", "toString", "hasOwnProperty",
];

function randomJson(r: () => number, depth: number): unknown {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const k = r();
  if (depth <= 0 || k < 0.3) {
    return pick<unknown>([null, true, false, 0, -1, 1.5, 1e308, -0, pick(STRINGS), pick(STRINGS), pick(STRINGS)]);
  }
  if (k < 0.55) return Array.from({ length: Math.floor(r() * 4) }, () => randomJson(r, depth - 1));
  if (k < 0.65 && depth > 1) return [pick(STRINGS), randomJson(r, depth - 1)];
  // fromEntries keeps "__proto__" an own key, as JSON.parse does
  return Object.fromEntries(Array.from({ length: Math.floor(r() * 5) }, () => [pick(KEYS), randomJson(r, depth - 1)]));
}

/** Valid payloads of every format, to be damaged at random places. */
const FIXTURES: Array<[unknown, unknown]> = [
  [
    { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA" } }] }, { role: "assistant", tool_calls: [{ id: "c", function: { name: "f", arguments: "{}" } }] }, { role: "tool", tool_call_id: "c", content: "x" }] },
    { choices: [{ message: { role: "assistant", content: "a", reasoning_content: "r", annotations: [{ type: "url_citation", url_citation: { url: "u" } }] } }], usage_metadata: { total_tokens: 1 } },
  ],
  [
    { system: [{ type: "text", text: "s" }], messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "r" }], is_error: true }, { type: "document", source: { type: "text", data: "d" } }] }] },
    { type: "message", role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }, { type: "server_tool_use", id: "s", name: "web_search", input: {} }, { type: "web_search_tool_result", tool_use_id: "s", content: { error_code: "x" } }, { type: "text", text: "a", citations: [{ type: "char_location", cited_text: "c" }] }] },
  ],
  [
    { instructions: "i", input: [{ role: "user", content: [{ type: "input_image", image_url: "https://x" }] }, { type: "function_call", call_id: "c", name: "f", arguments: "{" }, { type: "function_call_output", call_id: "c", output: "o" }] },
    { output: [{ type: "reasoning", summary: [{ text: "s" }] }, { type: "mcp_call", id: "m", arguments: "{}", status: "failed" }, { type: "image_generation_call", result: "AA" }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "t", annotations: [{ type: "url_citation", url: "u" }] }] }], usage: { total_tokens: 2 } },
  ],
  [
    { messages: [[{ lc: 1, type: "constructor", id: ["langchain_core", "messages", "AIMessage"], kwargs: { content: "", tool_calls: [{ id: "t", name: "n", args: {} }], additional_kwargs: { reasoning: { summary: [{ text: "x" }] } } } }, { type: "tool", data: { content: "r", tool_call_id: "t", status: "error" } }]] },
    { generations: [[{ text: "t", message: { lc: 1, type: "constructor", id: ["x", "ChatMessage"], kwargs: { role: "assistant", content: "t" } } }]] },
  ],
  [{ args: [[{ role: "user", content: "hi" }], 3] }, { outputs: ["assistant", "x"] }],
];

const ROLES = new Set(["system", "reasoning", "user", "assistant", "tool"]);
const BLOCKS = new Set(["text", "reasoning", "image", "file", "audio", "video", "tool_call", "server_tool_call", "server_tool_result", "invalid_tool_call", "non_standard"]);
const isPlainObject = (x: unknown) => typeof x === "object" && x !== null && !Array.isArray(x);

/** What a rendered run must look like, whatever it was read from. */
function expectWellFormed(messages: unknown[]) {
  for (const m of messages as Array<Record<string, any>>) {
    expect(ROLES.has(m.role)).toBe(true);
    expect(Array.isArray(m.content)).toBe(true);
    if (m.tool_call_id !== undefined) expect(m.role === "tool" && typeof m.tool_call_id === "string").toBe(true);
    if (m.usage_metadata !== undefined) expect(isPlainObject(m.usage_metadata)).toBe(true);
    for (const b of m.content as Array<Record<string, any>>) {
      expect(BLOCKS.has(b.type)).toBe(true);
      if (b.type === "text" || b.type === "reasoning") expect(typeof b.text).toBe("string");
      if (b.type === "tool_call" || b.type === "server_tool_call") expect(isPlainObject(b.args)).toBe(true);
      if (b.type === "invalid_tool_call") expect(typeof b.args).toBe("string");
      if (b.type === "server_tool_result") expect(["success", "error"]).toContain(b.status);
      if (b.extras !== undefined) expect(isPlainObject(b.extras)).toBe(true);
    }
  }
}

function check(inputs: unknown, outputs: unknown) {
  const r = normalizeLlmRun(inputs, outputs);
  if (r) expectWellFormed(r.messages);
  // the readers themselves, without normalizeLlmRun's catch-all
  const i = readInputs(inputs);
  const o = readOutputs(outputs);
  if (i) expectWellFormed(i.messages);
  if (o) expectWellFormed(o.messages);
}

/** A deep copy of `x` with one random node replaced by random JSON. */
function damage(x: unknown, r: () => number): unknown {
  if (r() < 0.25) return randomJson(r, 3);
  if (Array.isArray(x)) {
    if (!x.length) return x;
    const i = Math.floor(r() * x.length);
    return x.map((v, j) => (j === i ? damage(v, r) : v));
  }
  if (isPlainObject(x)) {
    const entries = Object.entries(x as Record<string, unknown>);
    if (!entries.length) return x;
    const i = Math.floor(r() * entries.length);
    return Object.fromEntries(entries.map(([k, v], j) => [k, j === i ? damage(v, r) : v]));
  }
  return randomJson(r, 2);
}

describe("normalizeLlmRun never throws", () => {
  it("on random JSON values and shapes", () => {
    const r = rng(1234);
    for (let n = 0; n < 3000; n++) check(randomJson(r, 5), randomJson(r, 5));
    // random values in the places the readers look
    for (let n = 0; n < 2000; n++) {
      check({ messages: randomJson(r, 4), system: randomJson(r, 2) }, { choices: [{ message: randomJson(r, 4) }] });
      check({ input: randomJson(r, 4), instructions: randomJson(r, 1) }, { output: randomJson(r, 4), usage: randomJson(r, 1) });
      check({ args: [randomJson(r, 4)] }, { outputs: randomJson(r, 4) });
      check({ messages: [randomJson(r, 4)] }, { generations: [[randomJson(r, 3)]] });
    }
  });

  it("on valid payloads of every format damaged at random places", () => {
    const r = rng(99);
    for (const [inputs, outputs] of FIXTURES) {
      // the undamaged fixtures render
      expect(normalizeLlmRun(inputs, outputs)).toBeDefined();
      for (let n = 0; n < 1500; n++) {
        let i = inputs;
        let o = outputs;
        for (let k = 0; k < 1 + Math.floor(r() * 3); k++) r() < 0.5 ? (i = damage(i, r)) : (o = damage(o, r));
        check(i, o);
      }
    }
  });

  it("on values JSON cannot carry but a caller might pass", () => {
    for (const v of [undefined, Symbol("s"), () => 1, 10n, new Date(0), new Map(), Object.create(null), NaN, Infinity]) {
      expect(() => normalizeLlmRun(v, v)).not.toThrow();
      expect(() => normalizeLlmRun({ messages: [{ role: "user", content: [v] }] }, { role: "assistant", content: v })).not.toThrow();
    }
  });
});

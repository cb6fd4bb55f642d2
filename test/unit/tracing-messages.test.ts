import { describe, expect, it } from "vitest";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { normalizeLlmRun, readOutputs } from "../../src/tracing/messages/normalize.js";

describe("native format", () => {
  it("passes native messages through, with tool_call ids checked", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { role: "system", content: [{ type: "text", text: "be brief" }] },
          { role: "user", content: [{ type: "text", text: "weather?" }] },
          { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "weather", args: { city: "Oslo" } }] },
          { role: "tool", tool_call_id: "c1", content: [{ type: "text", text: "rain" }] },
        ],
      },
      { role: "assistant", content: [{ type: "text", text: "Rain." }], usage_metadata: { input_tokens: 10, output_tokens: 2, total_tokens: 12 } },
    )!;
    expect(r.format).toBe("native");
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(r.messages[4]!.usage_metadata).toEqual({ input_tokens: 10, output_tokens: 2, total_tokens: 12 });
    expect(r.warnings).toEqual([]);
  });

  it("keeps native extras, annotations, media and server tool blocks as sent", () => {
    const content = [
      { type: "text", text: "t", annotations: [{ type: "citation", url: "https://a" }], extras: { k: 1 } },
      { type: "reasoning", text: "r", extras: { signature: "s" } },
      { type: "image", url: "https://x.test/a.png", mime_type: "image/png" },
      { type: "file", base64: "JVBE", mime_type: "application/pdf" },
      { type: "audio", id: "att-1" },
      { type: "video", url: "https://x.test/v.mp4" },
      { type: "server_tool_call", id: "s", name: "web_search", args: { q: "x" } },
      { type: "server_tool_result", tool_call_id: "s", id: "r1", status: "error", output: "down" },
    ];
    const r = normalizeLlmRun({ messages: [{ role: "assistant", content }] }, null)!;
    expect(r.messages[0]!.content).toEqual(content);
  });
});

describe("tool_call_id check", () => {
  it("warns about a tool message that answers no earlier call, without failing", () => {
    const r = normalizeLlmRun({ messages: [{ role: "tool", tool_call_id: "ghost", content: "x" }] }, null)!;
    expect(r.messages).toHaveLength(1);
    expect(r.warnings).toEqual(["message 0: tool_call_id ghost answers no earlier assistant tool call"]);
  });

  it("warns about a tool message without tool_call_id", () => {
    expect(normalizeLlmRun({ messages: [{ role: "tool", content: "x" }] }, null)!.warnings).toEqual(["message 0: a tool message without tool_call_id"]);
  });

  it("counts only calls made earlier, by an assistant", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { role: "tool", tool_call_id: "c1", content: "too early" },
          { role: "user", content: [{ type: "tool_call", id: "c2", name: "f", args: {} }] },
          { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "f", args: {} }] },
          { role: "tool", tool_call_id: "c1", content: "ok" },
          { role: "tool", tool_call_id: "c2", content: "not an assistant's call" },
        ],
      },
      null,
    )!;
    expect(r.warnings).toEqual(["message 0: tool_call_id c1 answers no earlier assistant tool call", "message 4: tool_call_id c2 answers no earlier assistant tool call"]);
  });

  it("accepts an invalid_tool_call as the call a tool message answers", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{" } }] },
          { role: "tool", tool_call_id: "c", content: "bad args" },
        ],
      },
      null,
    )!;
    expect(r.warnings).toEqual([]);
  });

  it("accepts role reasoning messages", () => {
    const r = normalizeLlmRun({ messages: [{ role: "user", content: "q" }] }, [{ role: "reasoning", content: [{ type: "reasoning", text: "hmm" }] }, { role: "assistant", content: "a" }])!;
    expect(r.messages.map((m) => m.role)).toEqual(["user", "reasoning", "assistant"]);
    expect(r.messages[1]!.content).toEqual([{ type: "reasoning", text: "hmm" }]);
    expect(r.warnings).toEqual([]);
  });
});

describe("OpenAI chat completions", () => {
  it("reads requests (data-URI images, input audio, tool calls with JSON-string arguments) and the response", () => {
    const r = normalizeLlmRun(
      {
        model: "gpt-4o-mini",
        messages: [
          { role: "developer", content: "You are helpful." },
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K", detail: "low" } },
              { type: "image_url", image_url: { url: "https://x.test/cat.jpg" } },
              { type: "input_audio", input_audio: { data: "UklGR", format: "wav" } },
            ],
          },
          { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"cat"}' } }] },
          { role: "tool", tool_call_id: "call_1", content: "a cat" },
        ],
      },
      {
        choices: [{ message: { role: "assistant", content: "A cat.", reasoning_content: "It has whiskers." } }],
        usage: { prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 },
      },
    )!;
    expect(r.format).toBe("openai");
    expect(r.messages[0]).toEqual({ role: "system", content: [{ type: "text", text: "You are helpful." }] });
    expect(r.messages[1]!.content).toEqual([
      { type: "text", text: "What is this?" },
      { type: "image", base64: "iVBORw0K", mime_type: "image/png", extras: { detail: "low" } },
      { type: "image", url: "https://x.test/cat.jpg" },
      { type: "audio", base64: "UklGR", mime_type: "audio/wav" },
    ]);
    expect(r.messages[2]!.content).toEqual([{ type: "tool_call", id: "call_1", name: "lookup", args: { q: "cat" } }]);
    expect(r.messages[3]).toMatchObject({ role: "tool", tool_call_id: "call_1" });
    expect(r.messages[4]!.content).toEqual([
      { type: "reasoning", text: "It has whiskers." },
      { type: "text", text: "A cat." },
    ]);
    expect(r.messages[4]!.usage_metadata).toEqual({ prompt_tokens: 20, completion_tokens: 3, total_tokens: 23 });
    expect(r.warnings).toEqual([]);
  });

  it("keeps malformed tool-call JSON as an invalid_tool_call instead of failing", () => {
    const out = readOutputs({ choices: [{ message: { role: "assistant", tool_calls: [{ id: "c", function: { name: "f", arguments: "{not json" } }] } }] })!;
    expect(out.messages[0]!.content[0]).toMatchObject({ type: "invalid_tool_call", id: "c", name: "f", args: "{not json" });
    expect((out.messages[0]!.content[0] as { error: string }).error).toMatch(/not valid JSON/);
  });
});

describe("Anthropic messages", () => {
  it("reads system, tool_use, tool_result (split into tool messages), thinking and images", () => {
    const r = normalizeLlmRun(
      {
        system: "Be terse.",
        messages: [
          { role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/4AAQ" } }, { type: "text", text: "and?" }] },
          { role: "assistant", content: [{ type: "thinking", thinking: "look closer", signature: "sig" }, { type: "tool_use", id: "tu_1", name: "zoom", input: { x: 2 } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: "zoomed" }, { type: "text", text: "now?" }] },
        ],
      },
      { type: "message", role: "assistant", content: [{ type: "text", text: "A dog." }], usage: { input_tokens: 30, output_tokens: 3 } },
    )!;
    expect(r.format).toBe("anthropic");
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "user", "assistant"]);
    expect(r.messages[1]!.content[0]).toEqual({ type: "image", base64: "/9j/4AAQ", mime_type: "image/jpeg" });
    expect(r.messages[2]!.content).toEqual([
      { type: "reasoning", text: "look closer", extras: { signature: "sig" } },
      { type: "tool_call", id: "tu_1", name: "zoom", args: { x: 2 } },
    ]);
    expect(r.messages[3]).toEqual({ role: "tool", tool_call_id: "tu_1", content: [{ type: "text", text: "zoomed" }] });
    expect(r.messages[5]!.usage_metadata).toEqual({ input_tokens: 30, output_tokens: 3 });
    expect(r.warnings).toEqual([]);
  });

  it("maps server tools to server_tool_call / server_tool_result", () => {
    const out = readOutputs({
      type: "message",
      role: "assistant",
      content: [
        { type: "server_tool_use", id: "st_1", name: "web_search", input: { query: "x" } },
        { type: "web_search_tool_result", tool_use_id: "st_1", content: [{ type: "web_search_result", url: "https://a" }] },
      ],
    })!;
    expect(out.messages[0]!.content).toEqual([
      { type: "server_tool_call", id: "st_1", name: "web_search", args: { query: "x" } },
      { type: "server_tool_result", tool_call_id: "st_1", status: "success", output: [{ type: "web_search_result", url: "https://a" }] },
    ]);
  });
});

describe("LangChain serialized messages", () => {
  it("reads the lc constructor form (as the SDK serialises real messages), nested one level", () => {
    const serialised = JSON.parse(
      JSON.stringify([
        [
          new SystemMessage("sys"),
          new HumanMessage("hi"),
          new AIMessage({ content: "", tool_calls: [{ id: "t1", name: "search", args: { q: "x" } }] }),
          new ToolMessage({ content: "found", tool_call_id: "t1" }),
        ],
      ]),
    );
    const r = normalizeLlmRun({ messages: serialised }, { generations: [[{ text: "done", message: JSON.parse(JSON.stringify(new AIMessage("done"))) }]] })!;
    expect(r.format).toBe("langchain");
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant", "tool", "assistant"]);
    expect(r.messages[2]!.content).toEqual([{ type: "tool_call", id: "t1", name: "search", args: { q: "x" } }]);
    expect(r.messages[3]!.tool_call_id).toBe("t1");
    expect(r.messages[4]!.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("reads the plain {type: human|ai} form in snake_case and camelCase, and the {type, data} short form", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { type: "human", content: "hello" },
          { type: "ai", content: "calling", tool_calls: [{ id: "a", name: "f", args: {} }], usage_metadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } },
          { type: "tool", content: "ok", toolCallId: "a" },
          { type: "ai", data: { content: "bye" } },
        ],
      },
      null,
    )!;
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(r.messages[1]!.usage_metadata).toEqual({ input_tokens: 1, output_tokens: 1, total_tokens: 2 });
    expect(r.messages[2]!.tool_call_id).toBe("a");
    expect(r.messages[3]!.content).toEqual([{ type: "text", text: "bye" }]);
  });
});

describe("loose output shapes and what is not rendered", () => {
  const a = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] });
  it.each([
    ["{choices: [{message}]}", { choices: [{ message: { role: "assistant", content: "x" } }] }, [a("x")]],
    ["{message}", { message: { role: "assistant", content: "x" } }, [a("x")]],
    ["{message} with usage_metadata beside it", { message: { role: "assistant", content: "x" }, usage_metadata: { total_tokens: 3 } }, [{ ...a("x"), usage_metadata: { total_tokens: 3 } }]],
    ["{role, content}", { role: "assistant", content: "x" }, [a("x")]],
    ["[role, content]", ["assistant", "x"], [a("x")]],
    ["{messages: [...]}", { messages: [{ role: "assistant", content: "x" }, ["assistant", "y"]] }, [a("x"), a("y")]],
    ["a message list", [{ role: "assistant", content: "x" }], [a("x")]],
    ["traceable {outputs: [role, content]}", { outputs: ["assistant", "x"] }, [a("x")]],
    ["traceable {outputs: [messages]}", { outputs: [{ role: "assistant", content: "x" }] }, [a("x")]],
    ["traceable {outputs: <serialised AIMessage>}", { outputs: JSON.parse(JSON.stringify(new AIMessage("x"))) }, [a("x")]],
    ["traceable {outputs: null} (nothing returned)", { outputs: null }, []],
    ["{} (the run ended without output)", {}, []],
  ])("reads %s", (_n, outputs, expected) => {
    expect(readOutputs(outputs)!.messages).toEqual(expected);
    expect(normalizeLlmRun({ messages: [] }, outputs)!.messages).toEqual(expected);
  });

  it.each([
    ["a string", "just text"],
    ["a number", 42],
    ["{text}", { text: "x" }],
    ["an unknown role", { role: "wizard", content: "?" }],
    ["traceable {outputs: a string}", { outputs: "hi" }],
    ["traceable {outputs: {outputs: ...}} (unwrapped once only)", { outputs: { outputs: ["assistant", "x"] } }],
    ["stream chunks", { outputs: [{ choices: [{ delta: { content: "a" } }] }] }],
  ])("does not render %s as output", (_n, outputs) => {
    expect(readOutputs(outputs)).toBeUndefined();
    expect(normalizeLlmRun({ messages: [{ role: "user", content: "ok" }] }, outputs)).toBeUndefined();
  });

  it("returns undefined (shown raw) for shapes it cannot read, never throwing", () => {
    expect(normalizeLlmRun({ prompt: "just text" }, { text: "x" })).toBeUndefined();
    expect(normalizeLlmRun({ messages: [{ role: "wizard", content: "?" }] }, null)).toBeUndefined();
    expect(normalizeLlmRun(42, "x")).toBeUndefined();
    expect(normalizeLlmRun({ messages: [{ role: "user", content: "ok" }] }, { weird: true })).toBeUndefined();
  });

  it("keeps unknown content parts (and non-object parts) as non_standard blocks", () => {
    expect(normalizeLlmRun({ messages: [{ role: "user", content: [42, true, "s", null] }] }, null)!.messages[0]!.content).toEqual([
      { type: "non_standard", value: 42 },
      { type: "non_standard", value: true },
      { type: "text", text: "s" },
    ]);
    const r = normalizeLlmRun({ messages: [{ role: "user", content: [{ type: "hologram", data: 1 }] }] }, null)!;
    expect(r.messages[0]!.content).toEqual([{ type: "non_standard", value: { type: "hologram", data: 1 } }]);
  });
});

describe("where traceable puts the messages", () => {
  const user = { role: "user", content: [{ type: "text", text: "hi" }] };
  it.each([
    ["inputs.messages", { messages: [{ role: "user", content: "hi" }] }],
    ["the inputs themselves (a list)", [{ role: "user", content: "hi" }]],
    ["inputs.input: a message list (one array argument)", { input: [{ role: "user", content: "hi" }] }],
    ["inputs.input: a string (one string argument, or a Responses input)", { input: "hi" }],
    ["inputs.input: a Responses item list", { input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] }] }],
    ["inputs.args[0]: a message list (several arguments)", { args: [[{ role: "user", content: "hi" }], { temperature: 0 }] }],
    ["inputs.args[0]: an object with messages", { args: [{ model: "m", messages: [{ role: "user", content: "hi" }] }, 3] }],
    ["inputs.args[0]: a Responses request", { args: [{ input: "hi" }, 3] }],
  ])("reads %s", (_n, inputs) => {
    expect(normalizeLlmRun(inputs, null)!.messages).toEqual([user]);
  });

  it("keeps the system prompt beside the messages in args[0] and in a Responses-style input list", () => {
    expect(normalizeLlmRun({ args: [{ system: "s", messages: [{ role: "user", content: "hi" }] }] }, null)!.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const r = normalizeLlmRun({ instructions: "s", input: [{ role: "user", content: "hi" }] }, null)!;
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(r.format).toBe("openai");
  });

  it.each([
    ["inputs with no messages", { prompt: "x" }],
    ["args[0] that is neither", { args: ["x", 1] }],
    ["inputs.inputs: null (traceable with a null argument)", { inputs: null }],
    ["an unreadable message list", { messages: [{ role: "user", content: "ok" }, 5] }],
    ["a string", "hi"],
    ["null", null],
  ])("does not render %s", (_n, inputs) => {
    expect(normalizeLlmRun(inputs, null)).toBeUndefined();
  });
});

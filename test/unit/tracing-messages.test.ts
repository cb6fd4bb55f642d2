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

  it("warns about a tool message that answers no earlier call, without failing", () => {
    const r = normalizeLlmRun({ messages: [{ role: "tool", tool_call_id: "ghost", content: "x" }] }, null)!;
    expect(r.warnings[0]).toMatch(/ghost answers no earlier assistant tool call/);
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
  it("reads {message}, {role, content} and [role, content]", () => {
    expect(readOutputs({ message: { role: "assistant", content: "a" } })!.messages[0]!.content).toEqual([{ type: "text", text: "a" }]);
    expect(readOutputs({ role: "assistant", content: "b" })!.messages[0]!.role).toBe("assistant");
    expect(readOutputs(["assistant", "c"])!.messages[0]).toEqual({ role: "assistant", content: [{ type: "text", text: "c" }] });
  });

  it("returns undefined (shown raw) for shapes it cannot read, never throwing", () => {
    expect(normalizeLlmRun({ prompt: "just text" }, { text: "x" })).toBeUndefined();
    expect(normalizeLlmRun({ messages: [{ role: "wizard", content: "?" }] }, null)).toBeUndefined();
    expect(normalizeLlmRun(42, "x")).toBeUndefined();
    expect(normalizeLlmRun({ messages: [{ role: "user", content: "ok" }] }, { weird: true })).toBeUndefined();
  });

  it("keeps unknown content parts as non_standard blocks", () => {
    const r = normalizeLlmRun({ messages: [{ role: "user", content: [{ type: "hologram", data: 1 }] }] }, null)!;
    expect(r.messages[0]!.content).toEqual([{ type: "non_standard", value: { type: "hologram", data: 1 } }]);
  });
});

import { describe, expect, it } from "vitest";
import { AIMessage, AIMessageChunk, ChatMessage, FunctionMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";

/** What the LangSmith SDK stores: the messages' JSON (the lc constructor form). */
const wire = (x: unknown) => JSON.parse(JSON.stringify(x));
const read = (messages: unknown[]) => normalizeLlmRun({ messages }, null)!;
const ctor = (cls: string, kwargs: Record<string, unknown>) => ({ lc: 1, type: "constructor", id: ["langchain_core", "messages", cls], kwargs });

describe("LangChain constructor form: class names (id[-1]) → roles", () => {
  it.each([
    ["HumanMessage", wire(new HumanMessage("a")), "user"],
    ["AIMessage", wire(new AIMessage("a")), "assistant"],
    ["AIMessageChunk", wire(new AIMessageChunk("a")), "assistant"],
    ["SystemMessage", wire(new SystemMessage("a")), "system"],
    ["ToolMessage", wire(new ToolMessage({ content: "a", tool_call_id: "t" })), "tool"],
    ["FunctionMessage", wire(new FunctionMessage({ content: "a", name: "f" })), "tool"],
    ["ChatMessage with kwargs.role user", wire(new ChatMessage("a", "user")), "user"],
    ["ChatMessage with kwargs.role assistant", wire(new ChatMessage("a", "assistant")), "assistant"],
    ["HumanMessageChunk (hand-written)", ctor("HumanMessageChunk", { content: "a" }), "user"],
  ])("%s", (_n, message, role) => {
    const r = read([message]);
    expect(r.format).toBe("langchain");
    expect(r.messages[0]!.role).toBe(role);
    expect(r.messages[0]!.content).toEqual([{ type: "text", text: "a" }]);
  });

  it("does not render unknown classes or ChatMessage roles", () => {
    expect(normalizeLlmRun({ messages: [ctor("RemoveMessage", { id: "x" })] }, null)).toBeUndefined();
    expect(normalizeLlmRun({ messages: [wire(new ChatMessage("a", "wizard"))] }, null)).toBeUndefined();
  });
});

describe("LangChain fields", () => {
  it("reads tool calls, invalid tool calls, usage, a tool answer and its error status from real messages", () => {
    const r = read(
      wire([
        new AIMessage({
          content: "",
          tool_calls: [{ id: "t1", name: "search", args: { q: "x" }, type: "tool_call" }],
          invalid_tool_calls: [{ id: "t2", name: "broken", args: "{oops", error: "bad json", type: "invalid_tool_call" }],
          usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
        }),
        new ToolMessage({ content: "no results", tool_call_id: "t1", status: "error" }),
      ]),
    );
    expect(r.messages[0]).toEqual({
      role: "assistant",
      content: [
        { type: "tool_call", id: "t1", name: "search", args: { q: "x" } },
        { type: "invalid_tool_call", id: "t2", name: "broken", args: "{oops", error: "bad json" },
      ],
      usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
    });
    expect(r.messages[1]).toEqual({ role: "tool", tool_call_id: "t1", status: "error", content: [{ type: "text", text: "no results" }] });
    expect(r.warnings).toEqual([]);
  });

  it("reads snake_case and camelCase spellings alike", () => {
    const snake = read([
      { type: "ai", content: "c", tool_calls: [{ id: "a", name: "f", args: { x: 1 } }], usage_metadata: { total_tokens: 2 }, additional_kwargs: { reasoning_content: "r" } },
      { type: "tool", content: "ok", tool_call_id: "a" },
    ]);
    const camel = read([
      { type: "ai", content: "c", toolCalls: [{ id: "a", name: "f", args: { x: 1 } }], usageMetadata: { total_tokens: 2 }, additionalKwargs: { reasoning_content: "r" } },
      { type: "tool", content: "ok", toolCallId: "a" },
    ]);
    const expected = [
      { role: "assistant", content: [{ type: "reasoning", text: "r" }, { type: "text", text: "c" }, { type: "tool_call", id: "a", name: "f", args: { x: 1 } }], usage_metadata: { total_tokens: 2 } },
      { role: "tool", tool_call_id: "a", content: [{ type: "text", text: "ok" }] },
    ];
    expect(snake.messages).toEqual(expected);
    expect(camel.messages).toEqual(expected);
  });

  it("reads older OpenAI-format tool calls from additional_kwargs / additionalKwargs", () => {
    const call = { id: "c1", type: "function", function: { name: "f", arguments: '{"a":1}' } };
    for (const key of ["additional_kwargs", "additionalKwargs"]) {
      const r = read([ctor("AIMessage", { content: "", [key]: { tool_calls: [call] } })]);
      expect(r.messages[0]!.content).toEqual([{ type: "tool_call", id: "c1", name: "f", args: { a: 1 } }]);
    }
  });

  it("does not repeat a tool call that is both a content block and in tool_calls (ChatAnthropic)", () => {
    const r = read([
      ctor("AIMessage", {
        content: [{ type: "text", text: "let me look" }, { type: "tool_use", id: "tu", name: "f", input: { a: 1 } }],
        tool_calls: [{ id: "tu", name: "f", args: { a: 1 } }],
      }),
    ]);
    expect(r.messages[0]!.content).toEqual([
      { type: "text", text: "let me look" },
      { type: "tool_call", id: "tu", name: "f", args: { a: 1 } },
    ]);
  });

  it("reads LangChain v1 standard content blocks (snake_case and JS camelCase)", () => {
    const r = read([
      {
        type: "human",
        content: [
          { type: "image", url: "https://x.test/a.png" },
          { type: "image", base64: "iVB", mime_type: "image/png" },
          { type: "file", data: "JVBE", mimeType: "application/pdf" },
          { type: "file", file_id: "f-1" },
          { type: "audio", fileId: "a-1" },
          { type: "text-plain", text: "doc text", mime_type: "text/plain" },
        ],
      },
      {
        type: "ai",
        content: [
          { type: "reasoning", reasoning: "thought" },
          { type: "server_tool_call", id: "s1", name: "web_search", args: { q: "x" } },
          { type: "server_tool_call_result", toolCallId: "s1", status: "success", output: "found" },
          { type: "non_standard", value: { anything: true } },
        ],
      },
    ]);
    expect(r.messages[0]!.content).toEqual([
      { type: "image", url: "https://x.test/a.png" },
      { type: "image", base64: "iVB", mime_type: "image/png" },
      { type: "file", base64: "JVBE", mime_type: "application/pdf" },
      { type: "file", id: "f-1" },
      { type: "audio", id: "a-1" },
      { type: "text", text: "doc text", extras: { document: true, mime_type: "text/plain" } },
    ]);
    expect(r.messages[1]!.content).toEqual([
      { type: "reasoning", text: "thought" },
      { type: "server_tool_call", id: "s1", name: "web_search", args: { q: "x" } },
      { type: "server_tool_result", tool_call_id: "s1", status: "success", output: "found" },
      { type: "non_standard", value: { anything: true } },
    ]);
  });

  it("reads ChatOpenAI Responses-API content (responses/v1 output) as blocks", () => {
    const r = read([
      ctor("AIMessage", {
        content: [
          { type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "plan" }] },
          { type: "text", text: "hi", annotations: [{ type: "url_citation", url: "https://a", title: "A", start_index: 0, end_index: 2 }] },
          { type: "function_call", call_id: "call_1", name: "f", arguments: "{}" },
        ],
        tool_calls: [{ id: "call_1", name: "f", args: {} }],
      }),
    ]);
    expect(r.messages[0]!.content).toEqual([
      { type: "reasoning", text: "plan" },
      { type: "text", text: "hi", annotations: [{ type: "citation", url: "https://a", title: "A", start_index: 0, end_index: 2 }] },
      { type: "tool_call", id: "call_1", name: "f", args: {} },
    ]);
  });
});

describe("LangChain plain, short and nested forms", () => {
  it.each([
    ["human", "user"],
    ["ai", "assistant"],
    ["system", "system"],
    ["tool", "tool"],
    ["function", "tool"],
  ])("plain {type: %s}", (type, role) => {
    expect(read([{ type, content: "x" }]).messages[0]!.role).toBe(role);
  });

  it("reads the {type, data} short form, including type chat with data.role", () => {
    const r = read([
      { type: "human", data: { content: "hi", additional_kwargs: {} } },
      { type: "chat", data: { content: "yo", role: "assistant" } },
      { type: "tool", data: { content: "r", tool_call_id: "t" } },
    ]);
    expect(r.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hi" }] },
      { role: "assistant", content: [{ type: "text", text: "yo" }] },
      { role: "tool", tool_call_id: "t", content: [{ type: "text", text: "r" }] },
    ]);
  });

  it("reads batch-nested inputs [[...]], taking the first prompt of a batch", () => {
    const one = normalizeLlmRun({ messages: wire([[new SystemMessage("s"), new HumanMessage("h")]]) }, null)!;
    expect(one.messages.map((m) => m.role)).toEqual(["system", "user"]);
    const two = normalizeLlmRun({ messages: wire([[new HumanMessage("first")], [new HumanMessage("second")]]) }, null)!;
    expect(two.messages).toEqual([{ role: "user", content: [{ type: "text", text: "first" }] }]);
  });

  it("reads LLMResult outputs: generations[0][0].message, or its text", () => {
    const withMessage = normalizeLlmRun(
      { messages: wire([[new HumanMessage("ping")]]) },
      { generations: [[{ text: "pong", message: wire(new AIMessage({ content: "pong", usage_metadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } })) }]], llmOutput: {} },
    )!;
    expect(withMessage.format).toBe("langchain");
    expect(withMessage.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "pong" }], usage_metadata: { input_tokens: 1, output_tokens: 1, total_tokens: 2 } });
    const textOnly = normalizeLlmRun({ messages: wire([[new HumanMessage("ping")]]) }, { generations: [[{ text: "pong" }]] })!;
    expect(textOnly.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "pong" }] });
    expect(normalizeLlmRun({ messages: [] }, { generations: [[]] })).toBeUndefined();
  });
});

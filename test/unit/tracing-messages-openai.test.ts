import { describe, expect, it } from "vitest";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";

/** The blocks one user content part becomes. */
const userBlocks = (part: unknown) => normalizeLlmRun({ messages: [{ role: "user", content: [part] }] }, null)!.messages[0]!.content;
/** The output messages of a chat completion whose first choice carries `message`. */
const completion = (message: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  normalizeLlmRun({ messages: [{ role: "user", content: "q" }] }, { choices: [{ index: 0, message }], ...extra })!;

describe("OpenAI chat completions: content parts (conversion table)", () => {
  it.each([
    ["text part", { type: "text", text: "hi" }, [{ type: "text", text: "hi" }]],
    ["empty text part → no block", { type: "text", text: "" }, []],
    [
      "image_url data URI → image{base64, mime_type}, detail in extras",
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0K", detail: "high" } },
      [{ type: "image", base64: "iVBORw0K", mime_type: "image/png", extras: { detail: "high" } }],
    ],
    ["image_url http URL → image{url}", { type: "image_url", image_url: { url: "https://x.test/cat.jpg" } }, [{ type: "image", url: "https://x.test/cat.jpg" }]],
    ["image_url as a bare string (old clients)", { type: "image_url", image_url: "https://x.test/a.png" }, [{ type: "image", url: "https://x.test/a.png" }]],
    ["input_audio → audio{base64, audio/<format>}", { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } }, [{ type: "audio", base64: "SUQz", mime_type: "audio/mp3" }]],
    [
      "file with file_data data URI → file{base64, mime_type}, filename in extras",
      { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0", filename: "a.pdf" } },
      [{ type: "file", base64: "JVBERi0", mime_type: "application/pdf", extras: { filename: "a.pdf" } }],
    ],
    ["file with file_id → file{id}", { type: "file", file: { file_id: "file-abc" } }, [{ type: "file", id: "file-abc" }]],
    ["file_data without a data: URI → base64, no invented mime type", { type: "file", file: { file_data: "JVBERi0" } }, [{ type: "file", base64: "JVBERi0" }]],
    ["refusal part → text marked as a refusal", { type: "refusal", refusal: "I can't." }, [{ type: "text", text: "I can't.", extras: { refusal: true } }]],
    ["unknown part → non_standard", { type: "hologram", x: 1 }, [{ type: "non_standard", value: { type: "hologram", x: 1 } }]],
  ])("%s", (_name, part, expected) => {
    expect(userBlocks(part)).toEqual(expected);
  });
});

describe("OpenAI chat completions: messages", () => {
  it("maps developer and system roles to system, string content to a text block", () => {
    const r = normalizeLlmRun({ messages: [{ role: "developer", content: "d" }, { role: "system", content: "s" }, { role: "user", content: "" }] }, null)!;
    expect(r.format).toBe("openai");
    expect(r.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "d" }] },
      { role: "system", content: [{ type: "text", text: "s" }] },
      { role: "user", content: [] },
    ]);
  });

  it("parses JSON-string tool-call arguments; the tool answer keeps its tool_call_id", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { role: "user", content: "weather?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
              { id: "call_2", type: "function", function: { name: "time", arguments: "" } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "rain" },
          { role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "noon" }] },
        ],
      },
      null,
    )!;
    expect(r.messages[1]!.content).toEqual([
      { type: "tool_call", id: "call_1", name: "weather", args: { city: "Oslo" } },
      { type: "tool_call", id: "call_2", name: "time", args: {} },
    ]);
    expect(r.messages[2]).toEqual({ role: "tool", tool_call_id: "call_1", content: [{ type: "text", text: "rain" }] });
    expect(r.messages[3]).toEqual({ role: "tool", tool_call_id: "call_2", content: [{ type: "text", text: "noon" }] });
    expect(r.warnings).toEqual([]);
  });

  it.each([
    ["malformed JSON", "{not json", /not valid JSON/],
    ["JSON that is not an object", "[1,2]", /not an object/],
  ])("keeps %s arguments as an invalid_tool_call with the raw string and the error", (_n, args, error) => {
    const r = completion({ role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: args } }] });
    const block = r.messages[1]!.content[0]!;
    expect(block).toMatchObject({ type: "invalid_tool_call", id: "c", name: "f", args });
    expect((block as { error: string }).error).toMatch(error);
  });

  it("reads reasoning_content (before the text), refusal, citations and audio of a response message", () => {
    const r = completion({
      role: "assistant",
      content: "See the docs.",
      reasoning_content: "The user wants docs.",
      annotations: [{ type: "url_citation", url_citation: { url: "https://docs.test", title: "Docs", start_index: 4, end_index: 12 } }],
    });
    expect(r.messages[1]!.content).toEqual([
      { type: "reasoning", text: "The user wants docs." },
      { type: "text", text: "See the docs.", annotations: [{ type: "citation", url: "https://docs.test", title: "Docs", start_index: 4, end_index: 12 }] },
    ]);
    expect(completion({ role: "assistant", content: null, refusal: "No." }).messages[1]!.content).toEqual([{ type: "text", text: "No.", extras: { refusal: true } }]);
    expect(completion({ role: "assistant", content: null, audio: { id: "audio_1", data: "UklGR", transcript: "hello" } }).messages[1]!.content).toEqual([
      { type: "audio", base64: "UklGR", id: "audio_1", extras: { transcript: "hello" } },
    ]);
  });

  it("reads legacy function_call as a tool call without id", () => {
    const r = completion({ role: "assistant", content: null, function_call: { name: "f", arguments: '{"a":1}' } });
    expect(r.messages[1]!.content).toEqual([{ type: "tool_call", name: "f", args: { a: 1 } }]);
  });

  it("puts usage on the response message: wrapOpenAI's usage_metadata, else the raw usage", () => {
    const usage_metadata = { input_tokens: 5, output_tokens: 2, total_tokens: 7 };
    expect(completion({ role: "assistant", content: "a" }, { usage_metadata }).messages[1]!.usage_metadata).toEqual(usage_metadata);
    expect(completion({ role: "assistant", content: "a" }, { usage: { prompt_tokens: 5 } }).messages[1]!.usage_metadata).toEqual({ prompt_tokens: 5 });
  });

  it("reads a streamed choice's delta, assuming the assistant role when it is missing", () => {
    const r = normalizeLlmRun({ messages: [{ role: "user", content: "q" }] }, { choices: [{ delta: { content: "partial" } }] })!;
    expect(r.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "partial" }] });
  });
});

describe("OpenAI Responses API: request", () => {
  it("reads `input` as a string, with `instructions` as the system prompt", () => {
    const r = normalizeLlmRun({ model: "gpt-4.1", instructions: "Be brief.", input: "hello" }, null)!;
    expect(r.format).toBe("openai");
    expect(r.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "Be brief." }] },
      { role: "user", content: [{ type: "text", text: "hello" }] },
    ]);
  });

  it.each([
    ["input_text", { type: "input_text", text: "hi" }, [{ type: "text", text: "hi" }]],
    [
      "input_image with a data URI",
      { type: "input_image", image_url: "data:image/jpeg;base64,/9j/", detail: "auto" },
      [{ type: "image", base64: "/9j/", mime_type: "image/jpeg", extras: { detail: "auto" } }],
    ],
    ["input_image with a URL", { type: "input_image", image_url: "https://x.test/i.png" }, [{ type: "image", url: "https://x.test/i.png" }]],
    ["input_image with a file_id", { type: "input_image", file_id: "file-1" }, [{ type: "image", id: "file-1" }]],
    [
      "input_file with file_data",
      { type: "input_file", file_data: "data:application/pdf;base64,JVBE", filename: "r.pdf" },
      [{ type: "file", base64: "JVBE", mime_type: "application/pdf", extras: { filename: "r.pdf" } }],
    ],
    ["input_file with a file_id", { type: "input_file", file_id: "file-2" }, [{ type: "file", id: "file-2" }]],
    ["input_file with a file_url", { type: "input_file", file_url: "https://x.test/r.pdf" }, [{ type: "file", url: "https://x.test/r.pdf" }]],
  ])("reads message item part %s", (_n, part, expected) => {
    const r = normalizeLlmRun({ input: [{ type: "message", role: "user", content: [part] }] }, null)!;
    expect(r.messages[0]!.content).toEqual(expected);
  });

  it("reads an item list: messages, reasoning, function_call and function_call_output (tool_call_id = call_id)", () => {
    const r = normalizeLlmRun(
      {
        instructions: "sys",
        input: [
          { role: "user", content: "weather in Oslo?" },
          { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Need the weather tool." }] },
          { type: "function_call", id: "fc_1", call_id: "call_9", name: "weather", arguments: '{"city":"Oslo"}' },
          { type: "function_call_output", call_id: "call_9", output: "rain" },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "Rain.", annotations: [] }] },
          { type: "message", role: "user", content: [{ type: "input_text", text: "thanks" }] },
        ],
      },
      null,
    )!;
    expect(r.format).toBe("openai");
    expect(r.messages).toEqual([
      { role: "system", content: [{ type: "text", text: "sys" }] },
      { role: "user", content: [{ type: "text", text: "weather in Oslo?" }] },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "Need the weather tool." },
          { type: "tool_call", id: "call_9", name: "weather", args: { city: "Oslo" } },
        ],
      },
      { role: "tool", tool_call_id: "call_9", content: [{ type: "text", text: "rain" }] },
      { role: "assistant", content: [{ type: "text", text: "Rain." }] },
      { role: "user", content: [{ type: "text", text: "thanks" }] },
    ]);
    expect(r.warnings).toEqual([]);
  });

  it("reads custom tool calls and their outputs; unknown item types become non_standard", () => {
    const r = normalizeLlmRun(
      {
        input: [
          { type: "custom_tool_call", call_id: "ct_1", name: "sql", input: "select 1" },
          { type: "custom_tool_call_output", call_id: "ct_1", output: [{ type: "input_text", text: "1" }] },
          { type: "item_reference", id: "msg_0" },
        ],
      },
      null,
    )!;
    expect(r.messages).toEqual([
      { role: "assistant", content: [{ type: "tool_call", id: "ct_1", name: "sql", args: { input: "select 1" } }] },
      { role: "tool", tool_call_id: "ct_1", content: [{ type: "text", text: "1" }] },
      { role: "assistant", content: [{ type: "non_standard", value: { type: "item_reference", id: "msg_0" } }] },
    ]);
  });

  it("does not take a list of unknown objects for a Responses input", () => {
    expect(normalizeLlmRun({ input: [{ type: "nope" }] }, null)).toBeUndefined();
    expect(normalizeLlmRun({ input: [{ type: "function_call", call_id: "c", name: "f", arguments: "{}" }, 5] }, null)).toBeUndefined();
  });
});

describe("OpenAI Responses API: response output items (conversion table)", () => {
  const output = (items: unknown[], extra: Record<string, unknown> = {}) => normalizeLlmRun({ input: "q" }, { object: "response", output: items, ...extra })!.messages.slice(1);
  const blocksOf = (item: unknown) => output([item])[0]!.content;

  it("message: output_text with url_citation annotations → text with citation annotations", () => {
    expect(
      blocksOf({
        type: "message",
        id: "msg_1",
        role: "assistant",
        status: "completed",
        content: [
          {
            type: "output_text",
            text: "Oslo is rainy.",
            annotations: [
              { type: "url_citation", url: "https://met.no", title: "MET", start_index: 0, end_index: 4 },
              { type: "file_citation", file_id: "file-1", filename: "notes.txt", index: 3 },
            ],
          },
          { type: "refusal", refusal: "not that" },
        ],
      }),
    ).toEqual([
      {
        type: "text",
        text: "Oslo is rainy.",
        annotations: [
          { type: "citation", url: "https://met.no", title: "MET", start_index: 0, end_index: 4 },
          { type: "citation", title: "notes.txt", extras: { file_id: "file-1", index: 3 } },
        ],
      },
      { type: "text", text: "not that", extras: { refusal: true } },
    ]);
  });

  it("reasoning: one reasoning block per summary entry (none for encrypted-only reasoning)", () => {
    expect(blocksOf({ type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "a" }, { type: "summary_text", text: "b" }] })).toEqual([
      { type: "reasoning", text: "a" },
      { type: "reasoning", text: "b" },
    ]);
    expect(blocksOf({ type: "reasoning", id: "rs", summary: [], encrypted_content: "gAAA" })).toEqual([]);
  });

  it("function_call → tool_call with id = call_id (malformed arguments → invalid_tool_call)", () => {
    expect(blocksOf({ type: "function_call", id: "fc", call_id: "call_1", name: "f", arguments: '{"x":1}', status: "completed" })).toEqual([
      { type: "tool_call", id: "call_1", name: "f", args: { x: 1 } },
    ]);
    expect(blocksOf({ type: "function_call", call_id: "call_2", name: "f", arguments: "{" })[0]).toMatchObject({ type: "invalid_tool_call", id: "call_2", args: "{" });
  });

  it.each([
    [
      "web_search_call completed → success",
      { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search", query: "oslo weather" } },
      [
        { type: "server_tool_call", id: "ws_1", name: "web_search", args: { type: "search", query: "oslo weather" } },
        { type: "server_tool_result", tool_call_id: "ws_1", status: "success" },
      ],
    ],
    [
      "web_search_call with sources → the sources are the output",
      { type: "web_search_call", id: "ws_2", status: "completed", action: { type: "search", query: "q", sources: [{ type: "url", url: "https://a" }] } },
      [
        { type: "server_tool_call", id: "ws_2", name: "web_search", args: { type: "search", query: "q" } },
        { type: "server_tool_result", tool_call_id: "ws_2", status: "success", output: { sources: [{ type: "url", url: "https://a" }] } },
      ],
    ],
    [
      "file_search_call failed → error",
      { type: "file_search_call", id: "fs_1", status: "failed", queries: ["q"], results: null },
      [
        { type: "server_tool_call", id: "fs_1", name: "file_search", args: { queries: ["q"] } },
        { type: "server_tool_result", tool_call_id: "fs_1", status: "error" },
      ],
    ],
    [
      "code_interpreter_call completed → success with its outputs",
      { type: "code_interpreter_call", id: "ci_1", status: "completed", code: "1+1", container_id: "cntr", outputs: [{ type: "logs", logs: "2" }] },
      [
        { type: "server_tool_call", id: "ci_1", name: "code_interpreter", args: { code: "1+1", container_id: "cntr" } },
        { type: "server_tool_result", tool_call_id: "ci_1", status: "success", output: [{ type: "logs", logs: "2" }] },
      ],
    ],
    [
      "mcp_call with an error → error, arguments parsed, server label in extras",
      { type: "mcp_call", id: "mcp_1", name: "lookup", server_label: "wiki", arguments: '{"q":"x"}', output: null, error: "boom" },
      [
        { type: "server_tool_call", id: "mcp_1", name: "lookup", args: { q: "x" }, extras: { server_label: "wiki" } },
        { type: "server_tool_result", tool_call_id: "mcp_1", status: "error", output: "boom" },
      ],
    ],
    [
      "a call still in progress → the call only, no invented result",
      { type: "web_search_call", id: "ws_3", status: "in_progress", action: { type: "search", query: "q" } },
      [{ type: "server_tool_call", id: "ws_3", name: "web_search", args: { type: "search", query: "q" } }],
    ],
    [
      "image_generation_call → image{base64, image/png}",
      { type: "image_generation_call", id: "ig_1", status: "completed", result: "iVBOR" },
      [{ type: "image", base64: "iVBOR", mime_type: "image/png", extras: { id: "ig_1" } }],
    ],
    [
      "image_generation_call with output_format → image/<output_format>",
      { type: "image_generation_call", id: "ig_2", status: "completed", result: "UklG", output_format: "webp", revised_prompt: "a cat" },
      [{ type: "image", base64: "UklG", mime_type: "image/webp", extras: { id: "ig_2", revised_prompt: "a cat" } }],
    ],
    ["unknown item → non_standard", { type: "mcp_list_tools", id: "ml", tools: [] }, [{ type: "non_standard", value: { type: "mcp_list_tools", id: "ml", tools: [] } }]],
  ])("%s", (_n, item, expected) => {
    expect(blocksOf(item)).toEqual(expected);
  });

  it("gathers one turn's items into one assistant message and puts the response usage on the last message", () => {
    const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
    const msgs = output(
      [
        { type: "reasoning", id: "rs", summary: [{ type: "summary_text", text: "think" }] },
        { type: "web_search_call", id: "ws", status: "completed", action: { type: "search", query: "q" } },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "answer", annotations: [] }] },
      ],
      { usage },
    );
    expect(msgs).toHaveLength(1);
    expect(msgs[0]!.content.map((b) => b.type)).toEqual(["reasoning", "server_tool_call", "server_tool_result", "text"]);
    expect(msgs[0]!.usage_metadata).toEqual(usage);
    // wrapOpenAI renames usage to usage_metadata
    expect(output([{ type: "message", role: "assistant", content: "x" }], { usage_metadata: { total_tokens: 1 } })[0]!.usage_metadata).toEqual({ total_tokens: 1 });
  });

  it("renders a response with no output items (failed) as the input only", () => {
    const r = normalizeLlmRun({ input: "q" }, { object: "response", status: "failed", output: [], error: { message: "x" } })!;
    expect(r.messages).toHaveLength(1);
  });
});

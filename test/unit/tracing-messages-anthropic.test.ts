import { describe, expect, it } from "vitest";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";

/** The blocks of an Anthropic response whose content is `parts`. */
const responseBlocks = (parts: unknown[]) =>
  normalizeLlmRun({ messages: [{ role: "user", content: "q" }] }, { id: "msg_1", type: "message", role: "assistant", content: parts })!.messages[1]!.content;
const userBlocks = (part: unknown) => normalizeLlmRun({ messages: [{ role: "user", content: [part] }] }, null)!.messages[0]!.content;

describe("Anthropic messages: content blocks (conversion table)", () => {
  it.each([
    ["text", { type: "text", text: "hi" }, [{ type: "text", text: "hi" }]],
    [
      "text with char_location citations → citation annotations (source indexes in extras)",
      { type: "text", text: "It rains.", citations: [{ type: "char_location", cited_text: "rain", document_index: 0, document_title: "Forecast", start_char_index: 3, end_char_index: 7 }] },
      [
        {
          type: "text",
          text: "It rains.",
          annotations: [{ type: "citation", title: "Forecast", cited_text: "rain", extras: { document_index: 0, start_char_index: 3, end_char_index: 7, location: "char_location" } }],
        },
      ],
    ],
    [
      "text with web_search_result_location citations → citation with url",
      { type: "text", text: "Sunny.", citations: [{ type: "web_search_result_location", url: "https://w.test", title: "W", cited_text: "sun", encrypted_index: "e" }] },
      [{ type: "text", text: "Sunny.", annotations: [{ type: "citation", url: "https://w.test", title: "W", cited_text: "sun", extras: { encrypted_index: "e", location: "web_search_result_location" } }] }],
    ],
    ["thinking → reasoning, signature in extras", { type: "thinking", thinking: "hmm", signature: "sig" }, [{ type: "reasoning", text: "hmm", extras: { signature: "sig" } }]],
    [
      "redacted_thinking → reasoning placeholder, extras.redacted and the opaque data",
      { type: "redacted_thinking", data: "EmwKAhgB" },
      [{ type: "reasoning", text: "[redacted thinking]", extras: { redacted: true, data: "EmwKAhgB" } }],
    ],
    ["tool_use → tool_call (input is already an object)", { type: "tool_use", id: "tu_1", name: "zoom", input: { x: 2 } }, [{ type: "tool_call", id: "tu_1", name: "zoom", args: { x: 2 } }]],
    [
      "server_tool_use → server_tool_call",
      { type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "q" } },
      [{ type: "server_tool_call", id: "srv_1", name: "web_search", args: { query: "q" } }],
    ],
    [
      "web_search_tool_result → server_tool_result success",
      { type: "web_search_tool_result", tool_use_id: "srv_1", content: [{ type: "web_search_result", url: "https://a", title: "A" }] },
      [{ type: "server_tool_result", tool_call_id: "srv_1", status: "success", output: [{ type: "web_search_result", url: "https://a", title: "A" }] }],
    ],
    [
      "web_search_tool_result with content.error_code → error",
      { type: "web_search_tool_result", tool_use_id: "srv_2", content: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } },
      [{ type: "server_tool_result", tool_call_id: "srv_2", status: "error", output: { type: "web_search_tool_result_error", error_code: "max_uses_exceeded" } }],
    ],
    [
      "code_execution_tool_result with is_error → error",
      { type: "code_execution_tool_result", tool_use_id: "srv_3", is_error: true, content: { type: "code_execution_result", stdout: "", stderr: "boom", return_code: 1 } },
      [{ type: "server_tool_result", tool_call_id: "srv_3", status: "error", output: { type: "code_execution_result", stdout: "", stderr: "boom", return_code: 1 } }],
    ],
    [
      "mcp_tool_use → server_tool_call with the server name in extras",
      { type: "mcp_tool_use", id: "mcp_1", name: "lookup", server_name: "wiki", input: { q: "x" } },
      [{ type: "server_tool_call", id: "mcp_1", name: "lookup", args: { q: "x" }, extras: { server_name: "wiki" } }],
    ],
    ["unknown block → non_standard", { type: "container_upload", file_id: "f" }, [{ type: "non_standard", value: { type: "container_upload", file_id: "f" } }]],
  ])("%s", (_n, part, expected) => {
    expect(responseBlocks([part])).toEqual(expected);
  });

  it.each([
    ["image base64", { type: "image", source: { type: "base64", media_type: "image/jpeg", data: "/9j/" } }, [{ type: "image", base64: "/9j/", mime_type: "image/jpeg" }]],
    ["image url", { type: "image", source: { type: "url", url: "https://x.test/a.png" } }, [{ type: "image", url: "https://x.test/a.png" }]],
    ["image file", { type: "image", source: { type: "file", file_id: "file_1" } }, [{ type: "image", id: "file_1" }]],
    [
      "document base64 → file, title in extras",
      { type: "document", title: "Report", source: { type: "base64", media_type: "application/pdf", data: "JVBE" } },
      [{ type: "file", base64: "JVBE", mime_type: "application/pdf", extras: { title: "Report" } }],
    ],
    ["document url → file", { type: "document", source: { type: "url", url: "https://x.test/r.pdf" } }, [{ type: "file", url: "https://x.test/r.pdf" }]],
    ["document file → file{id}", { type: "document", source: { type: "file", file_id: "file_2" } }, [{ type: "file", id: "file_2" }]],
    [
      "plain-text document → its text, marked as a document",
      { type: "document", source: { type: "text", media_type: "text/plain", data: "the text" } },
      [{ type: "text", text: "the text", extras: { document: true, mime_type: "text/plain" } }],
    ],
    ["content document → its blocks", { type: "document", source: { type: "content", content: [{ type: "text", text: "chunk" }] } }, [{ type: "text", text: "chunk" }]],
  ])("%s", (_n, part, expected) => {
    expect(userBlocks(part)).toEqual(expected);
  });
});

describe("Anthropic messages: messages", () => {
  it("reads top-level system as a string or as text blocks", () => {
    expect(normalizeLlmRun({ system: "Be terse.", messages: [{ role: "user", content: "hi" }] }, null)!.messages[0]).toEqual({
      role: "system",
      content: [{ type: "text", text: "Be terse." }],
    });
    const r = normalizeLlmRun({ system: [{ type: "text", text: "A" }, { type: "text", text: "B", cache_control: { type: "ephemeral" } }], messages: [] }, null)!;
    expect(r.format).toBe("anthropic");
    expect(r.messages).toEqual([{ role: "system", content: [{ type: "text", text: "A" }, { type: "text", text: "B" }] }]);
  });

  it("splits tool_result blocks into tool messages (tool_call_id = tool_use_id), marking is_error", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { role: "user", content: "look" },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "tu_1", name: "zoom", input: {} },
              { type: "tool_use", id: "tu_2", name: "crop", input: {} },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "tu_1", content: [{ type: "text", text: "zoomed" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVB" } }] },
              { type: "tool_result", tool_use_id: "tu_2", is_error: true, content: "crop failed" },
            ],
          },
        ],
      },
      null,
    )!;
    expect(r.format).toBe("anthropic");
    expect(r.messages.slice(2)).toEqual([
      { role: "tool", tool_call_id: "tu_1", content: [{ type: "text", text: "zoomed" }, { type: "image", base64: "iVB", mime_type: "image/png" }] },
      { role: "tool", tool_call_id: "tu_2", status: "error", content: [{ type: "text", text: "crop failed" }] },
    ]);
    // a user message holding only tool results leaves no empty user message behind
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool"]);
    expect(r.warnings).toEqual([]);
  });

  it("keeps the rest of a user message after its tool results", () => {
    const r = normalizeLlmRun(
      {
        messages: [
          { role: "assistant", content: [{ type: "tool_use", id: "tu_1", name: "f", input: {} }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "tu_1", content: "ok" }, { type: "text", text: "and now?" }] },
        ],
      },
      null,
    )!;
    expect(r.messages.slice(1)).toEqual([
      { role: "tool", tool_call_id: "tu_1", content: [{ type: "text", text: "ok" }] },
      { role: "user", content: [{ type: "text", text: "and now?" }] },
    ]);
  });

  it("reads wrapAnthropic runs: system moved into messages, usage_metadata beside the response content", () => {
    const r = normalizeLlmRun(
      { model: "claude", max_tokens: 10, messages: [{ role: "system", content: "be nice" }, { role: "user", content: "hi" }] },
      { id: "m", role: "assistant", model: "claude", content: [{ type: "text", text: "yo" }], usage_metadata: { input_tokens: 3, output_tokens: 1, total_tokens: 4 } },
    )!;
    expect(r.messages.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
    expect(r.messages[2]!.usage_metadata).toEqual({ input_tokens: 3, output_tokens: 1, total_tokens: 4 });
  });

  it("reads a raw response: format anthropic, usage on the message", () => {
    const r = normalizeLlmRun({ messages: [{ role: "user", content: "hi" }] }, { type: "message", role: "assistant", content: [{ type: "text", text: "yo" }], usage: { input_tokens: 1, output_tokens: 1 } })!;
    expect(r.format).toBe("anthropic");
    expect(r.messages[1]!.usage_metadata).toEqual({ input_tokens: 1, output_tokens: 1 });
  });
});

/** Wire serialisation: LangChain messages become plain {type, content, …} dicts, never the lc constructor format. */
import { AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { serializeError, toPlain, toWireJson } from "../../src/agent-server/serde.js";

describe("toPlain / toWireJson", () => {
  it("turns each kind of message into {type, content, …}", () => {
    const out = toPlain<{ messages: Record<string, unknown>[] }>({
      messages: [
        new HumanMessage({ content: "hi", id: "h1" }),
        new AIMessage({ content: "calling", id: "a1", tool_calls: [{ id: "t1", name: "search", args: { q: "x" } }] }),
        new ToolMessage({ content: "result", tool_call_id: "t1" }),
        new SystemMessage("be brief"),
      ],
    });
    expect(out.messages.map((m) => m.type)).toEqual(["human", "ai", "tool", "system"]);
    expect(out.messages.map((m) => m.content)).toEqual(["hi", "calling", "result", "be brief"]);
    expect(out.messages[0]).toMatchObject({ id: "h1" });
    expect(out.messages[1]).toMatchObject({ id: "a1", tool_calls: [{ id: "t1", name: "search", args: { q: "x" } }] });
    expect(out.messages[2]).toMatchObject({ tool_call_id: "t1" });
    for (const m of out.messages) {
      expect(m).not.toHaveProperty("lc");
      expect(m).not.toHaveProperty("kwargs");
      expect(m).not.toHaveProperty("lc_kwargs");
    }
  });

  it("keeps structured (array) content", () => {
    const content = [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:," } }];
    const [m] = toPlain<Record<string, unknown>[]>([new HumanMessage({ content })]);
    expect(m).toMatchObject({ type: "human", content });
  });

  it("serialises message chunks as AI messages", () => {
    const m = toPlain<Record<string, unknown>>(new AIMessageChunk({ content: "partial", id: "c1" }));
    expect(m).toMatchObject({ type: "ai", content: "partial", id: "c1" });
  });

  it("serialises messages nested deep inside other values, and leaves plain data alone", () => {
    const value = { a: { b: [{ c: new HumanMessage("deep") }] }, n: 1, s: "x", nil: null, arr: [1, "2"] };
    expect(toPlain(value)).toEqual({
      a: { b: [{ c: { type: "human", content: "deep", additional_kwargs: {}, response_metadata: {} } }] },
      n: 1,
      s: "x",
      nil: null,
      arr: [1, "2"],
    });
  });

  it("handles undefined, bigint and dates", () => {
    expect(toWireJson(undefined)).toBe("null");
    expect(toPlain({ big: 10n ** 20n })).toEqual({ big: "100000000000000000000" });
    expect(toPlain({ at: new Date(0) })).toEqual({ at: "1970-01-01T00:00:00.000Z" });
  });

  it("serialises a message once per value (a token stream pays it per token)", () => {
    const chunk = new AIMessageChunk({ content: " t1", id: "c1" });
    let calls = 0;
    const toJSON = chunk.toJSON.bind(chunk);
    chunk.toJSON = () => {
      calls++;
      return toJSON();
    };
    expect(JSON.parse(toWireJson([chunk, { langgraph_node: "agent" }]))).toEqual([
      { content: " t1", id: "c1", type: "ai", additional_kwargs: {}, response_metadata: {}, tool_calls: [], invalid_tool_calls: [], tool_call_chunks: [] },
      { langgraph_node: "agent" },
    ]);
    expect(calls).toBe(1);
  });

  it("applies toJSON once, as JSON.stringify does, and leaves what it returns alone", () => {
    const value = { tj: { toJSON: () => ({ toJSON: () => "not called", x: new HumanMessage("h") }) }, u8: new Uint8Array([1, 2]) };
    expect(toPlain(value)).toEqual({ tj: { x: { type: "human", content: "h", additional_kwargs: {}, response_metadata: {} } }, u8: { 0: 1, 1: 2 } });
  });

  it("the JSON text round-trips to the same plain value", () => {
    const value = { messages: [new AIMessage("hello")] };
    expect(JSON.parse(toWireJson(value))).toEqual(toPlain(value));
  });
});

describe("serializeError", () => {
  it("gives {error, message} for errors, strings and other values", () => {
    expect(serializeError(new TypeError("bad tool"))).toEqual({ error: "TypeError", message: "bad tool" });
    expect(serializeError("plain")).toEqual({ error: "Error", message: "plain" });
    expect(serializeError({ code: 7 })).toEqual({ error: "Error", message: '{"code":7}' });
  });
});

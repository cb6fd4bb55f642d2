import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { normalizeTurn } from "../../src/tracing/messages/turn.js";

/** As the langsmith SDK sends LangChain messages: their constructor form. */
const wire = (v: unknown) => JSON.parse(JSON.stringify(v));
const text = (m: { content: { type: string; text?: string }[] }) => m.content.map((b) => b.text ?? `[${b.type}]`).join("");

describe("a turn of a graph called with messages", () => {
  const history = [new HumanMessage("hi"), new AIMessage("hello, how can I help?")];
  const question = new HumanMessage("weather in Oslo?");
  const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "weather", args: { city: "Oslo" } }] });
  const result = new ToolMessage({ content: "rain", tool_call_id: "c1" });
  const answer = new AIMessage("Rain in Oslo.");

  it("is the input and what the graph added after it, without the echoed history", () => {
    const t = normalizeTurn(wire({ messages: [question] }), wire({ messages: [...history, question, call, result, answer] }))!;
    expect(t.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(text(t.messages[0] as never)).toBe("weather in Oslo?");
    expect(t.messages[1]!.content).toEqual([{ type: "tool_call", id: "c1", name: "weather", args: { city: "Oslo" } }]);
    expect(text(t.messages[3] as never)).toBe("Rain in Oslo.");
    expect(t.format).toBe("langchain");
    expect(t.warnings).toEqual([]);
  });

  it("takes every output message when the state does not echo the input", () => {
    const t = normalizeTurn({ messages: [{ role: "user", content: "q" }] }, { messages: [{ role: "assistant", content: "a" }] })!;
    expect(t.messages.map((m) => [m.role, text(m as never)])).toEqual([
      ["user", "q"],
      ["assistant", "a"],
    ]);
  });

  it("uses the last copy of the input when the same words were said before", () => {
    const t = normalizeTurn(
      { messages: [{ role: "user", content: "again" }] },
      { messages: [{ role: "user", content: "again" }, { role: "assistant", content: "first" }, { role: "user", content: "again" }, { role: "assistant", content: "second" }] },
    )!;
    expect(t.messages.map((m) => text(m as never))).toEqual(["again", "second"]);
  });

  it("shows the input alone while the turn runs", () => {
    expect(normalizeTurn({ messages: [{ role: "user", content: "q" }] }, null)!.messages).toHaveLength(1);
  });

  it("leaves runs that were not called with messages raw", () => {
    expect(normalizeTurn({ question: "q" }, { answer: "a" })).toBeUndefined();
    expect(normalizeTurn("text", { messages: [] })).toBeUndefined();
    expect(normalizeTurn({ messages: "not a list" }, null)).toBeUndefined();
    expect(normalizeTurn({ messages: [42] }, null)).toBeUndefined();
  });
});

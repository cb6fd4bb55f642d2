/** How assistants become MCP tools and runs become tool results (pure rules of src/agent-server/mcp/tools.ts). */
import { describe, expect, it } from "vitest";
import { parseLanggraphConfig } from "../../src/agent-server/config/langgraph-config.js";
import { firstByName, toolInputSchema, toolOf, toolResultOf } from "../../src/agent-server/mcp/tools.js";

describe("MCP tools", () => {
  it("a tool name belongs to the oldest assistant that has it", () => {
    const list = [
      { name: "a", id: 1 },
      { name: "b", id: 2 },
      { name: "a", id: 3 },
    ];
    expect(firstByName(list).map((a) => a.id)).toEqual([1, 2]);
  });

  it("describes a tool by the assistant's description, else its graph's, else not at all", () => {
    const schema = { type: "object" as const };
    expect(toolOf({ name: "x", description: "mine" }, schema, "graph's").description).toBe("mine");
    expect(toolOf({ name: "x", description: null }, schema, "graph's").description).toBe("graph's");
    expect(toolOf({ name: "x", description: "" }, schema)).toEqual({ name: "x", inputSchema: schema });
  });

  it("keeps an object input schema as it is; anything else becomes 'any object'", () => {
    const s = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { q: { type: "string" } } };
    expect(toolInputSchema(s)).toBe(s);
    for (const bad of [null, undefined, "x", { type: "array" }, {}]) expect(toolInputSchema(bad)).toEqual({ type: "object" });
  });

  it("a run's error is a tool error with its class and message; anything else is the JSON of the result", () => {
    expect(toolResultOf({ __error__: { error: "TypeError", message: "broken" } })).toEqual({ content: [{ type: "text", text: "TypeError: broken" }], isError: true });
    expect(toolResultOf({ __error__: {} }).isError).toBe(true);
    expect(toolResultOf({ answer: "42" })).toEqual({ content: [{ type: "text", text: '{"answer":"42"}' }] });
    expect(toolResultOf(null).content[0]!.text).toBe("null");
  });

  it("http.disable_mcp is a supported key: no start-up warning", () => {
    const { warnings } = parseLanggraphConfig({ graphs: { a: "./a.ts:graph" }, http: { disable_mcp: true } }, "/tmp/p/langgraph.json");
    expect(warnings).toEqual([]);
  });
});

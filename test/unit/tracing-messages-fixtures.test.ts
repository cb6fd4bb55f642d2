/**
 * The normaliser over the shared message fixtures (test/fixtures/messages): the same files the
 * console's message renderer is tested with, so both sides agree on every shape.
 */
import { describe, expect, it } from "vitest";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize.js";
import { loadMessageFixtures } from "../fixtures/messages/load.js";

const fixtures = loadMessageFixtures();

describe("message fixtures", () => {
  it("are all there, with unique names matching their files", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(13);
    expect(new Set(fixtures.map((f) => f.name)).size).toBe(fixtures.length);
  });

  it("cover every native block type and every source format", () => {
    const types = new Set<string>();
    const formats = new Set<string>();
    for (const f of fixtures) {
      for (const m of f.expect.blocks ?? []) for (const t of m) types.add(t);
      if (f.expect.format) formats.add(f.expect.format);
    }
    const all = ["text", "reasoning", "image", "file", "audio", "video", "tool_call", "invalid_tool_call", "server_tool_call", "server_tool_result", "non_standard"];
    expect([...types].sort()).toEqual(all.sort());
    expect([...formats].sort()).toEqual(["anthropic", "langchain", "native", "openai"]);
    expect(fixtures.some((f) => f.expect.rendered === false)).toBe(true);
  });
});

describe.each(fixtures.map((f) => [f.name, f] as const))("fixture %s", (_name, f) => {
  const r = normalizeLlmRun(f.inputs, f.outputs);

  if (f.expect.rendered === false) {
    it("is not rendered (undefined: shown raw)", () => {
      expect(r).toBeUndefined();
    });
    return;
  }

  it("is read in the expected format, with the expected roles and warnings", () => {
    expect(r).toBeDefined();
    expect(r!.format).toBe(f.expect.format);
    expect(r!.messages.map((m) => m.role)).toEqual(f.expect.roles);
    expect(r!.warnings).toEqual(f.expect.warnings ?? []);
  });

  it("has the expected block types in every message", () => {
    expect(r!.messages.map((m) => m.content.map((b) => b.type))).toEqual(f.expect.blocks);
  });

  it.each((f.expect.match ?? []).map((m) => [m.block === undefined ? `message ${m.message}` : `message ${m.message} block ${m.block}`, m] as const))("matches %s", (_n, m) => {
    const message = r!.messages[m.message];
    expect(message).toBeDefined();
    expect(m.block === undefined ? message : message!.content[m.block]).toMatchObject(m.value);
  });
});

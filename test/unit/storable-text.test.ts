/** The storable-text rule (shared/text.ts) and tracing's storable runs (ingest/storable.ts), pure. */
import { describe, expect, it } from "vitest";
import { findUnstorable, isStorableText, replaceUnstorable } from "../../src/shared/text.js";
import { depthMarker, storableRun } from "../../src/tracing/ingest/storable.js";

const nested = (levels: number): unknown => {
  let v: unknown = "bottom";
  for (let i = 0; i < levels; i++) v = { d: [v] };
  return v;
};

describe("storable text", () => {
  it("tells NUL and unpaired surrogates from valid text, pairs included", () => {
    for (const s of ["", "plain", "é", "😀", "\ud83d\ude00", "\uFFFD"]) expect(isStorableText(s), JSON.stringify(s)).toBe(true);
    for (const s of ["\u0000", "a\u0000", "\ud800", "\udc00", "x\ud800y", "\ude00\ud83d", "\ud83d\ud83d"]) expect(isStorableText(s), JSON.stringify(s)).toBe(false);
    expect(replaceUnstorable("a\u0000b\ud800c\ud83d\ude00")).toBe("a\uFFFDb\uFFFDc\ud83d\ude00");
  });

  it("finds the first bad string or key with its path, iteratively", () => {
    expect(findUnstorable({ a: [1, { b: "ok" }, { c: "x\u0000" }] })).toMatchObject({ path: ["a", 2, "c"], msg: expect.stringMatching(/NUL/) });
    expect(findUnstorable({ ok: { ["k\udc00"]: 1 } })).toMatchObject({ path: ["ok", "k\udc00"], msg: expect.stringMatching(/key.*surrogate/) });
    expect(findUnstorable({ fine: ["x", 1, null, true] })).toBeUndefined();
    expect(findUnstorable(nested(20_000))).toBeUndefined(); // no stack overflow
    expect(findUnstorable(nested(20), 10)?.msg).toMatch(/nested more than 10 levels/);
  });
});

describe("storable runs", () => {
  it("returns a clean run as is, without a copy", () => {
    const run = { id: "x", inputs: { a: [1, "two", { three: null }] } };
    const out = storableRun(run);
    expect(out.value).toBe(run);
    expect(out).toMatchObject({ replaced: 0, cut: 0 });
  });

  it("replaces bad characters in strings and keys, keeping key order and __proto__ keys as data", () => {
    const raw = JSON.parse('{"b":"x\\u0000","__proto__":{"p":1},"k\\ud800":"\\udc00","a":[1,"\\u0000"]}');
    const out = storableRun(raw);
    expect(out.replaced).toBe(4);
    const v = out.value as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(["b", "__proto__", "k\uFFFD", "a"]);
    expect(Object.getPrototypeOf(v)).toBe(Object.prototype);
    expect(JSON.stringify(v)).toBe('{"b":"x\uFFFD","__proto__":{"p":1},"k\uFFFD":"\uFFFD","a":[1,"\uFFFD"]}');
    expect(JSON.stringify(raw)).toContain("\\u0000"); // the input is not changed
  });

  it("cuts nesting past the limit with a marker, without overflowing the stack", () => {
    const out = storableRun({ deep: nested(10_000) }, 50);
    expect(out.cut).toBe(1);
    const text = JSON.stringify(out.value);
    expect(text).toContain(depthMarker(50));
    // objects with "d" sit at depths 1, 3, …, 49 (their arrays at the even depths; depth 50 is cut)
    expect(text.split('"d"').length - 1).toBe(25);
  });
});

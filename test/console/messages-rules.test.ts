/** The message renderer's rules, without a browser: URL safety, tool pairing, labels, JSON caps. */
import { describe, expect, it } from "vitest";
import type { NativeMessage, RunDetail } from "../../src/console/api/types";
import { jsonText, stringify } from "../../src/console/messages/json-text";
import { callSummary, mediaName, roleClass, roleLabel, usageLine } from "../../src/console/messages/labels";
import { pairToolResults, refKey, unpairedReason } from "../../src/console/messages/pairing";
import { attachmentPath, dataUrl, httpUrl, markdownUrl, mediaSource, safeHref, sniffMime } from "../../src/console/messages/safe-url";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize";
import type { MessageFixture } from "../fixtures/messages/fixture";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEA";

describe("safe-url: http(s) only", () => {
  it.each([
    ["https://example.test/a.png", "https://example.test/a.png"],
    ["http://example.test/x?y=1#z", "http://example.test/x?y=1#z"],
    ["  HTTPS://Example.test/A  ", "https://example.test/A"],
  ])("keeps %s", (raw, expected) => {
    expect(httpUrl(raw)).toBe(expected);
    expect(safeHref(raw)).toBe(expected);
  });

  it.each([
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "vbscript:msgbox(1)",
    "data:text/html;base64,PHNjcmlwdD4=",
    "data:image/png;base64,iVBOR",
    "file:///etc/passwd",
    "mailto:a@b.test",
    "//evil.test/x",
    "/v2/keys",
    "relative/path",
    "",
  ])("refuses %j", (raw) => {
    expect(httpUrl(raw)).toBeUndefined();
    expect(safeHref(raw)).toBeUndefined();
  });

  it("refuses non-strings", () => {
    for (const v of [undefined, null, 42, {}, ["https://a.test"]]) expect(httpUrl(v)).toBeUndefined();
  });
});

describe("safe-url: attachment paths", () => {
  it("accepts the tracing API's attachment route exactly", () => {
    expect(attachmentPath("/tracing/runs/7f1c/attachments/image_0.png")).toBe("/tracing/runs/7f1c/attachments/image_0.png");
    expect(attachmentPath("/tracing/runs/7f1c/attachments/a%20b.png")).toBe("/tracing/runs/7f1c/attachments/a%20b.png");
  });

  it.each([
    "/tracing/runs/7f1c/attachments/..",
    "/tracing/runs/7f1c/attachments/%2e%2E",
    "/tracing/runs/../attachments/x",
    "/tracing/runs/7f1c/attachments/x?y=1",
    "/tracing/runs/7f1c/attachments/a/b",
    "/tracing/runs/7f1c/attachments/a\\b",
    "//tracing/runs/7f1c/attachments/x",
    "/v2/deployments",
    "https://example.test/tracing/runs/7f1c/attachments/x",
  ])("refuses %s", (raw) => {
    expect(attachmentPath(raw)).toBeUndefined();
  });
});

describe("safe-url: data URLs from base64 + mime type", () => {
  it("builds data URLs of the right media type", () => {
    expect(dataUrl("image", PNG, "image/png")).toEqual({ kind: "data", url: `data:image/png;base64,${PNG}`, mime: "image/png" });
    expect(dataUrl("audio", WAV, "audio/wav")).toMatchObject({ kind: "data", url: `data:audio/wav;base64,${WAV}` });
    expect(dataUrl("video", "AAAA", "video/mp4")).toMatchObject({ kind: "data", url: "data:video/mp4;base64,AAAA" });
    expect(dataUrl("file", "JVBERi0xLjQK", "application/pdf")).toMatchObject({ kind: "data", url: "data:application/pdf;base64,JVBERi0xLjQK" });
  });

  it("refuses a media type that does not fit the element", () => {
    expect(dataUrl("image", "PHNjcmlwdD4=", "text/html")).toMatchObject({ kind: "unsafe" });
    expect(dataUrl("image", "PHN2Zz4=", "image/svg+xml")).toMatchObject({ kind: "unsafe" });
    expect(dataUrl("image", WAV, "audio/wav")).toMatchObject({ kind: "unsafe" });
    expect(dataUrl("audio", PNG, "image/png")).toMatchObject({ kind: "unsafe" });
    expect(dataUrl("file", "AAAA", "text/html;charset=utf-8,<script>")).toMatchObject({ kind: "unsafe" });
  });

  it("refuses data that is not base64 (it could close the URL and add its own)", () => {
    expect(dataUrl("image", 'abc"onerror="x', "image/png")).toMatchObject({ kind: "unsafe", reason: "the data is not base64" });
    expect(dataUrl("image", "", "image/png")).toMatchObject({ kind: "unsafe" });
    expect(dataUrl("image", 42, "image/png")).toMatchObject({ kind: "unsafe" });
  });

  it("normalises whitespace and URL-safe base64", () => {
    expect(dataUrl("image", "iVBO Rw0K\nGgo-_", "image/png")).toMatchObject({ url: "data:image/png;base64,iVBORw0KGgo+/" });
  });

  it("names untyped data by its first bytes, else refuses inline media and downloads files as octet-stream", () => {
    expect(sniffMime(PNG)).toBe("image/png");
    expect(sniffMime("/9j/4AAQ")).toBe("image/jpeg");
    expect(sniffMime(WAV)).toBe("audio/wav");
    expect(sniffMime("UklGRiQAAABXRUJQVlA4")).toBe("image/webp");
    expect(sniffMime("UklGR")).toBeUndefined();
    expect(sniffMime("AAAA")).toBeUndefined();
    expect(dataUrl("image", PNG, undefined)).toMatchObject({ kind: "data", mime: "image/png" });
    expect(dataUrl("audio", WAV, undefined)).toMatchObject({ kind: "data", mime: "audio/wav" });
    expect(dataUrl("image", "AAAA", undefined)).toMatchObject({ kind: "unsafe" });
    expect(dataUrl("file", "AAAA", undefined)).toMatchObject({ kind: "data", mime: "application/octet-stream" });
  });
});

describe("safe-url: mediaSource", () => {
  it("classifies a block's source", () => {
    expect(mediaSource("image", { url: "https://x.test/a.png" })).toEqual({ kind: "external", url: "https://x.test/a.png" });
    expect(mediaSource("image", { url: "/tracing/runs/r1/attachments/a.png" })).toEqual({ kind: "attachment", url: "/tracing/runs/r1/attachments/a.png" });
    expect(mediaSource("image", { base64: PNG, mime_type: "image/png" })).toMatchObject({ kind: "data", url: `data:image/png;base64,${PNG}` });
    expect(mediaSource("image", { url: `data:image/png;base64,${PNG}` })).toMatchObject({ kind: "data", mime: "image/png" });
    expect(mediaSource("image", {})).toBeUndefined();
  });

  it("refuses script URLs, wrong-typed data URLs and other relative URLs", () => {
    expect(mediaSource("image", { url: "javascript:alert(1)" })).toMatchObject({ kind: "unsafe" });
    expect(mediaSource("video", { url: "javascript:alert(1)" })).toMatchObject({ kind: "unsafe" });
    expect(mediaSource("image", { url: "data:text/html;base64,PHNjcmlwdD4=" })).toMatchObject({ kind: "unsafe" });
    expect(mediaSource("image", { url: "data:image/png,<svg onload=alert(1)>" })).toMatchObject({ kind: "unsafe" });
    expect(mediaSource("file", { url: "/v2/keys" })).toMatchObject({ kind: "unsafe" });
    expect(mediaSource("image", { base64: "PHNjcmlwdD4=", mime_type: "text/html" })).toMatchObject({ kind: "unsafe" });
  });
});

describe("safe-url: markdownUrl (react-markdown's urlTransform)", () => {
  it("keeps http(s) links and http(s)/data:image sources, drops the rest", () => {
    expect(markdownUrl("https://a.test/x", "href")).toBe("https://a.test/x");
    expect(markdownUrl("javascript:alert(1)", "href")).toBeUndefined();
    expect(markdownUrl("data:text/html;base64,PHNjcmlwdD4=", "href")).toBeUndefined();
    expect(markdownUrl("/relative", "href")).toBeUndefined();
    expect(markdownUrl("https://a.test/i.png", "src")).toBe("https://a.test/i.png");
    expect(markdownUrl(`data:image/png;base64,${PNG}`, "src")).toBe(`data:image/png;base64,${PNG}`);
    expect(markdownUrl("data:text/html;base64,PHNjcmlwdD4=", "src")).toBeUndefined();
    expect(markdownUrl("javascript:alert(1)", "src")).toBeUndefined();
    expect(markdownUrl("https://a.test", "cite")).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------

const call = (id: string | undefined, name = "f") => ({ type: "tool_call" as const, ...(id ? { id } : {}), name, args: {} });
const text = (t: string) => ({ type: "text" as const, text: t });
const tool = (id: string | undefined, t: string): NativeMessage => ({ role: "tool", ...(id ? { tool_call_id: id } : {}), content: [text(t)] });

describe("pairing: client tool calls ↔ tool messages", () => {
  it("pairs a tool message with the assistant call of its id, by position", () => {
    const msgs: NativeMessage[] = [{ role: "user", content: [text("q")] }, { role: "assistant", content: [text("x"), call("a")] }, tool("a", "r")];
    const p = pairToolResults(msgs);
    expect(p.toolResults.get(refKey({ message: 1, block: 1 }))).toEqual([2]);
    expect(p.answers.get(2)).toEqual({ message: 1, block: 1 });
  });

  it("pairs by id, not by order: two calls answered out of order", () => {
    const msgs: NativeMessage[] = [{ role: "assistant", content: [call("a"), call("b")] }, tool("b", "for b"), tool("a", "for a")];
    const p = pairToolResults(msgs);
    expect(p.toolResults.get("0:0")).toEqual([2]);
    expect(p.toolResults.get("0:1")).toEqual([1]);
  });

  it("leaves unpaired: a result for an unknown id, one before its call, one without id, one answering a non-assistant call", () => {
    const msgs: NativeMessage[] = [
      tool("early", "too early"),
      { role: "assistant", content: [call("early")] },
      tool("ghost", "nobody asked"),
      tool(undefined, "anonymous"),
      { role: "user", content: [call("u")] },
      tool("u", "answers a user"),
    ];
    const p = pairToolResults(msgs);
    expect([...p.answers.keys()]).toEqual([]);
    expect(p.toolResults.get("1:0")).toBeUndefined();
    expect(unpairedReason(msgs[2]!)).toBe("answers no earlier tool call (tool_call_id ghost)");
    expect(unpairedReason(msgs[3]!)).toBe("has no tool_call_id");
  });

  it("pairs with the latest earlier call of a repeated id, and collects several results on one call", () => {
    const msgs: NativeMessage[] = [
      { role: "assistant", content: [call("a")] },
      tool("a", "first"),
      { role: "assistant", content: [call("a")] },
      tool("a", "second"),
      tool("a", "retry"),
    ];
    const p = pairToolResults(msgs);
    expect(p.toolResults.get("0:0")).toEqual([1]);
    expect(p.toolResults.get("2:0")).toEqual([3, 4]);
  });

  it("pairs tool messages with invalid tool calls too; calls without id are never paired", () => {
    const msgs: NativeMessage[] = [
      { role: "assistant", content: [{ type: "invalid_tool_call", id: "bad", name: "f", args: "{", error: "e" }, call(undefined)] },
      tool("bad", "could not parse"),
    ];
    const p = pairToolResults(msgs);
    expect(p.toolResults.get("0:0")).toEqual([1]);
    expect(p.toolResults.get("0:1")).toBeUndefined();
  });
});

describe("pairing: server tool calls ↔ server_tool_result blocks", () => {
  it("pairs in the same message and across messages; an orphan result stays where it is", () => {
    const msgs: NativeMessage[] = [
      {
        role: "assistant",
        content: [
          { type: "server_tool_call", id: "s1", name: "web_search", args: {} },
          { type: "server_tool_result", tool_call_id: "s1", status: "success" },
          { type: "server_tool_call", id: "s2", name: "code", args: {} },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "server_tool_result", tool_call_id: "s2", status: "error" },
          { type: "server_tool_result", tool_call_id: "nope", status: "success" },
        ],
      },
    ];
    const p = pairToolResults(msgs);
    expect(p.serverResults.get("0:0")).toEqual([{ message: 0, block: 1 }]);
    expect(p.serverResults.get("0:2")).toEqual([{ message: 1, block: 0 }]);
    expect([...p.pairedServerResults].sort()).toEqual(["0:1", "1:0"]);
  });

  it("never pairs a server result with a client call or a tool message with a server call", () => {
    const msgs: NativeMessage[] = [
      { role: "assistant", content: [call("x"), { type: "server_tool_call", id: "y", name: "s", args: {} }] },
      { role: "assistant", content: [{ type: "server_tool_result", tool_call_id: "x", status: "success" }] },
      tool("y", "r"),
    ];
    const p = pairToolResults(msgs);
    expect(p.pairedServerResults.size).toBe(0);
    expect(p.answers.size).toBe(0);
  });

  it("survives junk: non-array content, missing fields", () => {
    const junk = [{ role: "assistant", content: null }, { role: "tool" }, null] as unknown as NativeMessage[];
    expect(() => pairToolResults(junk)).not.toThrow();
  });
});

const fixtures = Object.values(import.meta.glob<MessageFixture>("../fixtures/messages/*.json", { eager: true, import: "default" }));

describe("pairing over the shared fixtures", () => {
  it("loads the fixtures", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(13);
  });

  it.each(fixtures.filter((f) => f.expect.rendered !== false).map((f) => [f.name, f] as const))(
    "%s: each tool message is under exactly one call, or unpaired exactly when the normaliser warns about it",
    (_n, f) => {
      const r = normalizeLlmRun(f.inputs, f.outputs)!;
      const msgs = r.messages as NativeMessage[];
      const p = pairToolResults(msgs);
      const shown = [...p.toolResults.values()].flat();
      expect(new Set(shown).size).toBe(shown.length);
      const toolIndexes = msgs.flatMap((m, i) => (m.role === "tool" ? [i] : []));
      const unpaired = toolIndexes.filter((i) => !p.answers.has(i));
      expect(shown.sort()).toEqual(toolIndexes.filter((i) => p.answers.has(i)).sort());
      expect(unpaired.map((i) => `message ${i}`)).toEqual(r.warnings.map((w) => w.split(":")[0]));
    },
  );

  it("pairs the out-of-order fixture by id", () => {
    const f = fixtures.find((x) => x.name === "tool-pairing-out-of-order")!;
    const p = pairToolResults(normalizeLlmRun(f.inputs, f.outputs)!.messages as NativeMessage[]);
    // message 1 holds text, call_time, call_sky; message 2 answers call_sky, message 3 call_time
    expect(p.toolResults.get("1:1")).toEqual([3]);
    expect(p.toolResults.get("1:2")).toEqual([2]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("labels", () => {
  it("names roles, and gives unknown ones (even prototype names) the neutral class", () => {
    expect(["system", "user", "assistant", "tool", "reasoning"].map(roleLabel)).toEqual(["System", "User", "Assistant", "Tool", "Reasoning"]);
    expect(roleClass("assistant")).toBe("msg-assistant");
    expect(roleClass("wizard")).toBe("msg-other");
    expect(roleClass("constructor")).toBe("msg-other");
    expect(roleLabel("constructor")).toBe("constructor");
    expect(roleLabel(undefined)).toBe("unknown");
  });

  it("names media by file name, title or id", () => {
    expect(mediaName({ type: "file", extras: { filename: "a.pdf" } })).toBe("a.pdf");
    expect(mediaName({ type: "file", extras: { title: "Invoice" } })).toBe("Invoice");
    expect(mediaName({ type: "image", id: "file-1" })).toBe("file-1");
    expect(mediaName({ type: "image" })).toBe("image");
  });

  it("reads usage in LangSmith and OpenAI spellings", () => {
    expect(usageLine({ input_tokens: 120, output_tokens: 9, total_tokens: 129 })).toBe("120 in · 9 out · 129 total");
    expect(usageLine({ prompt_tokens: 5, completion_tokens: 2 })).toBe("5 in · 2 out · 7 total");
    expect(usageLine({ foo: 1 })).toBeUndefined();
    expect(usageLine(undefined)).toBeUndefined();
  });

  const base = { model: "gpt-4o-mini", provider: "openai", ttft_ms: 420, latency_ms: 1830, cost_reason: null } as unknown as RunDetail;
  const item = (run: RunDetail, label: string) => callSummary(run).find((i) => i.label === label)!;

  it("summarises a call: model with provider, tokens, cost with its source, TTFT, latency", () => {
    const run = {
      ...base,
      usage: { input_tokens: 310, output_tokens: 14, total_tokens: 324, estimated: false },
      cost: { input_cost: 0.000465, output_cost: 0.00084, total_cost: 0.001305, source: "price" },
    } as unknown as RunDetail;
    expect(callSummary(run).map((i) => i.label)).toEqual(["Model", "Tokens", "Cost", "TTFT", "Latency"]);
    expect(item(run, "Model")).toEqual({ label: "Model", value: "gpt-4o-mini", note: "openai" });
    expect(item(run, "Tokens")).toEqual({ label: "Tokens", value: "310 in · 14 out · 324 total" });
    expect(item(run, "Cost").value).toBe("$0.001305");
    expect(item(run, "Cost").note).toBe("$0.000465 in · $0.00084 out; from the price table");
    expect(item(run, "TTFT").value).toBe("420 ms");
    expect(item(run, "Latency").value).toBe("1.83 s");
  });

  it("marks estimated usage and says why there is no cost", () => {
    const run = { ...base, usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2, estimated: true }, cost: null, cost_reason: "no price for model gpt-x" } as unknown as RunDetail;
    expect(item(run, "Tokens").marker).toBe("estimated");
    expect(item(run, "Cost")).toEqual({ label: "Cost", value: "—", note: "no price for model gpt-x" });
    const client = { ...base, usage: null, cost: { total_cost: 0.5, input_cost: null, output_cost: null, source: "client" } } as unknown as RunDetail;
    expect(item(client, "Cost")).toEqual({ label: "Cost", value: "$0.5", note: "sent by the client" });
    expect(item(client, "Tokens")).toEqual({ label: "Tokens", value: "—" });
  });
});

describe("json-text", () => {
  it("pretty-prints and caps at the limit, saying how long the whole is", () => {
    expect(jsonText({ a: 1 })).toEqual({ text: '{\n  "a": 1\n}', truncated: false, total: 12 });
    const big = jsonText({ s: "x".repeat(100) }, 20);
    expect(big.truncated).toBe(true);
    expect(big.text).toHaveLength(20);
    expect(big.total).toBe(stringify({ s: "x".repeat(100) }).length);
  });

  it("never throws: cycles, BigInt, undefined", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(stringify(cyclic)).toBe("[object Object]");
    expect(stringify({ n: 10n })).toBe('{\n  "n": "10"\n}');
    expect(stringify(undefined)).toBe("undefined");
  });
});

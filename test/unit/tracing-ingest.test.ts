import { describe, expect, it } from "vitest";
import { parseDottedOrder } from "../../src/tracing/ingest/dotted-order.js";
import { cleanRun, deriveTree, mergeRun, statusOf } from "../../src/tracing/ingest/merge.js";
import { assemble } from "../../src/tracing/ingest/multipart.js";
import { ATTACHMENT_SCHEME, preparePayload, truncationMarker } from "../../src/tracing/ingest/payload.js";
import { normalizeTimestamp } from "../../src/tracing/ingest/timestamps.js";
import type { RunRecord } from "../../src/tracing/run.js";

const ROOT = "0192f1a8-0000-7000-8000-000000000001";
const CHILD = "0192f1a8-0000-7000-8000-000000000002";
const GRANDCHILD = "0192f1a8-0000-7000-8000-000000000003";

describe("timestamps", () => {
  it.each([
    ["2026-11-21T09:45:42.705001Z", "2026-11-21T09:45:42.705001Z"],
    ["2026-11-21T09:45:42.705001+00:00", "2026-11-21T09:45:42.705001+00:00"],
    ["2026-11-21T10:45:42.705+01:00", "2026-11-21T10:45:42.705+01:00"],
    ["2026-11-21T09:45:42.705001", "2026-11-21T09:45:42.705001Z"],
    ["2026-11-21 09:45:42", "2026-11-21T09:45:42Z"],
    ["2026-11-21T09:45:42.123456789Z", "2026-11-21T09:45:42.123456Z"],
  ])("reads ISO %s", (input, expected) => {
    expect(normalizeTimestamp(input)).toBe(expected);
  });

  it("reads epoch milliseconds (the JS SDK's end_time), as numbers or strings", () => {
    expect(normalizeTimestamp(1763718342705)).toBe("2025-11-21T09:45:42.705Z");
    expect(normalizeTimestamp("1763718342705")).toBe("2025-11-21T09:45:42.705Z");
  });

  it("reads epoch seconds", () => {
    expect(normalizeTimestamp(1763718342.5)).toBe("2025-11-21T09:45:42.500Z");
  });

  it.each([["yesterday"], [""], [null], [{}], ["2026-13-45T99:00:00Z"], [Number.NaN]])("refuses %j", (v) => {
    expect(normalizeTimestamp(v)).toBeUndefined();
  });

  it("offsets and Z name the same instant", () => {
    expect(Date.parse(normalizeTimestamp("2026-11-21T10:00:00+01:00")!)).toBe(Date.parse(normalizeTimestamp("2026-11-21T09:00:00Z")!));
  });
});

describe("dotted_order", () => {
  const root = `20261121T094542705001Z${ROOT}`;
  const child = `${root}.20261121T094542706002Z${CHILD}`;

  it("names the trace, the parent and the start of the run", () => {
    expect(parseDottedOrder(child)).toEqual({ traceId: ROOT, parentRunId: ROOT, runId: CHILD, startTime: "2026-11-21T09:45:42.706002Z" });
    expect(parseDottedOrder(root)).toEqual({ traceId: ROOT, parentRunId: undefined, runId: ROOT, startTime: "2026-11-21T09:45:42.705001Z" });
  });

  it("refuses malformed orders", () => {
    expect(parseDottedOrder("nonsense")).toBeUndefined();
    expect(parseDottedOrder(`${root}.`)).toBeUndefined();
    expect(parseDottedOrder(undefined)).toBeUndefined();
  });

  it("fills trace_id, parent_run_id and start_time of a run that left them out", () => {
    const grand = `${child}.20261121T094542707003Z${GRANDCHILD}`;
    expect(deriveTree({ id: GRANDCHILD, dotted_order: grand })).toEqual({
      run: { id: GRANDCHILD, dotted_order: grand, trace_id: ROOT, parent_run_id: CHILD, start_time: "2026-11-21T09:45:42.707003Z" },
      derived: ["trace_id", "parent_run_id", "start_time"],
    });
  });

  it("keeps what the client sent over what the order says", () => {
    const other = "0192f1a8-0000-7000-8000-0000000000ff";
    expect(deriveTree({ id: CHILD, dotted_order: child, trace_id: other })).toMatchObject({ run: { trace_id: other }, derived: ["parent_run_id", "start_time"] });
  });

  it("makes a run with no tree information its own trace", () => {
    expect(deriveTree({ id: ROOT })).toEqual({ run: { id: ROOT, trace_id: ROOT }, derived: ["trace_id"] });
  });
});

describe("cleaning a run as sent", () => {
  it("needs a UUID id, from the body or the part name", () => {
    expect(cleanRun({ name: "x" })).toMatchObject({ ok: false });
    expect(cleanRun({ id: "not-a-uuid" })).toMatchObject({ ok: false, error: expect.stringContaining("not a UUID") });
    expect(cleanRun({ name: "x" }, ROOT.toUpperCase())).toMatchObject({ ok: true, run: { id: ROOT } });
    expect(cleanRun("a string")).toMatchObject({ ok: false });
  });

  it("normalises timestamps and reports the ones it cannot read, keeping the run", () => {
    const r = cleanRun({ id: ROOT, start_time: "2026-11-21T09:45:42.705001+00:00", end_time: 1763718342705, first_token_time: "soon" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.run.start_time).toBe("2026-11-21T09:45:42.705001+00:00");
    expect(r.run.end_time).toBe("2025-11-21T09:45:42.705Z");
    expect(r.run.first_token_time).toBeUndefined();
    expect(r.problems).toEqual([expect.stringContaining("first_token_time")]);
  });

  it("wraps non-object payloads the way traceable does, and keeps odd types", () => {
    const r = cleanRun({ id: ROOT, inputs: "hi", outputs: [1, 2], extra: 5, tags: "one", error: { message: "boom" }, name: 42 });
    expect(r).toMatchObject({
      ok: true,
      run: { inputs: { input: "hi" }, outputs: { output: [1, 2] }, extra: { value: 5 }, tags: ["one"], error: '{"message":"boom"}', name: "42" },
    });
  });

  it("reports a dotted_order that does not end with the run", () => {
    const r = cleanRun({ id: CHILD, dotted_order: `20261121T094542705001Z${ROOT}` });
    expect(r.ok && r.problems).toEqual([expect.stringContaining("does not end with the run id")]);
  });
});

describe("merging posts and patches", () => {
  const post: RunRecord = {
    id: ROOT,
    name: "chain",
    run_type: "chain",
    start_time: "2026-11-21T09:45:42.705001Z",
    inputs: { q: 1 },
    extra: { metadata: { a: 1 }, runtime: { sdk: "js" } },
    tags: ["x"],
  };
  const patch: RunRecord = { id: ROOT, end_time: "2026-11-21T09:45:43.000Z", outputs: { answer: 2 }, extra: { metadata: { b: 2 } }, tags: ["y"], events: [{ name: "end", time: "t" }] };

  it("gives the same run in either order", () => {
    const a = mergeRun(mergeRun(undefined, post, "post"), patch, "patch");
    const b = mergeRun(mergeRun(undefined, patch, "patch"), post, "post");
    expect(b).toEqual(a);
    expect(a).toMatchObject({ inputs: { q: 1 }, outputs: { answer: 2 }, end_time: patch.end_time, extra: { metadata: { a: 1, b: 2 }, runtime: { sdk: "js" } } });
    expect(new Set(a.tags)).toEqual(new Set(["x", "y"]));
  });

  it("is idempotent for repeated posts and patches", () => {
    const once = mergeRun(mergeRun(undefined, post, "post"), patch, "patch");
    const twice = mergeRun(mergeRun(mergeRun(once, post, "post"), patch, "patch"), post, "post");
    expect(twice).toEqual(once);
  });

  it("lets a patch overwrite what it sets, and a late post fill only what is missing", () => {
    const stored = mergeRun(undefined, { id: ROOT, outputs: { v: "patched" }, end_time: "2026-11-21T09:45:44Z" }, "patch");
    const late = mergeRun(stored, { id: ROOT, outputs: { v: "from post" }, inputs: { q: 1 } }, "post");
    expect(late.outputs).toEqual({ v: "patched" });
    expect(late.inputs).toEqual({ q: 1 });
    expect(mergeRun(late, { id: ROOT, outputs: { v: "second patch" } }, "patch").outputs).toEqual({ v: "second patch" });
  });

  it("derives the status", () => {
    expect(statusOf({})).toBe("pending");
    expect(statusOf({ end_time: "x" })).toBe("success");
    expect(statusOf({ end_time: "x", error: "boom" })).toBe("error");
  });
});

describe("payload preparation", () => {
  const limits = { maxStringBytes: 100, mediaThresholdBytes: 40 };
  const png = Buffer.alloc(300, 7).toString("base64");

  it("moves data-URI media to an attachment and leaves a reference", () => {
    const input = { messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }] }] };
    const out = preparePayload(input, limits);
    expect(out.attachments).toHaveLength(1);
    expect(out.attachments[0]!.contentType).toBe("image/png");
    expect(out.attachments[0]!.data.equals(Buffer.alloc(300, 7))).toBe(true);
    const url = (out.value as any).messages[0].content[0].image_url.url as string;
    expect(url).toBe(`${ATTACHMENT_SCHEME}${out.attachments[0]!.name}`);
    expect(input.messages[0]!.content[0]!.image_url.url).toContain("base64"); // the input is not mutated
  });

  it("moves base64 fields of media parts, typed from their neighbours", () => {
    const anthropic = { type: "image", source: { type: "base64", media_type: "image/jpeg", data: png } };
    const audio = { type: "input_audio", input_audio: { data: png, format: "wav" } };
    const out = preparePayload({ a: anthropic, b: audio }, limits);
    expect(out.attachments.map((a) => a.contentType).sort()).toEqual(["audio/wav", "image/jpeg"]);
    expect(out.attachments).toHaveLength(2);
  });

  it("stores the same media once however often it appears", () => {
    const url = `data:image/png;base64,${png}`;
    const out = preparePayload([{ url }, { url }], limits);
    expect(out.attachments).toHaveLength(1);
    expect((out.value as any)[0].url).toBe((out.value as any)[1].url);
  });

  it("keeps small media inline", () => {
    const small = { url: "data:image/png;base64,AAAA" };
    expect(preparePayload(small, limits)).toMatchObject({ value: small, attachments: [] });
  });

  it("cuts oversized strings with a marker saying how long they were", () => {
    const long = "x".repeat(500);
    const out = preparePayload({ text: long }, limits);
    expect(out.truncated).toBe(1);
    expect((out.value as any).text).toBe("x".repeat(100) + truncationMarker(500));
  });

  it("replaces what Postgres jsonb refuses", () => {
    const out = preparePayload({ "k\u0000": "a\u0000b\uD800c" }, limits);
    expect(out.value).toEqual({ "k\uFFFD": "a\uFFFDb\uFFFDc" });
  });

  it("leaves valid surrogate pairs alone", () => {
    expect(preparePayload({ e: "😀" }, limits).value).toEqual({ e: "😀" });
  });
});

describe("multipart parts → runs", () => {
  const part = (name: string, value: unknown, contentType = "application/json") => ({ name, data: Buffer.from(typeof value === "string" ? value : JSON.stringify(value)), contentType });

  it("joins field parts to their run, in any part order", () => {
    const out = assemble([
      part(`post.${ROOT}.inputs`, { q: 1 }),
      part(`post.${ROOT}`, { id: ROOT, name: "r", inputs: { stale: true } }),
      part(`patch.${CHILD}`, { id: CHILD }),
      part(`patch.${CHILD}.outputs`, { a: 2 }),
      part(`attachment.${ROOT}.photo`, "binary", "image/png"),
    ]);
    expect(out.errors).toEqual([]);
    expect(out.ops).toEqual([
      { kind: "post", raw: { id: ROOT, name: "r", inputs: { q: 1 } }, idHint: ROOT },
      { kind: "patch", raw: { id: CHILD, outputs: { a: 2 } }, idHint: CHILD },
    ]);
    expect(out.attachments).toMatchObject([{ runId: ROOT, name: "photo", contentType: "image/png" }]);
  });

  it("keeps a payload part that is not JSON as text, and reports a run part that is not", () => {
    const out = assemble([part(`post.${ROOT}`, "{broken"), part(`post.${CHILD}`, { id: CHILD }), part(`post.${CHILD}.outputs`, "plain text")]);
    expect(out.errors).toEqual([{ run_id: ROOT, error: expect.stringContaining("not valid JSON") }]);
    expect(out.ops.find((o) => o.idHint === CHILD)?.raw).toEqual({ id: CHILD, outputs: { unparsed: "plain text" } });
  });

  it("reports unknown parts without failing the rest", () => {
    const out = assemble([part("weird", {}), part(`other.${ROOT}`, {}), part(`post.${ROOT}`, { id: ROOT })]);
    expect(out.errors).toHaveLength(2);
    expect(out.ops).toHaveLength(1);
  });
});

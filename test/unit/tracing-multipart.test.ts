import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { boundaryOf, MultipartError, MultipartSplitter, type Part } from "../../src/tracing/ingest/multipart-splitter.js";

async function encode(form: FormData): Promise<{ body: Buffer; boundary: string }> {
  const req = new Request("http://x", { method: "POST", body: form });
  return { body: Buffer.from(await req.arrayBuffer()), boundary: boundaryOf(req.headers.get("content-type")!)! };
}

function split(body: Buffer, boundary: string, sizes: () => number): Part[] {
  const s = new MultipartSplitter(boundary);
  const parts: Part[] = [];
  for (let i = 0; i < body.length; ) {
    const n = Math.max(1, sizes());
    parts.push(...s.push(body.subarray(i, i + n)));
    i += n;
  }
  s.end();
  return parts;
}

describe("multipart splitter", () => {
  const binary = Buffer.concat([randomBytes(70_000), Buffer.from("\r\n--not-the-boundary\r\n"), randomBytes(1000)]);
  const build = () => {
    const form = new FormData();
    form.append("post.0192f1a8-0000-7000-8000-000000000001", new Blob([JSON.stringify({ id: 1, text: "héllo ✓" })], { type: "application/json" }));
    form.append("post.0192f1a8-0000-7000-8000-000000000001.inputs", JSON.stringify({ q: "a field, not a file" }));
    form.append("attachment.0192f1a8-0000-7000-8000-000000000001.photo.png", new Blob([binary], { type: "image/png" }));
    form.append("empty", new Blob([], { type: "application/json" }));
    return form;
  };

  it("gives the same parts however the body is chunked", async () => {
    const { body, boundary } = await encode(build());
    const expected = split(body, boundary, () => body.length);
    expect(expected.map((p) => [p.name, p.contentType, p.data.length])).toEqual([
      ["post.0192f1a8-0000-7000-8000-000000000001", "application/json", Buffer.byteLength(JSON.stringify({ id: 1, text: "héllo ✓" }))],
      ["post.0192f1a8-0000-7000-8000-000000000001.inputs", "", Buffer.byteLength(JSON.stringify({ q: "a field, not a file" }))],
      ["attachment.0192f1a8-0000-7000-8000-000000000001.photo.png", "image/png", binary.length],
      ["empty", "application/json", 0],
    ]);
    expect(expected[2]!.data.equals(binary)).toBe(true);
    expect(JSON.parse(expected[0]!.data.toString("utf8")).text).toBe("héllo ✓");
    for (const sizes of [() => 1, () => 7, () => 64, () => 1 + Math.floor(Math.random() * 5000)]) {
      const parts = split(body, boundary, sizes);
      expect(parts.map((p) => [p.name, p.contentType, p.data.toString("base64")])).toEqual(expected.map((p) => [p.name, p.contentType, p.data.toString("base64")]));
    }
  });

  it("skips a preamble and ignores an epilogue", () => {
    const body = Buffer.from('preamble text\r\n--b\r\ncontent-disposition: form-data; name="x"\r\n\r\nvalue\r\n--b--\r\nepilogue');
    expect(split(body, "b", () => 3).map((p) => [p.name, p.data.toString()])).toEqual([["x", "value"]]);
  });

  it("reads quoted names with escapes and unquoted names", () => {
    const body = Buffer.from('--b\r\nContent-Disposition: form-data; name="a\\"b"\r\n\r\n1\r\n--b\r\ncontent-disposition: form-data; name=plain\r\n\r\n2\r\n--b--');
    expect(split(body, "b", () => 100).map((p) => p.name)).toEqual(['a"b', "plain"]);
  });

  it("refuses a body cut off before its closing boundary, or with junk after a boundary", () => {
    expect(() => split(Buffer.from('--b\r\ncontent-disposition: form-data; name="x"\r\n\r\nvalue'), "b", () => 4)).toThrow(MultipartError);
    expect(() => split(Buffer.from("no boundary anywhere"), "b", () => 4)).toThrow(MultipartError);
    expect(() => split(Buffer.from("--bXX"), "b", () => 10)).toThrow(MultipartError);
    expect(() => new MultipartSplitter("")).toThrow(MultipartError);
  });

  it("finds the boundary in a Content-Type header", () => {
    expect(boundaryOf("multipart/form-data; boundary=----LangSmithFormBoundary123")).toBe("----LangSmithFormBoundary123");
    expect(boundaryOf('multipart/form-data; charset=utf-8; boundary="quoted b"')).toBe("quoted b");
    expect(boundaryOf("multipart/form-data")).toBeUndefined();
  });
});

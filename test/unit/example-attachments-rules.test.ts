/** The pure rules of example attachments: update semantics, declared lengths, signed links. */
import { describe, expect, it } from "vitest";
import { nextAttachments, parseAttachmentsOperations, readAttachmentPart, type AttachmentRef } from "../../src/tracing/datasets/attachments.js";
import { signBlob, verifyBlob } from "../../src/tracing/datasets/signed-url.js";

const ref = (name: string, sha = name.padEnd(64, "0")): AttachmentRef => ({ name, sha256: sha, mime_type: "text/plain", size: 1 });
const names = (r: AttachmentRef[] | string) => (typeof r === "string" ? r : r.map((a) => a.name));

describe("nextAttachments", () => {
  const current = [ref("a"), ref("b"), ref("c")];
  it("keeps every file when an update has neither uploads nor operations", () => {
    expect(names(nextAttachments(current, [], undefined))).toEqual(["a", "b", "c"]);
  });
  it("with operations: retained and renamed files stay (renamed keep their bytes), the rest go", () => {
    const out = nextAttachments(current, [], { rename: { a: "z" }, retain: ["b"] }) as AttachmentRef[];
    expect(names(out)).toEqual(["b", "z"]);
    expect(out.find((a) => a.name === "z")!.sha256).toBe(current[0]!.sha256);
  });
  it("uploads only: existing files not retained are dropped (LangSmith's rule); an upload wins over a rename to its name", () => {
    expect(names(nextAttachments(current, [ref("d")], undefined))).toEqual(["d"]);
    const out = nextAttachments(current, [ref("z", "f".repeat(64))], { rename: { a: "z" }, retain: [] }) as AttachmentRef[];
    expect(out).toEqual([ref("z", "f".repeat(64))]);
  });
  it("naming a file the example lacks, or two files one name, is an error", () => {
    expect(nextAttachments(current, [], { rename: {}, retain: ["x"] })).toMatch(/no attachment named "x"/);
    expect(nextAttachments(current, [], { rename: { a: "b" }, retain: ["b"] })).toMatch(/two attachments would be named "b"/);
  });
});

describe("attachment parts", () => {
  it("reads `mime; length=N`, refusing lengths that lie or exceed the limit", () => {
    const ok = readAttachmentPart("pic", "image/png; length=3", Buffer.from("abc"), 10);
    expect(ok).toMatchObject({ upload: { name: "pic", mime_type: "image/png", size: 3, sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad" } });
    expect(readAttachmentPart("pic", "image/png; length=4", Buffer.from("abc"), 10)).toMatchObject({ issue: { msg: expect.stringMatching(/declared length=4/) } });
    expect(readAttachmentPart("pic", "image/png; length=11", Buffer.from("abc"), 10)).toHaveProperty("tooLarge");
    expect(readAttachmentPart("pic", "image/png", Buffer.alloc(11), 10)).toHaveProperty("tooLarge");
    expect(readAttachmentPart("a/b", "image/png", Buffer.from("abc"), 10)).toHaveProperty("issue");
  });
  it("parses attachments_operations", () => {
    expect(parseAttachmentsOperations({ rename: { a: "b" } })).toEqual({ rename: { a: "b" }, retain: [] });
    expect(parseAttachmentsOperations({ retain: "a" })).toMatch(/retain/);
    expect(parseAttachmentsOperations({ rename: { a: 1 } })).toMatch(/rename\.a/);
    expect(parseAttachmentsOperations({ drop: [] })).toMatch(/unknown keys/);
  });
});

describe("signed links", () => {
  const key = Buffer.alloc(32, 7);
  const blob = { tenant: "t", sha256: "s", mime_type: "image/png", expires: 1000 };
  it("verifies genuine, unexpired links only", () => {
    const sig = signBlob(key, blob);
    expect(verifyBlob(key, blob, sig, 999)).toBe("ok");
    expect(verifyBlob(key, blob, sig, 1000)).toBe("expired");
    expect(verifyBlob(key, { ...blob, expires: 5000 }, sig, 999)).toBe("bad-signature");
    expect(verifyBlob(key, { ...blob, mime_type: "text/html" }, sig, 999)).toBe("bad-signature");
    expect(verifyBlob(Buffer.alloc(32, 8), blob, sig, 999)).toBe("bad-signature");
    expect(verifyBlob(key, blob, "short", 999)).toBe("bad-signature");
  });
});

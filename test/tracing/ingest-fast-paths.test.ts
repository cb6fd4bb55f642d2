/**
 * The ingest's shortcuts for the common case must store exactly what the full path stores: runs
 * sent as plain multipart (as the SDKs do) to a server with small payload limits, with strings right
 * at and one past each limit, and the adversarial cases (unstorable characters, deep nesting, huge
 * numbers) next to them, so a shortcut taken one value too early or too late shows.
 */
import { randomUUID } from "node:crypto";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const MAX_STRING = 1024; // the smallest limits the settings allow
const MEDIA = 64;

/** multipart/form-data with JSON parts as files, the way the JS SDK sends them. */
function multipart(parts: [string, unknown][]): FormData {
  const form = new FormData();
  for (const [name, value] of parts) form.append(name, new Blob([typeof value === "string" ? value : JSON.stringify(value)], { type: "application/json" }), name);
  return form;
}

describeBackends("tracing ingest shortcuts store what the full path stores", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s), { maxStringBytes: MAX_STRING, mediaThresholdBytes: MEDIA });
  const project = `fast-${backend}-${randomUUID().slice(0, 6)}`;
  const send = async (form: FormData) => {
    const res = await fetch(`${server.url}/runs/multipart`, { method: "POST", body: form, headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
    return { status: res.status, body: (await res.json()) as { accepted: number; warnings: { run_id: string; problems: string[] }[] } };
  };
  const run = (extra: Record<string, unknown> = {}) => {
    const id = randomUUID();
    return { id, trace_id: id, name: "r", run_type: "chain", session_name: project, start_time: new Date().toISOString(), ...extra };
  };
  const stored = async (id: string) => (await server.api(`/runs/${id}`)).body;

  it("a payload string exactly at the length limit is kept; one character more is cut, in posts and patches, at any depth", async () => {
    const at = "a".repeat(MAX_STRING);
    const over = "b".repeat(MAX_STRING + 1);
    const [keep, cutPost, cutPatch] = [run(), run(), run()];
    const res = await send(
      multipart([
        [`post.${keep.id}`, keep],
        [`post.${keep.id}.inputs`, { deep: [[{ s: at }]] }],
        [`post.${cutPost.id}`, cutPost],
        [`post.${cutPost.id}.inputs`, { deep: [[{ s: over }]] }],
        [`post.${cutPatch.id}`, cutPatch],
        [`post.${cutPatch.id}.inputs`, { short: "s" }],
        [`patch.${cutPatch.id}`, { id: cutPatch.id, trace_id: cutPatch.id, end_time: new Date().toISOString() }],
        [`patch.${cutPatch.id}.outputs`, { list: ["x", over] }],
      ]),
    );
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(3);
    expect((await stored(keep.id)).inputs).toEqual({ deep: [[{ s: at }]] });
    const cut = `${"b".repeat(MAX_STRING)}…[truncated by Berth: ${MAX_STRING + 1} bytes in total]`;
    expect((await stored(cutPost.id)).inputs).toEqual({ deep: [[{ s: cut }]] });
    const patched = await stored(cutPatch.id);
    expect(patched.outputs).toEqual({ list: ["x", cut] });
    expect(patched.inputs).toEqual({ short: "s" });
    expect(res.body.warnings.map((w) => w.run_id).sort()).toEqual([cutPost.id, cutPatch.id].sort());
  });

  it("base64 media one character past the threshold becomes an attachment; at the threshold it stays inline", async () => {
    const b64 = (n: number) => "QUJD".repeat(Math.ceil(n / 4)).slice(0, n);
    const [inline, moved] = [run(), run()];
    const res = await send(
      multipart([
        [`post.${inline.id}`, inline],
        [`post.${inline.id}.inputs`, { image: { data: b64(MEDIA), mime_type: "image/png" } }],
        [`post.${moved.id}`, moved],
        [`post.${moved.id}.inputs`, { image: { data: b64(MEDIA + 4), mime_type: "image/png" } }],
      ]),
    );
    expect(res.status).toBe(202);
    const kept = await stored(inline.id);
    expect(kept.inputs).toEqual({ image: { data: b64(MEDIA), mime_type: "image/png" } });
    expect(kept.attachments ?? []).toHaveLength(0);
    const extracted = await stored(moved.id);
    expect(extracted.inputs.image.data).toMatch(/^attachment:\/\/sha256-/);
    expect(extracted.attachments).toHaveLength(1);
    expect(extracted.attachments[0]).toMatchObject({ content_type: "image/png" });
  });

  it("a long string outside the payloads (the run's name) does not stop the payload checks, nor is it cut", async () => {
    const r = run({ name: "n".repeat(MAX_STRING * 3) });
    const res = await send(multipart([[`post.${r.id}`, r], [`post.${r.id}.outputs`, { a: "c".repeat(MAX_STRING + 5), b: "ok" }]]));
    expect(res.status).toBe(202);
    const s = await stored(r.id);
    expect(s.name).toBe("n".repeat(MAX_STRING * 3));
    expect(s.outputs.a).toBe(`${"c".repeat(MAX_STRING)}…[truncated by Berth: ${MAX_STRING + 5} bytes in total]`);
    expect(s.outputs.b).toBe("ok");
  });

  it("adversarial payloads next to long strings: NUL and lone surrogates (escaped, in keys and values), deep nesting, huge numbers", async () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 150; i++) deep = [deep];
    const [bad, nested, huge] = [run(), run(), run()];
    const over = "d".repeat(MAX_STRING + 1);
    const res = await send(
      multipart([
        [`post.${bad.id}`, bad],
        [`post.${bad.id}.inputs`, `{"k\\u0000": "a\\ud800b", "long": "${over}", "ok": "\\ud83d\\ude00"}`],
        [`post.${nested.id}`, nested],
        [`post.${nested.id}.inputs`, { deep }],
        [`post.${huge.id}`, huge],
        [`post.${huge.id}.inputs`, `{"n": 123456789012345678901234567890, "e": 1e400, "s": "${over}"}`],
      ]),
    );
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(3);
    const b = await stored(bad.id);
    expect(b.inputs).toEqual({ "k\uFFFD": "a\uFFFDb", long: `${"d".repeat(MAX_STRING)}…[truncated by Berth: ${MAX_STRING + 1} bytes in total]`, ok: "😀" });
    let depth = 0;
    for (let v: unknown = (await stored(nested.id)).inputs.deep; Array.isArray(v); v = v[0]) depth++;
    expect(depth).toBeLessThan(100);
    const h = await stored(huge.id);
    expect(h.inputs.e).toBeNull();
    expect(h.inputs.s).toBe(`${"d".repeat(MAX_STRING)}…[truncated by Berth: ${MAX_STRING + 1} bytes in total]`);
  });
  it("extra sent alike with a post and its patch is stored as sent (an integer past double precision stays exact); different ones still unite their metadata", async () => {
    const [same, differ] = [run(), run()];
    const extra = '{"metadata": {"big": 12345678901234567890, "thread_id": "t-1"}, "runtime": {"sdk": "langsmith-js"}}';
    const end = (id: string) => ({ id, trace_id: id, end_time: new Date().toISOString() });
    const res = await send(
      multipart([
        [`post.${same.id}`, same],
        [`post.${same.id}.extra`, extra],
        [`patch.${same.id}`, end(same.id)],
        [`patch.${same.id}.extra`, extra],
        [`post.${differ.id}`, differ],
        [`post.${differ.id}.extra`, { metadata: { a: 1, both: "post" } }],
        [`patch.${differ.id}`, end(differ.id)],
        [`patch.${differ.id}.extra`, { metadata: { b: 2, both: "patch" } }],
      ]),
    );
    expect(res.status).toBe(202);
    expect((await stored(same.id)).status).toBe("success");
    const pool = server.handle.facility.pool;
    const text = (await pool.query("SELECT extra::text AS t FROM tracing_runs WHERE id = $1", [same.id])).rows[0]!.t as string;
    expect(text).toContain('"big": 12345678901234567890');
    expect((await stored(same.id)).extra.metadata.thread_id).toBe("t-1");
    expect((await stored(differ.id)).extra.metadata).toMatchObject({ a: 1, b: 2, both: "patch" });
  });
  it("runs sent with the same extra text (parsed once, shared) each keep their own: a patch uniting other metadata into one changes none of the others", async () => {
    const [a, b, c] = [run(), run(), run()];
    const extra = '{"metadata": {"thread_id": "shared", "n": 1}, "runtime": {"sdk": "langsmith-js"}}';
    const end = (id: string) => ({ id, trace_id: id, end_time: new Date().toISOString() });
    const res = await send(
      multipart([
        ...[a, b, c].flatMap((r): [string, unknown][] => [
          [`post.${r.id}`, r],
          [`post.${r.id}.extra`, extra],
        ]),
        [`patch.${a.id}`, end(a.id)],
        [`patch.${a.id}.extra`, { metadata: { thread_id: "a-own", n: 2 } }],
        [`patch.${b.id}`, end(b.id)],
        [`patch.${b.id}.extra`, extra],
      ]),
    );
    expect(res.status).toBe(202);
    expect((await stored(a.id)).extra.metadata).toEqual({ thread_id: "a-own", n: 2 });
    for (const r of [b, c]) expect((await stored(r.id)).extra).toEqual({ metadata: { thread_id: "shared", n: 1 }, runtime: { sdk: "langsmith-js" } });
    expect((await stored(b.id)).status).toBe("success");
    // what the merge reads from the objects (not only the text it writes back) is each run's own
    const pool = server.handle.facility.pool;
    const threads = await pool.query<{ id: string; thread_id: string }>("SELECT id, thread_id FROM tracing_runs WHERE id = ANY($1::uuid[])", [[a.id, b.id, c.id]]);
    expect(Object.fromEntries(threads.rows.map((r) => [r.id, r.thread_id]))).toEqual({ [a.id]: "a-own", [b.id]: "shared", [c.id]: "shared" });
  });
  it("gzip bodies: small ones, one inflating past 2 MiB (within the limit), corrupt, truncated and a bomb, on both ingest routes", async () => {
    const gz = async (path: string, body: Buffer, type: string) => {
      const res = await fetch(`${server.url}${path}`, { method: "POST", body, headers: { "content-type": type, "content-encoding": "gzip", ...(server.apiKey ? { "x-api-key": server.apiKey } : {}) } });
      return { status: res.status, body: (await res.json()) as { accepted?: number; detail?: string } };
    };
    const asMultipart = async (form: FormData) => {
      const req = new Request("http://x/", { method: "POST", body: form });
      return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get("content-type")! };
    };
    const small = run();
    const m = await asMultipart(multipart([[`post.${small.id}`, small], [`post.${small.id}.inputs`, { q: "hi" }]]));
    expect((await gz("/runs/multipart", gzipSync(m.body), m.type)).status).toBe(202);
    expect((await stored(small.id)).inputs).toEqual({ q: "hi" });

    const big = run();
    const list = Array.from({ length: 250_000 }, (_, i) => `item-${i % 10}`); // ~2.5 MiB of JSON, a few KB gzipped
    const b = await asMultipart(multipart([[`post.${big.id}`, big], [`post.${big.id}.inputs`, { list }]]));
    expect(b.body.length).toBeGreaterThan(2 * 1024 * 1024);
    const bigGz = gzipSync(b.body);
    expect(bigGz.length).toBeLessThan(64 * 1024);
    expect((await gz("/runs/multipart", bigGz, b.type)).status).toBe(202);
    expect((await stored(big.id)).status).toBe("pending");
    const pool = server.handle.facility.pool;
    expect((await pool.query("SELECT jsonb_array_length(inputs->'list') AS n FROM tracing_runs WHERE id = $1", [big.id])).rows[0]!.n).toBe(250_000);

    const batchRun = run({ end_time: new Date().toISOString() });
    expect((await gz("/runs/batch", gzipSync(JSON.stringify({ post: [batchRun] })), "application/json")).status).toBe(202);
    expect((await stored(batchRun.id)).status).toBe("success");

    const valid = gzipSync(m.body);
    const corrupt = Buffer.concat([valid.subarray(0, 10), Buffer.alloc(200, 0xab)]);
    const truncated = valid.subarray(0, Math.floor(valid.length / 2));
    for (const [path, body, type] of [["/runs/multipart", corrupt, m.type], ["/runs/multipart", truncated, m.type], ["/runs/batch", corrupt, "application/json"], ["/runs/batch", truncated, "application/json"]] as const) {
      const res = await gz(path, body, type);
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/decompress/);
    }
    // 65 MiB of spaces: about 64 KB as sent, over the 64 MiB limit once inflated
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, 32));
    for (const [path, type] of [["/runs/multipart", m.type], ["/runs/batch", "application/json"]] as const) expect((await gz(path, bomb, type)).status).toBe(413);
  });
  it("deflate and brotli bodies (what /info's gzip flag lets through as well) are read the same way; corrupt ones answer 400", async () => {
    const send = async (body: Buffer, type: string, encoding: string) => {
      const res = await fetch(`${server.url}/runs/multipart`, { method: "POST", body, headers: { "content-type": type, "content-encoding": encoding, ...(server.apiKey ? { "x-api-key": server.apiKey } : {}) } });
      return res.status;
    };
    for (const [encoding, compress] of [["deflate", deflateSync], ["br", brotliCompressSync]] as const) {
      const r = run();
      const req = new Request("http://x/", { method: "POST", body: multipart([[`post.${r.id}`, r], [`post.${r.id}.inputs`, { via: encoding }]]) });
      const body = Buffer.from(await req.arrayBuffer());
      const type = req.headers.get("content-type")!;
      expect(await send(compress(body), type, encoding)).toBe(202);
      expect((await stored(r.id)).inputs).toEqual({ via: encoding });
      expect(await send(Buffer.concat([compress(body).subarray(0, 4), Buffer.alloc(64, 0x5a)]), type, encoding)).toBe(400);
    }
  });
});

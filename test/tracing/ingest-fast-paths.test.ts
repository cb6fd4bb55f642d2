/**
 * The ingest's shortcuts for the common case must store exactly what the full path stores: runs
 * sent as plain multipart (as the SDKs do) to a server with small payload limits, with strings right
 * at and one past each limit, and the adversarial cases (unstorable characters, deep nesting, huge
 * numbers) next to them, so a shortcut taken one value too early or too late shows.
 */
import { randomUUID } from "node:crypto";
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
});

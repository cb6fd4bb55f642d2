/**
 * The ingestion endpoints on the wire, with payloads shaped like the Python SDK's (ISO "+00:00"
 * timestamps, multipart fields, zstd off) and the awkward cases: out-of-order patches,
 * duplicates, bad runs in a batch, huge payloads, overload and auth.
 */
import { randomUUID } from "node:crypto";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { describeBackends, eventually } from "../helpers/server.js";
import { startTracingTestServer, tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const MiB = 1024 * 1024;

/** A Python-SDK-style timestamp: ISO with microseconds and "+00:00". */
const pyTime = (ms: number) => new Date(ms).toISOString().replace("Z", "000+00:00");
const dotted = (ms: number, id: string) => `${new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.(\d{3})Z$/, "$1000Z")}${id}`;

function pyRun(project: string, overrides: Record<string, unknown> = {}) {
  const id = randomUUID();
  const start = Date.now() - 5000;
  return {
    id,
    trace_id: id,
    dotted_order: dotted(start, id),
    name: "ChatOpenAI",
    run_type: "llm",
    start_time: pyTime(start),
    session_name: project,
    inputs: { messages: [{ role: "user", content: "Hi" }] },
    extra: { metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" }, runtime: { sdk: "langsmith-py", sdk_version: "0.4.0" } },
    ...overrides,
  };
}

/** multipart/form-data the way the Python SDK builds it: JSON parts as fields, no filenames. */
function multipart(parts: [string, unknown, string?][]): FormData {
  const form = new FormData();
  for (const [name, value, type] of parts) {
    form.append(name, new Blob([typeof value === "string" ? value : JSON.stringify(value)], { type: type ?? "application/json" }));
  }
  return form;
}

async function send(server: TracingTestServer, path: string, body: RequestInit["body"], headers: Record<string, string> = {}, method = "POST") {
  const res = await fetch(`${server.url}${path}`, { method, body, headers: { ...(server.apiKey ? { "x-api-key": server.apiKey } : {}), ...headers } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

describeBackends("tracing ingestion on the wire", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const project = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
  const runOf = async (id: string) => (await server.api(`/runs/${id}`)).body;

  it("GET /info advertises batching limits ≥ 25 MB and gzip, without a key", async () => {
    const res = await fetch(`${server.url}/info`);
    expect(res.status).toBe(200);
    const info: any = await res.json();
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.batch_ingest_config).toMatchObject({ use_multipart_endpoint: true, size_limit: expect.any(Number) });
    expect(info.batch_ingest_config.size_limit_bytes).toBeGreaterThanOrEqual(25 * MiB);
    expect(info.instance_flags).toMatchObject({ gzip_body_enabled: true, zstd_compression_enabled: false });
  });

  it("stores a Python-shaped post and a later patch as one run", async () => {
    const name = project("py");
    const run = pyRun(name);
    expect((await send(server, "/runs/multipart", multipart([[`post.${run.id}`, { ...run, inputs: undefined }], [`post.${run.id}.inputs`, run.inputs]]))).status).toBe(202);
    expect(await runOf(run.id)).toMatchObject({ status: "pending", end_time: null });
    const end = { id: run.id, trace_id: run.id, dotted_order: run.dotted_order, end_time: pyTime(Date.now()) };
    const outputs = { choices: [{ message: { role: "assistant", content: "Hello" } }], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } };
    expect((await send(server, "/runs/multipart", multipart([[`patch.${run.id}`, end], [`patch.${run.id}.outputs`, outputs]]))).status).toBe(202);
    const stored = await runOf(run.id);
    expect(stored).toMatchObject({ status: "success", inputs: run.inputs, outputs, usage: { input_tokens: 9, output_tokens: 2, estimated: false } });
    expect(stored.messages.messages.map((m: any) => m.role)).toEqual(["user", "assistant"]);
    expect(Date.parse(stored.start_time)).toBe(Date.parse(run.start_time));
  });

  it("merges a patch that arrives before its post, and ignores duplicates", async () => {
    const name = project("ooo");
    const run = pyRun(name);
    const patch = { id: run.id, trace_id: run.id, dotted_order: run.dotted_order, end_time: Date.now(), outputs: { message: { role: "assistant", content: "late" } } };
    expect((await send(server, "/runs/batch", JSON.stringify({ patch: [patch] }), { "content-type": "application/json" })).status).toBe(202);
    // until the post arrives, the start is what dotted_order encodes (to the millisecond here)
    const early = await runOf(run.id);
    expect(early.status).toBe("success");
    expect(Math.abs(Date.parse(early.start_time) - Date.parse(run.start_time))).toBeLessThan(1);
    for (let i = 0; i < 3; i++) {
      expect((await send(server, "/runs/batch", JSON.stringify({ post: [run] }), { "content-type": "application/json" })).status).toBe(202);
    }
    expect((await send(server, "/runs/batch", JSON.stringify({ patch: [patch] }), { "content-type": "application/json" })).status).toBe(202);
    const stored = await runOf(run.id);
    expect(stored).toMatchObject({ status: "success", outputs: patch.outputs, inputs: run.inputs });
    expect(stored.start_time).toBe(new Date(run.start_time).toISOString()); // the post's own start replaced the derived one
    const projects = (await server.api(`/projects?name=${name}`)).body.projects;
    expect(projects[0].stats).toMatchObject({ trace_count: 1, run_count: 1, llm_count: 1 });
  });

  it("creates a new project once when many requests name it at the same moment", async () => {
    const name = project("race");
    for (let round = 0; round < 3; round++) {
      const runs = Array.from({ length: 12 }, () => pyRun(`${name}-${round}`, { end_time: pyTime(Date.now()) }));
      const answers = await Promise.all(runs.map((r) => send(server, "/runs/batch", JSON.stringify({ post: [r] }), { "content-type": "application/json" })));
      expect(answers.map((a) => a.status)).toEqual(runs.map(() => 202));
      expect((await server.api(`/projects?name=${name}-${round}`)).body.projects[0].stats.run_count).toBe(12);
    }
  });

  it("stores the good runs of a batch and reports the bad one (2xx)", async () => {
    const name = project("mixed");
    const good = pyRun(name, { end_time: pyTime(Date.now()) });
    const res = await send(server, "/runs/batch", JSON.stringify({ post: [good, { id: "not-a-uuid", name: "bad" }, 42] }), { "content-type": "application/json" });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(1);
    expect(res.body.errors).toHaveLength(2);
    expect(res.body.errors[0]).toMatchObject({ run_id: "not-a-uuid", error: expect.stringContaining("UUID") });
    expect((await runOf(good.id)).status).toBe("success");
  });

  it("answers 422 in the documented shape when nothing in the request is usable", async () => {
    const res = await send(server, "/runs/batch", JSON.stringify({ post: [{ name: "no id" }] }), { "content-type": "application/json" });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ loc: ["body"], msg: expect.stringContaining("UUID"), type: "invalid_run" }]);
  });

  it("rejects unusable requests with a clear 4xx, never a 500", async () => {
    const json = { "content-type": "application/json" };
    expect((await send(server, "/runs/batch", "{not json", json)).status).toBe(400);
    expect((await send(server, "/runs/batch", JSON.stringify({ post: "x" }), json)).status).toBe(422);
    expect((await send(server, "/runs", "", json)).status).toBe(400);
    expect((await send(server, "/runs/not-a-uuid", JSON.stringify({}), json, "PATCH")).status).toBe(422);
    expect((await send(server, "/runs/multipart", "plain", { "content-type": "text/plain" })).status).toBe(415);
    expect((await send(server, "/runs/multipart", "garbage", { "content-type": "multipart/form-data; boundary=x" })).status).toBeLessThan(500);
    const zstd = await send(server, "/runs/batch", "abc", { ...json, "content-encoding": "zstd" });
    expect(zstd.status).toBe(415);
    expect(zstd.body.detail).toMatch(/gzip/);
    const badGzip = await send(server, "/runs/batch", "not gzip at all", { ...json, "content-encoding": "gzip" });
    expect(badGzip.status).toBe(400);
  });

  it("accepts gzip bodies (what /info advertises)", async () => {
    const name = project("gzip");
    const run = pyRun(name, { end_time: pyTime(Date.now()) });
    const form = multipart([[`post.${run.id}`, run]]);
    const req = new Request("http://x", { method: "POST", body: form });
    const raw = Buffer.from(await req.arrayBuffer());
    const res = await send(server, "/runs/multipart", gzipSync(raw), { "content-type": req.headers.get("content-type")!, "content-encoding": "gzip" });
    expect(res.status).toBe(202);
    expect((await runOf(run.id)).name).toBe("ChatOpenAI");
  });

  it("keeps a 30 MB run with base64 images: media move to attachments, oversized text is cut with a marker", async () => {
    const name = project("big");
    const image = (fill: number) => `data:image/jpeg;base64,${Buffer.alloc(7 * MiB, fill).toString("base64")}`; // ~9.3 MB each
    const longText = "y".repeat(2 * MiB);
    const run = pyRun(name, {
      end_time: pyTime(Date.now()),
      inputs: {
        messages: [
          { role: "user", content: [{ type: "text", text: longText }, ...[1, 2, 3].map((f) => ({ type: "image_url", image_url: { url: image(f) } }))] },
        ],
      },
    });
    const form = multipart([[`post.${run.id}`, run]]);
    const res = await send(server, "/runs/multipart", form);
    expect(res.status).toBe(202);
    expect(res.body.warnings).toEqual([{ run_id: run.id, problems: [expect.stringContaining("truncated")] }]);
    const stored = await runOf(run.id);
    expect(stored.attachments).toHaveLength(3);
    expect(stored.attachments.every((a: any) => a.content_type === "image/jpeg" && a.size === 7 * MiB)).toBe(true);
    const text: string = stored.inputs.messages[0].content[0].text;
    expect(text.length).toBeLessThan(longText.length);
    expect(text).toMatch(/truncated by Berth: 2097152 bytes in total\]$/);
    expect(stored.messages.messages[0].content.filter((b: any) => b.type === "image")).toHaveLength(3);
  });

  it("stores a multipart payload part as sent: integers past double precision exact; what jsonb cannot hold is still cleaned first", async () => {
    const name = project("as-sent");
    const [exact, huge, nul] = [pyRun(name), pyRun(name), pyRun(name)];
    const form = multipart([
      [`post.${exact.id}`, exact],
      [`post.${exact.id}.inputs`, '{"big": 12345678901234567890, "nested": {"list": [1, 2.50, "three"]}}'],
      [`post.${huge.id}`, huge],
      [`post.${huge.id}.inputs`, '{"x": 1e400}'],
      [`post.${nul.id}`, nul],
      [`post.${nul.id}.inputs`, '{"s": "a\\u0000b"}'],
    ]);
    const res = await send(server, "/runs/multipart", form);
    expect(res.status).toBe(202);
    await eventually(async () => (await server.api(`/runs/${nul.id}`)).status === 200);
    const pool = server.handle.facility.pool;
    const stored = async (id: string) => (await pool.query("SELECT inputs::text AS t FROM tracing_runs WHERE id = $1", [id])).rows[0]?.t as string;
    // JSON.parse reads 12345678901234567890 as 12345678901234567000: the part's text keeps it
    expect(JSON.parse((await stored(exact.id)).replace(/"big": (\d+)/, '"big": "$1"'))).toEqual({ big: "12345678901234567890", nested: { list: [1, 2.5, "three"] } });
    expect(await stored(huge.id)).toBe('{"x": null}'); // JSON.parse's Infinity, as before: not a numeric jsonb refuses
    expect(JSON.parse(await stored(nul.id))).toEqual({ s: "a\uFFFDb" });
  });

  it("refuses a body over the limit with 413", async () => {
    const res = await send(server, "/runs/batch", Buffer.alloc(65 * MiB, 32), { "content-type": "application/json" });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/limit/);
  });

  it("refuses a gzip body that is small as sent but over the limit uncompressed with 413", async () => {
    // 65 MiB of spaces compresses to about 64 KB: the limit is on what it becomes
    const res = await send(server, "/runs/batch", gzipSync(Buffer.alloc(65 * MiB, 32)), { "content-type": "application/json", "content-encoding": "gzip" });
    expect(res.status).toBe(413);
    expect(res.body.detail).toMatch(/limit/);
  });

  it("reads epoch-millisecond and zone-less timestamps and derives the tree from dotted_order", async () => {
    const name = project("times");
    const root = pyRun(name, { run_type: "chain", name: "root" });
    const childId = randomUUID();
    const start = Date.now() - 3000;
    const child = {
      id: childId,
      dotted_order: `${root.dotted_order}.${dotted(start, childId)}`,
      name: "child",
      run_type: "tool",
      start_time: new Date(start).toISOString().replace("Z", ""),
      end_time: start + 1500,
      session_name: name,
    };
    expect((await send(server, "/runs/batch", JSON.stringify({ post: [root, child] }), { "content-type": "application/json" })).status).toBe(202);
    const stored = await runOf(childId);
    expect(stored).toMatchObject({ trace_id: root.id, parent_run_id: root.id, latency_ms: 1500, status: "success" });
    expect(Date.parse(stored.start_time)).toBe(start);
  });
});

describeBackends("tracing auth and admission", (backend) => {
  it("requires a key unless in loopback-open mode; X-Tenant-Id must be one the key may use", async () => {
    const server = await startTracingTestServer(backend, { authMode: "required", apiKey: "a-key-for-this-test-only-123" });
    try {
      const get = (headers: Record<string, string>) => fetch(`${server.url}/projects`, { headers });
      expect((await get({})).status).toBe(401);
      expect((await get({ "x-api-key": "wrong-key" })).status).toBe(401);
      expect((await get({ "x-api-key": "a-key-for-this-test-only-123" })).status).toBe(200);
      expect((await get({ authorization: "Bearer a-key-for-this-test-only-123" })).status).toBe(200);
      const other = await get({ "x-api-key": "a-key-for-this-test-only-123", "x-tenant-id": randomUUID() });
      expect(other.status).toBe(403);
      expect((await fetch(`${server.url}/info`)).status).toBe(200);
    } finally {
      await server.close();
    }
    const open = await startTracingTestServer(backend, { authMode: "loopback-open", apiKey: undefined });
    try {
      expect((await fetch(`${open.url}/projects`)).status).toBe(200);
      // a forwarded request is not local, whatever socket it came in on
      expect((await fetch(`${open.url}/projects`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(401);
    } finally {
      await open.close();
    }
  });

  it("answers 429 with Retry-After past the concurrent ingest limit, and then accepts", async () => {
    const server = await startTracingTestServer(backend, { maxConcurrentIngests: 1 });
    try {
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const run = pyRun("busy", { end_time: pyTime(Date.now()) });
      const body = new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode(`{"post": [${JSON.stringify(run)}`));
          await gate;
          controller.enqueue(new TextEncoder().encode("]}"));
          controller.close();
        },
      });
      const slow = fetch(`${server.url}/runs/batch`, {
        method: "POST",
        body,
        duplex: "half",
        headers: { "content-type": "application/json", ...(server.apiKey ? { "x-api-key": server.apiKey } : {}) },
      } as RequestInit);
      // once the held request is admitted, the next one is turned away (an empty batch changes nothing
      // if it gets in first: the held request had not reached the server yet)
      const busy = await eventually(async () => {
        const res = await send(server, "/runs/batch", JSON.stringify({ post: [] }), { "content-type": "application/json" });
        return res.status === 429 && res;
      }, 30_000);
      expect(busy.headers.get("retry-after")).toBe("1");
      release();
      expect((await slow).status).toBe(202);
      expect((await server.api(`/runs/${run.id}`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

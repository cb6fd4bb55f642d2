/**
 * Runs Postgres cannot take as sent (issue 13 items 11, 12): NUL and lone surrogates anywhere,
 * token counts beyond bigint, ten thousand levels of nesting, a year-33658 end time, a 12 kB
 * thread id. Each is stored as well as it can be with a warning — and a bad run in a batch never
 * costs the good ones, which are readable afterwards.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

/** `JSON.stringify` itself overflows at this depth: deep values travel as a marker replaced in the text. */
const DEEP = "__deep_10000__";
const deepJson = (levels: number) => '{"d":'.repeat(levels) + '"bottom"' + "}".repeat(levels);
const toJson = (v: unknown) => JSON.stringify(v).replaceAll(`"${DEEP}"`, deepJson(10_000));
const now = () => new Date().toISOString();
const randomText = (n: number) => randomBytes(n).toString("base64").slice(0, n);

describeBackends("tracing ingest: bad input", (backend) => {
  let s: TracingTestServer;
  tracingServerForSuite(backend, (x) => (s = x));

  const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${s.url}${path}`, { method: "POST", headers: { "content-type": "application/json", ...(s.apiKey ? { "x-api-key": s.apiKey } : {}), ...headers }, body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const run = async (id: string) => s.api(`/runs/${id}`);

  const good = () => ({ id: randomUUID(), name: "good", run_type: "chain", start_time: now(), inputs: { q: "fine" } });
  const bad: Record<string, () => Record<string, unknown>> = {
    "NUL and lone surrogates in every kind of field": () => ({
      id: randomUUID(),
      name: "n\u0000ame\ud800",
      run_type: "chain",
      start_time: now(),
      error: "boom\u0000",
      tags: ["t\u0000", "\udc00"],
      session_name: "proj\u0000ect",
      inputs: { "k\u0000ey": "v\u0000alue", lone: "\ud800x" },
      extra: { metadata: { thread_id: "th\u0000read" } },
    }),
    "token counts beyond bigint": () => ({
      id: randomUUID(),
      name: "llm",
      run_type: "llm",
      start_time: now(),
      end_time: now(),
      outputs: { usage_metadata: { input_tokens: 2 ** 64, output_tokens: 1e300, total_tokens: 2 ** 70 } },
      extra: { metadata: { ls_model_name: "gpt-4o", ls_provider: "openai" } },
    }),
    "ten thousand levels of nesting": () => ({ id: randomUUID(), name: "deep", run_type: "chain", start_time: now(), inputs: { deep: DEEP }, events: [{ name: "e", kwargs: DEEP }] }),
    "an end time in the year 33658": () => ({ id: randomUUID(), name: "late", run_type: "chain", start_time: now(), end_time: 1e15 }),
    "a 12 kB thread id": () => ({ id: randomUUID(), name: "long", run_type: "chain", start_time: now(), extra: { metadata: { thread_id: "t".repeat(12_000) } } }),
    // random, so Postgres cannot compress the index entry below its limit
    "a 12 kB random project name and model": () => ({ id: randomUUID(), name: "proj", run_type: "llm", start_time: now(), session_name: randomText(12_000), extra: { metadata: { ls_model_name: randomText(12_000), thread_id: randomText(12_000) } } }),
  };

  for (const [what, make] of Object.entries(bad)) {
    it(`stores a run with ${what} next to a good one, with a warning`, async () => {
      const ok = good();
      const odd = make();
      const res = await post("/runs/batch", toJson({ post: [odd, ok] }));
      expect(res.status).toBe(202);
      expect(res.body.errors).toEqual([]);
      expect(res.body.warnings.find((w: any) => w.run_id === odd.id)?.problems.length).toBeGreaterThan(0);
      expect((await run(ok.id)).body).toMatchObject({ id: ok.id, name: "good", inputs: { q: "fine" } });
      const stored = await run(odd.id as string);
      expect(stored.status).toBe(200);
      expect(JSON.stringify(stored.body)).not.toMatch(/\\u0000|\\ud800|\\udc00/);
    });
  }

  it("keeps what can be kept of each odd field", async () => {
    const nul = bad["NUL and lone surrogates in every kind of field"]!();
    const late = bad["an end time in the year 33658"]!();
    const long = bad["a 12 kB thread id"]!();
    const deep = bad["ten thousand levels of nesting"]!();
    const llm = bad["token counts beyond bigint"]!();
    const res = await post("/runs/batch", toJson({ post: [nul, late, long, deep, llm] }));
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(5);
    expect((await run(nul.id as string)).body).toMatchObject({ name: "n\uFFFDame\uFFFD", error: "boom\uFFFD", inputs: { "k\uFFFDey": "v\uFFFDalue", lone: "\uFFFDx" } });
    const l = (await run(late.id as string)).body;
    expect(l.end_time).toBeNull();
    expect(l.problems.join(" ")).toMatch(/end_time/);
    const t = (await run(long.id as string)).body;
    expect(t.thread_id).toBe("t".repeat(512));
    expect(t.extra.metadata.thread_id).toHaveLength(12_000); // the payload keeps it whole
    const d = (await run(deep.id as string)).body;
    expect(JSON.stringify(d.inputs)).toMatch(/cut by Berth: nested deeper than 100 levels/);
    const m = (await run(llm.id as string)).body;
    expect(m.total_tokens).toBeNull();
    expect(m.problems.join(" ")).toMatch(/total_tokens/);
  });

  it("stores the rest of a multipart batch when one run is bad", async () => {
    const ok = good();
    const odd = { id: randomUUID(), name: "x\u0000", run_type: "chain", start_time: now(), end_time: 1e15 };
    const boundary = "----berthfuzz";
    const part = (name: string, value: string) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\n\r\n${value}\r\n`;
    const body =
      part(`post.${odd.id}`, JSON.stringify(odd)) +
      part(`post.${odd.id}.inputs`, toJson({ v: DEEP })) +
      part(`post.${ok.id}`, JSON.stringify(ok)) +
      `--${boundary}\r\nContent-Disposition: form-data; name="attachment.not-a-uuid.file"\r\nContent-Type: text/plain\r\n\r\nhi\r\n` +
      `--${boundary}--\r\n`;
    const res = await post("/runs/multipart", body, { "content-type": `multipart/form-data; boundary=${boundary}` });
    expect(res.status).toBe(202);
    expect(res.body.errors.map((e: any) => e.error).join(" ")).toMatch(/not a UUID/);
    expect((await run(ok.id)).body).toMatchObject({ id: ok.id, inputs: { q: "fine" } });
    expect((await run(odd.id)).body).toMatchObject({ id: odd.id, name: "x\uFFFD", end_time: null });
  });
});

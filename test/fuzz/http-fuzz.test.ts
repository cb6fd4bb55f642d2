/**
 * HTTP fuzz across every component that takes client input: the control plane, the agent server
 * (threads, assistants, runs, store), A2A JSON-RPC and tracing ingest. Values are drawn with NUL,
 * lone surrogates, huge integers, deep nesting (up to 10,000 levels), extreme dates and long
 * strings; every answer must be a non-5xx in its component's documented error shape, and a
 * tracing batch must keep every run it did not report as bad.
 *
 * Bounded for CI (~30 s). BERTH_FUZZ_RUNS=<n> runs each property n times instead (e.g. 2000 for
 * a long session); BERTH_FUZZ_SEED=<seed> replays a failure (fast-check prints the seed and path);
 * BERTH_FUZZ_BACKEND=postgres runs against the shared Postgres instead of PGlite (same errors:
 * PGlite is Postgres).
 */
import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CP_KEY, startControlPlaneTestServer, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { startTestServer, type Backend, type TestServer } from "../helpers/server.js";
import { startTracingTestServer, type TracingTestServer } from "../helpers/tracing.js";

const RUNS = Number(process.env.BERTH_FUZZ_RUNS ?? 0) || undefined;
const SEED = process.env.BERTH_FUZZ_SEED ? Number(process.env.BERTH_FUZZ_SEED) : undefined;
const params = (ciRuns: number): fc.Parameters<unknown> => ({ numRuns: RUNS ?? ciRuns, ...(SEED !== undefined ? { seed: SEED } : {}), endOnFailure: true });
const BACKEND: Backend = process.env.BERTH_FUZZ_BACKEND === "postgres" ? "postgres" : "pglite";
const LONG_TIMEOUT = RUNS ? 24 * 3_600_000 : 120_000;

// ---------- generators ----------

/** JSON.stringify itself overflows at 10,000 levels: deep values travel as markers replaced in the text. */
const DEEP_MARKERS: Record<string, number> = { __deep_600__: 600, __deep_10000__: 10_000 };
const deepJson = (levels: number) => '{"d":['.repeat(levels) + '"\\u0000bottom"' + "]}".repeat(levels);
function toJson(v: unknown): string {
  let text = JSON.stringify(v);
  for (const [marker, levels] of Object.entries(DEEP_MARKERS)) text = text.replaceAll(`"${marker}"`, deepJson(levels));
  return text;
}

const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: anyUnit, maxLength: 12 }) },
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udc00", "\udbff\udfff", "\ud800\ud800", "", " ", "********", "__proto__", "constructor"),
  fc.constantFrom("x".repeat(12_000), "é".repeat(70_000)),
  // long and incompressible: Postgres compresses index entries, so a repeated letter fits where this does not
  fc.string({ minLength: 3000, maxLength: 4000, unit: "grapheme" }),
  fc.constantFrom(...Object.keys(DEEP_MARKERS)),
);
const hugeNumber = fc.oneof(
  fc.constantFrom(2 ** 63, 2 ** 64, -(2 ** 63), 1e300, -1e300, Number.MAX_SAFE_INTEGER + 2, 1e15, -1, 0, 0.5, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const extremeDate = fc.constantFrom(
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999999Z",
  "+275760-09-13T00:00:00.000Z",
  "-000001-01-01T00:00:00Z",
  "2024-13-45T25:61:61Z",
  "2024-01-01T00:00:00.123456789+14:00",
  1e15,
  -1e15,
  8.64e15,
  253402300800000,
);
const leaf = fc.oneof(nastyString, hugeNumber, extremeDate, fc.boolean(), fc.constant(null));
const nastyKey = fc.oneof({ weight: 4, arbitrary: fc.string({ maxLength: 8 }) }, fc.constantFrom("\u0000", "k\ud800", "__proto__", "constructor", "x".repeat(3000)));
const nastyValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: "small", withCrossShrink: true }, leaf, fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(nastyKey, tie("v"), { maxKeys: 4 })),
})).v;
const nastyObject = fc.dictionary(nastyKey, nastyValue, { maxKeys: 5 });
/** A field that is mostly of its right type, sometimes anything. */
const mostly = <T>(right: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: right }, nastyValue);
/**
 * A path or query segment: percent-encoded (lone surrogates as the bytes of their WTF-8 form, which
 * no UTF-8 decoder accepts), or raw escapes that decode to NUL or invalid UTF-8. At most 500
 * characters: longer request lines are Node's to refuse (431), before any Berth code.
 */
const encodeSegment = (s: string) =>
  s
    .slice(0, 500)
    .replace(/[\s\S]/g, (c) => {
      const u = c.charCodeAt(0);
      if (u >= 0xd800 && u <= 0xdfff) return `%${(0xe0 | (u >> 12)).toString(16)}%${(0x80 | ((u >> 6) & 0x3f)).toString(16)}%${(0x80 | (u & 0x3f)).toString(16)}`.toUpperCase();
      return encodeURIComponent(c);
    });
const segment = fc.oneof({ weight: 4, arbitrary: nastyString.map(encodeSegment) }, fc.constantFrom("%00", "a%00b", "%ED%A0%80", "%FF", "%", "%E0%A4%A", "..", "%2F"));
const uuidish = fc.oneof({ weight: 4, arbitrary: fc.uuid() }, nastyString);

// ---------- documented shapes ----------

/** `{detail}` of every REST API: a string, or for 422 a list of {loc, msg, type}. */
function restErrorShape(status: number, body: any): boolean {
  if (status === 422) return Array.isArray(body?.detail) && body.detail.every((d: any) => Array.isArray(d.loc) && typeof d.msg === "string" && typeof d.type === "string");
  return typeof body?.detail === "string";
}

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function send(url: string, method: string, body: string | undefined, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(url, { method, headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers }, body });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed, text };
}

function expectRest(a: Answer, what: string): void {
  expect(a.status, `${what} → ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500);
  if (a.status >= 400) expect(restErrorShape(a.status, a.body), `${what} → ${a.status} ${a.text.slice(0, 300)}`).toBe(true);
}

// ---------- the components ----------

describe("HTTP fuzz: control plane", () => {
  let s: ControlPlaneTestServer;
  let deploymentId: string;
  beforeAll(async () => {
    s = await startControlPlaneTestServer(BACKEND);
    const d = await s.api("POST", "/v2/deployments", { name: "fuzz-target", source: "external_container", source_config: {}, source_revision_config: { image_uri: "img:1" }, secrets: [{ name: "A", value: "1" }] });
    deploymentId = d.body.id;
  });
  afterAll(() => s?.close());
  const cp = (method: string, path: string, body?: unknown) => send(`${s.url}${path}`, method, body === undefined ? undefined : toJson(body), { "x-api-key": CP_KEY });

  const deploymentBody = fc.record(
    {
      name: fc.oneof(fc.constantFrom("fuzz-a", "fuzz-b"), nastyString),
      source: fc.oneof(fc.constantFrom("hosted_git", "external_container"), nastyString),
      source_config: mostly(
        fc.record({ build_command: mostly(nastyString), install_command: mostly(nastyString), repo_url: mostly(nastyString), resource_spec: mostly(fc.record({ cpu: hugeNumber, labels: nastyObject }, { requiredKeys: [] })) }, { requiredKeys: [] }),
      ),
      source_revision_config: mostly(fc.record({ image_uri: mostly(nastyString), repo_ref: mostly(nastyString) }, { requiredKeys: [] })),
      secrets: mostly(fc.array(fc.record({ name: mostly(fc.constantFrom("A", "TOKEN")), value: mostly(nastyString) }), { maxLength: 3 })),
    },
    { requiredKeys: [] },
  );

  it(
    "create, PATCH and list answer no 5xx, errors in {detail}",
    async () => {
      await fc.assert(
        fc.asyncProperty(deploymentBody, segment, async (body, q) => {
          expectRest(await cp("POST", "/v2/deployments", body), "POST /v2/deployments");
          expectRest(await cp("PATCH", `/v2/deployments/${deploymentId}`, body), "PATCH /v2/deployments/{id}");
          expectRest(await cp("GET", `/v2/deployments?name_contains=${q}&limit=${q}`), "GET /v2/deployments?…");
          expectRest(await cp("GET", `/v2/deployments/${q}`), "GET /v2/deployments/{q}");
        }),
        params(40),
      );
    },
    LONG_TIMEOUT,
  );
});

describe("HTTP fuzz: agent server and A2A", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(BACKEND);
  });
  afterAll(() => server?.close());
  const api = (method: string, path: string, body?: unknown) => send(`${server.url}${path}`, method, body === undefined ? undefined : toJson(body));

  it(
    "threads, assistants, runs and store answer no 5xx, errors in {detail}",
    async () => {
      const threadId = randomUUID();
      expect((await api("POST", "/threads", { thread_id: threadId })).status).toBe(200);
      await fc.assert(
        fc.asyncProperty(nastyObject, nastyValue, nastyString, hugeNumber, segment, extremeDate, async (obj, value, str, n, seg, date) => {
          const dateStr = typeof date === "string" ? date : new Date(Math.max(-8.64e15, Math.min(8.64e15, date))).toISOString();
          expectRest(await api("POST", "/threads", { metadata: obj, if_exists: "do_nothing" }), "POST /threads");
          expectRest(await api("PATCH", `/threads/${threadId}`, { metadata: obj }), "PATCH /threads/{id}");
          expectRest(await api("POST", "/threads/search", { metadata: obj, values: value, limit: n, offset: n, status: str }), "POST /threads/search");
          expectRest(await api("POST", "/assistants", { graph_id: "steps", name: str, metadata: obj, config: { configurable: obj } }), "POST /assistants");
          expectRest(await api("POST", "/assistants/search", { graph_id: str, metadata: obj, limit: n }), "POST /assistants/search");
          expectRest(await api("PUT", "/store/items", { namespace: [str], key: str, value: obj, ttl: n }), "PUT /store/items");
          expectRest(await api("POST", "/store/items/search", { namespace_prefix: [str], filter: obj, limit: n, query: str }), "POST /store/items/search");
          // a yearly cron: dates and time zones reach storage, no run starts during the test
          const cron = await api("POST", "/runs/crons", { assistant_id: "steps", schedule: "0 0 1 1 *", end_time: dateStr, timezone: str.slice(0, 40), metadata: obj });
          expectRest(cron, "POST /runs/crons");
          if (cron.status === 200 && cron.body?.cron_id) await api("DELETE", `/runs/crons/${cron.body.cron_id}`);
          expectRest(await api("POST", "/threads", { metadata: {}, ttl: { strategy: "delete", ttl: n } }), "POST /threads with ttl");
          // a run body that is never valid (no assistant_id), so nothing is queued: the schema path only
          expectRest(await api("POST", `/threads/${threadId}/runs`, { input: value, metadata: obj, config: obj }), "POST /threads/{id}/runs");
          expectRest(await api("GET", `/threads/${seg}`), "GET /threads/{str}");
          expectRest(await api("GET", `/assistants/${seg}?limit=${seg}`), "GET /assistants/{str}");
        }),
        params(30),
      );
    },
    LONG_TIMEOUT,
  );

  const methods = fc.oneof(
    fc.constantFrom("message/send", "tasks/get", "tasks/cancel", "tasks/pushNotificationConfig/get", "tasks/pushNotificationConfig/list", "GetTask", "ListTasks", "CancelTask", "ListTaskPushNotificationConfigs"),
    fc.constantFrom("constructor", "toString", "__proto__", "hasOwnProperty", "valueOf", "__defineGetter__"),
    nastyString,
  );
  const a2aParams = fc.oneof(
    nastyObject,
    fc.record(
      {
        id: mostly(nastyString),
        contextId: mostly(nastyString),
        pageSize: mostly(hugeNumber),
        historyLength: mostly(hugeNumber),
        pageToken: mostly(nastyString),
        status: mostly(nastyString),
        // a message that never validates (parts is not a list), so no run starts
        message: fc.record({ messageId: mostly(nastyString), role: fc.constantFrom("user", "agent"), parts: nastyObject, contextId: mostly(nastyString) }),
      },
      { requiredKeys: [] },
    ),
  );

  it(
    "A2A answers HTTP 200 with a JSON-RPC response, errors with an integer code and a message",
    async () => {
      await fc.assert(
        fc.asyncProperty(methods, a2aParams, fc.oneof(fc.integer(), nastyString, fc.constant(null)), async (method, p, id) => {
          const a = await send(`${server.url}/a2a/chat`, "POST", toJson({ jsonrpc: "2.0", id, method, params: p }));
          const what = `${String(method).slice(0, 40)} → ${a.status} ${a.text.slice(0, 300)}`;
          expect(a.status, what).toBe(200);
          expect(a.body?.jsonrpc, what).toBe("2.0");
          if (a.body.error) {
            expect(Number.isInteger(a.body.error.code) && typeof a.body.error.message === "string", what).toBe(true);
            expect(a.body.error.code, what).not.toBe(-32603); // internal error: a bug, not bad input
          } else expect("result" in a.body, what).toBe(true);
        }),
        params(60),
      );
    },
    LONG_TIMEOUT,
  );
});

describe("HTTP fuzz: tracing ingest", () => {
  let t: TracingTestServer;
  beforeAll(async () => {
    t = await startTracingTestServer(BACKEND);
  });
  afterAll(() => t?.close());
  const headers = () => (t.apiKey ? { "x-api-key": t.apiKey } : ({} as Record<string, string>));

  const run = fc.record(
    {
      id: uuidish,
      name: mostly(nastyString),
      run_type: mostly(fc.constantFrom("llm", "chain", "tool")),
      start_time: mostly(extremeDate),
      end_time: mostly(extremeDate),
      trace_id: uuidish,
      parent_run_id: uuidish,
      dotted_order: mostly(nastyString),
      session_name: mostly(nastyString),
      error: mostly(nastyString),
      tags: mostly(fc.array(nastyString, { maxLength: 3 })),
      inputs: mostly(nastyObject),
      outputs: mostly(fc.record({ usage_metadata: fc.record({ input_tokens: hugeNumber, output_tokens: hugeNumber, total_tokens: hugeNumber }) }, { requiredKeys: [] })),
      extra: mostly(fc.record({ metadata: fc.record({ thread_id: mostly(nastyString), ls_model_name: mostly(nastyString), ls_provider: mostly(nastyString) }, { requiredKeys: [] }) }, { requiredKeys: [] })),
      events: mostly(fc.array(fc.record({ name: mostly(nastyString), time: mostly(extremeDate), kwargs: nastyObject }), { maxLength: 2 })),
      prompt_tokens: mostly(hugeNumber),
      first_token_time: mostly(extremeDate),
    },
    { requiredKeys: ["id"] },
  );
  const goodRun = () => ({ id: randomUUID(), name: "fuzz-good", run_type: "chain", start_time: new Date().toISOString(), inputs: { q: "ok" } });

  /** A 202 stores every run not reported bad: each good run and each accepted odd run is readable. */
  async function expectStored(a: Answer, ids: string[], what: string): Promise<void> {
    expectRest(a, what);
    if (a.status !== 202) return;
    expect(typeof a.body.accepted === "number" && Array.isArray(a.body.errors) && Array.isArray(a.body.warnings), what).toBe(true);
    const failed = new Set(a.body.errors.map((e: any) => String(e.run_id ?? "").toLowerCase()));
    for (const id of ids) {
      if (failed.has(id.toLowerCase())) continue;
      const r = await send(`${t.url}/runs/${id}`, "GET", undefined, headers());
      expect(r.status, `${what}: run ${id} reported stored but GET → ${r.status} ${r.text.slice(0, 200)}`).toBe(200);
    }
  }

  it(
    "/runs/batch keeps the good runs of every batch and answers no 5xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(run, { minLength: 1, maxLength: 3 }), fc.array(run, { maxLength: 2 }), async (posts, patches) => {
          const good = goodRun();
          const a = await send(`${t.url}/runs/batch`, "POST", toJson({ post: [...posts, good], patch: patches }), headers());
          const ids = [good.id, ...posts.map((p) => p.id).filter((id): id is string => typeof id === "string" && /^[0-9a-f-]{36}$/i.test(id))];
          await expectStored(a, ids, "POST /runs/batch");
          expect(a.status, a.text.slice(0, 500)).toBe(202); // the good run is in it
        }),
        params(40),
      );
    },
    LONG_TIMEOUT,
  );

  it(
    "/runs/multipart keeps the good runs and answers no 5xx",
    async () => {
      await fc.assert(
        fc.asyncProperty(run, nastyObject, nastyString, async (odd, inputs, attachmentName) => {
          const good = goodRun();
          // part headers past the splitter's limit fail the whole request (400): names stay short
          const oddId = typeof odd.id === "string" ? odd.id.slice(0, 200) : randomUUID();
          const boundary = `----fuzz${randomUUID()}`;
          const part = (name: string, value: string, type = "application/json") =>
            `--${boundary}\r\nContent-Disposition: form-data; name="${name.replace(/["\r\n]/g, "_")}"\r\nContent-Type: ${type}\r\n\r\n${value}\r\n`;
          const body =
            part(`post.${oddId}`, toJson(odd)) +
            part(`post.${oddId}.inputs`, toJson(inputs)) +
            part(`attachment.${oddId}.${attachmentName.slice(0, 200)}`, "bytes", "text/plain") +
            part(`post.${good.id}`, toJson(good)) +
            `--${boundary}--\r\n`;
          const a = await send(`${t.url}/runs/multipart`, "POST", body, { ...headers(), "content-type": `multipart/form-data; boundary=${boundary}` });
          await expectStored(a, [good.id], "POST /runs/multipart");
          expect(a.status, a.text.slice(0, 500)).toBe(202);
        }),
        params(30),
      );
    },
    LONG_TIMEOUT,
  );
});

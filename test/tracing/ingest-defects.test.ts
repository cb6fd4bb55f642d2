/**
 * Ingest defects of issue 18: a broken multipart run part no longer leaves a nameless ghost run; a
 * re-post that would change a stored run says its changes were ignored (response warnings and a
 * warn log with the run id); runs that never receive their end are marked abandoned by the
 * background sweep (and a late end still completes them); refused uploads — a LangSmith key left in
 * LANGSMITH_API_KEY — are logged at warn with the reason; a run that ends before it starts is
 * stored as ending at its start (a warning when more than 1 ms early).
 */
import { randomUUID } from "node:crypto";
import { traceable } from "langsmith/traceable";
import { expect, it } from "vitest";
import { describeBackends, eventually } from "../helpers/server.js";
import { memoryLogger, tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const WARN = 40;

describeBackends("tracing ingest defects", (backend) => {
  let s: TracingTestServer;
  const { logger, records } = memoryLogger("warn");
  // runs pending 10 minutes after their start are abandoned; the sweep looks every second
  tracingServerForSuite(backend, (x) => (s = x), { abandonAfterSeconds: 600, abandonSweepSeconds: 1 }, logger);

  const send = async (path: string, body: RequestInit["body"], headers: Record<string, string> = {}, method = "POST") => {
    const res = await fetch(`${s.url}${path}`, { method, headers: { ...(s.apiKey ? { "x-api-key": s.apiKey } : {}), ...headers }, body });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const json = (path: string, body: unknown, method = "POST") => send(path, JSON.stringify(body), { "content-type": "application/json" }, method);
  const run = async (id: string) => s.api(`/runs/${id}`);
  const project = (name: string) => `${name}-${backend}-${randomUUID().slice(0, 6)}`;

  it("a multipart run whose own part is not JSON is not stored at all (no nameless pending ghost)", async () => {
    const bad = randomUUID();
    const good = { id: randomUUID(), name: "good", run_type: "chain", start_time: new Date().toISOString(), session_name: project("ghost") };
    const form = new FormData();
    form.append(`post.${bad}`, new Blob(["{not json"], { type: "application/json" }));
    form.append(`post.${bad}.inputs`, new Blob([JSON.stringify({ q: 1 })], { type: "application/json" }));
    form.append(`post.${good.id}`, new Blob([JSON.stringify(good)], { type: "application/json" }));
    const res = await send("/runs/multipart", form);
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(1);
    expect(res.body.errors).toEqual([expect.objectContaining({ run_id: bad, error: expect.stringMatching(/not valid JSON/) })]);
    expect((await run(bad)).status).toBe(404);
    expect((await run(good.id)).body).toMatchObject({ name: "good" });

    // alone in its request: refused, and still nothing stored
    const only = new FormData();
    only.append(`post.${bad}`, new Blob(["[1, 2"], { type: "application/json" }));
    only.append(`patch.${bad}.outputs`, new Blob([JSON.stringify({ a: 1 })], { type: "application/json" }));
    const refused = await send("/runs/multipart", only);
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toMatch(/without their run part/);
    expect((await run(bad)).status).toBe(404);
  });

  it("says a re-post's changes were ignored, in the response and the log, and keeps the stored run", async () => {
    const id = randomUUID();
    const first = { id, name: "first", run_type: "chain", start_time: new Date().toISOString(), inputs: { q: 1 }, extra: { metadata: { stage: "a", keep: 1 } }, session_name: project("repost") };
    expect((await json("/runs/batch", { post: [first] })).body.warnings).toEqual([]);
    const again = await json("/runs/batch", { post: [{ ...first, name: "second", outputs: { a: 1 }, extra: { metadata: { stage: "b", keep: 1 } } }] });
    expect(again.status).toBe(202);
    expect(again.body.warnings).toEqual([{ run_id: id, problems: [expect.stringMatching(/already exists: this post's name, extra\.metadata\.stage were ignored .*patch/)] }]);
    expect((await run(id)).body).toMatchObject({ name: "first", extra: { metadata: { stage: "a" } }, outputs: { a: 1 } });
    expect(records.some((r) => r.level === WARN && r.runId === id && /ignored/.test(r.msg))).toBe(true);

    // a retry of the very same post (what an SDK does after a timeout) is not a change
    expect((await json("/runs/batch", { post: [first] })).body.warnings).toEqual([]);
    // a patch does change it
    await json(`/runs/${id}`, { name: "patched" }, "PATCH");
    expect((await run(id)).body.name).toBe("patched");

    // refused runs are logged with their id
    const notUuid = "not-a-uuid-" + randomUUID().slice(0, 4);
    const refused = await json("/runs/batch", { post: [{ id: notUuid, name: "x" }] });
    expect(refused.status).toBe(422);
    expect(records.some((r) => r.level === WARN && r.runId === notUuid && /not stored/.test(r.msg))).toBe(true);
  });

  it("marks runs that never got their end as abandoned, and a late end still completes them", async () => {
    const name = project("abandon");
    const old = { id: randomUUID(), name: "crashed", run_type: "chain", start_time: new Date(Date.now() - 3600_000).toISOString(), session_name: name };
    const fresh = { id: randomUUID(), name: "running", run_type: "chain", start_time: new Date().toISOString(), session_name: name };
    expect((await json("/runs/batch", { post: [old, fresh] })).status).toBe(202);
    const marked = await eventually(async () => {
      const body = (await run(old.id)).body;
      return body.status === "error" && body;
    });
    expect(marked.error).toMatch(/^abandoned: no end was received within 600 s/);
    expect((await run(fresh.id)).body.status).toBe("pending");
    const stats = async () => (await s.api(`/projects?name=${name}`)).body.projects[0].stats;
    // the fresh run is pending, so not counted yet; the abandoned one counts as a failed trace
    expect(await stats()).toMatchObject({ trace_count: 1, error_rate: 1 });

    await json(`/runs/${old.id}`, { end_time: new Date().toISOString(), outputs: { ok: true } }, "PATCH");
    expect((await run(old.id)).body).toMatchObject({ status: "success", error: null, outputs: { ok: true } });
    expect(await stats()).toMatchObject({ trace_count: 1, error_rate: 0 });
  });

  it("logs an upload refused for a leftover LangSmith key at warn, with the reason", async () => {
    const name = project("leftover");
    const client = s.client({ apiKey: "lsv2_pt_00112233445566778899aabbccddeeff_0123456789" });
    const step = traceable(async (x: string) => `echo ${x}`, { name: "lost-step", client, project_name: name, tracingEnabled: true });
    await step("hi");
    await client.awaitPendingTraceBatches();
    const refused = records.find((r) => r.level === WARN && r.status === 401 && /runs/.test(r.path));
    expect(refused).toBeDefined();
    expect(refused!.msg).toMatch(/LangSmith API key/);
    expect(refused!.key).toBe("lsv2_pt_…");
    expect(JSON.stringify(records)).not.toContain("00112233445566778899aabbccddeeff");
    expect((await s.api(`/runs?project_name=${name}`)).body.runs ?? []).toEqual([]);
  });
  it("stores a run that ends before it starts as ending at its start: latency is never negative", async () => {
    const name = project("clamp");
    // the JS SDK's shape: a start with the dotted order's microseconds, an end in epoch milliseconds
    const subMs = { id: randomUUID(), name: "sub-ms", run_type: "chain", start_time: "2026-01-02T03:04:05.000700Z", end_time: Date.parse("2026-01-02T03:04:05.000Z"), session_name: name };
    // a client bug: five seconds early
    const early = { id: randomUUID(), name: "early", run_type: "chain", start_time: "2026-01-02T03:04:05.000Z", end_time: "2026-01-02T03:04:00.000Z", session_name: name };
    const res = await json("/runs/batch", { post: [subMs, early] });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(2);
    // only the real bug is worth a warning
    expect(res.body.warnings).toEqual([{ run_id: early.id, problems: [expect.stringMatching(/end_time .* is 5000\.000 ms before start_time .*: stored as the start time/)] }]);
    const stored = (await run(early.id)).body;
    expect(stored.end_time).toBe(stored.start_time);
    expect(stored.start_time).toBe("2026-01-02T03:04:05.000Z");
    expect(stored.latency_ms).toBe(0);
    const fine = (await run(subMs.id)).body;
    expect(Date.parse(fine.end_time)).toBeGreaterThanOrEqual(Date.parse(fine.start_time));
    expect(fine.latency_ms).toBe(0);
    // the latency filters see both (the sub-millisecond one had been 0.7 ms negative in the database)
    const ids = (runs: { id: string }[]) => runs.map((r) => r.id).sort();
    const listed = await s.api(`/runs?project_name=${name}&min_latency_ms=0`);
    expect(ids(listed.body.runs)).toEqual([subMs.id, early.id].sort());
    const queried = await s.api("/runs/query", { method: "POST", body: JSON.stringify({ session: [fine.session_id], filter: "and(gte(latency, 0), lte(latency, 0))" }) });
    expect(ids(queried.body.runs)).toEqual([subMs.id, early.id].sort());
  });
});

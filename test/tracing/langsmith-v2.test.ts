/**
 * The `langsmith` SDK 0.12's resource clients against Berth, on both backends: `client.sessions.*`
 * (their `/api/v1` paths and `listV2`), `client.runs.query/retrieve/getURL/share`,
 * `client.traces.query/listRuns`, `client.threads.query/listTraces/stats` and
 * `client.public.runs.*` without a key. Same stores and query layer as the v1 API.
 */
import { randomUUID } from "node:crypto";
import { Client, type Run } from "langsmith";
import { traceable } from "langsmith/traceable";
import { beforeAll, expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("LangSmith v2 resource API through the langsmith SDK 0.12", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  const projectName = `ls-v2-${randomUUID().slice(0, 8)}`;
  let projectId: string;
  let traceId: string;
  let root: Run;
  let llm: Run;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });

  beforeAll(async () => {
    const generate = traceable(
      async (q: string) => ({ messages: [{ role: "assistant", content: `answer to ${q}` }], usage_metadata: { input_tokens: 12, output_tokens: 8, total_tokens: 20 } }),
      { name: "generate", run_type: "llm", client, project_name: projectName },
    );
    const tool = traceable(
      async () => {
        throw new Error("tool exploded");
      },
      { name: "lookup", run_type: "tool", client, project_name: projectName },
    );
    const pipeline = traceable(
      async (q: string) => {
        await tool().catch(() => undefined);
        return generate(q);
      },
      { name: "pipeline", client, project_name: projectName, tags: ["beta"], metadata: { thread_id: "conv-1" } },
    );
    await pipeline("first");
    const turn = (thread: string) => traceable(async (q: string) => `ok ${q}`, { name: "turn", client, project_name: projectName, metadata: { thread_id: thread } });
    await turn("conv-1")("second");
    await turn("conv-2")("elsewhere");
    await client.awaitPendingTraceBatches();
    [root] = await all(client.listRuns({ projectName, filter: 'eq(name, "pipeline")' }));
    [llm] = await all(client.listRuns({ projectName, runType: "llm" }));
    projectId = root!.session_id!;
    traceId = root!.trace_id!;
  });

  it("sessions: create, retrieve, update, delete at /api/v1, and listV2 in cursor pages", async () => {
    const name = `v2-proj-${randomUUID().slice(0, 8)}`;
    const created = await client.sessions.create({ name, description: "first" });
    expect(created).toMatchObject({ name, description: "first" });
    expect((await client.sessions.retrieve(created.id)).name).toBe(name);
    expect(await client.sessions.update(created.id, { description: "second" })).toMatchObject({ id: created.id, description: "second" });

    const named = await all(client.sessions.listV2({ name: projectName, include_stats: true }));
    expect(named).toHaveLength(1);
    expect(named[0]).toMatchObject({ id: projectId, run_count: 5, total_tokens: 20 });
    // page by page: every project once
    const paged = await all(client.sessions.listV2({ page_size: 1 }));
    expect(paged.map((p) => p.name)).toEqual(expect.arrayContaining([name, projectName]));
    expect(new Set(paged.map((p) => p.id)).size).toBe(paged.length);
    expect(paged.length).toBeGreaterThanOrEqual(3); // with the `default` project: three pages at least

    await client.sessions.delete(created.id);
    await expect(client.sessions.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it("runs.query: filters, filter expressions, upper-case run types and selects, cursor pages", async () => {
    const names = async (body: Parameters<Client["runs"]["query"]>[0]) => (await all(client.runs.query({ project_ids: [projectId], ...body }))).map((r) => r.name).sort();
    expect(await names({ is_root: true })).toEqual(["pipeline", "turn", "turn"]);
    expect(await names({ run_type: "LLM" })).toEqual(["generate"]);
    expect(await names({ has_error: true })).toEqual(["lookup"]);
    expect(await names({ trace_id: traceId })).toEqual(["generate", "lookup", "pipeline"]);
    expect(await names({ filter: 'has(tags, "beta")' })).toEqual(["pipeline"]);
    expect(await names({ run_type: "LLM", trace_filter: 'eq(name, "turn")' })).toEqual([]);
    expect(await names({ is_root: true, tree_filter: 'eq(run_type, "llm")' })).toEqual(["pipeline"]);
    expect(await names({ min_start_time: new Date(Date.now() + 3_600_000).toISOString() })).toEqual([]);

    const [picked] = await all(client.runs.query({ project_ids: [projectId], run_type: "LLM", selects: ["NAME", "TOTAL_TOKENS", "PROMPT_TOKENS", "STATUS", "RUN_TYPE"] }));
    expect(picked).toEqual({ id: llm.id, name: "generate", total_tokens: 20, prompt_tokens: 12, status: "SUCCESS", run_type: "LLM" });

    // one run per page: the SDK follows next_cursor until every run was seen once
    const ids = (await all(client.runs.query({ project_ids: [projectId], page_size: 1, selects: ["ID"] }))).map((r) => r.id);
    expect(ids).toHaveLength(5);
    expect(new Set(ids).size).toBe(5);

    await expect(all(client.runs.query({ project_ids: [projectId], filter: 'eq(name, "x"' }))).rejects.toMatchObject({ status: 400 });
    await expect(all(client.runs.query({ project_ids: [projectId], ai_search: "anything" }))).rejects.toMatchObject({ status: 501 });
  });

  it("runs.retrieve, runs.getURL: one run of a project, and where the console shows it", async () => {
    const run = await client.runs.retrieve(llm.id, { project_id: projectId });
    expect(run).toMatchObject({
      id: llm.id,
      name: "generate",
      run_type: "LLM",
      status: "SUCCESS",
      trace_id: traceId,
      project_id: projectId,
      is_root: false,
      parent_run_ids: [root.id],
      total_tokens: 20,
      completion_tokens: 8,
      app_path: `/traces/${traceId}?run=${llm.id}`,
    });
    expect(run.latency_seconds).toBeGreaterThanOrEqual(0);
    expect(run.inputs).toEqual(llm.inputs);
    const failed = await client.runs.retrieve((await all(client.listRuns({ projectName, error: true })))[0]!.id, { project_id: projectId, selects: ["STATUS", "ERROR"] });
    expect(failed).toMatchObject({ status: "ERROR", error: expect.stringContaining("tool exploded") });
    // a run is found in its own project only
    const elsewhere = await client.sessions.create({ name: `v2-empty-${randomUUID().slice(0, 8)}` });
    await expect(client.runs.retrieve(llm.id, { project_id: elsewhere.id })).rejects.toMatchObject({ status: 404 });

    const { url } = await client.runs.getURL(llm.id, { project_id: projectId, trace_id: traceId });
    expect(url).toMatch(new RegExp(`^http://.+/traces/${traceId}\\?run=${llm.id}$`));
  });

  it("traces.query and traces.listRuns: root runs with trace aggregates, a trace's runs", async () => {
    const traces = await all(client.traces.query({ project_id: projectId, selects: ["NAME", "TRACE_ID"] }));
    expect(traces.map((t) => t.root_run?.name).sort()).toEqual(["pipeline", "turn", "turn"]);
    const pipeline = traces.find((t) => t.root_run?.name === "pipeline")!;
    expect(pipeline.trace_aggregates).toMatchObject({ total_tokens: 20 });
    expect((await all(client.traces.query({ project_id: projectId, trace_ids: [traceId] }))).map((t) => t.root_run?.id)).toEqual([root.id]);
    expect(await all(client.traces.query({ project_id: projectId, trace_filter: 'eq(name, "nothing")' }))).toEqual([]);

    const { items } = await client.traces.listRuns(traceId, { project_id: projectId, selects: ["NAME", "PARENT_RUN_IDS"] });
    expect(items!.map((r) => r.name)).toEqual(["pipeline", "lookup", "generate"]);
    expect(items!.find((r) => r.name === "generate")!.parent_run_ids).toEqual([root.id]);
  });

  it("threads.query, listTraces and stats: conversations by thread_id", async () => {
    const threads = await all(client.threads.query({ project_id: projectId }));
    expect(threads.map((t) => [t.thread_id, t.count]).sort()).toEqual([
      ["conv-1", 2],
      ["conv-2", 1],
    ]);
    expect(threads.find((t) => t.thread_id === "conv-1")).toMatchObject({ total_tokens: 20, first_trace_id: traceId });

    const turns = await all(client.threads.listTraces("conv-1", { project_id: projectId, page_size: 1 }));
    expect(turns.map((t) => [t.turn_number, t.name])).toEqual([
      [1, "pipeline"],
      [2, "turn"],
    ]);
    expect(turns[0]).toMatchObject({ trace_id: traceId, total_tokens: 20, prompt_tokens: 12, inputs_preview: "first" });

    const stats = await client.threads.stats("conv-1", { session_id: projectId, selects: ["TURNS", "TOTAL_TOKENS", "LATENCY_P50"] });
    expect(stats).toMatchObject({ turns: 2, total_tokens: 20 });
    expect(stats.latency_p50_seconds).toBeGreaterThanOrEqual(0);
    await expect(client.threads.stats("no-such-thread", { session_id: projectId, selects: ["TURNS"] })).rejects.toMatchObject({ status: 404 });
    await expect(all(client.threads.query({ project_id: projectId, thread_filter: 'eq(x, "y")' }))).rejects.toMatchObject({ status: 400 });
  });

  it("runs.share and public.runs: a child run shares its trace, read without a key until unshared", async () => {
    const { share_token } = await client.runs.share.create(llm.id, { session_id: projectId, trace_id: traceId });
    expect(share_token).toMatch(/^[0-9a-f-]{36}$/);
    // again: the same link
    expect((await client.runs.share.create(root.id, { session_id: projectId, trace_id: traceId })).share_token).toBe(share_token);
    expect((await client.runs.retrieve(root.id, { project_id: projectId, selects: ["SHARE_URL"] })).share_url).toMatch(new RegExp(`/public/${share_token}/r$`));

    const keyless = new Client({ apiUrl: server.url, apiKey: "" });
    const { items } = await keyless.public.runs.query(share_token!, { selects: ["NAME", "INPUTS_PREVIEW"] });
    expect(items!.map((r) => r.name).sort()).toEqual(["generate", "lookup", "pipeline"]);
    expect(items!.find((r) => r.id === root.id)!.inputs_preview).toBe("first");
    const one = await keyless.public.runs.retrieve(llm.id, { share_token: share_token!, selects: ["NAME", "TOTAL_TOKENS"], start_time: new Date(llm.start_time!).toISOString() });
    expect(one).toEqual({ id: llm.id, name: "generate", total_tokens: 20 });
    // a run of another trace is not reachable through this token
    const other = (await all(client.listRuns({ projectName, isRoot: true }))).find((r) => r.trace_id !== traceId)!;
    await expect(keyless.public.runs.retrieve(other.id, { share_token: share_token!, selects: ["NAME"], start_time: new Date().toISOString() })).rejects.toMatchObject({ status: 404 });

    await client.runs.share.delete(traceId, { session_id: projectId });
    await client.runs.share.delete(traceId, { session_id: projectId }); // idempotent
    await expect(keyless.public.runs.query(share_token!, {})).rejects.toMatchObject({ status: 404 });
  });
});

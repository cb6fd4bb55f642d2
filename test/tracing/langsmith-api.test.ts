/**
 * The LangSmith read and management API through the real `langsmith` SDK, on both backends:
 * projects (sessions), listRuns with the SDK's filters and filter expressions, readRun with
 * children, run stats, threads, feedback (direct and as multipart parts), sharing with the public
 * link, tenant isolation and the 400 for a bad filter expression.
 */
import { randomUUID } from "node:crypto";
import { Client, type Run } from "langsmith";
import { traceable } from "langsmith/traceable";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { describeBackends, eventually } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("LangSmith API through the langsmith SDK", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  let other: Client;
  const projectName = `ls-api-${randomUUID().slice(0, 8)}`;
  let root: Run;
  const warn = vi.spyOn(console, "warn");
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });

  beforeAll(async () => {
    // another tenant with its own key
    const tenant = await server.handle.facility.auth.createTenant(`other-${randomUUID().slice(0, 6)}`);
    const { key } = await server.handle.facility.auth.createKey([tenant.id], "other");
    other = new Client({ apiUrl: server.url, apiKey: key, autoBatchTracing: false });

    // one trace: a root (tagged, with metadata) calling an LLM and a tool that fails
    const llm = traceable(
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
        return llm(q);
      },
      { name: "pipeline", client, project_name: projectName, tags: ["beta"], metadata: { user: "u1", thread_id: "conv-1" } },
    );
    await pipeline("first");
    // a second turn of the same conversation, and another conversation
    const turn = (thread: string) => traceable(async (q: string) => `ok ${q}`, { name: "turn", client, project_name: projectName, metadata: { thread_id: thread } });
    await turn("conv-1")("second");
    await turn("conv-2")("elsewhere");
    await client.awaitPendingTraceBatches();
    const roots = await all(client.listRuns({ projectName, isRoot: true, filter: 'eq(name, "pipeline")' }));
    expect(roots).toHaveLength(1);
    root = roots[0]!;
  });
  afterAll(() => warn.mockRestore());

  it("/info reports a version the SDK accepts: no 'backend version older' warning", async () => {
    const fresh = server.client();
    void fresh.sessions; // needs backend 0.18.0, the highest the SDK asks for
    void fresh.runs;
    const info = await (fresh as any)._ensureServerInfo();
    expect(info.version).toBe("0.18.0");
    expect(info.berth_version).toMatch(/^\d+\.\d+\.\d+/);
    await Promise.resolve(); // the SDK compares in the continuation of the same promise
    await Promise.resolve();
    expect(warn.mock.calls.map((c) => String(c[0])).filter((m) => m.includes("older than"))).toEqual([]);
  });

  it("projects: create, read by name and id, has, list, update, delete", async () => {
    const name = `proj-${randomUUID().slice(0, 8)}`;
    const created = await client.createProject({ projectName: name, description: "first", metadata: { team: "a" } });
    expect(created).toMatchObject({ name, description: "first", extra: { metadata: { team: "a" } } });
    await expect(client.createProject({ projectName: name })).rejects.toThrow(/409|already exists/);
    expect((await client.createProject({ projectName: name, upsert: true })).id).toBe(created.id);

    expect((await client.readProject({ projectName: name })).id).toBe(created.id);
    expect((await client.readProject({ projectId: created.id })).name).toBe(name);
    expect(await client.hasProject({ projectName: name })).toBe(true);
    expect(await client.hasProject({ projectName: `${name}-missing` })).toBe(false);
    const listed = await all(client.listProjects({ nameContains: name }));
    expect(listed.map((p) => p.id)).toEqual([created.id]);

    const renamed = `${name}-renamed`;
    const updated = await client.updateProject(created.id, { name: renamed, description: "second", metadata: { team: "b" } });
    expect(updated).toMatchObject({ id: created.id, name: renamed, description: "second", extra: { metadata: { team: "b" } } });
    expect((await client.readProject({ projectName: renamed })).description).toBe("second");
    expect(await client.hasProject({ projectName: name })).toBe(false);

    await client.deleteProject({ projectId: created.id });
    expect(await client.hasProject({ projectName: renamed })).toBe(false);
    await expect(client.readProject({ projectId: created.id })).rejects.toThrow(/404|not found/i);

    // a traced project reports its runs in its stats
    const traced = await client.readProject({ projectName, includeStats: true });
    expect(traced.run_count).toBe(5 + 0);
    expect(traced.total_tokens).toBe(20);
  });

  it("listProjects filters by metadata: a JSON object each listed project's metadata contains", async () => {
    const prefix = `projmeta-${randomUUID().slice(0, 8)}`;
    const red = await client.createProject({ projectName: `${prefix}-red`, metadata: { team: "red", tier: 1 } });
    const blue = await client.createProject({ projectName: `${prefix}-blue`, metadata: { team: "blue" } });
    const ids = async (metadata: Record<string, unknown>) => (await all(client.listProjects({ nameContains: prefix, metadata }))).map((p) => p.id).sort();
    expect(await ids({ team: "red" })).toEqual([red.id]);
    expect(await ids({ team: "red", tier: 1 })).toEqual([red.id]);
    expect(await ids({ team: "blue" })).toEqual([blue.id]);
    expect(await ids({ team: "green" })).toEqual([]);
    expect(await ids({})).toEqual([red.id, blue.id].sort());
    expect((await all(client.listProjects({ name: `${prefix}-blue`, metadata: { team: "red" } }))).map((p) => p.id)).toEqual([]);
    const bad = await server.api(`/sessions?metadata=${encodeURIComponent("[1]")}`);
    expect(bad.status).toBe(422);
    // the same filter through the 0.12 resource client
    const v2 = async (q: Parameters<Client["sessions"]["listV2"]>[0]) => (await all(client.sessions.listV2(q))).map((p) => p.id).sort();
    expect(await v2({ name_contains: prefix, metadata: JSON.stringify({ team: "red" }) })).toEqual([red.id]);
    expect(await v2({ name: `${prefix}-red`, metadata: JSON.stringify({ team: "blue" }) })).toEqual([]);
    await expect(v2({ filter: 'eq(name, "x")' })).rejects.toMatchObject({ status: 400 });
  });

  it("listRuns: the SDK's filters and filter expressions", async () => {
    const names = async (props: Parameters<Client["listRuns"]>[0]) => (await all(client.listRuns({ projectName, ...props }))).map((r) => r.name).sort();
    expect(await names({ isRoot: true })).toEqual(["pipeline", "turn", "turn"]);
    expect(await names({ runType: "llm" })).toEqual(["generate"]);
    expect(await names({ error: true })).toEqual(["lookup"]);
    expect(await names({ traceId: root.trace_id })).toEqual(["generate", "lookup", "pipeline"]);
    expect(await names({ parentRunId: root.id })).toEqual(["generate", "lookup"]);
    expect(await names({ filter: 'and(eq(run_type, "tool"), neq(error, null))' })).toEqual(["lookup"]);
    expect(await names({ filter: 'has(tags, "beta")', isRoot: true })).toEqual(["pipeline"]);
    expect(await names({ filter: 'and(eq(metadata_key, "user"), eq(metadata_value, "u1"))', isRoot: true })).toEqual(["pipeline"]);
    // the root repeats its LLM's usage in its outputs, so it has tokens too
    expect(await names({ filter: "gt(total_tokens, 10)" })).toEqual(["generate", "pipeline"]);
    expect(await names({ filter: "and(gt(total_tokens, 10), lt(prompt_tokens, 13), gte(latency, 0))", runType: "llm" })).toEqual(["generate"]);
    expect(await names({ filter: 'or(eq(name, "lookup"), eq(name, "generate"))' })).toEqual(["generate", "lookup"]);
    expect(await names({ filter: 'not(eq(run_type, "chain"))' })).toEqual(["generate", "lookup"]);
    expect(await names({ filter: 'search("tool exploded")' })).toEqual(["lookup"]);
    expect(await names({ runType: "llm", traceFilter: 'eq(name, "pipeline")' })).toEqual(["generate"]);
    expect(await names({ runType: "llm", traceFilter: 'eq(name, "turn")' })).toEqual([]);
    expect(await names({ isRoot: true, treeFilter: 'eq(run_type, "llm")' })).toEqual(["pipeline"]);
    expect(await names({ startTime: new Date(Date.now() + 3_600_000) })).toEqual([]);

    // select: only the named fields come back
    const [picked] = await all(client.listRuns({ projectName, runType: "llm", select: ["name", "total_tokens"] }));
    expect(picked).toEqual({ id: expect.any(String), name: "generate", total_tokens: 20, start_time: undefined, end_time: undefined });
  });

  it("POST /runs/query pages with cursors, newest first or oldest first", async () => {
    const project = await client.readProject({ projectName });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await server.api("/runs/query", { method: "POST", body: JSON.stringify({ session: [project.id], limit: 2, cursor, select: ["start_time"] }) });
      expect(page.status).toBe(200);
      expect(page.body.runs.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.runs.map((r: any) => r.id));
      cursor = page.body.cursors.next;
    } while (cursor);
    expect(new Set(seen).size).toBe(5);
    const asc = await server.api("/runs/query", { method: "POST", body: JSON.stringify({ session: [project.id], order: "asc", select: ["start_time"] }) });
    expect(asc.body.runs.map((r: any) => r.id)).toEqual([...seen].reverse());
  });

  it("readRun with children, child_run_ids, app_path and the trace's totals; getRunUrl", async () => {
    const run = await client.readRun(root.id, { loadChildRuns: true });
    expect(run.child_runs?.map((c) => c.name)).toEqual(["lookup", "generate"]);
    expect((run as any).child_run_ids).toEqual(run.child_runs?.map((c) => c.id));
    expect(run.app_path).toBe(`/traces/${root.trace_id}?run=${root.id}`);
    expect((run as any).trace).toMatchObject({ run_count: 3, llm_count: 1, total_tokens: 20 });
    expect(await client.getRunUrl({ runId: root.id })).toMatch(new RegExp(`${run.app_path!.replace(/[?]/g, "\\?")}$`));
  });

  it("getRunStats aggregates the runs a filter selects", async () => {
    const stats: any = await client.getRunStats({ projectNames: [projectName] });
    expect(stats).toMatchObject({ run_count: 5, total_tokens: 20, prompt_tokens: 12, completion_tokens: 8 });
    expect(stats.error_rate).toBeCloseTo(1 / 5, 9);
    const llm: any = await client.getRunStats({ projectNames: [projectName], runType: "llm" });
    expect(llm.run_count).toBe(1);
    const filtered: any = await client.getRunStats({ projectNames: [projectName], filter: 'eq(name, "turn")' });
    expect(filtered.run_count).toBe(2);
  });

  it("threads: readThread and listThreads", async () => {
    const turns = await all(client.readThread({ threadId: "conv-1", projectName }));
    expect(turns.map((r) => r.name)).toEqual(["pipeline", "turn"]); // oldest first
    const threads = await client.listThreads({ projectName });
    expect(threads.map((t) => [t.thread_id, t.count]).sort()).toEqual([
      ["conv-1", 2],
      ["conv-2", 1],
    ]);
  });

  it("feedback: create (direct and as a multipart part), list, update, delete, in stats", async () => {
    const project = await client.readProject({ projectName });
    // direct: POST /feedback
    const direct = await client.createFeedback(root.id, "correctness", { score: 1, comment: "right", correction: { answer: "42" }, sourceInfo: { who: "me" }, projectId: undefined, sessionId: project.id } as any);
    // with a trace id the SDK sends it in a multipart ingest
    const batched = await client.createFeedback({ runId: root.id, traceId: root.trace_id, key: "helpfulness", score: 0.5, value: "meh", sessionId: project.id });
    await client.awaitPendingTraceBatches();
    const listed = await eventually(async () => {
      const l = await all(client.listFeedback({ runIds: [root.id] }));
      return l.length === 2 && l;
    });
    const byKey = Object.fromEntries(listed.map((f) => [f.key, f]));
    expect(byKey.correctness).toMatchObject({ id: direct.id, score: 1, comment: "right", correction: { answer: "42" }, feedback_source: { type: "api", metadata: { who: "me" } } });
    expect(byKey.helpfulness).toMatchObject({ id: batched.id, score: 0.5, value: "meh", run_id: root.id });
    expect((await all(client.listFeedback({ feedbackKeys: ["helpfulness"] }))).map((f) => f.id)).toEqual([batched.id]);

    await client.updateFeedback(direct.id, { score: 0, comment: "wrong after all" });
    expect(await client.readFeedback(direct.id)).toMatchObject({ score: 0, comment: "wrong after all", correction: { answer: "42" } });

    // aggregates: on the run, on the project, in run lists
    const stats = (await client.readProject({ projectName })).feedback_stats as any;
    expect(stats).toMatchObject({ correctness: { n: 1, avg: 0 }, helpfulness: { n: 1, avg: 0.5 } });
    expect((await server.api(`/runs/${root.id}`)).body.feedback_stats).toMatchObject({ correctness: { n: 1 } });
    expect(await all(client.listRuns({ projectName, filter: 'and(eq(feedback_key, "helpfulness"), gte(feedback_score, 0.5))' }))).toHaveLength(1);

    await client.deleteFeedback(batched.id);
    await expect(client.readFeedback(batched.id)).rejects.toThrow(/404|not found/i);
    expect((await all(client.listFeedback({ runIds: [root.id] }))).map((f) => f.key)).toEqual(["correctness"]);
    // a run that does not exist
    const missing = await server.api("/feedback", { method: "POST", body: JSON.stringify({ run_id: randomUUID(), key: "x", score: 1 }) });
    expect(missing.status).toBe(404);
  });

  it("sharing: a public link serves the trace read-only, without a key, until unshared", async () => {
    const url = await client.shareRun(root.id);
    const token = url.split("/public/")[1]!.split("/")[0]!;
    expect(await client.readRunSharedLink(root.id)).toBe(url);
    expect(await client.shareRun(root.id)).toBe(url); // sharing again keeps the link
    const run = await fetch(`${server.url}/public/${token}/run`);
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ id: root.id, name: "pipeline", inputs: expect.any(Object) });
    const tree: any = await (await fetch(`${server.url}/public/${token}/trace`)).json();
    expect(tree.runs[0].children.map((c: any) => c.name)).toEqual(["lookup", "generate"]);
    // a public link is not a key: nothing else answers to it
    expect((await fetch(`${server.url}/runs/${root.id}`, { headers: { "x-api-key": token } })).status).toBe(401);
    await client.unshareRun(root.id);
    expect(await client.readRunSharedLink(root.id)).toBeUndefined();
    expect((await fetch(`${server.url}/public/${token}/run`)).status).toBe(404);
    expect((await fetch(`${server.url}/public/${randomUUID()}/trace`)).status).toBe(404);
  });

  it("sharing: the SDK lists a shared trace's runs with the token, and nothing beyond that trace", async () => {
    const url = await client.shareRun(root.id);
    const token = url.split("/public/")[1]!.split("/")[0]!;
    const shared = await client.listSharedRuns(token);
    expect(shared.map((r) => r.name).sort()).toEqual(["generate", "lookup", "pipeline"]);
    expect(new Set(shared.map((r) => r.trace_id))).toEqual(new Set([root.trace_id]));
    const sharedRoot = shared.find((r) => r.id === root.id)!;
    expect(sharedRoot.inputs).toEqual(root.inputs);
    expect(sharedRoot.child_run_ids).toHaveLength(2);
    // naming runs: those of the trace answer, a run of another trace of the same project does not
    const other = (await all(client.listRuns({ projectName }))).find((r) => r.trace_id !== root.trace_id)!;
    expect(other).toBeDefined();
    const child = shared.find((r) => r.name === "lookup")!;
    expect((await client.listSharedRuns(token, { runIds: [child.id, other.id] })).map((r) => r.id)).toEqual([child.id]);
    expect(await client.listSharedRuns(token, { runIds: [other.id] })).toEqual([]);
    // plain HTTP, no key: the same runs; a bad id is refused in the documented shape
    const plain = await fetch(`${server.url}/public/${token}/runs?id=${child.id}`);
    expect(((await plain.json()) as any[]).map((r) => r.name)).toEqual(["lookup"]);
    const bad = await fetch(`${server.url}/public/${token}/runs?id=nope`);
    expect(bad.status).toBe(422);
    // a wrong token, or the token once unshared: 404
    await expect(client.listSharedRuns(randomUUID())).rejects.toThrow(/404/);
    expect((await fetch(`${server.url}/public/${randomUUID()}/runs`)).status).toBe(404);
    await client.unshareRun(root.id);
    expect((await fetch(`${server.url}/public/${token}/runs`)).status).toBe(404);
  });

  it("another tenant's key sees nothing of this tenant", async () => {
    const project = await client.readProject({ projectName });
    expect(await other.hasProject({ projectName })).toBe(false);
    expect((await all(other.listProjects())).map((p) => p.name)).not.toContain(projectName);
    await expect(other.readProject({ projectId: project.id })).rejects.toThrow(/404|not found/i);
    expect(await all(other.listRuns({ projectId: project.id }))).toEqual([]);
    expect(await all(other.listRuns({ traceId: root.trace_id }))).toEqual([]);
    expect(((await other.getRunStats({ projectIds: [project.id] })) as any).run_count).toBe(0);
    await expect(other.readRun(root.id)).rejects.toThrow(/404|not found/i);
    await expect(other.shareRun(root.id)).rejects.toThrow(/404|not found/i);
    await expect(other.updateProject(project.id, { name: "stolen" })).rejects.toThrow(/404|not found/i);
    await expect(other.deleteProject({ projectId: project.id })).rejects.toThrow(/404|not found/i);
    const [fb] = await all(client.listFeedback({ runIds: [root.id] }));
    await expect(other.readFeedback(fb!.id)).rejects.toThrow(/404|not found/i);
    await expect(other.updateFeedback(fb!.id, { score: 1 })).rejects.toThrow(/404|not found/i);
    expect(await all(other.listFeedback({ runIds: [root.id] }))).toEqual([]);
    await expect(other.createFeedback(root.id, "sneaky", { score: 1, sessionId: project.id } as any)).rejects.toThrow(/404|not found/i);
    // still intact for the owner
    expect((await client.readProject({ projectId: project.id })).name).toBe(projectName);
    expect((await client.readFeedback(fb!.id)).score).toBe(0);
  });

  it("a bad filter expression answers 400 in the documented shape", async () => {
    const project = await client.readProject({ projectName });
    for (const filter of ['eq(name, "x"', 'eq(colour, "red")', "frobnicate(name, 1)", 'gt(start_time, "yesterday")', "eq(name)", `${"not(".repeat(500)}eq(name, "x")${")".repeat(500)}`]) {
      const res = await server.api("/runs/query", { method: "POST", body: JSON.stringify({ session: [project.id], filter }) });
      expect(res.status, filter).toBe(400);
      expect(typeof res.body.detail, filter).toBe("string");
      expect(res.body.detail, filter).toMatch(/^invalid filter expression/);
    }
    await expect(all(client.listRuns({ projectName, filter: "and(eq(name" }))).rejects.toThrow(/400/);
    const stats = await server.api("/runs/stats", { method: "POST", body: JSON.stringify({ session: [project.id], filter: "nope(" }) });
    expect(stats.status).toBe(400);
    const cursor = await server.api("/runs/query", { method: "POST", body: JSON.stringify({ session: [project.id], cursor: "not-a-cursor" }) });
    expect(cursor.status).toBe(400);
  });
});

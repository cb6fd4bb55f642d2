/** The tracing query API: run filters and cursors, stats over time, prices, projects. */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const HOUR = 3_600_000;
const dottedTime = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.(\d{3})Z$/, "$1000Z");

describeBackends("tracing query API", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const project = `query-${randomUUID().slice(0, 8)}`;
  let projectId: string;
  // three days of traces, two per day, one of them failing; each with an LLM child
  const base = Date.UTC(2026, 10, 10, 12, 0, 0);
  const roots: string[] = [];

  beforeAll(async () => {
    const post: any[] = [];
    for (let day = 0; day < 3; day++) {
      for (let k = 0; k < 2; k++) {
        const start = base + day * 24 * HOUR + k * HOUR;
        const id = randomUUID();
        const llm = randomUUID();
        roots.push(id);
        post.push(
          {
            id,
            dotted_order: `${dottedTime(start)}${id}`,
            name: "agent",
            run_type: "chain",
            start_time: start,
            end_time: start + 1000 * (k + 1),
            error: day === 2 && k === 1 ? "Error: boom" : undefined,
            session_name: project,
            extra: { metadata: { customer: day === 0 ? "acme" : "globex", thread_id: `t-${k}` } },
          },
          {
            id: llm,
            dotted_order: `${dottedTime(start)}${id}.${dottedTime(start + 10)}${llm}`,
            name: "model",
            run_type: "llm",
            start_time: start + 10,
            end_time: start + 500,
            session_name: project,
            events: [{ name: "new_token", time: new Date(start + 110).toISOString() }],
            extra: { metadata: { ls_provider: "openai", ls_model_name: "gpt-4o" } },
            outputs: { usage_metadata: { input_tokens: 100, output_tokens: 50, total_tokens: 150, total_cost: 0.01 } },
          },
        );
      }
    }
    const res = await server.api("/runs/batch", { method: "POST", body: JSON.stringify({ post }) });
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(12);
    projectId = (await server.api(`/projects?name=${project}`)).body.projects[0].id;
  });

  it("pages through runs newest first with a cursor, with no overlap or gap", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const q: string = `/runs?project_id=${projectId}&is_root=true&limit=4${cursor ? `&cursor=${cursor}` : ""}`;
      const page: any = (await server.api(q)).body;
      seen.push(...page.runs.map((r: any) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(2);
    expect(seen).toEqual([...roots].reverse());
    expect((await server.api(`/runs?cursor=garbage`)).status).toBe(400);
  });

  it("pages without gaps through runs microseconds apart and runs not started yet", async () => {
    const name = `micro-${randomUUID().slice(0, 8)}`;
    const t = "2026-11-12T08:00:00.123";
    const timed = ["100", "200", "300", "400", "500"].map((us) => ({ id: randomUUID(), name: "m", start_time: `${t}${us}Z`, session_name: name }));
    const unstarted = [randomUUID(), randomUUID()];
    await server.api("/runs/batch", { method: "POST", body: JSON.stringify({ post: timed, patch: unstarted.map((id) => ({ id, session_name: name, end_time: Date.now() })) }) });
    const pid = (await server.api(`/projects?name=${name}`)).body.projects[0].id;
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await server.api(`/runs?project_id=${pid}&limit=2${cursor ? `&cursor=${cursor}` : ""}`)).body;
      seen.push(...page.runs.map((r: any) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.slice(0, 5)).toEqual(timed.map((r) => r.id).reverse());
    expect(new Set(seen.slice(5))).toEqual(new Set(unstarted));
    expect(seen).toHaveLength(7);
  });

  it("filters by type, status, name, time range, thread and metadata", async () => {
    const ids = async (q: string) => ((await server.api(`/runs?project_id=${projectId}&${q}`)).body.runs as any[]).map((r) => r.id);
    expect(await ids("run_type=llm")).toHaveLength(6);
    expect(await ids("status=error")).toEqual([roots[5]]);
    expect(await ids("name=agent&metadata[customer]=acme")).toEqual([roots[1], roots[0]]);
    expect(await ids(`is_root=true&start_time_gte=${new Date(base + 24 * HOUR).toISOString()}&start_time_lte=${new Date(base + 25 * HOUR).toISOString()}`)).toEqual([roots[3], roots[2]]);
    expect(await ids("thread_id=t-1")).toEqual([roots[5], roots[3], roots[1]]);
    expect((await server.api(`/runs?run_type=banana`)).status).toBe(422);
    expect((await server.api(`/runs?limit=0`)).status).toBe(422);
  });

  it("sums a trace over its LLM runs and returns it as a tree", async () => {
    const tree = (await server.api(`/traces/${roots[0]}`)).body;
    expect(tree.totals).toMatchObject({ run_count: 2, llm_count: 1, total_tokens: 150, total_cost: 0.01, ttft_ms: 110, models: ["gpt-4o"] });
    expect(tree.runs[0].children[0]).toMatchObject({ name: "model", cost: { source: "client", total_cost: 0.01 }, ttft_ms: 100 });
    expect((await server.api(`/traces/${randomUUID()}`)).status).toBe(404);
  });

  it("answers stats over time in day buckets from the rollups", async () => {
    const q = `start_time=${new Date(base - 12 * HOUR).toISOString()}&end_time=${new Date(base + 2 * 24 * HOUR + 11 * HOUR).toISOString()}&bucket=day`;
    const stats = (await server.api(`/projects/${projectId}/stats?${q}`)).body;
    expect(stats.buckets).toHaveLength(3);
    expect(stats.buckets.map((b: any) => b.trace_count)).toEqual([2, 2, 2]);
    expect(stats.buckets.map((b: any) => b.error_rate)).toEqual([0, 0, 0.5]);
    expect(stats.buckets[0]).toMatchObject({ llm_count: 2, total_tokens: 300, total_cost: 0.02 });
    // latencies 1 s and 2 s: p50 near 1 s, p99 near 2 s (histogram precision)
    expect(stats.buckets[0].latency_p50).toBeGreaterThan(900);
    expect(stats.buckets[0].latency_p50).toBeLessThan(1300);
    expect(stats.buckets[0].latency_p99).toBeGreaterThan(1800);
    expect(stats.buckets[0].first_token_p50).toBeGreaterThan(80);
    expect(stats.buckets[0].first_token_p50).toBeLessThan(120);
    expect(stats.totals).toMatchObject({ trace_count: 6, error_count: 1, total_cost: 0.06 });
    expect(stats.by_model).toEqual([expect.objectContaining({ model: "gpt-4o", llm_count: 6, total_tokens: 900 })]);
    const hourly = (await server.api(`/projects/${projectId}/stats?${q.replace("day", "hour")}`)).body;
    expect(hourly.buckets).toHaveLength(12 + 48 + 11);
    expect((await server.api(`/projects/${projectId}/stats?bucket=week`)).status).toBe(422);
    expect((await server.api(`/projects/${projectId}/stats?start_time=2020-01-01T00:00:00Z&bucket=hour`)).status).toBe(400);
  });

  it("lists threads with their turns", async () => {
    const threads = (await server.api(`/projects/${projectId}/threads`)).body.threads;
    expect(threads.map((t: any) => [t.thread_id, t.turn_count, t.llm_count, t.total_tokens])).toEqual([
      ["t-1", 3, 3, 450],
      ["t-0", 3, 3, 450],
    ]);
    const turns = (await server.api(`/projects/${projectId}/threads/t-0`)).body.turns;
    expect(turns.map((t: any) => t.id)).toEqual([roots[0], roots[2], roots[4]]);
    // pages of turns: the console loads a long conversation page by page
    const second = (await server.api(`/projects/${projectId}/threads/t-0?limit=2&offset=2`)).body.turns;
    expect(second.map((t: any) => t.id)).toEqual([roots[4]]);
  });

  it("renders a graph turn's messages: its input and what it added, not the echoed history", async () => {
    const id = randomUUID();
    const start = Date.now();
    const post = {
      id,
      dotted_order: `${dottedTime(start)}${id}`,
      name: "LangGraph",
      run_type: "chain",
      start_time: start,
      end_time: start + 100,
      session_name: project,
      extra: { metadata: { thread_id: "t-graph" } },
      inputs: { messages: [{ role: "user", content: "and tomorrow?" }] },
      outputs: {
        messages: [
          { role: "user", content: "weather today?" },
          { role: "assistant", content: "sunny" },
          { role: "user", content: "and tomorrow?" },
          { role: "assistant", content: "rain" },
        ],
      },
    };
    expect((await server.api("/runs/batch", { method: "POST", body: JSON.stringify({ post: [post] }) })).status).toBe(202);
    const [turn] = (await server.api(`/projects/${projectId}/threads/t-graph`)).body.turns;
    expect(turn.messages.rendered).toBe(true);
    expect(turn.messages.messages.map((m: any) => [m.role, m.content[0].text])).toEqual([
      ["user", "and tomorrow?"],
      ["assistant", "rain"],
    ]);
    // a chain called with anything else has no messages: shown raw
    const plain = (await server.api(`/runs/${roots[0]}`)).body;
    expect(plain.messages).toBeNull();
  });

  it("creates, changes and deletes tenant prices; rejects bad ones with 422", async () => {
    const created = await server.api("/model-prices", { method: "POST", body: JSON.stringify({ model_name: "mine", match_pattern: "^my-model$", input_per_million: 1, output_per_million: 2 }) });
    expect(created.status).toBe(201);
    const list = (await server.api("/model-prices")).body.prices;
    expect(list[0]).toMatchObject({ id: created.body.id, source: "tenant" });
    expect(list.some((p: any) => p.source === "default")).toBe(true);
    const patched = await server.api(`/model-prices/${created.body.id}`, { method: "PATCH", body: JSON.stringify({ output_per_million: 4 }) });
    expect(patched.body).toMatchObject({ output_per_million: 4, input_per_million: 1 });
    expect((await server.api(`/model-prices/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await server.api(`/model-prices/${created.body.id}`, { method: "DELETE" })).status).toBe(404);
    const bad = await server.api("/model-prices", { method: "POST", body: JSON.stringify({ model_name: "x", match_pattern: "(", input_per_million: -1, output_per_million: 1 }) });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: any) => d.loc.join("."))).toEqual(expect.arrayContaining(["body.match_pattern", "body.input_per_million"]));
  });

  it("gets, creates and deletes projects", async () => {
    const name = `p-${randomUUID().slice(0, 8)}`;
    const created = await server.api("/projects", { method: "POST", body: JSON.stringify({ name }) });
    expect(created.status).toBe(201);
    expect((await server.api("/projects", { method: "POST", body: JSON.stringify({ name }) })).status).toBe(409);
    expect((await server.api(`/projects/${created.body.id}`)).body).toMatchObject({ name, stats: { trace_count: 0, error_rate: null } });
    expect((await server.api(`/projects/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await server.api(`/projects/${created.body.id}`)).status).toBe(404);
    expect((await server.api(`/projects/not-a-uuid`)).status).toBe(422);
    expect((await server.api(`/runs/${randomUUID()}`)).status).toBe(404);
  });

  it("recreates a project that another process deleted behind this one's cache", async () => {
    const name = `elsewhere-${randomUUID().slice(0, 8)}`;
    const post = () => server.api("/runs", { method: "POST", body: JSON.stringify({ id: randomUUID(), name: "x", start_time: Date.now(), session_name: name }) });
    expect((await post()).status).toBe(202);
    await server.handle.facility.pool.query("DELETE FROM tracing_projects WHERE name = $1", [name]);
    expect((await post()).status).toBe(202);
    expect((await server.api(`/projects?name=${name}`)).body.projects).toHaveLength(1);
  });

  it("deleting a project removes its runs, and new runs recreate it under its name", async () => {
    const name = `gone-${randomUUID().slice(0, 8)}`;
    const id = randomUUID();
    await server.api("/runs", { method: "POST", body: JSON.stringify({ id, name: "x", run_type: "chain", start_time: Date.now(), end_time: Date.now(), session_name: name }) });
    const p = (await server.api(`/projects?name=${name}`)).body.projects[0];
    expect((await server.api(`/projects/${p.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await server.api(`/runs/${id}`)).status).toBe(404);
    const again = randomUUID();
    expect((await server.api("/runs", { method: "POST", body: JSON.stringify({ id: again, name: "y", start_time: Date.now(), session_name: name }) })).status).toBe(202);
    expect((await server.api(`/runs/${again}`)).body.project_id).not.toBe(p.id);
  });
});

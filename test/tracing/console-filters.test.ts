/**
 * The run-list filters the console's traces table uses beyond LangSmith's: a name search, the
 * run's model, the models used anywhere in a trace, and a latency range. Through HTTP, against a
 * real database, like the rest of the query API's tests.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const dottedTime = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, "").replace(/\.(\d{3})Z$/, "$1000Z");

describeBackends("tracing run filters for the console", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const project = `filters-${randomUUID().slice(0, 8)}`;
  let projectId: string;
  const base = Date.UTC(2026, 10, 10, 12, 0, 0);
  /** Root ids by name. */
  const roots: Record<string, string> = {};

  // four traces: name, how long the root took, and the model of its one LLM child (if any)
  const traces: [name: string, ms: number, model: string | null][] = [
    ["weather_agent", 1000, "gpt-4o-mini"],
    ["Weather Bot", 3000, "claude-sonnet-4"],
    ["search_100%_done", 5000, "gpt-4o-mini"],
    ["plain", 200, null],
  ];

  beforeAll(async () => {
    const post: any[] = [];
    traces.forEach(([name, ms, model], k) => {
      const start = base + k * 60_000;
      const id = randomUUID();
      roots[name] = id;
      post.push({ id, dotted_order: `${dottedTime(start)}${id}`, name, run_type: "chain", start_time: start, end_time: start + ms, session_name: project });
      if (model) {
        const llm = randomUUID();
        post.push({
          id: llm,
          dotted_order: `${dottedTime(start)}${id}.${dottedTime(start + 10)}${llm}`,
          name: "model",
          run_type: "llm",
          start_time: start + 10,
          end_time: start + 100,
          session_name: project,
          extra: { metadata: { ls_provider: model.startsWith("gpt") ? "openai" : "anthropic", ls_model_name: model } },
        });
      }
    });
    // a root still running: no end, so no latency, and it matches no latency filter
    const pending = randomUUID();
    roots.pending = pending;
    post.push({ id: pending, dotted_order: `${dottedTime(base + 600_000)}${pending}`, name: "weather_pending", run_type: "chain", start_time: base + 600_000, session_name: project });
    const res = await server.api("/runs/batch", { method: "POST", body: JSON.stringify({ post }) });
    expect(res.status).toBe(202);
    projectId = (await server.api(`/projects?name=${project}`)).body.projects[0].id;
  });

  const rootNames = async (q: string) => {
    const res = await server.api(`/runs?project_id=${projectId}&is_root=true&${q}`);
    expect(res.status).toBe(200);
    return (res.body.runs as any[]).map((r) => r.name).sort();
  };

  it("searches names case-insensitively, with LIKE wildcards taken literally", async () => {
    expect(await rootNames("name_contains=weather")).toEqual(["Weather Bot", "weather_agent", "weather_pending"]);
    expect(await rootNames(`name_contains=${encodeURIComponent("100%")}`)).toEqual(["search_100%_done"]);
    // `_` and `%` match only themselves: as wildcards, "r_b" would match "Weather Bot" and "%" everything
    expect(await rootNames("name_contains=r_a")).toEqual(["weather_agent"]);
    expect(await rootNames("name_contains=r_b")).toEqual([]);
    expect(await rootNames(`name_contains=${encodeURIComponent("%")}`)).toEqual(["search_100%_done"]);
    expect(await rootNames("name_contains=nothing-like-it")).toEqual([]);
  });

  it("filters runs by their own model and traces by the models used inside them", async () => {
    const llms = (await server.api(`/runs?project_id=${projectId}&model=gpt-4o-mini`)).body.runs as any[];
    expect(llms.map((r) => [r.run_type, r.model])).toEqual([
      ["llm", "gpt-4o-mini"],
      ["llm", "gpt-4o-mini"],
    ]);
    // the roots have no model of their own…
    expect(await rootNames("model=gpt-4o-mini")).toEqual([]);
    // …but their traces do
    expect(await rootNames("trace_model=gpt-4o-mini")).toEqual(["search_100%_done", "weather_agent"]);
    expect(await rootNames("trace_model=claude-sonnet-4")).toEqual(["Weather Bot"]);
    expect(await rootNames("trace_model=claude-sonnet-4&name_contains=agent")).toEqual([]);
  });

  it("filters by latency, leaving out runs that have not finished", async () => {
    expect(await rootNames("min_latency_ms=1000")).toEqual(["Weather Bot", "search_100%_done", "weather_agent"]);
    expect(await rootNames("min_latency_ms=1001")).toEqual(["Weather Bot", "search_100%_done"]);
    expect(await rootNames("max_latency_ms=1000")).toEqual(["plain", "weather_agent"]);
    expect(await rootNames("min_latency_ms=2000&max_latency_ms=4000")).toEqual(["Weather Bot"]);
    expect(await rootNames("min_latency_ms=0.5&max_latency_ms=200.5")).toEqual(["plain"]);
  });

  it("pages through a filtered list with the cursor", async () => {
    const first = (await server.api(`/runs?project_id=${projectId}&is_root=true&name_contains=weather&limit=2`)).body;
    expect(first.runs).toHaveLength(2);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await server.api(`/runs?project_id=${projectId}&is_root=true&name_contains=weather&limit=2&cursor=${first.next_cursor}`)).body;
    expect([...first.runs, ...second.runs].map((r: any) => r.id)).toEqual([roots.pending, roots["Weather Bot"], roots.weather_agent]);
    expect(second.next_cursor).toBeNull();
  });

  it("refuses malformed filter values with 422", async () => {
    expect((await server.api(`/runs?min_latency_ms=-1`)).status).toBe(422);
    expect((await server.api(`/runs?max_latency_ms=fast`)).status).toBe(422);
    expect((await server.api(`/runs?name_contains=`)).status).toBe(422);
  });
});

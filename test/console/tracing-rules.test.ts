/** The tracing pages' rules: the run tree as rows, waterfall geometry, filters in the URL, chart series. */
import { describe, expect, it } from "vitest";
import type { StatsOverTime } from "../../src/console/api/types";
import { bucketLabel, chartSeries, costByModel, defaultBucket, hasData, hasValues, isIsolated, statsWindow } from "../../src/console/tracing/chart-series";
import { fmtAxisDuration } from "../../src/console/tracing/axis";
import { allParents, ancestorsOf, defaultSelection, flattenTree, indexTree, navigate, revealRun } from "../../src/console/tracing/flatten-tree";
import { filtersFromParams, filtersToParams, fromLocalInput, hasFilters, toLocalInput, traceListQuery } from "../../src/console/tracing/trace-filters";
import { axisTicks, barOf, MIN_WIDTH, traceSpan } from "../../src/console/tracing/waterfall";

interface N {
  id: string;
  run_type: string;
  status?: string;
  children: N[];
}
const n = (id: string, children: N[] = [], run_type = "chain"): N => ({ id, run_type, children });

//  root
//  ├─ a
//  │  ├─ a1 (llm)
//  │  └─ a2
//  └─ b
//     └─ b1
const tree = () => [n("root", [n("a", [n("a1", [], "llm"), n("a2")]), n("b", [n("b1")])])];
const ids = (rows: { node: N }[]) => rows.map((r) => r.node.id);

describe("flattenTree", () => {
  it("lists runs depth first with their depth, parents before children, siblings in order", () => {
    const rows = flattenTree(tree(), new Set());
    expect(ids(rows)).toEqual(["root", "a", "a1", "a2", "b", "b1"]);
    expect(rows.map((r) => r.depth)).toEqual([0, 1, 2, 2, 1, 2]);
    expect(rows.map((r) => r.hasChildren)).toEqual([true, true, false, false, true, false]);
    expect(rows.map((r) => r.expanded)).toEqual([true, true, false, false, true, false]);
  });

  it("hides the subtree of a collapsed run but keeps the run", () => {
    const rows = flattenTree(tree(), new Set(["a"]));
    expect(ids(rows)).toEqual(["root", "a", "b", "b1"]);
    expect(rows[1]).toMatchObject({ hasChildren: true, expanded: false });
    expect(ids(flattenTree(tree(), new Set(["root"])))).toEqual(["root"]);
  });

  it("puts orphan roots (runs whose parent has not arrived) after the root", () => {
    expect(ids(flattenTree([n("root", [n("x")]), n("orphan", [n("o1")])], new Set()))).toEqual(["root", "x", "orphan", "o1"]);
  });

  it("flattens a 25,000-run trace 5,000 levels deep without recursion limits", () => {
    // a chain 5,000 deep, plus 20,000 leaves under the root
    let deep = n("d4999");
    for (let i = 4998; i >= 0; i--) deep = n(`d${i}`, [deep]);
    const root = n("root", [deep, ...Array.from({ length: 20_000 }, (_, i) => n(`leaf${i}`, [], "llm"))]);
    // (how fast is for a benchmark: any bound here would break on a busy machine)
    const rows = flattenTree([root], new Set());
    expect(rows).toHaveLength(25_001);
    expect(rows[5000]).toMatchObject({ depth: 5000, node: { id: "d4999" } });
    expect(rows[5001]).toMatchObject({ depth: 1, node: { id: "leaf0" } });
    expect(flattenTree([root], new Set(["d0"]))).toHaveLength(20_002);
  });
});

describe("tree index, selection and keys", () => {
  const roots = tree();
  const index = indexTree(roots);

  it("knows every run's parent and ancestors", () => {
    expect(index.byId.size).toBe(6);
    expect(index.parentOf.get("a1")).toBe("a");
    expect(index.parentOf.has("root")).toBe(false);
    expect(ancestorsOf(index, "a2")).toEqual(["a", "root"]);
    expect(ancestorsOf(index, "root")).toEqual([]);
  });

  it("knows which runs have a failure somewhere below them", () => {
    const failing = [n("root", [n("a", [n("a1", [], "llm"), { ...n("a2"), status: "error" }]), n("b", [n("b1")])])];
    expect([...indexTree(failing).failedBelow].sort()).toEqual(["a", "root"]);
    expect(indexTree(tree()).failedBelow.size).toBe(0);
  });

  it("selects the first LLM run by default, else the root", () => {
    expect(defaultSelection(index)).toBe("a1");
    expect(defaultSelection(indexTree([n("r", [n("t", [], "tool")])]))).toBe("r");
    expect(defaultSelection(indexTree([]))).toBeUndefined();
  });

  it("expands the ancestors of a run chosen inside a collapsed subtree, and only those", () => {
    const collapsed = new Set(["a", "b"]);
    const next = revealRun(index, collapsed, "a2");
    expect([...next]).toEqual(["b"]);
    expect(collapsed.size).toBe(2); // not changed in place
    expect(revealRun(index, collapsed, "b")).toBe(collapsed);
  });

  it("collapses all runs with children", () => {
    expect([...allParents(index)].sort()).toEqual(["a", "b", "root"]);
  });

  it("moves the selection with the arrow keys, Home and End", () => {
    const rows = flattenTree(roots, new Set());
    expect(navigate(rows, index, "a", "ArrowDown")).toEqual({ select: "a1" });
    expect(navigate(rows, index, "a", "ArrowUp")).toEqual({ select: "root" });
    expect(navigate(rows, index, "root", "ArrowUp")).toEqual({ select: "root" });
    expect(navigate(rows, index, "b1", "ArrowDown")).toEqual({ select: "b1" });
    expect(navigate(rows, index, undefined, "ArrowDown")).toEqual({ select: "root" });
    expect(navigate(rows, index, "a1", "Home")).toEqual({ select: "root" });
    expect(navigate(rows, index, "a1", "End")).toEqual({ select: "b1" });
    expect(navigate(rows, index, "a1", "Enter")).toBeUndefined();
  });

  it("collapses, expands and walks the tree with left and right", () => {
    const open = flattenTree(roots, new Set());
    expect(navigate(open, index, "a", "ArrowLeft")).toEqual({ collapse: "a" });
    expect(navigate(open, index, "a1", "ArrowLeft")).toEqual({ select: "a" });
    expect(navigate(open, index, "a", "ArrowRight")).toEqual({ select: "a1" });
    expect(navigate(open, index, "a1", "ArrowRight")).toBeUndefined();
    const shut = flattenTree(roots, new Set(["a"]));
    expect(navigate(shut, index, "a", "ArrowRight")).toEqual({ expand: "a" });
    expect(navigate(shut, index, "a", "ArrowLeft")).toEqual({ select: "root" });
    expect(navigate(shut, index, "root", "ArrowLeft")).toEqual({ collapse: "root" });
    // the down key skips the hidden children
    expect(navigate(shut, index, "a", "ArrowDown")).toEqual({ select: "b" });
  });
});

describe("waterfall geometry", () => {
  const t = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
  const now = Date.UTC(2026, 0, 1) + 60_000;

  it("spans from the first start to the last end", () => {
    const span = traceSpan([{ start_time: t(100), end_time: t(1100) }, { start_time: t(0), end_time: t(500) }, { start_time: null, end_time: null }], now);
    expect(span).toEqual({ start: Date.parse(t(0)), end: Date.parse(t(1100)) });
    expect(traceSpan([{ start_time: null, end_time: null }], now)).toBeUndefined();
  });

  it("extends the span of a trace still running to now, and never to zero length", () => {
    expect(traceSpan([{ start_time: t(0), end_time: null }], now)).toEqual({ start: Date.parse(t(0)), end: now });
    const instant = traceSpan([{ start_time: t(0), end_time: t(0) }], now)!;
    expect(instant.end - instant.start).toBe(1);
  });

  it("places a bar by its start and scales it by its duration", () => {
    const span = { start: Date.parse(t(0)), end: Date.parse(t(2000)) };
    expect(barOf({ start_time: t(500), end_time: t(1500) }, span, now)).toEqual({ left: 25, width: 50, open: false });
    expect(barOf({ start_time: t(0), end_time: t(2000) }, span, now)).toEqual({ left: 0, width: 100, open: false });
    expect(barOf({ start_time: null, end_time: null }, span, now)).toBeUndefined();
  });

  it("gives an instant run a visible minimum width inside the axis", () => {
    const span = { start: Date.parse(t(0)), end: Date.parse(t(2000)) };
    expect(barOf({ start_time: t(1000), end_time: t(1000) }, span, now)).toEqual({ left: 50, width: MIN_WIDTH, open: false });
    const last = barOf({ start_time: t(2000), end_time: t(2000) }, span, now)!;
    expect(last.left + last.width).toBeCloseTo(100);
  });

  it("draws a run still going up to the end of the axis, marked open", () => {
    const span = { start: Date.parse(t(0)), end: now };
    expect(barOf({ start_time: t(30_000), end_time: null }, span, now)).toEqual({ left: 50, width: 50, open: true });
  });

  it("ticks the axis evenly from 0 to the trace's duration", () => {
    expect(axisTicks({ start: 0, end: 2000 }, 4)).toEqual([
      { offsetMs: 0, percent: 0 },
      { offsetMs: 500, percent: 25 },
      { offsetMs: 1000, percent: 50 },
      { offsetMs: 1500, percent: 75 },
      { offsetMs: 2000, percent: 100 },
    ]);
  });
});

describe("trace filters in the URL", () => {
  it("round-trips every filter through the URL", () => {
    const f = { name: "weather", status: "error", runType: "llm", model: "gpt-4o", minLatency: 1.5, maxLatency: 10, range: "7d", from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z" } as const;
    const params = filtersToParams(f);
    expect(params.toString()).toBe("name=weather&status=error&type=llm&model=gpt-4o&min_latency=1.5&max_latency=10&range=7d&from=2026-01-01T00%3A00%3A00.000Z&to=2026-01-02T00%3A00%3A00.000Z");
    expect(filtersFromParams(params)).toEqual(f);
  });

  it("drops values that do not parse instead of sending them to the API", () => {
    const f = filtersFromParams(new URLSearchParams("status=broken&type=banana&min_latency=-1&max_latency=fast&range=1y&from=yesterday&name=%20%20&model=&cursor=abc"));
    expect(f).toEqual({});
    expect(hasFilters(f)).toBe(false);
    expect(hasFilters(filtersFromParams(new URLSearchParams("status=error")))).toBe(true);
  });

  it("asks for root runs of the project with the API's parameter names", () => {
    const now = Date.UTC(2026, 0, 10, 12);
    expect(traceListQuery("p1", {}, now, undefined, 50)).toEqual({ project_id: "p1", is_root: "true", limit: 50 });
    expect(traceListQuery("p1", { name: "w", status: "error", runType: "chain", model: "gpt-4o", minLatency: 1.5, maxLatency: 2, range: "24h" }, now, "CUR", 25)).toEqual({
      project_id: "p1",
      is_root: "true",
      name_contains: "w",
      status: "error",
      run_type: "chain",
      trace_model: "gpt-4o",
      min_latency_ms: 1500,
      max_latency_ms: 2000,
      start_time_gte: "2026-01-09T12:00:00.000Z",
      cursor: "CUR",
      limit: 25,
    });
  });

  it("lets an explicit start win over a relative range, and sends an end as given", () => {
    const q = traceListQuery("p1", { range: "1h", from: "2026-01-01T00:00:00Z", to: "2026-01-01T06:00:00Z" }, Date.UTC(2026, 0, 10), undefined, 50);
    expect(q).toMatchObject({ start_time_gte: "2026-01-01T00:00:00.000Z", start_time_lte: "2026-01-01T06:00:00.000Z" });
  });

  it("converts between the URL's UTC timestamps and a local datetime input", () => {
    const iso = "2026-03-04T05:06:00.000Z";
    expect(fromLocalInput(toLocalInput(iso))).toBe(iso);
    expect(toLocalInput(undefined)).toBe("");
    expect(toLocalInput("garbage")).toBe("");
    expect(fromLocalInput("")).toBeUndefined();
  });
});

describe("dashboard series", () => {
  const empty = { trace_count: 0, run_count: 0, error_count: 0, error_rate: null, llm_count: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, total_cost: 0, latency_p50: null, latency_p99: null, first_token_p50: null, first_token_p99: null };
  const stats: StatsOverTime = {
    bucket: "hour",
    start_time: "2026-01-01T10:00:00.000Z",
    end_time: "2026-01-01T13:00:00.000Z",
    totals: { ...empty },
    buckets: [
      { start: "2026-01-01T10:00:00.000Z", ...empty, trace_count: 4, run_count: 9, error_count: 1, error_rate: 0.25, input_tokens: 100, output_tokens: 40, total_tokens: 140, total_cost: 0.5, latency_p50: 900, latency_p99: 2000, first_token_p50: 120, first_token_p99: 300 },
      { start: "2026-01-01T11:00:00.000Z", ...empty },
      { start: "2026-01-01T12:00:00.000Z", ...empty, trace_count: 2, run_count: 2, error_rate: 0 },
    ],
    by_model: [
      { model: "gpt-4o", llm_count: 3, input_tokens: 90, output_tokens: 30, total_tokens: 120, total_cost: 0.45, first_token_p50: 100 },
      { model: null, llm_count: 1, input_tokens: 10, output_tokens: 10, total_tokens: 20, total_cost: 0.05, first_token_p50: null },
    ],
  };

  it("keeps every bucket: zeros for counts, gaps for percentiles and the error rate", () => {
    const points = chartSeries(stats, "UTC");
    expect(points).toHaveLength(3);
    expect(points[0]).toMatchObject({ t: Date.parse("2026-01-01T10:00:00Z"), label: "Jan 1, 10:00", traces: 4, ok_traces: 3, errors: 1, runs: 9, input_tokens: 100, output_tokens: 40, cost: 0.5, latency_p50: 900, ttft_p99: 300, error_rate: 25 });
    expect(points[1]).toMatchObject({ traces: 0, input_tokens: 0, cost: 0, latency_p50: null, ttft_p50: null, error_rate: null });
    // a bucket with traces and no errors is a real 0 %, not a gap
    expect(points[2]!.error_rate).toBe(0);
  });

  it("tells a chart with data from one with none", () => {
    const points = chartSeries(stats, "UTC");
    expect(hasData(points, ["cost"])).toBe(true);
    expect(hasData(points.slice(1), ["cost", "input_tokens"])).toBe(false);
    expect(hasValues(points.slice(2), ["error_rate"])).toBe(true);
    expect(hasValues(points.slice(1, 2), ["error_rate", "latency_p50"])).toBe(false);
  });

  it("names the cost of each model, unknown models included", () => {
    expect(costByModel(stats)).toEqual([
      { model: "gpt-4o", cost: 0.45, tokens: 120, calls: 3 },
      { model: "(unknown model)", cost: 0.05, tokens: 20, calls: 1 },
    ]);
  });

  it("asks for hours up to a week and days beyond, from a bucket boundary", () => {
    expect(defaultBucket("24h")).toBe("hour");
    expect(defaultBucket("7d")).toBe("hour");
    expect(defaultBucket("30d")).toBe("day");
    const now = Date.parse("2026-01-31T15:42:10.000Z");
    expect(statsWindow("24h", "hour", now)).toEqual({ start_time: "2026-01-30T15:00:00.000Z", end_time: "2026-01-31T15:42:10.000Z", bucket: "hour" });
    expect(statsWindow("30d", "day", now)).toEqual({ start_time: "2026-01-01T00:00:00.000Z", end_time: "2026-01-31T15:42:10.000Z", bucket: "day" });
  });

  it("labels day buckets with their UTC date whatever the viewer's zone", () => {
    expect(bucketLabel("2026-01-05T00:00:00.000Z", "day", "America/New_York")).toBe("Jan 5");
    expect(bucketLabel("2026-01-05T00:00:00.000Z", "hour", "America/New_York")).toBe("Jan 4, 19:00");
  });

  it("marks lone values, which a line alone would not draw", () => {
    const points = chartSeries(stats, "UTC");
    // latency: a value, then two gaps
    expect(isIsolated(points, 0, "latency_p50")).toBe(true);
    expect(isIsolated(points, 1, "latency_p50")).toBe(false);
    // error rate 25 %, gap, 0 %: both alone (0 is a value)
    expect(isIsolated(points, 2, "error_rate")).toBe(true);
    expect(isIsolated(points, 0, "traces")).toBe(false); // neighbours are 0, not gaps
  });

  it("writes short durations on axes", () => {
    expect([0, 250, 1500, 90_000, 5_400_000].map(fmtAxisDuration)).toEqual(["0", "250 ms", "1.5 s", "1.5 min", "1.5 h"]);
    expect(fmtAxisDuration(2000)).toBe("2 s");
  });
});

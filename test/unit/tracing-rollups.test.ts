import { describe, expect, it } from "vitest";
import { bucketOf } from "../../src/tracing/accounting/histogram.js";
import { combineDeltas, contribution, denseHistogram, hourOf, type RunFacts } from "../../src/tracing/rollups/contribution.js";
import { statsOverTime, totalsOf, type RollupRow } from "../../src/tracing/query/stats.js";

const P = "11111111-1111-4111-8111-111111111111";
const llm: RunFacts = {
  project_id: P,
  start_time: "2026-11-21T09:45:00Z",
  end_time: "2026-11-21T09:45:02Z",
  status: "success",
  parent_run_id: "22222222-2222-4222-8222-222222222222",
  run_type: "llm",
  model: "gpt-4o",
  input_tokens: 10,
  output_tokens: 5,
  total_tokens: 15,
  total_cost: 0.5,
  ttft_ms: 300,
};
const root: RunFacts = { project_id: P, start_time: "2026-11-21T09:10:00Z", end_time: "2026-11-21T09:10:01.5Z", status: "error", run_type: "chain" };

describe("rollup contributions", () => {
  it("counts nothing for a run that has not ended or has no start", () => {
    expect(contribution({ ...llm, status: "pending" })).toEqual([]);
    expect(contribution({ ...llm, start_time: null })).toEqual([]);
    expect(contribution(undefined)).toEqual([]);
  });

  it("puts trace figures of a root under model '' and LLM figures under the model", () => {
    const [trace] = contribution(root);
    expect(trace).toMatchObject({ model: "", hour: "2026-11-21T09:00:00.000Z", run_count: 1, trace_count: 1, error_count: 1, llm_count: 0 });
    expect([...trace!.latency_hist]).toEqual([[bucketOf(1500), 1]]);
    const [child, model] = contribution(llm);
    expect(child).toMatchObject({ run_count: 1, trace_count: 0, latency_hist: new Map() });
    expect(model).toMatchObject({ model: "gpt-4o", llm_count: 1, input_tokens: 10, total_cost: 0.5 });
    expect([...model!.ttft_hist]).toEqual([[bucketOf(300), 1]]);
  });

  it("nets an unchanged run to nothing, and a changed one to the difference", () => {
    expect(combineDeltas([...contribution(llm, -1), ...contribution(llm, 1)])).toEqual([]);
    const moved = combineDeltas([...contribution(llm, -1), ...contribution({ ...llm, output_tokens: 7, total_tokens: 17 }, 1)]);
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatchObject({ model: "gpt-4o", output_tokens: 2, total_tokens: 2, llm_count: 0 });
  });

  it("moves a run between hours when its start changes", () => {
    const later = { ...root, start_time: "2026-11-21T11:10:00Z", end_time: "2026-11-21T11:10:01.5Z" };
    const d = combineDeltas([...contribution(root, -1), ...contribution(later, 1)]);
    expect(d.map((x) => [x.hour, x.trace_count])).toEqual([
      ["2026-11-21T09:00:00.000Z", -1],
      ["2026-11-21T11:00:00.000Z", 1],
    ]);
  });

  it("sends histogram deltas as short dense arrays", () => {
    expect(denseHistogram(new Map([[3, 1], [1, -1]]))).toEqual([0, -1, 0, 1]);
    expect(denseHistogram(new Map())).toEqual([]);
    expect(hourOf("2026-11-21T09:59:59.999Z")).toBe("2026-11-21T09:00:00.000Z");
  });
});

describe("stats from rollup rows", () => {
  const row = (hour: string, model: string, extra: Partial<RollupRow>): RollupRow => ({
    hour,
    model,
    run_count: 0,
    trace_count: 0,
    error_count: 0,
    llm_count: 0,
    llm_error_count: 0,
    input_tokens: 0,
    output_tokens: 0,
    total_tokens: 0,
    total_cost: 0,
    latency_hist: [],
    ttft_hist: [],
    ...extra,
  });
  const hist = (...ms: number[]) => ms.reduce((h, m) => ((h[bucketOf(m)] = (h[bucketOf(m)] ?? 0) + 1), h), [] as number[]).map((v) => v ?? 0);
  const rows = [
    row("2026-11-21T09:00:00.000Z", "", { run_count: 4, trace_count: 2, error_count: 1, latency_hist: hist(1000, 3000) }),
    row("2026-11-21T09:00:00.000Z", "gpt-4o", { llm_count: 2, total_tokens: 30, total_cost: 0.25, ttft_hist: hist(200, 200) }),
    row("2026-11-21T13:00:00.000Z", "claude", { llm_count: 1, total_tokens: 100, total_cost: 1 }),
    row("2026-11-21T13:00:00.000Z", "", { run_count: 1, trace_count: 1, latency_hist: hist(500) }),
  ];

  it("totals counters, error rate and percentiles", () => {
    const t = totalsOf(rows);
    expect(t).toMatchObject({ trace_count: 3, error_count: 1, llm_count: 3, total_tokens: 130, total_cost: 1.25 });
    expect(t.error_rate).toBeCloseTo(1 / 3);
    expect(t.latency_p50! / 1000).toBeCloseTo(1, 0);
    expect(t.first_token_p50! / 200).toBeCloseTo(1, 0);
    expect(totalsOf([])).toMatchObject({ error_rate: null, latency_p50: null, first_token_p99: null });
  });

  it("fills every bucket of the range, empty ones included, and ranks models by cost", () => {
    const s = statsOverTime(rows, rows, new Date("2026-11-21T08:30:00Z"), new Date("2026-11-21T14:00:00Z"), "hour");
    expect(s.buckets.map((b) => b.start.slice(11, 13))).toEqual(["08", "09", "10", "11", "12", "13"]);
    expect(s.buckets.map((b) => b.trace_count)).toEqual([0, 2, 0, 0, 0, 1]);
    expect(s.by_model.map((m) => m.model)).toEqual(["claude", "gpt-4o"]);
    const d = statsOverTime(rows, rows, new Date("2026-11-21T00:00:00Z"), new Date("2026-11-22T00:00:00Z"), "day");
    expect(d.buckets).toHaveLength(1);
    expect(d.buckets[0]).toMatchObject({ trace_count: 3, total_cost: 1.25 });
  });
});

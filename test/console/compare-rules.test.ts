/**
 * The compare view's rules: runs of `POST /runs/query` joined to examples per experiment, scores
 * merged over repetitions and set against the baseline's, and the selection read from the URL.
 */
import { describe, expect, it } from "vitest";
import {
  comparisonsWithin,
  diff,
  diffCounts,
  fmtDelta,
  fmtStat,
  joinRows,
  mergeFeedback,
  parseSelection,
  rowKeys,
  toExperimentRun,
  withTraceTotals,
  type ExperimentRun,
} from "../../src/console/datasets/compare";

const run = (id: string, experiment: string, example: string, feedback: ExperimentRun["feedback"], extra: Partial<ExperimentRun> = {}): ExperimentRun => ({
  id,
  trace_id: `t-${id}`,
  experiment_id: experiment,
  example_id: example,
  start_time: "2026-01-01T00:00:00.000Z",
  status: "success",
  error: null,
  outputs: { answer: id },
  latency_ms: 10,
  total_tokens: null,
  total_cost: null,
  feedback,
  ...extra,
});
const s = (avg: number | null, n = 1, values: Record<string, number> = {}) => ({ n, avg, values });

describe("toExperimentRun", () => {
  it("reads the LangSmith run fields the view needs, latency from the times when absent", () => {
    expect(
      toExperimentRun({
        id: "r1",
        trace_id: "t1",
        session_id: "e1",
        reference_example_id: "x1",
        start_time: "2026-01-01T00:00:00.000Z",
        end_time: "2026-01-01T00:00:01.500Z",
        status: "success",
        error: null,
        outputs: { capital: "Lima" },
        total_tokens: 42,
        total_cost: "0.0012",
        feedback_stats: { exact_match: s(1) },
      }),
    ).toEqual({
      id: "r1",
      trace_id: "t1",
      experiment_id: "e1",
      example_id: "x1",
      start_time: "2026-01-01T00:00:00.000Z",
      status: "success",
      error: null,
      outputs: { capital: "Lima" },
      latency_ms: 1500,
      total_tokens: 42,
      total_cost: 0.0012,
      feedback: { exact_match: s(1) },
    });
  });

  it("drops a run not tied to an example or experiment (it belongs to no row)", () => {
    expect(toExperimentRun({ id: "r1", session_id: "e1", reference_example_id: null })).toBeNull();
    expect(toExperimentRun({ id: "r1", reference_example_id: "x1" })).toBeNull();
  });

  it("trace totals win over the root's own tokens and cost", () => {
    const [r] = withTraceTotals([run("a", "e1", "x1", {}, { total_tokens: 3, total_cost: null })], new Map([["t-a", { total_tokens: 30, total_cost: 0.5 }]]));
    expect([r!.total_tokens, r!.total_cost]).toEqual([30, 0.5]);
  });
});

describe("joinRows", () => {
  it("gives every example a row and every selected experiment its runs there (none when it has none), oldest first", () => {
    const examples = [{ id: "x1" }, { id: "x2" }];
    const runs = [
      run("b2", "e2", "x1", {}, { start_time: "2026-01-01T00:00:02.000Z" }),
      run("b1", "e2", "x1", {}, { start_time: "2026-01-01T00:00:01.000Z" }),
      run("a1", "e1", "x1", {}),
      run("a2", "e1", "x2", {}),
      run("z", "e9", "x1", {}), // an experiment not selected
    ];
    const rows = joinRows(examples, runs, ["e1", "e2"]);
    expect(rows.map((r) => r.example.id)).toEqual(["x1", "x2"]);
    expect(rows[0]!.runs.e1!.map((r) => r.id)).toEqual(["a1"]);
    expect(rows[0]!.runs.e2!.map((r) => r.id)).toEqual(["b1", "b2"]);
    expect(rows[1]!.runs.e2).toEqual([]);
    expect(Object.keys(rows[0]!.runs)).toEqual(["e1", "e2"]);
  });
});

describe("scores against the baseline", () => {
  it("merges repetitions: counts add, means weigh by count, values tally", () => {
    expect(mergeFeedback([{ k: s(1, 1) }, { k: s(0, 3) }, { v: s(null, 1, { good: 1 }) }, { v: s(null, 2, { good: 1, bad: 1 }) }])).toEqual({
      k: { n: 4, avg: 0.25, values: {} },
      v: { n: 3, avg: null, values: { good: 2, bad: 1 } },
    });
    expect(fmtStat(s(2 / 3, 3))).toBe("0.6667");
    expect(fmtStat(s(null, 3, { good: 2, bad: 1 }))).toBe("good×2, bad");
    expect(fmtStat(undefined)).toBe("–");
  });

  it("higher is better; equal is the same; nothing to say without both scores", () => {
    expect(diff(1, 0)).toBe("better");
    expect(diff(0, 1)).toBe("worse");
    expect(diff(0.5, 0.5)).toBe("same");
    expect(diff(null, 1)).toBeNull();
    expect(diff(1, undefined)).toBeNull();
    expect(fmtDelta(1, 0.25)).toBe("+0.75");
    expect(fmtDelta(0, 1)).toBe("−1");
    expect(fmtDelta(0.5, 0.5)).toBe("±0");
  });

  it("counts per experiment and key the examples that beat / fell behind the baseline's", () => {
    const rows = joinRows(
      [{ id: "x1" }, { id: "x2" }, { id: "x3" }],
      [
        run("a1", "base", "x1", { em: s(1), len: s(5) }),
        run("a2", "base", "x2", { em: s(0), len: s(5) }),
        run("a3", "base", "x3", { em: s(1) }),
        run("b1", "new", "x1", { em: s(0), len: s(5) }),
        run("b2", "new", "x2", { em: s(1), len: s(4) }),
        run("b3", "new", "x3", { em: s(1), len: s(9) }), // no baseline len: not counted
      ],
      ["base", "new"],
    );
    expect(rowKeys(rows)).toEqual(["em", "len"]);
    expect(diffCounts(rows, ["base", "new"], "base", ["em", "len"])).toEqual({
      new: { em: { better: 1, worse: 1, same: 1 }, len: { better: 0, worse: 1, same: 1 } },
    });
  });
});

describe("selection", () => {
  it("reads the experiments in order without repeats, the baseline among them or else the first", () => {
    expect(parseSelection(new URLSearchParams("experiments=a,b,a,&baseline=b"))).toEqual({ experiments: ["a", "b"], baseline: "b" });
    expect(parseSelection(new URLSearchParams("experiments=a,b&baseline=z"))).toEqual({ experiments: ["a", "b"], baseline: "a" });
    expect(parseSelection(new URLSearchParams(""))).toEqual({ experiments: [], baseline: null });
  });

  it("keeps the pairwise comparisons made only between selected experiments", () => {
    const c = (id: string, ids: string[]) => ({ id, experiments_info: ids.map((x) => ({ id: x })) });
    expect(comparisonsWithin([c("1", ["a", "b"]), c("2", ["a", "c"]), c("3", [])], ["a", "b"]).map((x) => x.id)).toEqual(["1"]);
  });
});

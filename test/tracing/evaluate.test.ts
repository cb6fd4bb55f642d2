/**
 * The SDK's evaluate() end to end against Berth, on both backends: a dataset made with the SDK, a
 * local target function and custom evaluators (row and summary); then the experiment (a project
 * linked to the dataset), its runs tied to the examples, the exact feedback per run and the
 * aggregate scores are read back through the public APIs (SDK and Berth's own).
 */
import { randomUUID } from "node:crypto";
import type { Client, Run } from "langsmith";
import { evaluate } from "langsmith/evaluation";
import { beforeAll, expect, it, vi } from "vitest";
import { describeBackends, eventually } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("evaluate() against Berth", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });

  const datasetName = `eval-${randomUUID().slice(0, 8)}`;
  let datasetId: string;
  let experimentName: string;
  const capitals: Record<string, string> = { france: "Paris", japan: "Tokyo", peru: "Lima" };

  beforeAll(async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined); // evaluate() prints progress
    datasetId = (await client.createDataset(datasetName)).id;
    await client.createExamples([
      { dataset_id: datasetId, inputs: { country: "france" }, outputs: { capital: "Paris" }, split: "train" },
      { dataset_id: datasetId, inputs: { country: "japan" }, outputs: { capital: "Tokyo" }, split: "train" },
      { dataset_id: datasetId, inputs: { country: "peru" }, outputs: { capital: "Lima" }, split: "test" },
    ]);
    // the target gets peru wrong
    const target = async (inputs: Record<string, unknown>) => ({ capital: inputs.country === "peru" ? "Cusco" : capitals[inputs.country as string] });
    const exact = ({ outputs, referenceOutputs }: { outputs?: Record<string, unknown>; referenceOutputs?: Record<string, unknown> }) => ({
      key: "exact_match",
      score: outputs?.capital === referenceOutputs?.capital,
      comment: `expected ${String(referenceOutputs?.capital)}`,
    });
    const length = ({ outputs }: { outputs?: Record<string, unknown> }) => ({ key: "answer_length", score: String(outputs?.capital).length, value: "chars" });
    const accuracy = ({ outputs, referenceOutputs }: { outputs: Record<string, unknown>[]; referenceOutputs?: Record<string, unknown>[] }) => ({
      key: "accuracy",
      score: outputs.filter((o, i) => o.capital === referenceOutputs?.[i]?.capital).length / outputs.length,
    });
    const results = await evaluate(target, { data: datasetName, evaluators: [exact, length], summaryEvaluators: [accuracy], client, experimentPrefix: "capitals", maxConcurrency: 2 });
    experimentName = results.experimentName;
    expect(results.results).toHaveLength(3);
    await client.awaitPendingTraceBatches();
  });

  it("the experiment is a project linked to the dataset, with its metadata", async () => {
    const experiment = await client.readProject({ projectName: experimentName });
    expect(experiment.reference_dataset_id).toBe(datasetId);
    const meta = (experiment.extra as { metadata: Record<string, unknown> }).metadata;
    expect(meta.dataset_version).toBe((await client.readDataset({ datasetId })).modified_at);
    expect([...(meta.dataset_splits as string[])].sort()).toEqual(["test", "train"]);
    expect((await all(client.listProjects({ referenceDatasetId: datasetId }))).map((p) => p.name)).toEqual([experimentName]);
    expect((await client.readDataset({ datasetId })).session_count).toBe(1);
  });

  it("each example has one root run in the experiment, and exact feedback per run", async () => {
    const experiment = await client.readProject({ projectName: experimentName });
    const examples = await all(client.listExamples({ datasetId }));
    const runs = await eventually(async () => {
      const r = await all(client.listRuns({ projectId: experiment.id, isRoot: true }));
      return r.length === 3 && r.every((x) => x.outputs) && r;
    });
    const byExample = new Map(runs.map((r: Run) => [r.reference_example_id, r]));
    expect([...byExample.keys()].sort()).toEqual(examples.map((e) => e.id).sort());
    const runOf = (country: string) => byExample.get(examples.find((e) => e.inputs.country === country)!.id)!;
    expect(runOf("peru").outputs).toEqual({ capital: "Cusco" });

    const feedback = await eventually(async () => {
      const f = await all(client.listFeedback({ runIds: runs.map((r) => r.id) }));
      return f.length === 6 && f;
    });
    const got = (country: string, key: string) => feedback.find((f) => f.run_id === runOf(country).id && f.key === key);
    expect(got("france", "exact_match")).toMatchObject({ score: 1, comment: "expected Paris", feedback_source: { type: "model" } });
    expect(got("japan", "exact_match")).toMatchObject({ score: 1, comment: "expected Tokyo" });
    expect(got("peru", "exact_match")).toMatchObject({ score: 0, comment: "expected Lima" });
    expect(got("france", "answer_length")).toMatchObject({ score: 5, value: "chars" });
    expect(got("peru", "answer_length")).toMatchObject({ score: 5 });
    expect(got("japan", "answer_length")).toMatchObject({ score: 5 });
    for (const f of feedback) expect((f as { session_id?: string }).session_id).toBe(experiment.id);
  });

  it("aggregate scores: the experiment's feedback stats (SDK and Berth's dataset experiments)", async () => {
    const experiment = await client.readProject({ projectName: experimentName });
    const want = {
      exact_match: { n: 3, avg: 2 / 3 },
      answer_length: { n: 3, avg: 5 },
      // the SDK rounds scores to 4 decimals before sending them
      accuracy: { n: 1, avg: 0.6667 },
    };
    const listed = await eventually(async () => {
      const [p] = await all(client.listProjects({ referenceDatasetId: datasetId, includeStats: true }));
      const stats = p?.feedback_stats as Record<string, { n: number; avg: number }> | undefined;
      return stats && Object.keys(stats).length === 3 && stats.exact_match?.n === 3 && stats;
    });
    for (const [key, { n, avg }] of Object.entries(want)) {
      expect(listed[key]!.n).toBe(n);
      expect(listed[key]!.avg).toBeCloseTo(avg, 10);
    }
    const { status, body } = await server.api(`/datasets/${datasetId}/experiments`);
    expect(status).toBe(200);
    expect(body.experiments).toHaveLength(1);
    expect(body.experiments[0]).toMatchObject({ id: experiment.id, name: experimentName, reference_dataset_id: datasetId });
    expect(body.experiments[0].stats.trace_count).toBe(3);
    expect(body.experiments[0].stats.feedback_stats.exact_match.n).toBe(3);
    expect(body.experiments[0].stats.feedback_stats.exact_match.avg).toBeCloseTo(2 / 3, 10);
    // the summary score is the experiment's own feedback (no run)
    const summary = await all(client.listFeedback({ feedbackKeys: ["accuracy"] }));
    expect(summary.filter((f) => f.run_id === null || f.run_id === undefined).map((f) => f.score)).toEqual([0.6667]);
  });

  it("deleting the dataset deletes its experiments", async () => {
    await client.deleteDataset({ datasetId });
    expect(await client.hasProject({ projectName: experimentName })).toBe(false);
  });
});

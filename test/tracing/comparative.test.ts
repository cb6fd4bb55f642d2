/**
 * The SDK's evaluateComparative end to end against Berth, on both backends: two experiments made
 * by evaluate(), compared by two pairwise evaluators (test/helpers/comparative.ts). Read back: the
 * comparative experiment as created and as listed per dataset (compared experiments, feedback
 * stats, exact preference counts), every pairwise feedback exactly (run, score, experiment,
 * comparison, the evaluator run that gave it), feedback_group_id grouping (as the Python SDK sends
 * it), bad requests, and deletes.
 */
import type { Client } from "langsmith";
import { beforeAll, expect, it, vi } from "vitest";
import { ANSWERS, makeComparativeFixture, type ComparativeFixture } from "../helpers/comparative.js";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("evaluateComparative() against Berth", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });
  let fx: ComparativeFixture;

  beforeAll(async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined); // evaluate() prints progress
    fx = await makeComparativeFixture(server);
  }, 180_000);

  it("creates the comparative experiment the SDK asked for", () => {
    expect(fx.comparative).toMatchObject({
      name: expect.stringMatching(/^cmp-pairwise-[0-9a-f]{4}$/),
      description: "A against B",
      reference_dataset_id: fx.datasetId,
      extra: { metadata: { judge: "rules" } },
      experiments_info: [fx.experimentA, fx.experimentB],
    });
  });

  it("stores every pairwise feedback exactly: run, score, experiment, comparison, evaluator run", async () => {
    const examples = await all(client.listExamples({ datasetId: fx.datasetId }));
    const runs = [
      ...(await all(client.listRuns({ projectId: fx.experimentA.id, isRoot: true }))),
      ...(await all(client.listRuns({ projectId: fx.experimentB.id, isRoot: true }))),
    ];
    expect(runs).toHaveLength(6);
    const feedback = await all(client.listFeedback({ runIds: runs.map((r) => r.id) }));
    expect(feedback).toHaveLength(12);
    const country = (exampleId: string) => examples.find((e) => e.id === exampleId)!.inputs.country as string;
    const got = feedback.map((f) => {
      const run = runs.find((r) => r.id === f.run_id)!;
      const side = run.session_id === fx.experimentA.id ? "a" : "b";
      return { country: country(run.reference_example_id!), side, key: f.key, score: f.score, trace: (f as { trace_id?: string }).trace_id === run.trace_id, session: (f as { session_id?: string }).session_id === run.session_id, cmp: (f as { comparative_experiment_id?: string }).comparative_experiment_id };
    });
    const want = Object.keys(ANSWERS.a).flatMap((c) =>
      (["a", "b"] as const).flatMap((side) => [
        { country: c, side, key: "correct", score: ANSWERS[side][c] === ANSWERS.a[c] ? 1 : 0, trace: true, session: true, cmp: fx.comparative.id },
        { country: c, side, key: "brevity", score: 10 - ANSWERS[side][c]!.length, trace: true, session: true, cmp: fx.comparative.id },
      ]),
    );
    const order = (x: { country: string; side: string; key: string }) => `${x.country}|${x.side}|${x.key}`;
    expect(got.sort((x, y) => order(x).localeCompare(order(y)))).toEqual(want.sort((x, y) => order(x).localeCompare(order(y))));

    // the two feedbacks of one comparison come from one evaluator run, traced in project "evaluators"
    const sourceRun = (f: (typeof feedback)[number]) => (f.feedback_source?.metadata as { __run?: { run_id?: string } } | undefined)?.__run?.run_id;
    const groups = new Map<string, string[]>();
    for (const f of feedback) groups.set(sourceRun(f)!, [...(groups.get(sourceRun(f)!) ?? []), f.run_id!]);
    expect(groups.size).toBe(6);
    for (const ids of groups.values()) expect(new Set(ids.map((id) => runs.find((r) => r.id === id)!.reference_example_id)).size).toBe(1);
    const evaluatorRuns = await all(client.listRuns({ projectName: "evaluators", isRoot: true }));
    expect(new Set(evaluatorRuns.map((r) => r.id))).toEqual(new Set(groups.keys()));
  });

  it("lists the dataset's comparative experiments with exact preference counts", async () => {
    const { status, body } = await server.api(`/datasets/${fx.datasetId}/comparative`);
    expect(status).toBe(200);
    expect(body).toHaveLength(1);
    const [c] = body;
    const A = fx.experimentA.id;
    const B = fx.experimentB.id;
    expect(c).toMatchObject({ id: fx.comparative.id, reference_dataset_id: fx.datasetId, experiments_info: [fx.experimentA, fx.experimentB] });
    expect(c.preferences).toEqual({
      correct: { comparisons: 3, ties: 1, preferred: { [A]: 2, [B]: 0 } },
      brevity: { comparisons: 3, ties: 1, preferred: { [A]: 1, [B]: 1 } },
    });
    expect(c.feedback_stats.correct).toEqual({ n: 6, avg: 4 / 6, values: {} });
    expect(c.feedback_stats.brevity.n).toBe(6);
    expect(c.feedback_stats.brevity.avg).toBeCloseTo((5 + 5 + 5 + 7 + 6 + 5) / 6, 10);
    // the /api/v1 path the SDK's resource clients use answers the same
    expect((await server.api(`/api/v1/datasets/${fx.datasetId}/comparative?name_contains=PAIRWISE`)).body.map((x: { id: string }) => x.id)).toEqual([fx.comparative.id]);
    expect((await server.api(`/datasets/${fx.datasetId}/comparative?name_contains=nothing-like-it`)).body).toEqual([]);
  });

  it("pairwise feedback is part of each experiment's feedback stats, exactly (SDK's listProjects and Berth's dataset experiments)", async () => {
    const A = fx.experimentA.id;
    const B = fx.experimentB.id;
    // A answers right everywhere (Paris, Tokyo, Lima); B says Edo and Cusco
    const want: Record<string, Record<string, { n: number; avg: number }>> = {
      [A]: { correct: { n: 3, avg: 1 }, brevity: { n: 3, avg: (5 + 5 + 6) / 3 } },
      [B]: { correct: { n: 3, avg: 1 / 3 }, brevity: { n: 3, avg: (5 + 7 + 5) / 3 } },
    };
    const check = (id: string, stats: Record<string, { n: number; avg: number | null; values: Record<string, number> }>) => {
      expect(Object.keys(stats).sort()).toEqual(["brevity", "correct"]);
      for (const [key, { n, avg }] of Object.entries(want[id]!)) {
        expect(stats[key]!.n).toBe(n);
        expect(stats[key]!.avg).toBeCloseTo(avg, 10);
        expect(stats[key]!.values).toEqual({});
      }
    };
    const listed = await all(client.listProjects({ referenceDatasetId: fx.datasetId, includeStats: true }));
    expect(listed.map((p) => p.id).sort()).toEqual([A, B].sort());
    for (const p of listed) check(p.id, p.feedback_stats as never);
    for (const id of [A, B]) check(id, (await client.readProject({ projectId: id, includeStats: true })).feedback_stats as never);
    const v2 = await all(client.sessions.listV2({ reference_dataset_id: [fx.datasetId], include_stats: true }));
    expect(v2.map((p) => p.id).sort()).toEqual([A, B].sort());
    for (const p of v2) check(p.id, p.feedback_stats as never);
    const { body } = await server.api(`/datasets/${fx.datasetId}/experiments`);
    expect(body.experiments.map((e: { id: string }) => e.id).sort()).toEqual([A, B].sort());
    for (const e of body.experiments) check(e.id, e.stats.feedback_stats);
  });

  it("groups feedback by feedback_group_id when the client sends one (the Python SDK does)", async () => {
    const [runA] = await all(client.listRuns({ projectId: fx.experimentA.id, isRoot: true, limit: 1 }));
    const runB = (await all(client.listRuns({ projectId: fx.experimentB.id, isRoot: true }))).find((r) => r.reference_example_id === runA!.reference_example_id)!;
    const created = await server.api(`/datasets/comparative`, {
      method: "POST",
      body: JSON.stringify({ name: "by hand", experiment_ids: [fx.experimentB.id, fx.experimentA.id], reference_dataset_id: fx.datasetId, extra: {} }),
    });
    expect(created.status).toBe(200);
    expect(created.body.experiments_info).toEqual([fx.experimentB, fx.experimentA]);
    const group = "0b000000-0000-4000-8000-000000000001";
    for (const [run, score] of [[runA!, 0], [runB, 1]] as const) {
      const r = await server.api(`/feedback`, { method: "POST", body: JSON.stringify({ run_id: run.id, key: "human", score, comparative_experiment_id: created.body.id, feedback_group_id: group }) });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ comparative_experiment_id: created.body.id, feedback_group_id: group, session_id: run.session_id });
    }
    // feedback naming the comparison on something not compared in it takes no part in the preferences
    const stranger = await client.createProject({ projectName: `cmp-stranger-${fx.datasetId.slice(0, 8)}` });
    const r = await server.api(`/feedback`, { method: "POST", body: JSON.stringify({ session_id: stranger.id, key: "human", score: 5, comparative_experiment_id: created.body.id, feedback_group_id: group }) });
    expect(r.status).toBe(200);
    const listed = (await server.api(`/datasets/${fx.datasetId}/comparative?sort_by=name&sort_by_desc=false`)).body;
    expect(listed.map((x: { name: string }) => x.name)).toEqual(["by hand", fx.comparative.name]);
    expect(listed[0].preferences).toEqual({ human: { comparisons: 1, ties: 0, preferred: { [fx.experimentB.id]: 1, [fx.experimentA.id]: 0 } } });

    expect((await server.api(`/datasets/comparative/${created.body.id}`, { method: "DELETE" })).status).toBe(204);
    expect((await all(client.listFeedback({ feedbackKeys: ["human"] })))).toEqual([]);
    expect((await server.api(`/datasets/comparative/${created.body.id}`, { method: "DELETE" })).status).toBe(404);
  });

  it("refuses bad comparisons and feedback naming an unknown one, in the documented shape", async () => {
    const post = (body: unknown) => server.api(`/datasets/comparative`, { method: "POST", body: JSON.stringify(body) });
    const other = await client.createDataset(`cmp-other-${fx.datasetId.slice(0, 8)}`);
    const otherExperiment = await client.createProject({ projectName: `cmp-other-exp-${fx.datasetId.slice(0, 8)}`, referenceDatasetId: other.id });
    const base = { name: "x", reference_dataset_id: fx.datasetId };
    const one = await post({ ...base, experiment_ids: [fx.experimentA.id] });
    expect(one.status).toBe(422);
    expect(one.body.detail[0].loc).toEqual(["body", "experiment_ids"]);
    expect((await post({ ...base, experiment_ids: [fx.experimentA.id, fx.experimentA.id] })).status).toBe(400);
    const mixed = await post({ ...base, experiment_ids: [fx.experimentA.id, otherExperiment.id] });
    expect(mixed.status).toBe(400);
    expect(mixed.body.detail).toContain(otherExperiment.id);
    const unknown = "0e000000-0000-4000-8000-000000000009";
    expect((await post({ ...base, experiment_ids: [fx.experimentA.id, unknown] })).body.detail).toBe(`Experiment ${unknown} not found.`);
    expect((await post({ ...base, reference_dataset_id: unknown, experiment_ids: [fx.experimentA.id, fx.experimentB.id] })).status).toBe(404);
    expect((await post({ ...base, id: fx.comparative.id, experiment_ids: [fx.experimentA.id, fx.experimentB.id] })).status).toBe(409);
    expect((await server.api(`/datasets/${unknown}/comparative`)).status).toBe(404);
    expect((await server.api(`/datasets/not-a-uuid/comparative`)).status).toBe(422);
    const [run] = await all(client.listRuns({ projectId: fx.experimentA.id, isRoot: true, limit: 1 }));
    const fb = await server.api(`/feedback`, { method: "POST", body: JSON.stringify({ run_id: run!.id, key: "k", score: 1, comparative_experiment_id: unknown }) });
    expect(fb.status).toBe(404);
    expect(fb.body.detail).toBe(`Comparative experiment ${unknown} not found.`);
  });

  it("deleting the dataset deletes its comparative experiments", async () => {
    await client.deleteDataset({ datasetId: fx.datasetId });
    expect((await server.api(`/datasets/${fx.datasetId}/comparative`)).status).toBe(404);
    expect((await server.api(`/datasets/comparative/${fx.comparative.id}`, { method: "DELETE" })).status).toBe(404);
  });
});

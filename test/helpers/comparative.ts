/**
 * A dataset with two experiments and a pairwise comparison of them, made the way a LangSmith user
 * makes them: the SDK's evaluate() twice (two local targets), then evaluateComparative over the
 * two results with two pairwise evaluators. Shared by the API test and the console's.
 *
 * The targets' answers (A is right everywhere; B says "Edo" for japan and "Cusco" for peru) give
 * known verdicts: `correct` (1 for a right answer) prefers A on japan and peru and ties france;
 * `brevity` (10 - answer length) ties france, prefers B's "Edo" and A's "Lima".
 */
import { randomUUID } from "node:crypto";
import type { Client, Example, Run } from "langsmith";
import { RunTree } from "langsmith/run_trees";
import { evaluate, evaluateComparative } from "langsmith/evaluation";
import type { ComparativeExperiment } from "langsmith/schemas";

export const ANSWERS = {
  a: { france: "Paris", japan: "Tokyo", peru: "Lima" } as Record<string, string>,
  b: { france: "Paris", japan: "Edo", peru: "Cusco" } as Record<string, string>,
};

export interface ComparativeFixture {
  datasetId: string;
  datasetName: string;
  experimentA: { id: string; name: string };
  experimentB: { id: string; name: string };
  comparative: ComparativeExperiment;
}

/**
 * The SDK's evaluateComparative traces its evaluators with the process-wide default client (from
 * LANGSMITH_ENDPOINT), not the one it is given: a user has that variable set to Berth, so the test
 * does the same for the call, with a fresh default client (an earlier suite's may point elsewhere).
 */
async function withDefaultClient<T>(url: string, apiKey: string | undefined, fn: () => Promise<T>): Promise<T> {
  const saved = { endpoint: process.env.LANGSMITH_ENDPOINT, key: process.env.LANGSMITH_API_KEY };
  const shared = RunTree as unknown as { sharedClient?: Client };
  process.env.LANGSMITH_ENDPOINT = url;
  if (apiKey) process.env.LANGSMITH_API_KEY = apiKey;
  else delete process.env.LANGSMITH_API_KEY;
  shared.sharedClient = undefined;
  try {
    const out = await fn();
    await RunTree.getSharedClient().awaitPendingTraceBatches();
    return out;
  } finally {
    shared.sharedClient = undefined;
    for (const [name, v] of [["LANGSMITH_ENDPOINT", saved.endpoint], ["LANGSMITH_API_KEY", saved.key]] as const) {
      if (v === undefined) delete process.env[name];
      else process.env[name] = v;
    }
  }
}

export async function makeComparativeFixture(server: { url: string; apiKey?: string; client(): Client }, prefix = "cmp"): Promise<ComparativeFixture> {
  const client = server.client();
  const datasetName = `${prefix}-${randomUUID().slice(0, 8)}`;
  const datasetId = (await client.createDataset(datasetName)).id;
  await client.createExamples(
    Object.entries(ANSWERS.a).map(([country, capital]) => ({ dataset_id: datasetId, inputs: { country }, outputs: { capital } })),
  );
  const run = (answers: Record<string, string>, experimentPrefix: string) =>
    evaluate(async (inputs: Record<string, unknown>) => ({ capital: answers[inputs.country as string] }), { data: datasetName, client, experimentPrefix, maxConcurrency: 2 });
  const a = await run(ANSWERS.a, `${prefix}-a`);
  const b = await run(ANSWERS.b, `${prefix}-b`);
  await client.awaitPendingTraceBatches();

  const answer = (r: Run) => String((r.outputs as { capital?: string } | undefined)?.capital);
  const correct = (runs: Run[], example: Example) => ({
    key: "correct",
    scores: Object.fromEntries(runs.map((r) => [r.id, answer(r) === (example.outputs as { capital: string }).capital ? 1 : 0])),
  });
  const brevity = (runs: Run[], _example: Example) => ({ key: "brevity", scores: Object.fromEntries(runs.map((r) => [r.id, 10 - answer(r).length])) });
  const result = await withDefaultClient(server.url, server.apiKey, () => evaluateComparative([a, b], { evaluators: [correct, brevity], client, experimentPrefix: `${prefix}-pairwise`, description: "A against B", metadata: { judge: "rules" } }));
  await client.awaitPendingTraceBatches();
  const experimentA = await client.readProject({ projectName: a.experimentName });
  const experimentB = await client.readProject({ projectName: b.experimentName });
  return {
    datasetId,
    datasetName,
    experimentA: { id: experimentA.id, name: experimentA.name! },
    experimentB: { id: experimentB.id, name: experimentB.name! },
    comparative: result.comparativeExperiment,
  };
}

/**
 * The `langsmith` SDK 0.12's `client.datasets` resource against Berth, on both backends — every
 * method 0.12 has: `listV2` (filters, sort, cursor pages), `examples.updateMetadata` (SET,
 * ARRAY_ADD, ARRAY_REMOVE, 207 statuses), `examples.delete` (soft, idempotent) and
 * `experimentRuns.query` (examples with their runs in experiments made by evaluate(): selects,
 * filters per experiment, feedback sort, cursor pages). Also the SDK's Client with an endpoint
 * ending in `/api/v1`, whose platform paths are `/api/v1/platform/…`. Effects are read back
 * through the SDK's own reads.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "langsmith";
import { evaluate } from "langsmith/evaluation";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

process.env.LANGSMITH_TRACING = "true";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("client.datasets (langsmith SDK 0.12 resource client) against Berth", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });
  const tag = randomUUID().slice(0, 8);

  it("listV2: exact name, name_contains, data types, metadata, ids, sort, and cursor pages", async () => {
    const prefix = `v2ds-${tag}`;
    const b = await client.createDataset(`${prefix}-b`, { dataType: "chat", metadata: { team: "red" } });
    const a = await client.createDataset(`${prefix}-a`, { dataType: "kv", metadata: { team: "blue" } });
    const c = await client.createDataset(`${prefix}-c`, { dataType: "llm", metadata: { team: "red", tier: 1 } });
    await client.createExamples([1, 2].map((n) => ({ dataset_id: c.id, inputs: { n } })));
    await client.createExamples([{ dataset_id: a.id, inputs: { n: 1 } }]);
    const names = async (q: Parameters<Client["datasets"]["listV2"]>[0]) => (await all(client.datasets.listV2({ name_contains: prefix, ...q }))).map((d) => d.name);

    // newest first by default; one per page: the SDK follows next_cursor, each dataset once
    expect(await names({ page_size: 1 })).toEqual([`${prefix}-c`, `${prefix}-a`, `${prefix}-b`]);
    expect(await names({ sort_by: "name", sort_order: "asc" })).toEqual([`${prefix}-a`, `${prefix}-b`, `${prefix}-c`]);
    expect(await names({ sort_by: "example_count", sort_order: "desc", page_size: 2 })).toEqual([`${prefix}-c`, `${prefix}-a`, `${prefix}-b`]);
    expect(await names({ sort_by: "example_count", sort_order: "asc" })).toEqual([`${prefix}-b`, `${prefix}-a`, `${prefix}-c`]);
    expect(await names({ data_type: ["chat", "llm"], sort_by: "name", sort_order: "asc" })).toEqual([`${prefix}-b`, `${prefix}-c`]);
    expect(await names({ metadata: JSON.stringify({ team: "red" }), sort_by: "name", sort_order: "asc" })).toEqual([`${prefix}-b`, `${prefix}-c`]);
    expect(await names({ id: [a.id, b.id], sort_by: "name", sort_order: "asc" })).toEqual([`${prefix}-a`, `${prefix}-b`]);
    expect((await all(client.datasets.listV2({ name: `${prefix}-c` }))).map((d) => [d.id, d.example_count, d.data_type, d.metadata])).toEqual([[c.id, 2, "llm", { team: "red", tier: 1 }]]);
    expect(await names({ name: `${prefix}` })).toEqual([]);

    await expect(all(client.datasets.listV2({ tag_value_id: [randomUUID()] }))).rejects.toMatchObject({ status: 400 });
    await expect(all(client.datasets.listV2({ cursor: "not-a-cursor" }))).rejects.toMatchObject({ status: 400 });
  });

  it("examples.updateMetadata: SET, ARRAY_ADD, ARRAY_REMOVE on every listed example together; unknown ids are NOT_FOUND", async () => {
    const ds = await client.createDataset(`v2meta-${tag}`);
    const [e1, e2] = [randomUUID(), randomUUID()];
    await client.createExamples([
      { id: e1, dataset_id: ds.id, inputs: { q: 1 }, metadata: { owner: "ann", labels: ["x"] }, split: "train" },
      { id: e2, dataset_id: ds.id, inputs: { q: 2 }, metadata: { owner: "bob" } },
    ]);
    const before = (await client.readDataset({ datasetId: ds.id })).modified_at;
    const stranger = randomUUID();
    const answer = await client.datasets.examples.updateMetadata(ds.id, {
      example_ids: [e1, stranger, e2],
      operations: [
        { key: "owner", operation: "SET", value: { name: "cat" } },
        { key: "labels", operation: "ARRAY_ADD", values: ["y", "x"] },
        { key: "dataset_split", operation: "ARRAY_ADD", values: ["eval"] },
        { key: "dataset_split", operation: "ARRAY_REMOVE", values: ["train"] },
      ],
    });
    expect(answer.statuses).toEqual([
      { id: e1, status: "UPDATED" },
      { id: stranger, status: "NOT_FOUND", description: expect.any(String) },
      { id: e2, status: "UPDATED" },
    ]);
    const byId = new Map((await all(client.listExamples({ datasetId: ds.id }))).map((e) => [e.id, e.metadata]));
    expect(byId.get(e1)).toEqual({ owner: { name: "cat" }, labels: ["x", "y"], dataset_split: ["eval"] });
    expect(byId.get(e2)).toEqual({ owner: { name: "cat" }, labels: ["y", "x"], dataset_split: ["base", "eval"] });
    // one new version, the earlier one still readable
    expect((await all(client.listExamples({ datasetId: ds.id, asOf: before }))).find((e) => e.id === e1)!.metadata).toEqual({ owner: "ann", labels: ["x"], dataset_split: ["train"] });
    expect(await client.listDatasetSplits({ datasetId: ds.id })).toEqual(expect.arrayContaining(["base", "eval"]));
    expect((await client.listDatasetSplits({ datasetId: ds.id })).sort()).toEqual(["base", "eval"]);

    // bad requests: no change
    await expect(client.datasets.examples.updateMetadata(ds.id, { example_ids: [e1], operations: [{ key: "dataset_split", operation: "SET", value: 5 }] })).rejects.toMatchObject({ status: 422 });
    await expect(client.datasets.examples.updateMetadata(ds.id, { example_ids: [e1], operations: [{ key: "k", operation: "RENAME" as "SET", value: 1 }] })).rejects.toMatchObject({ status: 422 });
    await expect(client.datasets.examples.updateMetadata(randomUUID(), { example_ids: [e1], operations: [{ key: "k", operation: "SET", value: 1 }] })).rejects.toMatchObject({ status: 404 });
    expect((await client.readExample(e1)).metadata).toEqual({ owner: { name: "cat" }, labels: ["x", "y"], dataset_split: ["eval"] });
  });

  it("examples.delete: soft (earlier versions keep it), done at once when already deleted, 404 for an example of no version", async () => {
    const ds = await client.createDataset(`v2del-${tag}`);
    const [keep, gone] = [randomUUID(), randomUUID()];
    await client.createExamples([keep, gone].map((id) => ({ id, dataset_id: ds.id, inputs: { id } })));
    const before = (await client.readDataset({ datasetId: ds.id })).modified_at;
    await client.datasets.examples.delete(gone, { dataset_id: ds.id });
    expect((await all(client.listExamples({ datasetId: ds.id }))).map((e) => e.id)).toEqual([keep]);
    expect((await all(client.listExamples({ datasetId: ds.id, asOf: before }))).map((e) => e.id).sort()).toEqual([keep, gone].sort());
    const afterDelete = (await client.readDataset({ datasetId: ds.id })).modified_at;
    expect(afterDelete > before).toBe(true);
    // again: succeeds without another version
    await client.datasets.examples.delete(gone, { dataset_id: ds.id });
    expect((await client.readDataset({ datasetId: ds.id })).modified_at).toBe(afterDelete);

    await expect(client.datasets.examples.delete(randomUUID(), { dataset_id: ds.id })).rejects.toMatchObject({ status: 404 });
    const other = await client.createDataset(`v2del-other-${tag}`);
    await expect(client.datasets.examples.delete(keep, { dataset_id: other.id })).rejects.toMatchObject({ status: 404 });
    await expect(client.datasets.examples.delete(keep, { dataset_id: randomUUID() })).rejects.toMatchObject({ status: 404 });
    expect((await all(client.listExamples({ datasetId: ds.id }))).map((e) => e.id)).toEqual([keep]);
  });

  it("the SDK's Client with an endpoint ending in /api/v1 reaches the platform routes (updateDatasetSplits)", async () => {
    const v1 = server.client({ apiUrl: `${server.url}/api/v1` });
    const ds = await v1.createDataset(`v2split-${tag}`);
    const id = randomUUID();
    await v1.createExamples([{ id, dataset_id: ds.id, inputs: { a: 1 } }]);
    await v1.updateDatasetSplits({ datasetId: ds.id, splitName: "gold", exampleIds: [id] });
    expect((await client.readExample(id)).metadata).toEqual({ dataset_split: ["base", "gold"] });
  });

  describe("experimentRuns.query over two experiments made by evaluate()", () => {
    const answers = {
      a: { france: "Paris", japan: "Tokyo", peru: "Lima" } as Record<string, string>,
      b: { france: "Paris", japan: "Edo", peru: "Cusco" } as Record<string, string>,
    };
    let datasetId: string;
    let expA: { id: string; name: string };
    let expB: { id: string; name: string };
    let exampleOf: Record<string, string>;
    /** The dataset's examples in list order (creation, then id: one batch shares its creation time). */
    let listed: string[];

    beforeAll(async () => {
      vi.spyOn(console, "log").mockImplementation(() => undefined); // evaluate() prints progress
      const name = `v2exp-${tag}`;
      datasetId = (await client.createDataset(name)).id;
      await client.createExamples(Object.entries(answers.a).map(([country, capital]) => ({ dataset_id: datasetId, inputs: { country }, outputs: { capital } })));
      const examples = await all(client.listExamples({ datasetId }));
      exampleOf = Object.fromEntries(examples.map((e) => [e.inputs.country as string, e.id]));
      listed = examples.map((e) => e.id);
      const correct = ({ outputs, referenceOutputs }: { outputs?: Record<string, unknown>; referenceOutputs?: Record<string, unknown> }) => ({ key: "correct", score: outputs?.capital === referenceOutputs?.capital ? 1 : 0 });
      const length = ({ outputs }: { outputs?: Record<string, unknown> }) => ({ key: "length", score: String(outputs?.capital).length });
      const run = async (side: "a" | "b") => {
        const r = await evaluate(async (inputs: Record<string, unknown>) => ({ capital: answers[side][inputs.country as string] }), { data: name, evaluators: [correct, length], client, experimentPrefix: `v2exp-${side}`, maxConcurrency: 2 });
        await client.awaitPendingTraceBatches();
        const p = await client.readProject({ projectName: r.experimentName });
        return { id: p.id, name: p.name! };
      };
      expA = await run("a");
      expB = await run("b");
    }, 120_000);

    it("each example with its runs in both experiments: selected fields, exact outputs and feedback, cursor pages", async () => {
      const items = await all(client.datasets.experimentRuns.query(datasetId, { experiment_ids: [expA.id, expB.id], selects: ["NAME", "OUTPUTS", "PROJECT_ID", "REFERENCE_EXAMPLE_ID", "FEEDBACK_STATS"], page_size: 2 }));
      expect(items.map((e) => e.id)).toEqual(listed);
      for (const [country, example] of Object.entries(exampleOf)) {
        const item = items.find((e) => e.id === example)!;
        expect(item).toMatchObject({ dataset_id: datasetId, inputs: { country }, outputs: { capital: answers.a[country] } });
        const side = (s: "a" | "b") => {
          const exp = s === "a" ? expA : expB;
          const answer = answers[s][country]!;
          return { id: expect.any(String), name: "<lambda>", project_id: exp.id, reference_example_id: example, outputs: { capital: answer }, feedback_stats: { correct: { n: 1, avg: answer === answers.a[country] ? 1 : 0, values: {} }, length: { n: 1, avg: answer.length, values: {} } } };
        };
        expect(item.runs).toEqual([side("a"), side("b")]);
      }
      // default selects: the run id only
      const [first] = await all(client.datasets.experimentRuns.query(datasetId, { experiment_ids: [expB.id], example_ids: [exampleOf.japan!] }));
      expect(first!.id).toBe(exampleOf.japan);
      expect(first!.runs).toEqual([{ id: expect.any(String) }]);
    });

    it("filters per experiment and sort by an experiment's feedback score", async () => {
      const items = await all(client.datasets.experimentRuns.query(datasetId, { experiment_ids: [expA.id, expB.id], selects: ["PROJECT_ID"], filters: { [expB.id]: ['eq(feedback_key, "correct")', "eq(feedback_score, 0)"] } }));
      const counts = Object.fromEntries(items.map((e) => [e.id, e.runs!.map((r) => (r.project_id === expA.id ? "a" : "b")).join("")]));
      expect(counts).toEqual({ [exampleOf.france!]: "a", [exampleOf.japan!]: "ab", [exampleOf.peru!]: "ab" });

      const sorted = async (order: string) => (await all(client.datasets.experimentRuns.query(datasetId, { experiment_ids: [expB.id], sort: { by: "feedback.length", order }, page_size: 1 }))).map((e) => e.id);
      // B's answers: Paris 5, Edo 3, Cusco 5 (ties keep the examples' order)
      const fives = listed.filter((id) => id !== exampleOf.japan);
      expect(await sorted("ASC")).toEqual([exampleOf.japan, ...fives]);
      expect(await sorted("DESC")).toEqual([...fives, exampleOf.japan]);
    });

    it("refuses what it cannot answer, in the documented shape", async () => {
      const other = await client.createDataset(`v2exp-other-${tag}`);
      const stranger = await client.createProject({ projectName: `v2exp-stranger-${tag}`, referenceDatasetId: other.id });
      const query = (id: string, body: Parameters<Client["datasets"]["experimentRuns"]["query"]>[1]) => all(client.datasets.experimentRuns.query(id, body));
      await expect(query(datasetId, { experiment_ids: [expA.id, stranger.id] })).rejects.toMatchObject({ status: 400 });
      await expect(query(datasetId, { experiment_ids: [expA.id, expB.id], sort: { by: "correct" } })).rejects.toMatchObject({ status: 400 });
      await expect(query(datasetId, { experiment_ids: [expA.id], filters: { [expB.id]: ["eq(name, 'x')"] } })).rejects.toMatchObject({ status: 400 });
      await expect(query(datasetId, { experiment_ids: [expA.id], filters: { [expA.id]: ["eq(name"] } })).rejects.toMatchObject({ status: 400 });
      await expect(query(datasetId, { experiment_ids: [] })).rejects.toMatchObject({ status: 422 });
      await expect(query(datasetId, { experiment_ids: [randomUUID()] })).rejects.toMatchObject({ status: 404 });
      await expect(query(randomUUID(), { experiment_ids: [expA.id] })).rejects.toMatchObject({ status: 404 });
    });
  });
});

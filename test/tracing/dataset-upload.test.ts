/**
 * The SDK's `uploadCsv` against Berth, on both backends: a CSV with quoted fields, embedded commas,
 * quotes and line breaks becomes a dataset with one example per row (cells as strings), read back
 * with the SDK; a bad CSV or form answers 400 and leaves nothing behind.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "langsmith";
import { expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

describeBackends("uploadCsv against Berth", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });

  it("creates the dataset with one example per row: inputs and outputs from the named columns", async () => {
    const name = `csv-${randomUUID().slice(0, 8)}`;
    const csv = '\ufeffquestion,context,answer,ignored\r\n"What is 1,2?",plain,"a ""list""",x\r\nsecond,"two\nlines",b,y\n\nthird,,c,z\n';
    const dataset = await client.uploadCsv({ csvFile: new Blob([csv]), fileName: "qa.csv", inputKeys: ["question", "context"], outputKeys: ["answer"], name, description: "from csv", dataType: "kv" });
    expect(dataset).toMatchObject({ name, description: "from csv", data_type: "kv", example_count: 3 });
    const examples = await all(client.listExamples({ datasetId: dataset.id }));
    const byQuestion = (x: [Record<string, unknown>, unknown], y: [Record<string, unknown>, unknown]) => String(x[0].question).localeCompare(String(y[0].question));
    const got = examples.map((e) => [e.inputs, e.outputs] as [Record<string, unknown>, unknown]).sort(byQuestion);
    expect(got).toEqual(
      ([
        [{ question: "What is 1,2?", context: "plain" }, { answer: 'a "list"' }],
        [{ question: "second", context: "two\nlines" }, { answer: "b" }],
        [{ question: "third", context: "" }, { answer: "c" }],
      ] as [Record<string, unknown>, unknown][]).sort(byQuestion),
    );
  });

  it("refuses a bad CSV or form with 400 naming the problem, and stores no dataset", async () => {
    const name = `csv-bad-${randomUUID().slice(0, 8)}`;
    const upload = (csv: string, inputKeys = ["q"], extra: { name?: string } = { name }) =>
      client.uploadCsv({ csvFile: new Blob([csv]), fileName: "x.csv", inputKeys, outputKeys: [], ...extra } as Parameters<Client["uploadCsv"]>[0]);
    await expect(upload("q,a\n1,2\n", ["missing"])).rejects.toThrow(/columns not in the header: missing/);
    await expect(upload('q,a\n"open,2\n')).rejects.toThrow(/not closed/);
    await expect(upload("q,a\n1,2,3\n")).rejects.toThrow(/row 2 has 3 fields/);
    await expect(upload("q\n1\n", ["q"], {})).rejects.toThrow(/needs a name/);
    expect(await client.hasDataset({ datasetName: name })).toBe(false);
    const form = await fetch(`${server.url}/datasets/upload`, { method: "POST", headers: server.apiKey ? { "x-api-key": server.apiKey } : {}, body: new FormData() });
    expect(form.status).toBe(400);
  });
});

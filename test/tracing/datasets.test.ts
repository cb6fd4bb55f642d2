/**
 * Datasets, examples and their versions through the real `langsmith` SDK, on both backends:
 * createDataset / readDataset (id and name) / hasDataset / listDatasets with filters /
 * updateDataset / deleteDataset; createExample(s), listExamples by ids, splits and metadata,
 * readExample, updateExample, deleteExample; versions (as_of by time and by tag, diff, splits).
 */
import { randomUUID } from "node:crypto";
import type { Client, Example } from "langsmith";
import { beforeAll, describe, expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};
const byQ = <T extends { inputs?: Record<string, unknown> }>(list: T[]) => [...list].sort((a, b) => String(a.inputs?.q).localeCompare(String(b.inputs?.q)));

describeBackends("datasets and examples through the langsmith SDK", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
  });

  describe("datasets", () => {
    it("create, read by id and name, has, list with filters, update, delete", async () => {
      const name = `ds-${randomUUID().slice(0, 8)}`;
      const ds = await client.createDataset(name, { description: "capitals", metadata: { team: "geo", tier: 1 } });
      expect(ds).toMatchObject({ name, description: "capitals", data_type: "kv", example_count: 0, session_count: 0, metadata: { team: "geo", tier: 1 } });
      expect((await client.readDataset({ datasetId: ds.id })).name).toBe(name);
      expect((await client.readDataset({ datasetName: name })).id).toBe(ds.id);
      expect(await client.hasDataset({ datasetName: name })).toBe(true);
      expect(await client.hasDataset({ datasetName: `${name}-nope` })).toBe(false);
      expect(await client.hasDataset({ datasetId: randomUUID() })).toBe(false);

      const other = await client.createDataset(`${name}-b`, { metadata: { team: "ops" } });
      expect((await all(client.listDatasets({ datasetNameContains: name }))).map((d) => d.id).sort()).toEqual([ds.id, other.id].sort());
      expect((await all(client.listDatasets({ metadata: { team: "geo" } }))).map((d) => d.id)).toEqual([ds.id]);
      expect((await all(client.listDatasets({ datasetIds: [other.id] }))).map((d) => d.name)).toEqual([`${name}-b`]);
      expect((await all(client.listDatasets({ datasetName: name }))).map((d) => d.id)).toEqual([ds.id]);

      const renamed = await client.updateDataset({ datasetId: ds.id, name: `${name}-renamed`, description: "world capitals" });
      expect(renamed).toMatchObject({ id: ds.id, name: `${name}-renamed`, description: "world capitals", metadata: { team: "geo", tier: 1 } });
      await expect(client.createDataset(`${name}-b`)).rejects.toThrow(/409|already exists/);

      await client.deleteDataset({ datasetId: other.id });
      expect(await client.hasDataset({ datasetId: other.id })).toBe(false);
      await expect(client.deleteDataset({ datasetId: other.id })).rejects.toThrow(/404|not found/i);
    });
  });

  describe("examples", () => {
    let datasetId: string;
    let created: Example[];
    beforeAll(async () => {
      datasetId = (await client.createDataset(`ex-${randomUUID().slice(0, 8)}`)).id;
      created = await client.createExamples([
        { dataset_id: datasetId, inputs: { q: "france" }, outputs: { a: "Paris" }, metadata: { continent: "europe" }, split: "train" },
        { dataset_id: datasetId, inputs: { q: "japan" }, outputs: { a: "Tokyo" }, metadata: { continent: "asia" }, split: ["train", "hard"] },
        { dataset_id: datasetId, inputs: { q: "peru" }, outputs: { a: "Lima" }, metadata: { continent: "america" } },
      ]);
    });

    it("createExamples stores inputs, outputs, metadata and splits (base when none)", async () => {
      expect(created).toHaveLength(3);
      const [fr, jp, pe] = byQ(created);
      expect(fr).toMatchObject({ dataset_id: datasetId, inputs: { q: "france" }, outputs: { a: "Paris" }, metadata: { continent: "europe", dataset_split: ["train"] } });
      expect(jp!.metadata).toEqual({ continent: "asia", dataset_split: ["train", "hard"] });
      expect(pe!.metadata).toEqual({ continent: "america", dataset_split: ["base"] });
      expect((await client.readDataset({ datasetId })).example_count).toBe(3);
      // all written at one version
      expect(new Set(created.map((e) => e.modified_at)).size).toBe(1);
    });

    it("createExample (one) and listExamples by ids, splits and metadata", async () => {
      const one = await client.createExample({ q: "kenya" }, { a: "Nairobi" }, { datasetId, split: "hard", metadata: { continent: "africa" } });
      expect(one).toMatchObject({ inputs: { q: "kenya" }, outputs: { a: "Nairobi" }, metadata: { continent: "africa", dataset_split: ["hard"] } });
      const q = async (opts: Parameters<Client["listExamples"]>[0]) => byQ(await all(client.listExamples({ datasetId, ...opts }))).map((e) => e.inputs?.q);
      expect(await q({})).toEqual(["france", "japan", "kenya", "peru"]);
      expect(await q({ splits: ["train"] })).toEqual(["france", "japan"]);
      expect(await q({ splits: ["hard"] })).toEqual(["japan", "kenya"]);
      expect(await q({ splits: ["base", "hard"] })).toEqual(["japan", "kenya", "peru"]);
      expect(await q({ metadata: { continent: "asia" } })).toEqual(["japan"]);
      expect(await q({ exampleIds: [one.id, created[0]!.id] })).toEqual(["france", "kenya"].filter((x) => [one, created[0]!].some((e) => e.inputs.q === x)));
      expect((await all(client.listExamples({ datasetId, limit: 2 }))).length).toBe(2);
      expect(await client.listDatasetSplits({ datasetId })).toEqual(["base", "hard", "train"]);
      await client.deleteExample(one.id);
    });

    it("versions: an update and a delete leave earlier versions readable by as_of and by tag", async () => {
      const ds = await client.readDataset({ datasetId });
      const before = ds.modified_at;
      const fr = created.find((e) => e.inputs.q === "france")!;
      const pe = created.find((e) => e.inputs.q === "peru")!;
      await client.updateDatasetTag({ datasetId, asOf: before, tag: "v1" });

      await client.updateExample(fr.id, { outputs: { a: "Paris, France" } });
      await client.deleteExample(pe.id);
      const now = await client.readExample(fr.id);
      expect(now.outputs).toEqual({ a: "Paris, France" });
      expect(now.metadata).toEqual({ continent: "europe", dataset_split: ["train"] });
      expect(new Date(now.modified_at!).getTime()).toBeGreaterThan(new Date(before).getTime());

      const latest = byQ(await all(client.listExamples({ datasetId })));
      expect(latest.map((e) => [e.inputs.q, e.outputs?.a])).toEqual([
        ["france", "Paris, France"],
        ["japan", "Tokyo"],
      ]);
      for (const asOf of [before, new Date(before), "v1"]) {
        const old = byQ(await all(client.listExamples({ datasetId, asOf })));
        expect(old.map((e) => [e.inputs.q, e.outputs?.a])).toEqual([
          ["france", "Paris"],
          ["japan", "Tokyo"],
          ["peru", "Lima"],
        ]);
      }
      const version = await client.readDatasetVersion({ datasetId, tag: "v1" });
      expect(version).toEqual({ as_of: before, tags: ["v1"] });
      expect((await client.readDatasetVersion({ datasetId, asOf: new Date(new Date(before).getTime() + 1) })).as_of).toBe(before);
      const diff = await client.diffDatasetVersions({ datasetId, fromVersion: "v1", toVersion: "latest" });
      expect(diff).toMatchObject({ examples_added: [], examples_modified: [fr.id], examples_removed: expect.arrayContaining([pe.id]) });
      expect(await client.listDatasetSplits({ datasetId, asOf: "v1" })).toEqual(["base", "hard", "train"]);
      // a tag must name an exact version
      await expect(client.updateDatasetTag({ datasetId, asOf: new Date(new Date(before).getTime() + 1), tag: "v2" })).rejects.toThrow(/404|no version/i);
      // the example read as of the tag
      expect((await server.api(`/examples/${fr.id}?as_of=v1`)).body.outputs).toEqual({ a: "Paris" });
    });

    it("updateDatasetSplits moves examples between splits", async () => {
      const jp = created.find((e) => e.inputs.q === "japan")!;
      await client.updateDatasetSplits({ datasetId, splitName: "test", exampleIds: [jp.id] });
      expect((await client.readExample(jp.id)).metadata!.dataset_split).toEqual(["train", "hard", "test"]);
      await client.updateDatasetSplits({ datasetId, splitName: "hard", exampleIds: [jp.id], remove: true });
      expect((await all(client.listExamples({ datasetId, splits: ["hard"] }))).map((e) => e.id)).toEqual([]);
    });
  });
});

describeBackends("datasets and examples: bad input", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  let datasetId: string;
  tracingServerForSuite(
    backend,
    (s) => {
      server = s;
      client = s.client();
    },
  );
  beforeAll(async () => {
    datasetId = (await client.createDataset(`bad-${randomUUID().slice(0, 8)}`)).id;
  });

  /** A multipart example upload as the SDK sends it, with raw part bodies. */
  const upload = (parts: Record<string, string>, method = "POST") => {
    const form = new FormData();
    for (const [name, body] of Object.entries(parts)) form.append(name, new Blob([body], { type: "application/json" }));
    return fetch(`${server.url}/v1/platform/datasets/${datasetId}/examples`, { method, body: form, headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
  };
  const detail = async (res: Response) => ({ status: res.status, body: (await res.json()) as { detail: unknown } });

  it("bad ids: 422 naming the parameter; unknown ids: 404", async () => {
    expect(await server.api("/datasets/not-a-uuid")).toMatchObject({ status: 422, body: { detail: [{ loc: ["path", "dataset_id"], type: "uuid_parsing" }] } });
    expect(await server.api("/examples/nope")).toMatchObject({ status: 422, body: { detail: [{ loc: ["path", "example_id"] }] } });
    expect(await server.api("/examples?dataset=nope")).toMatchObject({ status: 422, body: { detail: [{ loc: ["query", "dataset"] }] } });
    expect(await server.api(`/datasets/${randomUUID()}`)).toMatchObject({ status: 404, body: { detail: expect.stringMatching(/not found/) } });
    expect(await server.api(`/examples?dataset=${randomUUID()}`)).toMatchObject({ status: 404 });
    expect(await server.api(`/examples?dataset=${datasetId}&as_of=no-such-tag`)).toMatchObject({ status: 404, body: { detail: expect.stringMatching(/no-such-tag/) } });
    expect(await server.api(`/examples?dataset=${datasetId}&metadata=%7Bnot-json`)).toMatchObject({ status: 422, body: { detail: [{ loc: ["query", "metadata"] }] } });
    // an experiment cannot point at a dataset that is not the tenant's
    await expect(client.createProject({ projectName: `p-${randomUUID().slice(0, 6)}`, referenceDatasetId: randomUUID() })).rejects.toThrow(/404|not found/i);
    // changing an example that does not exist
    expect(await detail(await upload({ [randomUUID()]: "{}", [`${randomUUID()}.inputs`]: "{}" }, "PATCH"))).toMatchObject({ status: 404 });
  });

  it("bad parts: NUL, invalid JSON, non-object inputs, a nameless file, unknown parts → 422 naming the part; nothing stored", async () => {
    const id = randomUUID();
    const nul = await detail(await upload({ [id]: "{}", [`${id}.inputs`]: JSON.stringify({ q: "a\u0000b" }) }));
    expect(nul).toMatchObject({ status: 422, body: { detail: [{ loc: ["body", `${id}.inputs`, "q"], type: "string_unstorable" }] } });
    // (files are example-attachments.test.ts's subject: here only a file part with no name)
    const bad = await detail(await upload({ [id]: "{", [`${id}.inputs`]: "[1]", [`${id}.attachment.`]: "x", [`${id}.bogus`]: "{}", "not-an-id": "{}" }));
    expect(bad.status).toBe(422);
    expect((bad.body.detail as { loc: string[]; type: string }[]).map((d) => [d.loc[1], d.type])).toEqual([
      [id, "json_invalid"],
      [`${id}.inputs`, "dict_type"],
      [`${id}.attachment.`, "value_error"],
      [`${id}.bogus`, "value_error"],
      ["not-an-id", "uuid_parsing"],
    ]);
    expect(await detail(await upload({ [id]: JSON.stringify({ split: 5 }), [`${id}.inputs`]: "{}" }))).toMatchObject({ status: 422, body: { detail: [{ loc: ["body", id, "split"] }] } });
    expect(await detail(await upload({ [id]: "{}" }))).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/need inputs/) } });
    const notMultipart = await fetch(`${server.url}/v1/platform/datasets/${datasetId}/examples`, { method: "POST", body: "{}", headers: { "content-type": "application/json", ...(server.apiKey ? { "x-api-key": server.apiKey } : {}) } });
    expect(await detail(notMultipart)).toMatchObject({ status: 415 });
    expect(await all(client.listExamples({ datasetId }))).toEqual([]);
  });

  it("a duplicate id in one request, or an id taken: nothing stored", async () => {
    const id = randomUUID();
    expect((await upload({ [id]: "{}", [`${id}.inputs`]: '{"q":1}' })).status).toBe(200);
    expect(await detail(await upload({ [id]: "{}", [`${id}.inputs`]: '{"q":2}' }))).toMatchObject({ status: 409, body: { detail: expect.stringContaining(id) } });
    const other = randomUUID();
    const res = await server.api("/examples/bulk", { method: "POST", body: JSON.stringify([{ id: other, dataset_id: datasetId, inputs: {} }, { id: other, dataset_id: datasetId, inputs: {} }]) });
    expect(res).toMatchObject({ status: 400, body: { detail: expect.stringMatching(/twice/) } });
    expect((await all(client.listExamples({ datasetId }))).map((e) => e.inputs?.q)).toEqual([1]);
  });

  it("huge payloads: 413 in the documented shape", async () => {
    const id = randomUUID();
    // past the limit (64 MiB by default), sent with a length as a buffer
    const boundary = "----berth-test";
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="${id}.inputs"\r\nContent-Type: application/json\r\n\r\n{"q":"`;
    const body = Buffer.concat([Buffer.from(head), Buffer.alloc(65 * 1024 * 1024, 120), Buffer.from(`"}\r\n--${boundary}--\r\n`)]);
    const res = await fetch(`${server.url}/v1/platform/datasets/${datasetId}/examples`, { method: "POST", body, headers: { "content-type": `multipart/form-data; boundary=${boundary}`, ...(server.apiKey ? { "x-api-key": server.apiKey } : {}) } });
    expect(await detail(res)).toMatchObject({ status: 413, body: { detail: expect.stringMatching(/larger than the limit/) } });
    const json = await server.api("/datasets", { method: "POST", body: JSON.stringify({ name: "big", description: "y".repeat(2 * 1024 * 1024) }) });
    expect(json).toMatchObject({ status: 413, body: { detail: expect.stringMatching(/larger than the limit/) } });
    expect(await server.api("/datasets", { method: "POST", body: JSON.stringify({ name: "x".repeat(300) }) })).toMatchObject({ status: 422, body: { detail: [{ loc: ["body", "name"] }] } });
  });

  it("another tenant sees none of it", async () => {
    const tenant = await server.handle.facility.auth.createTenant(`other-${randomUUID().slice(0, 6)}`);
    const { key } = await server.handle.facility.auth.createKey([tenant.id], "other");
    const other = server.client({ apiKey: key });
    expect(await other.hasDataset({ datasetId })).toBe(false);
    expect(await all(other.listDatasets())).toEqual([]);
    const res = await fetch(`${server.url}/examples?dataset=${datasetId}`, { headers: { "x-api-key": key } });
    expect(res.status).toBe(404);
  });
});

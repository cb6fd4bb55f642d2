/**
 * Dataset and example API details the `langsmith` SDK relies on, on both backends: literal
 * `name_contains` (a `_` or `%` typed is no wildcard), example `filter` expressions, and large
 * multipart example uploads: 26 MB within the body limit is stored (on PGlite it once took longer
 * than the SDK's 90 s timeout on a busy machine: the embedded database's socket front copied a big
 * message's whole prefix on every chunk), and past the limit is a 413 `{detail}`.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "langsmith";
import { describe, expect, it } from "vitest";
import { describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

const all = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
};

const LIMIT = 27 * 1024 * 1024;

describeBackends("dataset API details through the langsmith SDK", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(
    backend,
    (s) => {
      server = s;
      client = s.client();
    },
    { maxBodyBytes: LIMIT },
  );

  describe("large example uploads", () => {
    it("26 MB within the limit is stored whole; past the limit is a 413 {detail}", async () => {
      const { id: datasetId } = await client.createDataset(`big-${randomUUID().slice(0, 8)}`);
      const big = "x".repeat(26 * 1024 * 1024);
      const [made] = await client.createExamples([{ dataset_id: datasetId, inputs: { q: big }, outputs: { a: "ok" } }]);
      const back = await client.readExample(made!.id);
      expect((back.inputs.q as string).length).toBe(big.length);
      expect(back.outputs).toEqual({ a: "ok" });

      const id = randomUUID();
      const form = new FormData();
      form.append(id, new Blob(["{}"], { type: "application/json" }));
      form.append(`${id}.inputs`, new Blob([JSON.stringify({ q: "y".repeat(LIMIT) })], { type: "application/json" }));
      const res = await fetch(`${server.url}/v1/platform/datasets/${datasetId}/examples`, { method: "POST", body: form, headers: server.apiKey ? { "x-api-key": server.apiKey } : {} });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/larger than the limit of 28311552 bytes/);
      // nothing of it was stored, and the server goes on answering
      expect((await all(client.listExamples({ datasetId }))).map((e) => e.id)).toEqual([made!.id]);
    });
  });

  describe("listExamples with a filter expression", () => {
    it("has, exists, eq on metadata, and/or/not, search; a bad expression is a 400", async () => {
      const { id: datasetId } = await client.createDataset(`filter-${randomUUID().slice(0, 8)}`);
      await client.createExamples([
        { dataset_id: datasetId, inputs: { q: "france" }, outputs: { a: "Paris" }, metadata: { continent: "europe", tier: 1, reviewed: true } },
        { dataset_id: datasetId, inputs: { q: "japan" }, outputs: { a: "Tokyo" }, metadata: { continent: "asia", tier: 2 } },
        { dataset_id: datasetId, inputs: { q: "peru" }, outputs: { a: "Lima" }, metadata: { continent: "america", tier: 1 } },
      ]);
      const qs = async (filter: string) => (await all(client.listExamples({ datasetId, filter }))).map((e) => e.inputs.q).sort();
      expect(await qs(`has(metadata, '{"continent": "asia"}')`)).toEqual(["japan"]);
      expect(await qs(`has(metadata, '{"tier": 1}')`)).toEqual(["france", "peru"]);
      expect(await qs(`exists(metadata, "reviewed")`)).toEqual(["france"]);
      expect(await qs(`eq(metadata.continent, "america")`)).toEqual(["peru"]);
      expect(await qs(`and(has(metadata, '{"tier": 1}'), not(exists(metadata, "reviewed")))`)).toEqual(["peru"]);
      expect(await qs(`or(eq(metadata.continent, "asia"), exists(metadata, "reviewed"))`)).toEqual(["france", "japan"]);
      expect(await qs(`and(eq(metadata_key, "continent"), eq(metadata_value, "europe"))`)).toEqual(["france"]);
      expect(await qs(`search("Tokyo")`)).toEqual(["japan"]);
      expect(await qs(`has(outputs, '{"a": "Lima"}')`)).toEqual(["peru"]);
      // with the other parameters, ANDed
      expect((await all(client.listExamples({ datasetId, filter: `has(metadata, '{"tier": 1}')`, metadata: { continent: "europe" } }))).map((e) => e.inputs.q)).toEqual(["france"]);

      for (const bad of [`has(metadata, 'not json')`, `eq(feedback_key, "x")`, `has(tags, "x")`, `and(`, `eq(nope, 1)`]) {
        const res = await server.api(`/examples?dataset=${datasetId}&filter=${encodeURIComponent(bad)}`);
        expect(res.status, bad).toBe(400);
        expect(res.body.detail ?? res.body.message ?? JSON.stringify(res.body), bad).toMatch(/filter/i);
      }
    });
  });

  describe("name_contains is literal", () => {
    it("a_b and 5% match only themselves, for datasets and projects", async () => {
      const tag = randomUUID().slice(0, 8);
      const lit = await client.createDataset(`${tag}-a_b-5%`);
      await client.createDataset(`${tag}-axb-5x`);
      const ds = async (s: string) => (await all(client.listDatasets({ datasetNameContains: `${tag}-${s}` }))).map((d) => d.id);
      expect(await ds("a_b")).toEqual([lit.id]);
      expect(await ds("a_b-5%")).toEqual([lit.id]);
      expect(await ds("a%")).toEqual([]);

      const proj = await client.createProject({ projectName: `${tag}-p_q` });
      await client.createProject({ projectName: `${tag}-pxq` });
      expect((await all(client.listProjects({ nameContains: `${tag}-p_q` }))).map((p) => p.id)).toEqual([proj.id]);
      expect((await server.api(`/sessions?name_contains=${encodeURIComponent(`${tag}-p%`)}`)).body).toEqual([]);
    });
  });
});

/**
 * Dataset and example API details the `langsmith` SDK relies on, on both backends: literal
 * `name_contains` (a `_` or `%` typed is no wildcard), example `filter` expressions.
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

describeBackends("dataset API details through the langsmith SDK", (backend) => {
  let server: TracingTestServer;
  let client: Client;
  tracingServerForSuite(backend, (s) => {
    server = s;
    client = s.client();
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

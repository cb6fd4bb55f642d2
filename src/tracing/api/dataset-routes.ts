/**
 * LangSmith's `/datasets` API as the `langsmith` SDK calls it (createDataset, readDataset by id or
 * name, listDatasets, updateDataset, deleteDataset, readDatasetVersion, updateDatasetTag,
 * diffDatasetVersions, listDatasetSplits), and Berth's view of a dataset's experiments: the
 * projects run against it with their stats and aggregate feedback scores.
 */
import type { Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { BadRequestError } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import { parseAsOf } from "../datasets/rules.js";
import * as D from "./dataset-schemas.js";
import { projectStats, type QueryDeps } from "./query-routes.js";
import * as Responses from "./response-schemas.js";

/** The dataset routes use the tracing API's stores (QueryDeps holds the dataset and example stores). */
export type DatasetDeps = QueryDeps;

const tenantOf = (res: Response) => principalOf(res).tenantId;

export const DatasetExperiments = z
  .object({ dataset_id: z.guid(), experiments: z.array(Responses.Project), offset: z.number().int() })
  .meta({ id: "DatasetExperiments" });

export function datasetRoutes(router: ApiRouter, deps: DatasetDeps): void {
  const { datasets, examples } = deps;
  const at = async (tenant: string, id: string, raw: string | undefined) => datasets.resolveAsOf(tenant, id, parseAsOf(raw));

  router.add({ method: "post", path: "/datasets", tag: "Datasets", summary: "Create a dataset (metadata in extra.metadata, as the SDK sends it)", body: D.datasetCreateBody, response: D.Dataset, responses: { "200": "Created", "409": "Name or id taken" } }, async ({ body, res }) =>
    datasets.create(tenantOf(res), body),
  );

  router.add({ method: "get", path: "/datasets", tag: "Datasets", summary: "List datasets, newest first; `name` matches exactly, `metadata` is a JSON object the dataset's metadata contains", query: D.datasetListQuery, response: z.array(D.Dataset) }, async ({ query: q, res }) =>
    datasets.list(tenantOf(res), { ids: q.id, name: q.name, nameContains: q.name_contains, dataType: q.data_type, metadata: q.metadata, limit: q.limit, offset: q.offset }),
  );

  router.add({ method: "get", path: "/datasets/:dataset_id", tag: "Datasets", summary: "A dataset with its example and experiment counts", uuidParams: ["dataset_id"], response: D.Dataset }, async ({ params, res }) =>
    datasets.get(tenantOf(res), params.dataset_id!),
  );

  router.add({ method: "patch", path: "/datasets/:dataset_id", tag: "Datasets", summary: "Rename a dataset or change its description, metadata or schemas", uuidParams: ["dataset_id"], body: D.datasetUpdateBody, response: D.Dataset, responses: { "200": "Updated", "409": "Name taken" } }, async ({ params, body, res }) =>
    datasets.update(tenantOf(res), params.dataset_id!, body),
  );

  router.add({ method: "delete", path: "/datasets/:dataset_id", tag: "Datasets", summary: "Delete a dataset with its examples, versions and experiments", uuidParams: ["dataset_id"], responses: { "204": "Deleted" } }, async ({ params, res }) => {
    await datasets.delete(tenantOf(res), params.dataset_id!);
    return Reply.noContent();
  });

  // ---------- versions ----------

  router.add({ method: "get", path: "/datasets/:dataset_id/version", tag: "Datasets", summary: "The version in effect at `as_of`, or the one `tag` names", uuidParams: ["dataset_id"], query: D.versionQuery, response: D.DatasetVersion }, async ({ params, query: q, res }) => {
    const tenant = tenantOf(res);
    if ((q.as_of === undefined) === (q.tag === undefined)) throw new BadRequestError("give exactly one of as_of and tag");
    const when = q.as_of !== undefined ? new Date(q.as_of) : await datasets.resolveAsOf(tenant, params.dataset_id!, { kind: "tag", tag: q.tag! });
    return datasets.version(tenant, params.dataset_id!, when!);
  });

  router.add({ method: "get", path: "/datasets/:dataset_id/versions", tag: "Datasets", summary: "Every version of a dataset with its tags, newest first", uuidParams: ["dataset_id"], query: D.versionsQuery, response: z.array(D.DatasetVersion) }, async ({ params, query: q, res }) =>
    datasets.versions(tenantOf(res), params.dataset_id!, q.limit, q.offset),
  );

  router.add({ method: "get", path: "/datasets/:dataset_id/versions/diff", tag: "Datasets", summary: "Examples added, changed and removed between two versions (timestamps, tags or 'latest')", uuidParams: ["dataset_id"], query: D.diffQuery, response: D.DatasetDiff }, async ({ params, query: q, res }) => {
    const tenant = tenantOf(res);
    await datasets.get(tenant, params.dataset_id!);
    return examples.diff(tenant, params.dataset_id!, await at(tenant, params.dataset_id!, q.from_version), await at(tenant, params.dataset_id!, q.to_version));
  });

  router.add({ method: "put", path: "/datasets/:dataset_id/tags", tag: "Datasets", summary: "Tag an exact version (moving the tag if it named another)", uuidParams: ["dataset_id"], body: D.tagBody, response: D.DatasetVersion, responses: { "200": "Tagged", "404": "No such dataset or version" } }, async ({ params, body, res }) =>
    datasets.tag(tenantOf(res), params.dataset_id!, new Date(body.as_of), body.tag),
  );

  // ---------- splits ----------

  router.add({ method: "get", path: "/datasets/:dataset_id/splits", tag: "Datasets", summary: "The splits of a dataset's examples (at `as_of`)", uuidParams: ["dataset_id"], query: D.asOfQuery, response: z.array(z.string()) }, async ({ params, query: q, res }) => {
    const tenant = tenantOf(res);
    await datasets.get(tenant, params.dataset_id!);
    return examples.splits(tenant, params.dataset_id!, await at(tenant, params.dataset_id!, q.as_of));
  });

  router.add({ method: "put", path: "/datasets/:dataset_id/splits", tag: "Datasets", summary: "Add examples to a split, or remove them from it (older SDKs)", uuidParams: ["dataset_id"], body: D.splitsBody, response: D.ExamplesWritten }, async ({ params, body, res }) => {
    const done = await examples.operateOnMetadata(tenantOf(res), params.dataset_id!, body.examples, [{ key: "dataset_split", operation: body.remove ? "array_remove" : "array_add", values: [body.split_name] }]);
    const ids = [...new Set(done.map((s) => s.id))];
    return { example_ids: ids, count: ids.length };
  });

  router.add(
    {
      method: "patch",
      path: "/v1/platform/datasets/:dataset_id/examples/metadata",
      tag: "Datasets",
      summary: "Apply metadata changes (SET, ARRAY_ADD, ARRAY_REMOVE; splits: dataset_split) to examples together, at one new version (client.datasets.examples.updateMetadata); examples not in the dataset are skipped",
      uuidParams: ["dataset_id"],
      body: D.metadataOperationsBody,
      response: D.MetadataStatuses,
      responses: { "207": "One status per example asked for, in request order: UPDATED or NOT_FOUND", "404": "Dataset not found" },
    },
    async ({ params, body, res }) => {
      const statuses = await examples.operateOnMetadata(tenantOf(res), params.dataset_id!, body.example_ids, body.operations, true);
      return new Reply(207, { statuses: statuses.map((s) => (s.status === "UPDATED" ? s : { ...s, description: "not in the dataset, or deleted" })) });
    },
  );

  // ---------- experiments ----------

  router.add(
    { method: "get", path: "/datasets/:dataset_id/experiments", tag: "Datasets", summary: "Experiments run against a dataset (projects with reference_dataset_id), newest first, with stats and aggregate feedback scores", uuidParams: ["dataset_id"], query: D.versionsQuery, response: DatasetExperiments },
    async ({ params, query: q, res }) => {
      const tenant = tenantOf(res);
      await datasets.get(tenant, params.dataset_id!);
      const list = await deps.projects.list(tenant, { referenceDatasetId: params.dataset_id!, limit: q.limit, offset: q.offset });
      const stats = list.length ? await projectStats(deps, list.map((p) => p.id)) : new Map();
      return { dataset_id: params.dataset_id!, experiments: list.map((p) => ({ ...p, stats: stats.get(p.id) })), offset: q.offset };
    },
  );
}

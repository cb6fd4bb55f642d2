/**
 * LangSmith's comparative (pairwise) experiments as the `langsmith` SDK's evaluateComparative and
 * createComparativeExperiment call them: `POST /datasets/comparative`, a dataset's list at
 * `GET /datasets/{id}/comparative`, `DELETE /datasets/comparative/{id}`. Each answer carries the
 * compared experiments, the comparison's feedback stats and, Berth's addition, per key how often
 * each experiment was preferred (storage/comparative.ts says how).
 */
import type { Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import type { ComparativeStore } from "../storage/comparative.js";
import type { DatasetStore } from "../storage/datasets.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;
const uuid = z.guid();
const one = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).transform((v) => v[0])]);
const many = <T extends z.ZodType>(item: T) => z.union([item.transform((v) => [v] as z.output<T>[]), z.array(item)]);
const bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 timestamp");
const stat = z.object({ n: z.number().int(), avg: z.number().nullable(), values: z.record(z.string(), z.number()) });

export const comparativeCreateBody = z.object({
  id: uuid.nullish(),
  name: z.string().min(1).max(512),
  description: z.string().max(10_000).nullish(),
  experiment_ids: z.array(uuid).min(2, "a comparison needs at least two experiments").max(20),
  reference_dataset_id: uuid,
  created_at: timestamp.nullish(),
  extra: z.record(z.string(), z.unknown()).nullish(),
});

export const comparativeListQuery = z.object({
  id: many(uuid).optional(),
  name: one(z.string().max(512)).optional(),
  name_contains: one(z.string().max(512)).optional(),
  sort_by: one(z.enum(["created_at", "name"])).default("created_at"),
  sort_by_desc: bool.default(true),
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

export const ComparativeExperiment = z
  .object({
    id: uuid,
    tenant_id: uuid,
    name: z.string(),
    description: z.string().nullable(),
    reference_dataset_id: uuid,
    extra: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    modified_at: z.string(),
    experiments_info: z.array(z.object({ id: uuid, name: z.string() })).describe("The compared experiments, in the order given"),
    feedback_stats: z.record(z.string(), stat).describe("Per key: the comparison's feedback count, mean score and values"),
    preferences: z
      .record(z.string(), z.object({ comparisons: z.number().int(), ties: z.number().int(), preferred: z.record(z.string(), z.number().int()) }))
      .describe("Per key: comparisons made (one per evaluator call and example), ties, and per experiment id how often its run scored strictly highest"),
  })
  .meta({ id: "ComparativeExperiment" });

export function comparativeRoutes(router: ApiRouter, deps: { comparative: ComparativeStore; datasets: DatasetStore }): void {
  router.add(
    { method: "post", path: "/datasets/comparative", tag: "Datasets", summary: "Create a comparative (pairwise) experiment over experiments of one dataset", body: comparativeCreateBody, response: ComparativeExperiment, responses: { "200": "Created", "400": "Experiments of another dataset", "404": "No such dataset or experiment", "409": "Id taken" } },
    async ({ body, res }) => deps.comparative.create(tenantOf(res), body),
  );

  router.add(
    { method: "get", path: "/datasets/:dataset_id/comparative", tag: "Datasets", summary: "A dataset's comparative experiments (newest first by default) with their preference counts", uuidParams: ["dataset_id"], query: comparativeListQuery, response: z.array(ComparativeExperiment) },
    async ({ params, query: q, res }) => {
      const tenant = tenantOf(res);
      await deps.datasets.get(tenant, params.dataset_id!);
      return deps.comparative.list(tenant, params.dataset_id!, { ids: q.id, name: q.name, nameContains: q.name_contains, sortBy: q.sort_by, desc: q.sort_by_desc, limit: q.limit, offset: q.offset });
    },
  );

  router.add(
    { method: "delete", path: "/datasets/comparative/:comparative_experiment_id", tag: "Datasets", summary: "Delete a comparative experiment and the pairwise feedback given in it", uuidParams: ["comparative_experiment_id"], responses: { "204": "Deleted" } },
    async ({ params, res }) => {
      await deps.comparative.delete(tenantOf(res), params.comparative_experiment_id!);
      return Reply.noContent();
    },
  );
}

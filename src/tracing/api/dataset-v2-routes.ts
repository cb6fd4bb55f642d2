/**
 * The dataset part of LangSmith's v2 API, as the `langsmith` SDK 0.12's `client.datasets` resource
 * calls it: `listV2` (`GET /api/v2/datasets`, cursor pages) and `experimentRuns.query`
 * (`POST /api/v2/datasets/{id}/experiment-runs`: a page of the dataset's examples, each with its
 * runs in the experiments asked for). `client.datasets.examples.delete/updateMetadata` are v1
 * platform routes (example-routes.ts, dataset-routes.ts). Same stores and query service as v1.
 */
import type { Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { BadRequestError, NotFoundError } from "../../shared/errors.js";
import type { ApiRouter } from "../../shared/http.js";
import { langsmithRunV2, needsPayloads, V2_RUN_FIELDS } from "../query/langsmith-run-v2.js";
import type { RunRow } from "../storage/runs.js";
import { DATASET_SORT_COLUMNS } from "../storage/datasets.js";
import type { Example } from "../storage/examples.js";
import * as D from "./dataset-schemas.js";
import type { DatasetDeps } from "./dataset-routes.js";
import { offsetCursor, offsetOf } from "./langsmith-v2-routes.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;
const uuid = z.guid();
const many = <T extends z.ZodType>(item: T) => z.union([item.transform((v) => [v] as z.output<T>[]), z.array(item)]);
const one = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).transform((v) => v[0])]);
const bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const pageSize = z.coerce.number().int().min(1).max(100).default(100);
const filterExpr = z.string().min(1).max(10_000);

/** At most this many runs per experiment and page of examples (repetitions included). */
const RUNS_PER_PAGE_LIMIT = 10_000;
/** A page sorted by feedback ranks at most this many examples. */
const SORT_EXAMPLES_LIMIT = 10_000;

export const datasetListV2Query = z.object({
  id: many(uuid).optional(),
  data_type: many(z.enum(["kv", "llm", "chat"])).optional(),
  name: one(z.string()).optional(),
  name_contains: one(z.string().max(256)).optional(),
  metadata: D.jsonObjectParam.optional(),
  sort_by: one(z.enum(DATASET_SORT_COLUMNS)).default("created_at"),
  sort_order: one(z.enum(["asc", "desc"])).default("desc"),
  exclude: many(z.literal("example_count")).optional(),
  exclude_corrections_datasets: bool.optional(),
  tag_value_id: many(uuid).optional(),
  cursor: one(z.string()).optional(),
  page_size: pageSize,
});

export const experimentRunsBody = z.object({
  experiment_ids: z.array(uuid).min(1, "give the experiments (experiment_ids)").max(20),
  example_ids: z.array(uuid).max(1000).optional(),
  filters: z.record(z.string(), z.array(filterExpr).max(20)).optional(),
  selects: z.array(z.enum(V2_RUN_FIELDS)).optional(),
  sort: z.object({ by: z.string().min(1).max(256), order: z.string().transform((s) => s.toUpperCase()).pipe(z.enum(["ASC", "DESC"])).default("DESC") }).optional(),
  comparative_experiment_id: uuid.optional(),
  cursor: z.string().optional(),
  page_size: pageSize,
});

const page = (of: z.ZodType, id: string) => z.object({ items: z.array(of), next_cursor: z.string().nullable() }).meta({ id });
const V2Dataset = D.Dataset;
const ExampleWithRuns = z.looseObject({ id: uuid, dataset_id: uuid, runs: z.array(z.looseObject({ id: uuid })) }).meta({ id: "ExampleWithExperimentRuns" });

/** `and(...)` of the expressions given for one experiment (one of them stands alone). */
const allOf = (exprs: string[] | undefined) => (!exprs?.length ? undefined : exprs.length === 1 ? exprs[0] : `and(${exprs.join(", ")})`);

/** The mean score of `key` over an example's runs, or null when none of them has one. */
function exampleScore(runs: RunRow[], stats: Map<string, Record<string, { avg: number | null }>>, key: string): number | null {
  const scores = runs.map((r) => stats.get(r.id)?.[key]?.avg).filter((s): s is number => typeof s === "number");
  return scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
}

export function datasetV2Routes(router: ApiRouter, deps: DatasetDeps): void {
  const { datasets, examples, projects, query, feedback } = deps;

  router.add(
    { method: "get", path: "/api/v2/datasets", tag: "LangSmith v2", summary: "Datasets in cursor pages, sorted as asked (client.datasets.listV2); `name` matches exactly, `metadata` is a JSON object the dataset's metadata contains", query: datasetListV2Query, response: page(V2Dataset, "DatasetsPageV2"), responses: { "200": "A page", "400": "tag_value_id (Berth has no resource tags) or a bad cursor" } },
    async ({ query: q, res }) => {
      if (q.tag_value_id?.length) throw new BadRequestError("tag_value_id: resource tags are not available on Berth");
      const offset = offsetOf(q.cursor);
      // Berth makes no corrections datasets: exclude_corrections_datasets changes nothing
      const list = await datasets.list(tenantOf(res), { ids: q.id, name: q.name, nameContains: q.name_contains, dataTypes: q.data_type, metadata: q.metadata, sortBy: q.sort_by, desc: q.sort_order === "desc", limit: q.page_size + 1, offset });
      return { items: list.slice(0, q.page_size), next_cursor: list.length > q.page_size ? offsetCursor(offset + q.page_size) : null };
    },
  );

  router.add(
    {
      method: "post",
      path: "/api/v2/datasets/:dataset_id/experiment-runs",
      tag: "LangSmith v2",
      summary:
        "A page of the dataset's current examples (oldest first, or by an experiment's feedback score with `sort`), each with its root runs in the experiments asked for (client.datasets.experimentRuns.query). `filters` maps an experiment id to filter expressions its runs must match; `selects` picks run fields (default: id); with `comparative_experiment_id` the runs' feedback_stats count only that comparison's feedback",
      uuidParams: ["dataset_id"],
      body: experimentRunsBody,
      response: page(ExampleWithRuns, "ExperimentRunsPage"),
      responses: { "200": "A page", "400": "An experiment of another dataset, a filter for one not asked for, sort over several experiments, a bad expression or cursor", "404": "No such dataset, experiment or comparison" },
    },
    async ({ params, body: b, res }) => {
      const tenant = tenantOf(res);
      const datasetId = params.dataset_id!;
      await datasets.get(tenant, datasetId);
      for (const id of b.experiment_ids) {
        const p = await projects.get(tenant, id).catch(() => {
          throw new NotFoundError(`Experiment ${id} not found.`);
        });
        if (p.reference_dataset_id !== datasetId) throw new BadRequestError(`experiment ${id} was not run against dataset ${datasetId}`);
      }
      const stray = Object.keys(b.filters ?? {}).filter((k) => !b.experiment_ids.includes(k.toLowerCase()));
      if (stray.length) throw new BadRequestError(`filters: ${stray.join(", ")} is not one of experiment_ids`);
      if (b.sort && b.experiment_ids.length !== 1) throw new BadRequestError("sort: give exactly one experiment to sort by its feedback");
      if (b.comparative_experiment_id) await deps.comparative.get(tenant, b.comparative_experiment_id);
      const filterOf = (id: string) => allOf(Object.entries(b.filters ?? {}).find(([k]) => k.toLowerCase() === id)?.[1]);

      // root runs of the experiments on these examples, by example (in experiment order, then start)
      const runsOf = async (exampleIds: string[]) => {
        const byExample = new Map<string, RunRow[]>();
        if (!exampleIds.length) return byExample;
        for (const project of b.experiment_ids) {
          const { runs } = await query.listRuns(tenant, { project_id: project, is_root: true, reference_example_ids: exampleIds, filter: filterOf(project), order: "asc", limit: RUNS_PER_PAGE_LIMIT, full: needsPayloads(b.selects ?? ["ID"]) });
          for (const r of runs) byExample.set(r.reference_example_id!, [...(byExample.get(r.reference_example_id!) ?? []), r]);
        }
        return byExample;
      };

      const offset = offsetOf(b.cursor);
      let shown: Example[];
      let more: boolean;
      let byExample: Map<string, RunRow[]>;
      if (!b.sort) {
        const list = await examples.list(tenant, { datasetId, ids: b.example_ids, limit: b.page_size + 1, offset });
        shown = list.slice(0, b.page_size);
        more = list.length > b.page_size;
        byExample = await runsOf(shown.map((e) => e.id));
      } else {
        // rank every example by its runs' mean score; examples without one come last
        const all = await examples.list(tenant, { datasetId, ids: b.example_ids, limit: SORT_EXAMPLES_LIMIT, offset: 0 });
        byExample = await runsOf(all.map((e) => e.id));
        const stats = await feedback.statsByRun(tenant, [...byExample.values()].flat().map((r) => r.id), b.comparative_experiment_id);
        const key = b.sort.by.replace(/^feedback\./, "");
        const sign = b.sort.order === "ASC" ? 1 : -1;
        const scored = all.map((e, i) => ({ e, i, s: exampleScore(byExample.get(e.id) ?? [], stats, key) }));
        scored.sort((x, y) => (x.s === null ? (y.s === null ? x.i - y.i : 1) : y.s === null ? -1 : sign * (x.s - y.s) || x.i - y.i));
        shown = scored.slice(offset, offset + b.page_size).map((x) => x.e);
        more = scored.length > offset + b.page_size;
      }

      const pageRuns = shown.flatMap((e) => byExample.get(e.id) ?? []);
      const selects = b.selects?.length ? b.selects : ["ID"];
      const stats = selects.includes("FEEDBACK_STATS") ? await feedback.statsByRun(tenant, pageRuns.map((r) => r.id), b.comparative_experiment_id) : undefined;
      const items = shown.map((e) => ({
        id: e.id,
        dataset_id: e.dataset_id,
        inputs: e.inputs,
        outputs: e.outputs ?? undefined,
        metadata: e.metadata,
        source_run_id: e.source_run_id ?? undefined,
        created_at: e.created_at,
        modified_at: e.modified_at,
        runs: (byExample.get(e.id) ?? []).map((r) => langsmithRunV2(r, { feedback_stats: stats?.get(r.id) }, selects)),
      }));
      return { items, next_cursor: more ? offsetCursor(offset + b.page_size) : null };
    },
  );
}

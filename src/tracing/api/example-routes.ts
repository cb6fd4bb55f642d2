/**
 * LangSmith's examples API as the `langsmith` SDK calls it: the multipart create and update of
 * 0.12 (`/v1/platform/datasets/{id}/examples`, mounted before the JSON parser by `exampleUploadRoutes`),
 * with files (`{id}.attachment.{name}`, `{id}.attachments_operations`), the JSON create/update of
 * older SDKs, reads with `as_of` versions (each version with the files it had, as signed links:
 * example-attachment-links.ts), lists filtered by ids, splits and metadata, and soft and hard deletes.
 */
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { ApiError, BadRequestError, NotFoundError, ValidationError } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import { parseAsOf, type ExampleCreate } from "../datasets/rules.js";
import * as D from "./dataset-schemas.js";
import type { DatasetDeps } from "./dataset-routes.js";
import { readMultipartParts } from "../ingest/multipart.js";
import { assembleExamples, type ExamplePart } from "./example-multipart.js";
import { linker } from "./example-attachment-links.js";
import { readAttachmentPart, type AttachmentUpload } from "../datasets/attachments.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;

/** Multipart routes: they read their own bodies, so they are mounted before the JSON parser. */
export function exampleUploadRoutes(router: ApiRouter, deps: DatasetDeps, maxBodyBytes: number): void {
  const { datasets, examples } = deps;
  router.add(
    { method: "post", path: "/v1/platform/datasets/:dataset_id/examples", tag: "Examples", summary: "Create examples (multipart: {id} JSON, {id}.inputs, {id}.outputs, files as {id}.attachment.{name} typed `mime; length=N`); all or nothing, at one new dataset version", uuidParams: ["dataset_id"], response: D.ExamplesWritten, responses: { "200": "Created", "404": "No such dataset or source run", "409": "An id is taken", "413": "Too large (the request, or a file above the per-attachment limit)", "415": "Not multipart", "422": "An unusable part" } },
    async ({ params, req, res }) => {
      const tenant = tenantOf(res);
      await datasets.get(tenant, params.dataset_id!);
      const parts = assembleExamples(await readMultipartParts(req, maxBodyBytes), deps.attachments.maxBytes);
      const withOps = parts.filter((p) => p.attachments_operations);
      if (withOps.length) throw new ValidationError(withOps.map((p) => ({ loc: ["body", `${p.id}.attachments_operations`], msg: "attachments_operations apply to changes (PATCH) of existing examples", type: "value_error" })));
      const fromRuns = await payloadsFromRuns(deps, tenant, parts);
      const runFiles = await filesFromRuns(deps, tenant, parts);
      const missing = parts.filter((p) => !p.inputs && !fromRuns.has(p.id));
      if (missing.length) throw new BadRequestError(`examples need inputs (a part named {id}.inputs, or use_source_run_io with a source_run_id): ${missing.map((p) => p.id).join(", ")}`);
      const ids = await examples.create(
        tenant,
        params.dataset_id!,
        parts.map((p) => ({ id: p.id, inputs: p.inputs ?? {}, outputs: p.outputs, metadata: p.body.metadata, split: p.body.split, source_run_id: p.body.source_run_id, created_at: p.body.created_at, attachments: [...(runFiles.get(p.id) ?? []).filter((f) => !p.attachments.some((a) => a.name === f.name)), ...p.attachments] })),
        fromRuns,
      );
      return { example_ids: ids, count: ids.length };
    },
  );
  router.add(
    { method: "patch", path: "/v1/platform/datasets/:dataset_id/examples", tag: "Examples", summary: "Change examples (multipart, as for create; absent parts keep their values). Files: new uploads and {id}.attachments_operations {rename, retain}; with either, files neither retained nor renamed are dropped. At one new dataset version (older versions keep their files)", uuidParams: ["dataset_id"], response: D.ExamplesWritten, responses: { "200": "Changed", "404": "No such dataset or example", "413": "Too large", "415": "Not multipart", "422": "An unusable part, or an operation naming a file the example does not have" } },
    async ({ params, req, res }) => {
      const tenant = tenantOf(res);
      await datasets.get(tenant, params.dataset_id!);
      const parts = assembleExamples(await readMultipartParts(req, maxBodyBytes), deps.attachments.maxBytes);
      const ids = await examples.change(
        tenant,
        params.dataset_id!,
        parts.map((p) => ({ id: p.id, inputs: p.inputs, outputs: p.outputs, metadata: p.body.metadata, split: p.body.split, attachments: p.attachments, attachments_operations: p.attachments_operations })),
      );
      return { example_ids: ids, count: ids.length };
    },
  );
}

/** Inputs and outputs copied from source runs (use_source_run_io), by example id; 404 for a run that is not the tenant's. */
async function payloadsFromRuns(deps: DatasetDeps, tenant: string, parts: ExamplePart[]) {
  const wanted = parts.filter((p) => p.body.use_source_run_io && p.body.source_run_id);
  const runs = await deps.examples.runPayloads(tenant, wanted.map((p) => p.body.source_run_id!));
  const out = new Map<string, { inputs: Record<string, unknown>; outputs: Record<string, unknown> | null }>();
  for (const p of wanted) {
    const run = runs.get(p.body.source_run_id!);
    if (!run) throw new NotFoundError(`Run ${p.body.source_run_id} not found (source of example ${p.id}).`);
    out.set(p.id, run);
  }
  return out;
}

/**
 * Files copied from source runs (use_source_run_attachments: names of the run's attachments), by
 * example id; a name the run does not have is a 404, as a missing run is. An uploaded file of the
 * same name wins.
 */
async function filesFromRuns(deps: DatasetDeps, tenant: string, parts: ExamplePart[]): Promise<Map<string, AttachmentUpload[]>> {
  const out = new Map<string, AttachmentUpload[]>();
  for (const p of parts) {
    const names = p.body.use_source_run_attachments ?? [];
    if (!names.length) continue;
    if (!p.body.source_run_id) throw ValidationError.field(["body", p.id, "use_source_run_attachments"], "needs source_run_id: the run whose attachments to copy");
    const files: AttachmentUpload[] = [];
    for (const name of new Set(names)) {
      const a = await deps.query.attachment(tenant, p.body.source_run_id, name);
      const read = readAttachmentPart(name, a.content_type, a.data, deps.attachments.maxBytes);
      if ("tooLarge" in read) throw new ApiError(413, read.tooLarge);
      if ("issue" in read) throw ValidationError.field(["body", p.id, "use_source_run_attachments"], `${name}: ${read.issue.msg}`);
      files.push(read.upload);
    }
    out.set(p.id, files);
  }
  return out;
}

export function exampleRoutes(router: ApiRouter, deps: DatasetDeps): void {
  const { datasets, examples } = deps;
  const wire = (req: Request, tenant: string) => linker(deps.blobs, deps.attachments, req, tenant);
  const createJson = async (tenant: string, items: z.output<typeof D.exampleCreateBody>[]) => {
    const byDataset = new Map<string, ExampleCreate[]>();
    for (const b of items) {
      const e: ExampleCreate = { id: b.id ?? randomUUID(), inputs: b.inputs, outputs: b.outputs, metadata: b.metadata, split: b.split, source_run_id: b.source_run_id, created_at: b.created_at };
      byDataset.set(b.dataset_id, [...(byDataset.get(b.dataset_id) ?? []), e]);
    }
    const ids: string[] = [];
    for (const [datasetId, list] of byDataset) ids.push(...(await examples.create(tenant, datasetId, list)));
    return Promise.all(ids.map((id) => examples.get(tenant, id)));
  };

  router.add({ method: "get", path: "/examples", tag: "Examples", summary: "Examples of a dataset, oldest first: at a version (`as_of`: timestamp, tag or 'latest'), by ids, splits (any of), metadata (a JSON object they contain) and `filter` (LangSmith's filter language: has(metadata, '{…}'), exists(metadata, \"k\"), eq(metadata.k, \"v\"), and/or/not, search); files as signed links in attachment_urls", query: D.exampleListQuery, response: z.array(D.Example) }, async ({ query: q, req, res }) => {
    const tenant = tenantOf(res);
    await datasets.get(tenant, q.dataset);
    const asOf = await datasets.resolveAsOf(tenant, q.dataset, parseAsOf(q.as_of));
    const list = await examples.list(tenant, { datasetId: q.dataset, asOf, ids: q.id, splits: q.splits, metadata: q.metadata, filter: q.filter, limit: q.limit, offset: q.offset });
    return list.map(await wire(req, tenant));
  });

  router.add({ method: "post", path: "/examples", tag: "Examples", summary: "Create one example (JSON; older SDKs)", body: D.exampleCreateBody, response: D.Example, responses: { "200": "Created", "404": "No such dataset", "409": "Id taken" } }, async ({ body, req, res }) =>
    (await wire(req, tenantOf(res)))((await createJson(tenantOf(res), [body]))[0]!),
  );

  router.add({ method: "post", path: "/examples/bulk", tag: "Examples", summary: "Create examples (JSON array; older SDKs); all or nothing", body: z.array(D.exampleCreateBody).min(1).max(10_000), response: z.array(D.Example), responses: { "200": "Created", "404": "No such dataset", "409": "An id is taken" } }, async ({ body, req, res }) =>
    (await createJson(tenantOf(res), body)).map(await wire(req, tenantOf(res))),
  );

  router.add({ method: "patch", path: "/examples/bulk", tag: "Examples", summary: "Change examples (JSON array of {id, …}; older SDKs)", body: z.array(D.exampleUpdateBody.extend({ id: z.guid() })).min(1).max(10_000), response: D.ExamplesWritten }, async ({ body, res }) => {
    const tenant = tenantOf(res);
    const byDataset = new Map<string, typeof body>();
    for (const c of body) {
      const datasetId = c.dataset_id ?? (await examples.datasetOf(tenant, c.id));
      byDataset.set(datasetId, [...(byDataset.get(datasetId) ?? []), c]);
    }
    const ids: string[] = [];
    for (const [datasetId, list] of byDataset) ids.push(...(await examples.change(tenant, datasetId, list)));
    return { example_ids: ids, count: ids.length };
  });

  router.add({ method: "delete", path: "/examples", tag: "Examples", summary: "Delete examples (soft: earlier versions still show them)", query: D.examplesDeleteQuery, responses: { "204": "Deleted", "404": "An example was not found" } }, async ({ query: q, res }) => {
    await examples.delete(tenantOf(res), q.example_ids);
    return Reply.noContent();
  });

  router.add({ method: "post", path: "/v1/platform/datasets/examples/delete", tag: "Examples", summary: "Delete examples; hard_delete removes every version of them", body: D.hardDeleteBody, responses: { "204": "Deleted", "404": "An example was not found" } }, async ({ body, res }) => {
    await examples.delete(tenantOf(res), body.example_ids, body.hard_delete ?? false);
    return Reply.noContent();
  });

  router.add(
    { method: "delete", path: "/v1/platform/datasets/:dataset_id/examples/:example_id", tag: "Examples", summary: "Delete one example of a dataset (client.datasets.examples.delete); soft, and done at once if it already was", uuidParams: ["dataset_id", "example_id"], responses: { "204": "Deleted (or already deleted)", "404": "No such dataset, or the dataset never had the example" } },
    async ({ params, res }) => {
      await examples.deleteInDataset(tenantOf(res), params.dataset_id!, params.example_id!);
      return Reply.noContent();
    },
  );

  router.add({ method: "get", path: "/examples/:example_id", tag: "Examples", summary: "One example, now or at a version (`as_of`), with that version's files as signed links", uuidParams: ["example_id"], query: D.asOfQuery, response: D.Example }, async ({ params, query: q, req, res }) => {
    const tenant = tenantOf(res);
    const asOf = parseAsOf(q.as_of);
    const at = asOf.kind === "tag" ? await datasets.resolveAsOf(tenant, await examples.datasetOf(tenant, params.example_id!), asOf) : asOf.kind === "time" ? asOf.at : undefined;
    return (await wire(req, tenant))(await examples.get(tenant, params.example_id!, at));
  });

  router.add({ method: "patch", path: "/examples/:example_id", tag: "Examples", summary: "Change one example (JSON; older SDKs; its files stay)", uuidParams: ["example_id"], body: D.exampleUpdateBody, response: D.Example }, async ({ params, body, req, res }) => {
    const tenant = tenantOf(res);
    const datasetId = body.dataset_id ?? (await examples.datasetOf(tenant, params.example_id!));
    await examples.change(tenant, datasetId, [{ ...body, id: params.example_id! }]);
    return (await wire(req, tenant))(await examples.get(tenant, params.example_id!));
  });

  router.add({ method: "delete", path: "/examples/:example_id", tag: "Examples", summary: "Delete one example (soft: earlier versions still show it)", uuidParams: ["example_id"], responses: { "204": "Deleted" } }, async ({ params, res }) => {
    await examples.delete(tenantOf(res), [params.example_id!]);
    return Reply.noContent();
  });
}

/**
 * Requests and answers of LangSmith's dataset and example API as the `langsmith` SDK sends and
 * reads them (createDataset, listExamples, updateExample…). Bodies carry explicit nulls for "not
 * set"; lists arrive as repeated query parameters; unknown keys are ignored, as LangSmith does.
 */
import { z } from "zod";
import { isSplitValue } from "../datasets/rules.js";

const uuid = z.guid();
const record = z.record(z.string(), z.unknown());
const bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const many = <T extends z.ZodType>(item: T) => z.union([item.transform((v) => [v] as z.output<T>[]), z.array(item)]);
const one = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).transform((v) => v[0])]);
const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 timestamp");
/** A JSON object given in a query parameter (`metadata={"k":"v"}`). */
export const jsonObjectParam = one(z.string().max(10_000)).transform((s, ctx) => {
  try {
    const v: unknown = JSON.parse(s);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* reported below */
  }
  ctx.addIssue({ code: "custom", message: "must be a JSON object" });
  return z.NEVER;
});
const name = z.string().min(1).max(256);
const description = z.string().max(10_000).nullish();
const split = z.union([z.string().max(256), z.array(z.string().max(256)).max(100)]).nullish();
const limit = (max: number) => z.coerce.number().int().min(1).max(max);

export const datasetCreateBody = z.object({
  id: uuid.nullish(),
  name,
  description,
  data_type: z.enum(["kv", "llm", "chat"]).nullish(),
  inputs_schema_definition: record.nullish(),
  outputs_schema_definition: record.nullish(),
  extra: record.nullish(),
});

export const datasetUpdateBody = z.object({
  name: name.nullish(),
  description,
  metadata: record.nullish(),
  inputs_schema_definition: record.nullish(),
  outputs_schema_definition: record.nullish(),
});

export const datasetListQuery = z.object({
  id: many(uuid).optional(),
  name: one(z.string()).optional(),
  name_contains: one(z.string().max(256)).optional(),
  data_type: one(z.string()).optional(),
  metadata: jsonObjectParam.optional(),
  limit: limit(100).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

export const asOfQuery = z.object({ as_of: one(z.string().max(256)).optional() });

export const versionQuery = z.object({ as_of: one(timestamp).optional(), tag: one(z.string().max(256)).optional() });

export const versionsQuery = z.object({ limit: limit(100).default(100), offset: z.coerce.number().int().min(0).default(0) });

export const diffQuery = z.object({ from_version: one(z.string().max(256)), to_version: one(z.string().max(256)) });

export const tagBody = z.object({ as_of: timestamp, tag: z.string().min(1).max(256) });

export const splitsBody = z.object({ split_name: z.string().min(1).max(256), examples: z.array(uuid).max(10_000), remove: z.boolean().nullish() });

/** LangSmith's limits on a bulk metadata change: 10 000 examples, 50 operations (10 of them array ones). */
const metadataKey = z.string().min(1).refine((k) => Buffer.byteLength(k) <= 255, "at most 255 bytes");
const arrayValue = z.string().refine((v) => Buffer.byteLength(v) <= 255, "at most 255 bytes");
const operationName = z.string().transform((s) => s.toLowerCase());
export const metadataOperationsBody = z.object({
  example_ids: z.array(uuid).min(1).max(10_000),
  operations: z
    .array(
      z.union([
        z.object({ key: metadataKey, operation: operationName.pipe(z.literal("set")), value: z.unknown().refine((v) => Buffer.byteLength(JSON.stringify(v ?? null)) <= 65_536, "at most 64 KB") }),
        // older SDKs sent any JSON value to add or remove; the documented form is strings
        z.object({ key: metadataKey, operation: operationName.pipe(z.enum(["array_add", "array_remove"])), values: z.array(z.union([arrayValue, z.number(), z.boolean()])).max(1000) }),
      ]),
    )
    .min(1)
    .max(50)
    .refine((ops) => ops.filter((o) => o.operation !== "set").length <= 10, "at most 10 array operations")
    .refine((ops) => ops.every((o) => o.operation !== "set" || o.key !== "dataset_split" || isSplitValue(o.value)), "SET of dataset_split takes a split name or a list of them"),
});

export const exampleListQuery = z.object({
  dataset: one(uuid),
  as_of: one(z.string().max(256)).optional(),
  id: many(uuid).optional(),
  splits: many(z.string().max(256)).optional(),
  metadata: jsonObjectParam.optional(),
  filter: one(z.string().max(10_000)).optional(),
  limit: limit(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  select: many(z.string()).optional(),
  inline_s3_urls: bool.optional(),
  exclude_default_fields: bool.optional(),
});

export const examplesDeleteQuery = z.object({ example_ids: many(uuid) });

export const hardDeleteBody = z.object({ example_ids: z.array(uuid).min(1).max(10_000), hard_delete: z.boolean().nullish() });

/** One example as JSON (`POST /examples`, `/examples/bulk`; the older SDKs' path). */
export const exampleCreateBody = z.object({
  id: uuid.nullish(),
  dataset_id: uuid,
  inputs: record,
  outputs: record.nullish(),
  metadata: record.nullish(),
  split,
  source_run_id: uuid.nullish(),
  created_at: timestamp.nullish(),
});

export const exampleUpdateBody = z.object({
  dataset_id: uuid.nullish(),
  inputs: record.nullish(),
  outputs: record.nullish(),
  metadata: record.nullish(),
  split,
});

/** The JSON part named `{example_id}` of a multipart upload. */
export const multipartExampleBody = z.object({
  created_at: timestamp.nullish(),
  metadata: record.nullish(),
  split,
  source_run_id: uuid.nullish(),
  use_source_run_io: z.boolean().nullish(),
  use_source_run_attachments: z.array(z.string()).nullish(),
});

// ---------- answers ----------

export const Dataset = z
  .object({
    id: uuid,
    tenant_id: uuid,
    name: z.string(),
    description: z.string().nullable(),
    data_type: z.string(),
    inputs_schema_definition: record.nullable(),
    outputs_schema_definition: record.nullable(),
    metadata: record.nullable(),
    created_at: z.string(),
    modified_at: z.string().describe("The latest version: examples as of this moment are the current ones"),
    example_count: z.number().int(),
    session_count: z.number().int().describe("Experiments (projects) run against this dataset"),
    last_session_start_time: z.string().nullable(),
  })
  .meta({ id: "Dataset" });

export const Example = z
  .object({
    id: uuid,
    dataset_id: uuid,
    inputs: record,
    outputs: record.nullable(),
    metadata: record.describe("dataset_split holds the example's splits"),
    source_run_id: uuid.nullable(),
    created_at: z.string(),
    modified_at: z.string().describe("When this state of the example was written (its version)"),
    runs: z.array(z.unknown()),
    attachment_urls: z
      .record(z.string(), z.object({ presigned_url: z.string().describe("Absolute, signed and expiring: fetched without a key"), mime_type: z.string() }))
      .nullable()
      .describe('The files of this version, by "attachment.<name>" (null when none)'),
  })
  .meta({ id: "Example" });

export const DatasetVersion = z.object({ as_of: z.string(), tags: z.array(z.string()) }).meta({ id: "DatasetVersion" });

export const DatasetDiff = z
  .object({ examples_added: z.array(uuid), examples_modified: z.array(uuid), examples_removed: z.array(uuid) })
  .meta({ id: "DatasetDiff" });

export const ExamplesWritten = z.object({ example_ids: z.array(uuid), count: z.number().int() }).meta({ id: "ExamplesWritten" });

export const MetadataStatuses = z
  .object({ statuses: z.array(z.object({ id: uuid, status: z.enum(["UPDATED", "NOT_FOUND"]), description: z.string().optional() })) })
  .meta({ id: "ExampleMetadataStatuses" });

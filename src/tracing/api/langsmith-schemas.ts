/**
 * Requests of the LangSmith-compatible API (sessions, runs query and stats, feedback, sharing) as
 * the `langsmith` SDKs send them: bodies carry explicit nulls for "not set", lists may arrive as a
 * repeated query parameter or a single one. Unknown keys are ignored, as LangSmith does.
 */
import { z } from "zod";
import { jsonObjectParam } from "./dataset-schemas.js";

const uuid = z.guid();
const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 timestamp");
const bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
/** `?id=a&id=b` or `?id=a`. */
const many = <T extends z.ZodType>(item: T) => z.union([item.transform((v) => [v] as z.output<T>[]), z.array(item)]);
const one = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).transform((v) => v[0])]);
const record = z.record(z.string(), z.unknown());

export const sessionListQuery = z.object({
  id: many(uuid).optional(),
  name: one(z.string()).optional(),
  name_contains: one(z.string()).optional(),
  reference_dataset: one(uuid).optional(),
  reference_free: bool.optional(),
  metadata: jsonObjectParam.optional(),
  include_stats: bool.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

export const sessionReadQuery = z.object({ include_stats: bool.optional() });

export const sessionCreateQuery = z.object({ upsert: bool.optional() });

export const sessionCreateBody = z.object({
  id: uuid.nullish(),
  name: z.string().min(1).max(256),
  description: z.string().max(10_000).nullish(),
  extra: record.nullish(),
  start_time: timestamp.nullish(),
  end_time: timestamp.nullish(),
  reference_dataset_id: uuid.nullish(),
});

export const sessionUpdateBody = z.object({
  name: z.string().min(1).max(256).nullish(),
  description: z.string().max(10_000).nullish(),
  extra: record.nullish(),
  end_time: timestamp.nullish(),
});

const runTypes = z.enum(["llm", "chain", "tool", "retriever", "embedding", "prompt", "parser"]);
const filterExpr = z.string().max(10_000).nullish();

/** The filters shared by `POST /runs/query` and `POST /runs/stats`. */
const runFilterBody = z.object({
  id: z.array(uuid).nullish(),
  trace: uuid.nullish(),
  parent_run: uuid.nullish(),
  run_type: runTypes.nullish(),
  session: z.array(uuid).nullish(),
  reference_example: z.array(uuid).nullish(),
  start_time: timestamp.nullish(),
  end_time: timestamp.nullish(),
  error: z.boolean().nullish(),
  /** Free text searched in names, errors and payloads. */
  query: z.string().max(1000).nullish(),
  filter: filterExpr,
  trace_filter: filterExpr,
  tree_filter: filterExpr,
  is_root: z.boolean().nullish(),
  /** 1 = root runs (LangSmith's older name for is_root). */
  execution_order: z.number().int().min(1).nullish(),
});

export const runsQueryBody = runFilterBody.extend({
  limit: z.number().int().min(1).max(1000).nullish(),
  cursor: z.string().nullish(),
  select: z.array(z.string()).nullish(),
  order: z.enum(["asc", "desc"]).nullish(),
});

export const runsStatsBody = runFilterBody;

export const shareBody = z.object({ run_id: uuid.nullish(), share_token: uuid.nullish() });

const score = z.union([z.number().finite(), z.boolean()]).nullish();

export const feedbackCreateBody = z.object({
  id: uuid.nullish(),
  run_id: uuid.nullish(),
  trace_id: uuid.nullish(),
  session_id: uuid.nullish(),
  key: z.string().min(1).max(256),
  score,
  value: z.unknown().optional(),
  comment: z.string().max(100_000).nullish(),
  correction: z.unknown().optional(),
  feedback_source: z.object({ type: z.string().nullish(), metadata: record.nullish() }).nullish(),
  comparative_experiment_id: uuid.nullish(),
  feedback_group_id: uuid.nullish(),
});

export const feedbackUpdateBody = z.object({
  score,
  value: z.unknown().optional(),
  comment: z.string().max(100_000).nullish(),
  correction: z.unknown().optional(),
});

export const feedbackListQuery = z.object({
  run: many(uuid).optional(),
  key: many(z.string()).optional(),
  source: many(z.string()).optional(),
  session: many(uuid).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).default(0),
});

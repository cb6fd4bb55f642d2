/**
 * Requests of LangSmith's v2 API as the `langsmith` SDK 0.12's resource clients send them
 * (`client.runs.query`, `client.traces.query`, `client.threads.*`, `client.sessions.listV2`,
 * `client.public.runs.*`): lists arrive as repeated query parameters, run types upper case, pages
 * are `page_size` + an opaque `cursor`. Unknown keys are ignored, as LangSmith does.
 */
import { z } from "zod";
import { jsonObjectParam } from "./dataset-schemas.js";
import { V2_RUN_FIELDS } from "../query/langsmith-run-v2.js";

const uuid = z.guid();
const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 timestamp");
const bool = z.union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")]);
const many = <T extends z.ZodType>(item: T) => z.union([item.transform((v) => [v] as z.output<T>[]), z.array(item)]);
const filterExpr = z.string().max(10_000).optional();
const selects = z.array(z.enum(V2_RUN_FIELDS));
const pageSize = z.coerce.number().int().min(1).max(1000).default(100);
const runType = z.enum(["TOOL", "CHAIN", "LLM", "RETRIEVER", "EMBEDDING", "PROMPT", "PARSER"]).transform((t) => t.toLowerCase());

export const runsQueryBody = z.object({
  project_ids: z.array(uuid).optional(),
  ids: z.array(uuid).optional(),
  trace_id: uuid.optional(),
  run_type: runType.optional(),
  is_root: z.boolean().optional(),
  has_error: z.boolean().optional(),
  reference_examples: z.array(uuid).optional(),
  min_start_time: timestamp.optional(),
  max_start_time: timestamp.optional(),
  filter: filterExpr,
  trace_filter: filterExpr,
  tree_filter: filterExpr,
  selects: selects.optional(),
  cursor: z.string().optional(),
  page_size: pageSize,
  ai_search: z.string().optional(),
});

export const runRetrieveQuery = z.object({
  project_id: uuid,
  selects: many(z.enum(V2_RUN_FIELDS)).optional(),
  start_time: timestamp.optional(),
});

export const runUrlQuery = z.object({ project_id: uuid, trace_id: uuid, start_time: timestamp.optional() });

export const shareCreateBody = z.object({ session_id: uuid, trace_id: uuid });
export const shareDeleteBody = z.object({ session_id: uuid.optional() });

export const tracesQueryBody = z.object({
  project_id: uuid.optional(),
  trace_ids: z.array(uuid).optional(),
  min_start_time: timestamp.optional(),
  max_start_time: timestamp.optional(),
  trace_filter: filterExpr,
  tree_filter: filterExpr,
  selects: selects.optional(),
  cursor: z.string().optional(),
  page_size: pageSize,
  ai_search: z.string().optional(),
});

export const traceRunsQuery = z.object({
  project_id: uuid,
  filter: filterExpr,
  min_start_time: timestamp.optional(),
  max_start_time: timestamp.optional(),
  selects: many(z.enum(V2_RUN_FIELDS)).optional(),
});

export const threadsQueryBody = z.object({
  project_id: uuid,
  min_start_time: timestamp.optional(),
  max_start_time: timestamp.optional(),
  filter: filterExpr,
  thread_filter: filterExpr,
  trace_filter: filterExpr,
  tree_filter: filterExpr,
  cursor: z.string().optional(),
  page_size: pageSize,
  ai_search: z.string().optional(),
});

export const threadTracesQuery = z.object({
  project_id: uuid,
  filter: filterExpr,
  trace_filter: filterExpr,
  tree_filter: filterExpr,
  cursor: z.string().optional(),
  page_size: pageSize,
});

export const threadStatsQuery = z.object({ session_id: uuid, selects: many(z.string()).optional(), filter: filterExpr });

export const sessionsListQuery = z.object({
  id: many(uuid).optional(),
  name: z.string().optional(),
  name_contains: z.string().optional(),
  reference_dataset_id: many(uuid).optional(),
  metadata: jsonObjectParam.optional(),
  filter: z.string().optional(),
  include_stats: bool.optional(),
  cursor: z.string().optional(),
  page_size: pageSize,
});

export const publicRunsQueryBody = z.object({ selects: selects.optional() });
export const publicRunQuery = z.object({ selects: many(z.enum(V2_RUN_FIELDS)).optional(), start_time: timestamp.optional() });

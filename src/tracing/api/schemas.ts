/** zod schemas of the tracing query API (validation and the generated OpenAPI). */
import { z } from "zod";

const limit = (max: number, dflt: number) => z.coerce.number().int().min(1).max(max).default(dflt);
const offset = z.coerce.number().int().min(0).default(0);
const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 timestamp");
const bool = z.enum(["true", "false"]).transform((v) => v === "true");

export const projectListQuery = z.object({
  name_contains: z.string().optional(),
  name: z.string().optional(),
  limit: limit(100, 20),
  offset,
  /** Stats cover runs started at or after this time (default: all time). */
  stats_start_time: timestamp.optional(),
});

export const projectCreateBody = z.object({
  name: z.string().min(1).max(256),
  description: z.string().max(10_000).nullish(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});

export const statsQuery = z.object({
  start_time: timestamp.optional(),
  end_time: timestamp.optional(),
  bucket: z.enum(["hour", "day"]).default("hour"),
});

export const runListQuery = z.object({
  project_id: z.string().uuid().optional(),
  project_name: z.string().optional(),
  trace_id: z.string().uuid().optional(),
  parent_run_id: z.string().uuid().optional(),
  is_root: bool.optional(),
  run_type: z.enum(["llm", "chain", "tool", "retriever", "embedding", "prompt", "parser"]).optional(),
  status: z.enum(["pending", "success", "error"]).optional(),
  name: z.string().optional(),
  /** Case-insensitive substring of the run's name. */
  name_contains: z.string().min(1).max(256).optional(),
  /** The run's own model (LLM runs). */
  model: z.string().min(1).optional(),
  /** Runs of traces holding an LLM run of this model (a root's trace used it somewhere). */
  trace_model: z.string().min(1).optional(),
  /** Finished runs that took at least / at most this long (ms). */
  min_latency_ms: z.coerce.number().min(0).finite().optional(),
  max_latency_ms: z.coerce.number().min(0).finite().optional(),
  thread_id: z.string().optional(),
  start_time_gte: timestamp.optional(),
  start_time_lte: timestamp.optional(),
  /** Metadata equality filters: `metadata[key]=value` (repeatable). */
  metadata: z.record(z.string(), z.string()).optional(),
  limit: limit(1000, 50),
  cursor: z.string().optional(),
});

export const pageQuery = z.object({ limit: limit(1000, 50), offset });

const perMillion = z.number().min(0).finite();
const details = z.record(z.string(), perMillion);
const pattern = z.string().min(1).refine((p) => {
  try {
    new RegExp(p, "i");
    return true;
  } catch {
    return false;
  }
}, "must be a valid regular expression");

export const priceCreateBody = z.object({
  model_name: z.string().min(1).max(256),
  match_pattern: pattern,
  provider: z.string().min(1).nullish(),
  effective_from: timestamp.nullish(),
  input_per_million: perMillion,
  output_per_million: perMillion,
  input_details_per_million: details.optional(),
  output_details_per_million: details.optional(),
});

export const priceUpdateBody = priceCreateBody.partial();

/**
 * Query-string schemas of the list endpoints (reference §1.2, §1.8). Values arrive as strings, so
 * numbers are coerced; CSV filters are split and each item validated, so a bad item gives a 422 at
 * `["query", "<param>", <index>]`.
 */
import { z } from "zod";
import { deploymentStatusSchema, deploymentTypeSchema, revisionStatusSchema } from "./schemas.js";

const limit = (max: number, dflt: number) => z.coerce.number().int().min(1).max(max).default(dflt);
const offset = z.coerce.number().int().min(0).default(0);
const timestamp = z.iso.datetime({ offset: true });

/** A comma-separated list of `item`s (blank entries ignored), at most `max` of them. */
function csv<T extends z.ZodType<unknown, string>>(item: T, max: number) {
  return z
    .string()
    .transform((s) => s.split(",").map((part) => part.trim()).filter((part) => part.length > 0))
    .pipe(z.array(item).max(max, `at most ${max} values`));
}

/** `GET /v2/deployments`. `name` (exact match) is our addition next to upstream's substring filter. */
export const deploymentListQuerySchema = z.object({
  name_contains: z.string().optional(),
  name: z.string().optional(),
  status: deploymentStatusSchema.optional(),
  deployment_type: deploymentTypeSchema.optional(),
  deployment_ids: csv(z.guid({ error: "must be a UUID" }), 100).optional(),
  limit: limit(100, 20),
  offset,
});
export type DeploymentListQuery = z.output<typeof deploymentListQuerySchema>;

/** `GET /v2/deployments/{id}/revisions`: newest first; `status` is a CSV of revision statuses. */
export const revisionListQuerySchema = z.object({
  status: csv(revisionStatusSchema, 20).optional(),
  limit: limit(100, 20),
  offset,
});
export type RevisionListQuery = z.output<typeof revisionListQuerySchema>;

/** `GET /v2/listeners`. */
export const listenerListQuerySchema = z.object({ limit: limit(100, 20), offset });
export type ListenerListQuery = z.output<typeof listenerListQuerySchema>;

/** `GET …/revisions/{rid}/logs`: `offset` is an opaque cursor (the previous page's `next_offset`). */
export const logsQuerySchema = z.object({
  type: z.enum(["build", "deploy"]),
  limit: limit(1000, 50),
  offset: z.string().optional(),
  order: z.enum(["asc", "desc"]).default("asc"),
  start_time: timestamp.optional(),
  end_time: timestamp.optional(),
  query: z.string().optional(),
  level: z.enum(["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]).optional(),
});
export type LogsQuery = z.output<typeof logsQuerySchema>;

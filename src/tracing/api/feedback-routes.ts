/**
 * Feedback (LangSmith's `/feedback`): scores, values, comments and corrections on runs, created by
 * the SDK's createFeedback / evaluators, or arriving as `feedback.{id}` parts of a multipart ingest.
 */
import type { Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { ApiError, zodIssuesToValidation } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import type { FeedbackStore } from "../storage/feedback.js";
import type { ProjectStore } from "../storage/projects.js";
import type { FeedbackSink } from "./ingest-routes.js";
import * as L from "./langsmith-schemas.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;

export const Feedback = z
  .object({
    id: z.guid(),
    run_id: z.guid().nullable(),
    trace_id: z.guid().nullable(),
    session_id: z.guid().nullable().describe("The run's project"),
    key: z.string(),
    score: z.number().nullable(),
    value: z.unknown(),
    comment: z.string().nullable(),
    correction: z.unknown(),
    feedback_source: z.object({ type: z.string(), metadata: z.record(z.string(), z.unknown()) }).nullable(),
    comparative_experiment_id: z.guid().nullable(),
    feedback_group_id: z.guid().nullable().describe("Shared by the feedbacks of one pairwise comparison"),
    created_at: z.iso.datetime({ offset: true }),
    modified_at: z.iso.datetime({ offset: true }),
  })
  .meta({ id: "Feedback" });

export function feedbackRoutes(router: ApiRouter, feedback: FeedbackStore): void {
  router.add({ method: "post", path: "/feedback", tag: "Feedback", summary: "Create feedback on a run (or a project)", body: L.feedbackCreateBody, response: Feedback, responses: { "200": "Created", "404": "No such run", "409": "Id taken" } }, async ({ body, res }) =>
    feedback.create(tenantOf(res), { ...body, id: body.id ?? undefined }),
  );
  router.add({ method: "get", path: "/feedback", tag: "Feedback", summary: "List feedback by run, key, source type or project, oldest first", query: L.feedbackListQuery, response: z.array(Feedback) }, async ({ query: q, res }) =>
    feedback.list(tenantOf(res), { run_ids: q.run, keys: q.key, sources: q.source, session_ids: q.session, limit: q.limit, offset: q.offset }),
  );
  router.add({ method: "get", path: "/feedback/:feedback_id", tag: "Feedback", summary: "One feedback", uuidParams: ["feedback_id"], response: Feedback }, async ({ params, res }) =>
    feedback.get(tenantOf(res), params.feedback_id!),
  );
  router.add({ method: "patch", path: "/feedback/:feedback_id", tag: "Feedback", summary: "Change score, value, comment or correction (null clears)", uuidParams: ["feedback_id"], body: L.feedbackUpdateBody, response: Feedback }, async ({ params, body, res }) =>
    feedback.update(tenantOf(res), params.feedback_id!, body),
  );
  router.add({ method: "delete", path: "/feedback/:feedback_id", tag: "Feedback", summary: "Delete one feedback", uuidParams: ["feedback_id"], responses: { "204": "Deleted" } }, async ({ params, res }) => {
    await feedback.delete(tenantOf(res), params.feedback_id!);
    return Reply.noContent();
  });
}

/**
 * Stores multipart feedback parts: each validated like `POST /feedback`; a key pinned to one
 * project (a deployment's) may only give feedback on that project's runs.
 */
export function multipartFeedbackSink(feedback: FeedbackStore, projects: ProjectStore): FeedbackSink {
  return async (tenantId, items, scopeProject) => {
    const errors: { run_id?: string; error: string }[] = [];
    const pinned = scopeProject ? await projects.findByName(tenantId, scopeProject) : undefined;
    for (const item of items) {
      const parsed = L.feedbackCreateBody.safeParse(item);
      const runId = typeof item.run_id === "string" ? item.run_id : undefined;
      if (!parsed.success) {
        errors.push({ run_id: runId, error: `feedback ${String(item.id)}: ${zodIssuesToValidation("feedback", parsed.error).map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; ")}` });
        continue;
      }
      try {
        if (scopeProject) {
          const stored = await feedback.projectOfRun(tenantId, parsed.data.run_id ?? "");
          if (!pinned || stored !== pinned.id) throw new ApiError(403, `this key gives feedback on runs of project "${scopeProject}" only`);
        }
        await feedback.create(tenantId, { ...parsed.data, id: parsed.data.id ?? undefined });
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        errors.push({ run_id: runId, error: `feedback ${String(item.id)}: ${err.message}` });
      }
    }
    return errors;
  };
}

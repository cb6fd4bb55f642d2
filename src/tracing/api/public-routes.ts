/**
 * Shared runs, read without a key: the share token is the credential. `GET /public/{token}/run`
 * answers the shared run in LangSmith's schema (what the SDK's shared-run readers expect) and
 * `GET /public/{token}/trace` its trace as a tree, which the console's shared-trace page renders,
 * and `GET /public/{token}/runs` the runs of that trace with their payloads (the SDK's
 * `listSharedRuns`, optionally `?id=` to name some of them).
 * The v2 forms (`client.public.runs.query/retrieve` of the SDK 0.12) are `POST
 * /api/v2/public/{token}/runs/query` and `GET /api/v2/public/{token}/run/{run_id}`.
 * Unknown or revoked tokens answer 404; nothing else of the tenant is reachable from a token.
 */
import type { NextFunction, Request, Response } from "express";
import { NotFoundError } from "../../shared/errors.js";
import type { ApiRouter } from "../../shared/http.js";
import { langsmithRun } from "../query/langsmith-run.js";
import { presentRunDetail } from "../query/present.js";
import { langsmithRunV2 } from "../query/langsmith-run-v2.js";
import { publicRunQuery, publicRunsQueryBody } from "./langsmith-v2-schemas.js";
import type { QueryService } from "../query/service.js";
import type { FeedbackStore } from "../storage/feedback.js";
import type { ShareStore } from "../storage/shares.js";
import * as Responses from "./response-schemas.js";
import { traceTree } from "./trace-tree.js";
import { z } from "zod";

export interface PublicDeps {
  query: QueryService;
  shares: ShareStore;
  feedback: FeedbackStore;
}

/** At most this many runs of a shared trace per answer (payloads included): `?id=` reaches others. */
const SHARED_RUNS_LIMIT = 1000;

const SharedRunsQuery = z.object({ id: z.union([z.guid(), z.array(z.guid())]).optional() });

/**
 * The JS SDK's `listSharedRuns` (0.12) appends its query to the path without a `?`
 * (`/public/{token}/runsshare_token=…&id=…`): read as the query it meant.
 */
export function sdkSharedRunsUrl(req: Request, _res: Response, next: NextFunction): void {
  const m = /^(\/public\/[^/?]+\/runs)(share_token=[^?/]*)$/.exec(req.url);
  if (m) req.url = `${m[1]}?${m[2]}`;
  next();
}

export function publicRoutes(router: ApiRouter, deps: PublicDeps): void {
  const open = async (token: string) => {
    const share = await deps.shares.resolve(token);
    if (!share) throw new NotFoundError("This link is not shared (or no longer).");
    return { share, run: await deps.query.getRun(share.tenant_id, share.run_id) };
  };
  router.add(
    { method: "get", path: "/public/:share_token/run", tag: "Sharing", summary: "A shared run (no key needed)", uuidParams: ["share_token"], response: z.looseObject({ id: z.guid() }) },
    async ({ params }) => {
      const { share, run } = await open(params.share_token!);
      const [children, stats] = await Promise.all([deps.query.childRunIds(share.tenant_id, [run.id]), deps.feedback.statsByRun(share.tenant_id, [run.id])]);
      return langsmithRun(run, { child_run_ids: children.get(run.id), feedback_stats: stats.get(run.id) ?? {}, share_token: params.share_token });
    },
  );
  router.add(
    { method: "get", path: "/public/:share_token/trace", tag: "Sharing", summary: "The shared run's trace as a tree (no key needed)", uuidParams: ["share_token"], response: Responses.TraceTree.extend({ shared_run_id: z.guid() }) },
    async ({ params }) => {
      const { share, run } = await open(params.share_token!);
      return { ...(await traceTree(deps.query, share.tenant_id, run.trace_id)), shared_run_id: run.id };
    },
  );
  router.add(
    { method: "get", path: "/public/:share_token/runs", tag: "Sharing", summary: "The runs of the shared run's trace (no key needed)", uuidParams: ["share_token"], query: SharedRunsQuery, response: z.array(z.looseObject({ id: z.guid() })) },
    async ({ params, query }) => {
      const { share, run } = await open(params.share_token!);
      const ids = query.id === undefined ? undefined : [query.id].flat();
      // only the shared trace: other runs of the tenant named by `id` are simply not there
      const { runs } = await deps.query.listRuns(share.tenant_id, { trace_id: run.trace_id, ids, full: true, order: "asc", limit: SHARED_RUNS_LIMIT });
      const runIds = runs.map((r) => r.id);
      const [children, stats] = await Promise.all([deps.query.childRunIds(share.tenant_id, runIds), deps.feedback.statsByRun(share.tenant_id, runIds)]);
      return runs.map((r) => langsmithRun(r, { child_run_ids: children.get(r.id) ?? [], feedback_stats: stats.get(r.id) ?? {}, share_token: r.id === run.id ? params.share_token : null }));
    },
  );

  router.add(
    { method: "get", path: "/public/:share_token/runs/:run_id", tag: "Sharing", summary: "One run of a shared trace with its rendered messages (the console's shared-trace page; no key needed)", uuidParams: ["share_token", "run_id"], response: Responses.RunDetail },
    async ({ params }) => {
      const { share, run: shared } = await open(params.share_token!);
      const run = await deps.query.getRun(share.tenant_id, params.run_id!).catch(() => undefined);
      if (!run || run.trace_id !== shared.trace_id) throw new NotFoundError(`Run ${params.run_id} is not in this shared trace.`);
      // attachments are served to keys only: a shared run shows its messages without them
      return presentRunDetail(run, [], () => "");
    },
  );
  router.add(
    { method: "post", path: "/api/v2/public/:share_token/runs/query", tag: "Sharing", summary: "The runs of a shared trace in LangSmith's v2 schema (client.public.runs.query; no key needed)", uuidParams: ["share_token"], body: publicRunsQueryBody, optionalBody: true, response: z.object({ items: z.array(z.looseObject({})) }) },
    async ({ params, body }) => {
      const { share, run } = await open(params.share_token!);
      const { runs } = await deps.query.listRuns(share.tenant_id, { trace_id: run.trace_id, full: true, order: "asc", limit: SHARED_RUNS_LIMIT });
      const stats = await deps.feedback.statsByRun(share.tenant_id, runs.map((r) => r.id));
      return { items: runs.map((r) => langsmithRunV2(r, { feedback_stats: stats.get(r.id) }, body.selects)) };
    },
  );
  router.add(
    { method: "get", path: "/api/v2/public/:share_token/run/:run_id", tag: "Sharing", summary: "One run of a shared trace in LangSmith's v2 schema (client.public.runs.retrieve; no key needed)", uuidParams: ["share_token", "run_id"], query: publicRunQuery, response: z.looseObject({}) },
    async ({ params, query }) => {
      const { share, run: shared } = await open(params.share_token!);
      const run = await deps.query.getRun(share.tenant_id, params.run_id!).catch(() => undefined);
      // only runs of the shared trace: any other id is simply not there
      if (!run || run.trace_id !== shared.trace_id) throw new NotFoundError(`Run ${params.run_id} is not in this shared trace.`);
      const stats = await deps.feedback.statsByRun(share.tenant_id, [run.id]);
      return langsmithRunV2(run, { feedback_stats: stats.get(run.id) }, query.selects);
    },
  );
}

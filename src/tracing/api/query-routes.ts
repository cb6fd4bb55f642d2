/** The tracing query API: projects, runs, traces, threads, stats and model prices. */
import type { Request, Response } from "express";
import { principalOf } from "../../shared/auth/index.js";
import { BadRequestError } from "../../shared/errors.js";
import { type ApiRouter, Reply, SENT } from "../../shared/http.js";
import { presentRun, presentRunDetail } from "../query/present.js";
import { consolePath, parentRunIds } from "../query/langsmith-run.js";
import type { QueryService } from "../query/service.js";
import type { DatasetStore } from "../storage/datasets.js";
import type { ComparativeStore } from "../storage/comparative.js";
import type { ExampleStore } from "../storage/examples.js";
import type { ExampleBlobStore } from "../storage/example-attachments.js";
import type { AttachmentOptions } from "./example-attachment-links.js";
import type { FeedbackStore } from "../storage/feedback.js";
import type { ShareStore } from "../storage/shares.js";
import type { PriceStore } from "../storage/prices.js";
import type { Project, ProjectStore } from "../storage/projects.js";
import * as Responses from "./response-schemas.js";
import { traceSummary, traceTree } from "./trace-tree.js";
import { pageQuery, projectListQuery, runListQuery, statsQuery } from "./schemas.js";

export interface QueryDeps {
  projects: ProjectStore;
  query: QueryService;
  prices: PriceStore;
  feedback: FeedbackStore;
  shares: ShareStore;
  datasets: DatasetStore;
  examples: ExampleStore;
  comparative: ComparativeStore;
  /** Files of examples, and the key that signs links to them. */
  blobs: ExampleBlobStore;
  attachments: AttachmentOptions;
}

const tenantOf = (res: Response) => principalOf(res).tenantId;

function attachmentUrl(req: Request, runId: string) {
  return (name: string) => `${req.baseUrl}/runs/${runId}/attachments/${encodeURIComponent(name)}`;
}

/** Project stats from the rollups, with the projects' feedback aggregates. */
export async function projectStats(deps: QueryDeps, ids: string[], start?: Date) {
  const [stats, feedback] = await Promise.all([deps.query.projectStats(ids, start), deps.feedback.statsByProject(ids)]);
  return new Map([...stats].map(([id, s]) => [id, { ...s, feedback_stats: feedback.get(id) ?? {} }]));
}

export function queryRoutes(router: ApiRouter, deps: QueryDeps): void {
  const { projects, query, prices } = deps;
  const projectWithStats = async (p: Project, start?: Date) => ({ ...p, stats: (await projectStats(deps, [p.id], start)).get(p.id) });

  router.add({ method: "get", path: "/projects", tag: "Projects", summary: "List tracing projects with their stats", query: projectListQuery, response: Responses.ProjectList }, async ({ query: q, res }) => {
    const tenant = tenantOf(res);
    const named = q.name ? await projects.findByName(tenant, q.name) : undefined;
    const list = q.name ? (named ? [named] : []) : await projects.list(tenant, { nameContains: q.name_contains, limit: q.limit, offset: q.offset });
    const stats = list.length ? await projectStats(deps, list.map((p) => p.id), q.stats_start_time ? new Date(q.stats_start_time) : undefined) : new Map();
    return { projects: list.map((p) => ({ ...p, stats: stats.get(p.id) })), offset: q.offset };
  });

  router.add({ method: "post", path: "/projects", tag: "Projects", summary: "Create a tracing project", body: Responses.ProjectCreateRequest, response: Responses.Project, responses: { "201": "Created", "409": "Name taken" } }, async ({ body, res }) => {
    return new Reply(201, await projects.create(tenantOf(res), body));
  });

  router.add({ method: "get", path: "/projects/:project_id", tag: "Projects", summary: "A project with its stats", uuidParams: ["project_id"], response: Responses.Project }, async ({ params, res }) =>
    projectWithStats(await projects.get(tenantOf(res), params.project_id!)),
  );

  router.add(
    { method: "delete", path: "/projects/:project_id", tag: "Projects", summary: "Delete a project and its runs", uuidParams: ["project_id"], responses: { "204": "Deleted" } },
    async ({ params, res }) => {
      await projects.delete(tenantOf(res), params.project_id!);
      return Reply.noContent();
    },
  );

  router.add(
    { method: "get", path: "/projects/:project_id/stats", tag: "Projects", summary: "Tokens, cost, latency, TTFT and errors over time (hour/day buckets, UTC)", uuidParams: ["project_id"], query: statsQuery, response: Responses.StatsOverTime },
    async ({ params, query: q, res }) => {
      await projects.get(tenantOf(res), params.project_id!);
      const end = q.end_time ? new Date(q.end_time) : new Date();
      const start = q.start_time ? new Date(q.start_time) : new Date(end.getTime() - (q.bucket === "day" ? 30 : 1) * 86_400_000);
      if (start >= end) throw new BadRequestError("start_time must be before end_time");
      return query.statsOverTime(params.project_id!, start, end, q.bucket);
    },
  );

  router.add(
    { method: "get", path: "/projects/:project_id/threads", tag: "Threads", summary: "Conversations of a project (by thread_id / session_id / conversation_id metadata)", uuidParams: ["project_id"], query: pageQuery, response: Responses.ThreadList },
    async ({ params, query: q, res }) => {
      const tenant = tenantOf(res);
      await projects.get(tenant, params.project_id!);
      return { threads: await query.threads(tenant, params.project_id!, q.limit, q.offset), offset: q.offset };
    },
  );

  router.add(
    { method: "get", path: "/projects/:project_id/threads/:thread_id", tag: "Threads", summary: "The turns of one conversation, oldest first", uuidParams: ["project_id"], query: pageQuery, response: Responses.ThreadTurns },
    async ({ params, query: q, req, res }) => {
      const tenant = tenantOf(res);
      await projects.get(tenant, params.project_id!);
      const turns = await query.threadTurns(tenant, params.project_id!, params.thread_id!, q.limit, q.offset);
      const totals = await query.traceTotals(tenant, turns.map((t) => t.trace_id));
      return {
        thread_id: params.thread_id,
        turns: turns.map((t) => ({ ...presentRunDetail(t, [], attachmentUrl(req, t.id)), trace: traceSummary(t, totals.get(t.trace_id)) })),
      };
    },
  );

  router.add({ method: "get", path: "/runs", tag: "Runs", summary: "List runs (newest first, cursor pagination)", query: runListQuery, response: Responses.RunList }, async ({ query: q, res }) => {
    const tenant = tenantOf(res);
    let projectId = q.project_id;
    if (q.project_name) {
      const p = await projects.findByName(tenant, q.project_name);
      if (!p) return { runs: [], next_cursor: null };
      projectId = p.id;
    }
    const { runs, next_cursor } = await query.listRuns(tenant, { ...q, project_id: projectId });
    const roots = runs.filter((r) => !r.parent_run_id);
    const totals = await query.traceTotals(tenant, [...new Set(roots.map((r) => r.trace_id))]);
    return {
      runs: runs.map((r) => ({ ...presentRun(r), ...(r.parent_run_id ? {} : { trace: traceSummary(r, totals.get(r.trace_id)) }) })),
      next_cursor,
    };
  });

  router.add({ method: "get", path: "/runs/:run_id", tag: "Runs", summary: "A run with its payloads, normalised messages, children, feedback and (roots) trace totals", uuidParams: ["run_id"], response: Responses.RunDetail }, async ({ params, req, res }) => {
    const tenant = tenantOf(res);
    const run = await query.getRun(tenant, params.run_id!);
    const [attachments, children, feedback, totals] = await Promise.all([
      query.attachments(tenant, run.id),
      query.childRunIds(tenant, [run.id]),
      deps.feedback.statsByRun(tenant, [run.id]),
      run.parent_run_id ? undefined : query.traceTotals(tenant, [run.trace_id]),
    ]);
    return {
      ...presentRunDetail(run, attachments, attachmentUrl(req, run.id)),
      // what the LangSmith SDK reads (readRun, getRunUrl)
      app_path: consolePath(run),
      parent_run_ids: parentRunIds(run.dotted_order, run.id),
      child_run_ids: children.get(run.id) ?? [],
      feedback_stats: feedback.get(run.id) ?? {},
      trace: totals ? traceSummary(run, totals.get(run.trace_id)) : null,
    };
  });

  router.add(
    { method: "get", path: "/runs/:run_id/attachments/:name", tag: "Runs", summary: "An attachment of a run (media moved out of its payload)", uuidParams: ["run_id"], produces: "application/octet-stream" },
    async ({ params, res }) => {
      const a = await query.attachment(tenantOf(res), params.run_id!, params.name!);
      // Trace content is untrusted: never let it run as a page of this origin.
      const inline = /^(image\/(png|jpe?g|gif|webp|avif)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf)$/i.test(a.content_type);
      res
        .status(200)
        .set({
          "Content-Type": a.content_type,
          "Content-Disposition": inline ? "inline" : `attachment; filename="${params.name!.replace(/[^\w.-]/g, "_")}"`,
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
          "Cache-Control": "private, max-age=86400, immutable",
        })
        .end(a.data);
      return SENT;
    },
  );

  router.add({ method: "get", path: "/traces/:trace_id", tag: "Runs", summary: "A trace as a tree of runs, with its totals", uuidParams: ["trace_id"], response: Responses.TraceTree }, async ({ params, res }) => {
    return traceTree(query, tenantOf(res), params.trace_id!);
  });

  router.add({ method: "get", path: "/model-prices", tag: "Model prices", summary: "The price table: this tenant's entries, then the defaults", response: Responses.ModelPriceList }, async ({ res }) => ({
    prices: await prices.list(tenantOf(res)),
  }));
  router.add({ method: "post", path: "/model-prices", tag: "Model prices", summary: "Add a price (wins over the defaults for the models it matches)", body: Responses.ModelPriceCreateRequest, response: Responses.ModelPrice, responses: { "201": "Created" } }, async ({ body, res }) =>
    new Reply(201, await prices.create(tenantOf(res), body)),
  );
  router.add({ method: "patch", path: "/model-prices/:price_id", tag: "Model prices", summary: "Change a price of this tenant", uuidParams: ["price_id"], body: Responses.ModelPriceUpdateRequest, response: Responses.ModelPrice }, async ({ params, body, res }) =>
    prices.update(tenantOf(res), params.price_id!, body),
  );
  router.add(
    { method: "delete", path: "/model-prices/:price_id", tag: "Model prices", summary: "Remove a price of this tenant", uuidParams: ["price_id"], responses: { "204": "Deleted" } },
    async ({ params, res }) => {
      await prices.delete(tenantOf(res), params.price_id!);
      return Reply.noContent();
    },
  );
}

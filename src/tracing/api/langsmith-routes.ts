/**
 * The LangSmith REST API as the `langsmith` SDKs call it, over the same stores and query service
 * as Berth's own API: sessions (projects), `POST /runs/query`, `POST /runs/stats` and run sharing.
 * Paths, parameters and answers follow the SDK's client (readProject, listRuns, getRunStats,
 * shareRun…): lists of sessions are bare arrays, run pages are `{runs, cursors: {next}}`.
 */
import { randomUUID } from "node:crypto";
import type { Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import { langsmithRun, PAYLOAD_FIELDS } from "../query/langsmith-run.js";
import type { RunFilter } from "../query/service.js";
import type { Project } from "../storage/projects.js";
import * as L from "./langsmith-schemas.js";
import { projectStats, type QueryDeps } from "./query-routes.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;
const loose = (id: string, description: string) => z.looseObject({ id: z.guid() }).describe(description).meta({ id });
const LangSmithSession = loose("LangSmithSession", "A project in LangSmith's session schema, with its stats");
const LangSmithRun = loose("LangSmithRun", "A run in LangSmith's run schema (only the selected fields when `select` is given)");
const RunsQueryPage = z.object({ runs: z.array(LangSmithRun), cursors: z.object({ next: z.string().nullable() }) }).meta({ id: "LangSmithRunsPage" });
const RunStats = z.record(z.string(), z.unknown()).meta({ id: "LangSmithRunStats" });
const ShareInfo = z.object({ run_id: z.guid(), share_token: z.guid() }).meta({ id: "RunShare" });

type Stats = Awaited<ReturnType<typeof projectStats>> extends Map<string, infer S> ? S : never;

/** A project as LangSmith's session: metadata inside `extra`, stats flat, latencies in seconds. */
export function session(p: Project, s: Stats | undefined) {
  const sec = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : ms / 1000);
  return {
    id: p.id,
    tenant_id: p.tenant_id,
    name: p.name,
    description: p.description,
    start_time: p.created_at,
    end_time: p.end_time,
    extra: { ...p.extra, metadata: p.metadata },
    reference_dataset_id: p.reference_dataset_id,
    default_dataset_id: null,
    run_count: s?.run_count ?? 0,
    trace_count: s?.trace_count ?? 0,
    latency_p50: sec(s?.latency_p50),
    latency_p99: sec(s?.latency_p99),
    first_token_p50: sec(s?.first_token_p50),
    first_token_p99: sec(s?.first_token_p99),
    total_tokens: s?.total_tokens ?? 0,
    prompt_tokens: s?.input_tokens ?? 0,
    completion_tokens: s?.output_tokens ?? 0,
    total_cost: s?.total_cost ?? 0,
    error_rate: s?.error_rate ?? null,
    feedback_stats: s?.feedback_stats ?? {},
    last_run_start_time: s?.last_run_start_time ?? null,
  };
}

/** The body filters of `/runs/query` and `/runs/stats` → the query service's run filter. */
function runFilter(b: z.output<typeof L.runsStatsBody>): Omit<RunFilter, "limit"> {
  const filters = [b.filter, b.query ? `search(${JSON.stringify(b.query)})` : null].filter((x): x is string => Boolean(x));
  return {
    project_ids: b.session ?? undefined,
    ids: b.id ?? undefined,
    trace_id: b.trace ?? undefined,
    parent_run_id: b.parent_run ?? undefined,
    run_type: b.run_type ?? undefined,
    reference_example_ids: b.reference_example ?? undefined,
    start_time_gte: b.start_time ?? undefined,
    start_time_lte: b.end_time ?? undefined,
    error: b.error ?? undefined,
    is_root: b.is_root ?? (b.execution_order === 1 ? true : undefined),
    filter: filters.length > 1 ? `and(${filters.join(", ")})` : filters[0],
    trace_filter: b.trace_filter ?? undefined,
    tree_filter: b.tree_filter ?? undefined,
  };
}

/** Projects as LangSmith sessions, with their stats. */
export async function sessionsWithStats(deps: QueryDeps, list: Project[]) {
  const stats = list.length ? await projectStats(deps, list.map((p) => p.id)) : new Map<string, Stats>();
  return list.map((p) => session(p, stats.get(p.id)));
}

export function langsmithRoutes(router: ApiRouter, deps: QueryDeps): void {
  const { projects, query, feedback, shares } = deps;
  const withStats = (list: Project[]) => sessionsWithStats(deps, list);

  // ---------- sessions (projects) ----------

  router.add({ method: "get", path: "/sessions", tag: "LangSmith", summary: "List projects (LangSmith sessions); `name` matches exactly", query: L.sessionListQuery, response: z.array(LangSmithSession) }, async ({ query: q, res }) => {
    const tenant = tenantOf(res);
    if (q.name !== undefined) {
      const p = await projects.findByName(tenant, q.name);
      const hit = p && (!q.id || q.id.includes(p.id)) && q.offset === 0 ? [p] : [];
      return withStats(hit[0] && q.metadata ? await projects.list(tenant, { ids: [hit[0].id], metadata: q.metadata, limit: 1, offset: 0 }) : hit);
    }
    return withStats(
      await projects.list(tenant, { nameContains: q.name_contains, ids: q.id, referenceDatasetId: q.reference_dataset, referenceFree: q.reference_free, metadata: q.metadata, limit: q.limit, offset: q.offset }),
    );
  });

  router.add(
    { method: "post", path: "/sessions", tag: "LangSmith", summary: "Create a project (`?upsert=true`: answer the existing one of that name)", query: L.sessionCreateQuery, body: L.sessionCreateBody, response: LangSmithSession, responses: { "200": "Created", "409": "Name taken" } },
    async ({ query: q, body, res }) => {
      const tenant = tenantOf(res);
      const { metadata, ...extra } = (body.extra ?? {}) as { metadata?: Record<string, unknown> };
      // an experiment's dataset must be this tenant's
      if (body.reference_dataset_id) await deps.datasets.get(tenant, body.reference_dataset_id);
      if (q.upsert) {
        const existing = await projects.findByName(tenant, body.name);
        if (existing) return (await withStats([await projects.update(tenant, existing.id, { description: body.description, metadata, extra: body.extra ? extra : null, end_time: body.end_time })]))[0];
      }
      const p = await projects.create(tenant, {
        id: body.id ?? undefined,
        name: body.name,
        description: body.description,
        metadata,
        extra,
        reference_dataset_id: body.reference_dataset_id,
        end_time: body.end_time,
      });
      return session(p, undefined);
    },
  );

  router.add({ method: "get", path: "/sessions/:session_id", tag: "LangSmith", summary: "A project with its stats", uuidParams: ["session_id"], query: L.sessionReadQuery, response: LangSmithSession }, async ({ params, res }) =>
    (await withStats([await projects.get(tenantOf(res), params.session_id!)]))[0],
  );

  router.add(
    { method: "patch", path: "/sessions/:session_id", tag: "LangSmith", summary: "Rename a project or change its description, metadata or end time", uuidParams: ["session_id"], body: L.sessionUpdateBody, response: LangSmithSession },
    async ({ params, body, res }) => {
      const { metadata, ...extra } = (body.extra ?? {}) as { metadata?: Record<string, unknown> };
      const p = await projects.update(tenantOf(res), params.session_id!, { name: body.name, description: body.description, metadata, extra: body.extra ? extra : null, end_time: body.end_time });
      return (await withStats([p]))[0];
    },
  );

  router.add({ method: "delete", path: "/sessions/:session_id", tag: "LangSmith", summary: "Delete a project with its runs and feedback", uuidParams: ["session_id"], responses: { "204": "Deleted" } }, async ({ params, res }) => {
    await projects.delete(tenantOf(res), params.session_id!);
    return Reply.noContent();
  });

  // ---------- runs ----------

  router.add(
    { method: "post", path: "/runs/query", tag: "LangSmith", summary: "Query runs with LangSmith's filters and filter language; cursor pages", body: L.runsQueryBody, response: RunsQueryPage, responses: { "200": "A page", "400": "Bad filter expression or cursor" } },
    async ({ body, res }) => {
      const tenant = tenantOf(res);
      const select = body.select ?? undefined;
      const page = await query.listRuns(tenant, {
        ...runFilter(body),
        order: body.order ?? "desc",
        limit: body.limit ?? 100,
        cursor: body.cursor ?? undefined,
        full: !select || select.some((f) => PAYLOAD_FIELDS.includes(f)),
      });
      const ids = page.runs.map((r) => r.id);
      const [children, stats] = await Promise.all([
        !select || select.includes("child_run_ids") ? query.childRunIds(tenant, ids) : undefined,
        !select || select.includes("feedback_stats") ? feedback.statsByRun(tenant, ids) : undefined,
      ]);
      return {
        runs: page.runs.map((r) => langsmithRun(r, { child_run_ids: children?.get(r.id), feedback_stats: stats?.get(r.id) ?? (stats ? {} : null) }, select)),
        cursors: { next: page.next_cursor },
      };
    },
  );

  router.add({ method: "post", path: "/runs/stats", tag: "LangSmith", summary: "Aggregates over the runs a filter selects (latencies in seconds)", body: L.runsStatsBody, response: RunStats }, async ({ body, res }) => {
    const tenant = tenantOf(res);
    const filter = runFilter(body);
    const stats = await query.runStats(tenant, filter);
    const fb = filter.project_ids ? await feedback.statsByProject(filter.project_ids) : new Map();
    // feedback of the selected projects (LangSmith's run stats carry the same aggregate)
    const merged: Record<string, unknown> = {};
    for (const s of fb.values()) Object.assign(merged, s);
    return { ...stats, feedback_stats: merged };
  });

  // ---------- sharing ----------

  router.add({ method: "put", path: "/runs/:run_id/share", tag: "LangSmith", summary: "Share a run's trace through a public read-only link", uuidParams: ["run_id"], body: L.shareBody, optionalBody: true, response: ShareInfo }, async ({ params, body, res }) => {
    const tenant = tenantOf(res);
    const run = await query.getRun(tenant, params.run_id!);
    return { run_id: run.id, share_token: await shares.share(tenant, run.id, body.share_token ?? randomUUID()) };
  });

  router.add({ method: "get", path: "/runs/:run_id/share", tag: "LangSmith", summary: "The run's public link token, or null when it is not shared", uuidParams: ["run_id"], response: ShareInfo.nullable() }, async ({ params, res }) => {
    const tenant = tenantOf(res);
    const run = await query.getRun(tenant, params.run_id!);
    const token = await shares.tokenOf(tenant, run.id);
    return token ? { run_id: run.id, share_token: token } : null;
  });

  router.add({ method: "delete", path: "/runs/:run_id/share", tag: "LangSmith", summary: "Stop sharing a run (its link answers 404 from now on)", uuidParams: ["run_id"], responses: { "204": "Unshared" } }, async ({ params, res }) => {
    const tenant = tenantOf(res);
    await query.getRun(tenant, params.run_id!);
    await shares.unshare(tenant, params.run_id!);
    return Reply.noContent();
  });
}

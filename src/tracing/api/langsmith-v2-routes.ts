/**
 * LangSmith's v2 API (`/api/v2/...`), which the `langsmith` SDK 0.12's resource clients call:
 * `client.runs.query/retrieve/getURL/share`, `client.traces.query/listRuns`,
 * `client.threads.query/listTraces/stats` and `client.sessions.listV2`. The same query service and
 * stores as the v1 routes answer them; only the shapes differ (langsmith-run-v2.ts): pages are
 * `{items, next_cursor}`, fields are chosen with upper-case `selects`.
 * Not served (a clear 404/501 instead): AI search, the `streaming` variants, thread sharing,
 * thread aggregate stats and filters on threads.
 */
import { randomUUID } from "node:crypto";
import type { Request, Response } from "express";
import { z } from "zod";
import { principalOf } from "../../shared/auth/index.js";
import { ApiError, BadRequestError, NotFoundError } from "../../shared/errors.js";
import { type ApiRouter, Reply } from "../../shared/http.js";
import { langsmithRunV2, needsPayloads, preview } from "../query/langsmith-run-v2.js";
import { consolePath } from "../query/langsmith-run.js";
import { THREAD_STATS_KEYS, threadStats } from "../query/thread-stats.js";
import type { RunRow } from "../storage/runs.js";
import { sessionsWithStats } from "./langsmith-routes.js";
import * as V from "./langsmith-v2-schemas.js";
import type { QueryDeps } from "./query-routes.js";

const tenantOf = (res: Response) => principalOf(res).tenantId;
const item = (id: string, description: string) => z.looseObject({}).describe(description).meta({ id });
const V2Run = item("LangSmithRunV2", "A run in LangSmith's v2 schema: the selected fields, lower case");
const page = (of: z.ZodType, id: string) => z.object({ items: z.array(of), next_cursor: z.string().nullable() }).meta({ id });

/** Traces with no `min_start_time` are looked for in the last day, as LangSmith does. */
const DEFAULT_TRACE_WINDOW_MS = 86_400_000;
/** At most this many runs of one trace per answer. */
const TRACE_RUNS_LIMIT = 1000;
/** Thread stats read at most this many turns. */
const THREAD_STATS_TURNS = 10_000;

/** Offset pages (threads, sessions) behind an opaque cursor, like the keyset ones of runs. */
export const offsetCursor = (offset: number) => Buffer.from(JSON.stringify({ o: offset })).toString("base64url");
export function offsetOf(cursor: string | undefined): number {
  if (!cursor) return 0;
  try {
    const o = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { o?: unknown }).o;
    if (typeof o === "number" && Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw new BadRequestError("cursor is not one this server issued: pass next_cursor from a previous page");
}

function refuseAiSearch(aiSearch: string | undefined): void {
  if (aiSearch !== undefined) throw new ApiError(501, "ai_search is not available on Berth: use `filter` expressions");
}

/** Where the console shows a run: the origin the client called, with the run's console path. */
export function consoleUrl(req: Request, path: string): string {
  return `${req.protocol}://${req.get("host")}${path}`;
}

/** A stored turn of a thread in v2's `ThreadTrace` shape. */
function threadTrace(t: RunRow, turn: number, totals: { input_tokens: number; output_tokens: number; total_tokens: number; total_cost: number | null; first_token_time: string | null } | undefined) {
  const out: Record<string, unknown> = {
    thread_id: t.thread_id,
    trace_id: t.trace_id,
    name: t.name,
    turn_number: turn,
    start_time: t.start_time ? new Date(t.start_time).toISOString() : undefined,
    end_time: t.end_time ? new Date(t.end_time).toISOString() : undefined,
    latency: t.start_time && t.end_time ? Math.max(0, Date.parse(t.end_time) - Date.parse(t.start_time)) / 1000 : undefined,
    error: t.error ?? undefined,
    inputs: t.inputs ?? undefined,
    outputs: t.outputs ?? undefined,
    inputs_preview: preview(t.inputs) ?? undefined,
    outputs_preview: preview(t.outputs) ?? undefined,
    prompt_tokens: totals?.input_tokens,
    completion_tokens: totals?.output_tokens,
    total_tokens: totals?.total_tokens,
    total_cost: totals?.total_cost ?? undefined,
    first_token_time: totals?.first_token_time ?? undefined,
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined && v !== null));
}

export function langsmithV2Routes(router: ApiRouter, deps: QueryDeps): void {
  const { projects, query, feedback, shares } = deps;
  const runsWithStats = async (tenant: string, runs: RunRow[], selects: readonly string[] | undefined) => {
    const stats = !selects?.length || selects.includes("FEEDBACK_STATS") ? await feedback.statsByRun(tenant, runs.map((r) => r.id)) : undefined;
    return runs.map((r) => langsmithRunV2(r, { feedback_stats: stats?.get(r.id) }, selects));
  };
  const runOfProject = async (tenant: string, runId: string, projectId: string) => {
    const run = await query.getRun(tenant, runId);
    if (run.project_id !== projectId) throw new NotFoundError(`Run ${runId} not found in project ${projectId}.`);
    return run;
  };

  // ---------- runs ----------

  router.add(
    { method: "post", path: "/api/v2/runs/query", tag: "LangSmith v2", summary: "Query runs (client.runs.query): filters, filter expressions, selects, cursor pages", body: V.runsQueryBody, response: page(V2Run, "LangSmithRunsPageV2"), responses: { "200": "A page", "400": "Bad filter expression or cursor", "501": "ai_search" } },
    async ({ body: b, res }) => {
      refuseAiSearch(b.ai_search);
      const tenant = tenantOf(res);
      const { runs, next_cursor } = await query.listRuns(tenant, {
        project_ids: b.project_ids,
        ids: b.ids,
        trace_id: b.trace_id,
        run_type: b.run_type,
        is_root: b.is_root,
        error: b.has_error,
        reference_example_ids: b.reference_examples,
        start_time_gte: b.min_start_time,
        start_time_lte: b.max_start_time,
        filter: b.filter,
        trace_filter: b.trace_filter,
        tree_filter: b.tree_filter,
        order: "desc",
        limit: b.page_size,
        cursor: b.cursor,
        full: needsPayloads(b.selects),
      });
      return { items: await runsWithStats(tenant, runs, b.selects), next_cursor };
    },
  );

  router.add(
    { method: "get", path: "/api/v2/runs/:run_id", tag: "LangSmith v2", summary: "One run of a project (client.runs.retrieve)", uuidParams: ["run_id"], query: V.runRetrieveQuery, response: V2Run },
    async ({ params, query: q, req, res }) => {
      const tenant = tenantOf(res);
      const run = await runOfProject(tenant, params.run_id!, q.project_id);
      const [stats, token] = await Promise.all([feedback.statsByRun(tenant, [run.id]), shares.tokenOf(tenant, run.id)]);
      return langsmithRunV2(run, { feedback_stats: stats.get(run.id), share_url: token ? consoleUrl(req, `/public/${token}/r`) : null }, q.selects);
    },
  );

  router.add(
    { method: "get", path: "/api/v2/runs/:run_id/url", tag: "LangSmith v2", summary: "The console URL of a run (client.runs.getURL)", uuidParams: ["run_id"], query: V.runUrlQuery, response: z.object({ url: z.string() }).meta({ id: "RunUrl" }) },
    async ({ params, query: q, req, res }) => {
      const run = await runOfProject(tenantOf(res), params.run_id!, q.project_id);
      if (run.trace_id !== q.trace_id) throw new NotFoundError(`Run ${run.id} is not in trace ${q.trace_id}.`);
      return { url: consoleUrl(req, consolePath(run)) };
    },
  );

  router.add(
    { method: "post", path: "/api/v2/runs/:run_id/share", tag: "LangSmith v2", summary: "Share a run's trace (client.runs.share.create): the trace's root gets the link, an existing one is kept", uuidParams: ["run_id"], body: V.shareCreateBody, response: z.object({ share_token: z.guid() }).meta({ id: "ShareTokenV2" }) },
    async ({ params, body, res }) => {
      const tenant = tenantOf(res);
      const run = await runOfProject(tenant, params.run_id!, body.session_id);
      if (run.trace_id !== body.trace_id) throw new NotFoundError(`Run ${run.id} is not in trace ${body.trace_id}.`);
      // child runs share their trace's root; a root that never arrived leaves the run itself
      const root = run.parent_run_id === null ? run : await query.getRun(tenant, run.trace_id).catch(() => run);
      return { share_token: await shares.share(tenant, root.id, randomUUID()) };
    },
  );

  router.add(
    { method: "delete", path: "/api/v2/runs/:trace_id/share", tag: "LangSmith v2", summary: "Stop sharing a trace (client.runs.share.delete); 204 whether or not it was shared", uuidParams: ["trace_id"], body: V.shareDeleteBody, optionalBody: true, responses: { "204": "Not shared (any more)" } },
    async ({ params, res }) => {
      await shares.unshare(tenantOf(res), params.trace_id!);
      return Reply.noContent();
    },
  );

  // ---------- traces ----------

  router.add(
    { method: "post", path: "/api/v2/traces/query", tag: "LangSmith v2", summary: "Traces of a project, newest first (client.traces.query): root runs with trace totals; the last day unless min_start_time says otherwise", body: V.tracesQueryBody, response: page(item("LangSmithTraceV2", "A trace: its root run and totals"), "LangSmithTracesPageV2"), responses: { "200": "A page", "400": "Bad filter expression or cursor; no project_id or trace_ids", "501": "ai_search" } },
    async ({ body: b, res }) => {
      refuseAiSearch(b.ai_search);
      if (!b.project_id && !b.trace_ids) throw new BadRequestError("give project_id (or trace_ids)");
      const tenant = tenantOf(res);
      const { runs, next_cursor } = await query.listRuns(tenant, {
        project_ids: b.project_id ? [b.project_id] : undefined,
        trace_ids: b.trace_ids,
        is_root: true,
        start_time_gte: b.min_start_time ?? new Date(Date.now() - DEFAULT_TRACE_WINDOW_MS).toISOString(),
        start_time_lte: b.max_start_time,
        trace_filter: b.trace_filter,
        tree_filter: b.tree_filter,
        order: "desc",
        limit: b.page_size,
        cursor: b.cursor,
        full: needsPayloads(b.selects),
      });
      const [roots, totals] = await Promise.all([runsWithStats(tenant, runs, b.selects), query.traceTotals(tenant, runs.map((r) => r.trace_id))]);
      const items = runs.map((r, i) => {
        const t = totals.get(r.trace_id);
        return { root_run: roots[i], trace_aggregates: { total_tokens: t?.total_tokens ?? 0, total_cost: t?.total_cost ?? 0, ...(t?.first_token_time ? { first_token_time: t.first_token_time } : {}) } };
      });
      return { items, next_cursor };
    },
  );

  router.add(
    { method: "get", path: "/api/v2/traces/:trace_id/runs", tag: "LangSmith v2", summary: "The runs of one trace, in start order (client.traces.listRuns)", uuidParams: ["trace_id"], query: V.traceRunsQuery, response: z.object({ items: z.array(V2Run) }).meta({ id: "LangSmithTraceRunsV2" }) },
    async ({ params, query: q, res }) => {
      const tenant = tenantOf(res);
      const { runs } = await query.listRuns(tenant, {
        project_id: q.project_id,
        trace_id: params.trace_id!,
        filter: q.filter,
        start_time_gte: q.min_start_time,
        start_time_lte: q.max_start_time,
        order: "asc",
        limit: TRACE_RUNS_LIMIT,
        full: needsPayloads(q.selects),
      });
      return { items: await runsWithStats(tenant, runs, q.selects) };
    },
  );

  // ---------- threads ----------

  router.add(
    { method: "post", path: "/api/v2/threads/query", tag: "LangSmith v2", summary: "Conversations of a project, latest first (client.threads.query)", body: V.threadsQueryBody, response: page(item("LangSmithThreadV2", "A conversation with its totals"), "LangSmithThreadsPageV2"), responses: { "200": "A page", "400": "A filter (not supported on threads) or a bad cursor", "501": "ai_search" } },
    async ({ body: b, res }) => {
      refuseAiSearch(b.ai_search);
      const unsupported = (["filter", "thread_filter", "trace_filter", "tree_filter"] as const).filter((k) => b[k] !== undefined);
      if (unsupported.length) throw new BadRequestError(`${unsupported.join(", ")}: filters on threads are not supported by Berth; filter the runs with POST /api/v2/runs/query`);
      const tenant = tenantOf(res);
      await projects.get(tenant, b.project_id);
      const offset = offsetOf(b.cursor);
      const list = await query.threads(tenant, b.project_id, b.page_size + 1, offset, { min: b.min_start_time, max: b.max_start_time });
      const items = list.slice(0, b.page_size).map((t) => ({
        thread_id: t.thread_id,
        count: t.turn_count,
        num_errored_turns: t.error_count,
        start_time: t.first_start_time ?? undefined,
        min_start_time: t.first_start_time ?? undefined,
        max_start_time: t.last_start_time ?? undefined,
        first_trace_id: t.first_trace_id,
        last_trace_id: t.last_trace_id,
        trace_id: t.last_trace_id,
        total_tokens: t.total_tokens,
        ...(t.total_cost === null ? {} : { total_cost: t.total_cost }),
      }));
      return { items, next_cursor: list.length > b.page_size ? offsetCursor(offset + b.page_size) : null };
    },
  );

  router.add(
    { method: "get", path: "/api/v2/threads/:thread_id/traces", tag: "LangSmith v2", summary: "The turns of a conversation, oldest first (client.threads.listTraces)", query: V.threadTracesQuery, response: page(item("LangSmithThreadTraceV2", "A turn of a conversation"), "LangSmithThreadTracesPageV2") },
    async ({ params, query: q, res }) => {
      const unsupported = (["filter", "trace_filter", "tree_filter"] as const).filter((k) => q[k] !== undefined);
      if (unsupported.length) throw new BadRequestError(`${unsupported.join(", ")}: filters on a thread's traces are not supported by Berth`);
      const tenant = tenantOf(res);
      await projects.get(tenant, q.project_id);
      const offset = offsetOf(q.cursor);
      const turns = await query.threadTurns(tenant, q.project_id, params.thread_id!, q.page_size + 1, offset);
      const shown = turns.slice(0, q.page_size);
      const totals = await query.traceTotals(tenant, shown.map((t) => t.trace_id));
      return {
        items: shown.map((t, i) => threadTrace(t, offset + i + 1, totals.get(t.trace_id))),
        next_cursor: turns.length > q.page_size ? offsetCursor(offset + q.page_size) : null,
      };
    },
  );

  router.add(
    { method: "get", path: "/api/v2/threads/:thread_id/stats", tag: "LangSmith v2", summary: "Aggregates of one conversation (client.threads.stats): the selected ones", query: V.threadStatsQuery, response: item("LangSmithThreadStatsV2", "The selected aggregates") },
    async ({ params, query: q, res }) => {
      const tenant = tenantOf(res);
      await projects.get(tenant, q.session_id);
      const turns = await query.threadTurns(tenant, q.session_id, params.thread_id!, THREAD_STATS_TURNS);
      if (!turns.length) throw new NotFoundError(`Thread ${params.thread_id} not found in project ${q.session_id}.`);
      const all = threadStats(turns, await query.traceTotals(tenant, turns.map((t) => t.trace_id))) as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const s of q.selects ?? Object.keys(all)) {
        const key = THREAD_STATS_KEYS[s];
        if (!key) throw new BadRequestError(`selects: ${JSON.stringify(s)} is not one of ${Object.keys(THREAD_STATS_KEYS).join(", ")}`);
        if (all[s] !== null && all[s] !== undefined) out[key] = all[s];
      }
      return out;
    },
  );

  // ---------- sessions ----------

  router.add(
    { method: "get", path: "/api/v2/sessions", tag: "LangSmith v2", summary: "Projects with their stats, newest first (client.sessions.listV2); `name` matches exactly", query: V.sessionsListQuery, response: page(item("LangSmithSessionV2", "A project in LangSmith's session schema"), "LangSmithSessionsPageV2") },
    async ({ query: q, res }) => {
      const tenant = tenantOf(res);
      if ((q.reference_dataset_id?.length ?? 0) > 1) throw new BadRequestError("reference_dataset_id: give one dataset");
      if (q.filter !== undefined) throw new BadRequestError("filter: filter expressions on projects are not supported by Berth; use name, name_contains, id, metadata or reference_dataset_id");
      const offset = offsetOf(q.cursor);
      let list;
      if (q.name !== undefined) {
        const p = await projects.findByName(tenant, q.name);
        list = p && (!q.id || q.id.includes(p.id)) && offset === 0 ? [p] : [];
        if (list[0] && q.metadata) list = await projects.list(tenant, { ids: [list[0].id], metadata: q.metadata, limit: 1, offset: 0 });
      } else {
        list = await projects.list(tenant, { nameContains: q.name_contains, ids: q.id, referenceDatasetId: q.reference_dataset_id?.[0], metadata: q.metadata, limit: q.page_size + 1, offset });
      }
      const items = await sessionsWithStats(deps, list.slice(0, q.page_size));
      return { items, next_cursor: list.length > q.page_size ? offsetCursor(offset + q.page_size) : null };
    },
  );
}

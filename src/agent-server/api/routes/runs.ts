import type { IncomingHttpHeaders } from "node:http";
import type { Request, Response } from "express";
import { z } from "zod";
import { ApiRouter, JsonText, Reply, SENT, mountPrefixOf } from "../../../shared/http.js";
import { ValidationError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import type { RunService } from "../../runs/service.js";
import { checkWebhookUrl } from "../../runs/webhooks.js";
import { streamRun } from "../../runs/stream.js";
import type { Run } from "../../storage/runs.js";
import { SqlBuilder, selectFields } from "../../storage/sql.js";
import * as s from "../schemas.js";
import { authorizeRun, authorizeThread, authzOf, type Authz } from "../../auth/access.js";

/** A run's URL as clients reach it: under `http.mount_prefix` when the server has one (see mountAt). */
const runPath = (res: Response, run: Run) =>
  `${mountPrefixOf(res)}${run.kwargs.temporary ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`}`;

/** Parse `Last-Event-ID`: a run event id, or -1 for "everything". */
function lastEventId(req: Request): number | undefined {
  const raw = req.header("last-event-id");
  if (raw === undefined || raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < -1) throw ValidationError.field(["header", "Last-Event-ID"], `must be an event id or -1, got ${JSON.stringify(raw)}`);
  return n;
}

export function runRoutes(router: ApiRouter, ctx: AgentServerContext, runs: RunService): void {
  const tag = "Thread Runs";
  const stateless = "Stateless Runs";
  const threadParams = ["thread_id"];
  const runParams = ["thread_id", "run_id"];

  const cancelOnDisconnect = (run: Run) => () => {
    void runs.cancel(null, run.run_id, "interrupt", false).catch(() => undefined);
  };

  /** SSE for a run this request just created: every event from the first. */
  const streamNew = async (res: Response, run: Run, onDisconnect: "cancel" | "continue" | undefined) => {
    const path = runPath(res, run);
    await streamRun(ctx, res, {
      runId: run.run_id,
      lastEventId: -1,
      headers: { "Content-Location": path, Location: `${path}/stream` },
      onDisconnect: onDisconnect === "cancel" ? cancelOnDisconnect(run) : undefined,
    });
    return SENT;
  };

  /** Wait for a run this request created and answer its result; newlines keep the connection alive. */
  const waitNew = async (req: Request, res: Response, run: Run, onDisconnect: "cancel" | "continue" | undefined) => {
    res.status(200).set({ "Content-Type": "application/json", "Content-Location": runPath(res, run) });
    res.flushHeaders();
    const keepAlive = setInterval(() => res.write("\n"), ctx.settings.heartbeatSeconds * 1000);
    const gone = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) gone.abort();
    });
    try {
      const done = await runs.waitForDone(run.run_id, gone.signal);
      if (gone.signal.aborted) {
        if (onDisconnect === "cancel") cancelOnDisconnect(run)();
        return SENT;
      }
      res.end(await runs.resultJson(run, done));
    } finally {
      clearInterval(keepAlive);
    }
    return SENT;
  };

  /** A run from the API: its webhook must be a target the outbound policy allows (422 otherwise). */
  const createRun = async (threadId: string | null, body: s.RunCreate, headers: IncomingHttpHeaders, authz: Authz) => {
    await checkWebhookUrl(body.webhook, ctx.settings, ["body", "webhook"]);
    return runs.create(threadId, body, headers, undefined, undefined, authz);
  };
  /** A run reached through its thread's URL: the thread must be the user's to `action`. */
  const onThread = (res: Response, threadId: string, action = "read") => authorizeThread(ctx, authzOf(ctx, res), threadId, action);

  // ---- runs on a thread ----------------------------------------------------------------------
  router.add({ method: "post", path: "/threads/:thread_id/runs", tag, summary: "Create a run (queued by multitask_strategy)", uuidParams: threadParams, body: s.threadRunCreate }, async ({ params, body, req, res }) => {
    const run = await createRun(params.thread_id!, body, req.headers, authzOf(ctx, res));
    return new Reply(200, run, { "Content-Location": runPath(res, run) });
  });
  router.add({ method: "post", path: "/threads/:thread_id/runs/stream", tag, summary: "Create a run and stream its events (SSE)", uuidParams: threadParams, body: s.threadRunCreate, produces: "text/event-stream" }, async ({ params, body, req, res }) => {
    const run = await createRun(params.thread_id!, body, req.headers, authzOf(ctx, res));
    return streamNew(res, run, body.on_disconnect);
  });
  router.add({ method: "post", path: "/threads/:thread_id/runs/wait", tag, summary: "Create a run and wait for its result", uuidParams: threadParams, body: s.threadRunCreate }, async ({ params, body, req, res }) => {
    const run = await createRun(params.thread_id!, body, req.headers, authzOf(ctx, res));
    return waitNew(req, res, run, body.on_disconnect);
  });
  router.add({ method: "get", path: "/threads/:thread_id/runs", tag, summary: "List a thread's runs, newest first", uuidParams: threadParams, query: s.runListQuery }, async ({ params, query, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "search", { thread_id: params.thread_id, status: query.status });
    await ctx.threads.get(params.thread_id!);
    const select = query.select === undefined ? undefined : (Array.isArray(query.select) ? query.select : [query.select]).flatMap((f) => f.split(","));
    const list = await ctx.runs.list(params.thread_id!, query);
    return select ? list.map((r) => selectFields(r as unknown as Record<string, unknown>, select)) : list;
  });
  router.add({ method: "get", path: "/threads/:thread_id/runs/:run_id", tag, summary: "Get a run", uuidParams: runParams }, async ({ params, res }) => {
    await onThread(res, params.thread_id!);
    return runs.get(params.thread_id!, params.run_id!);
  });
  router.add({ method: "delete", path: "/threads/:thread_id/runs/:run_id", tag, summary: "Delete a run that is not running", uuidParams: runParams }, async ({ params, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "delete", { thread_id: params.thread_id, run_id: params.run_id });
    await ctx.runs.delete(params.thread_id!, params.run_id!);
    return Reply.noContent();
  });
  router.add({ method: "get", path: "/threads/:thread_id/runs/:run_id/join", tag, summary: "Wait for a run to end and get the thread's values", uuidParams: runParams }, async ({ params, res }) => {
    await onThread(res, params.thread_id!);
    const run = { run_id: params.run_id!, thread_id: params.thread_id! };
    const gone = new AbortController();
    res.on("close", () => !res.writableFinished && gone.abort());
    // the first look at the run's state is also its look-up on the thread (404 when absent)
    const done = await runs.waitForDone(run.run_id, gone.signal, { threadId: run.thread_id });
    if (gone.signal.aborted) return SENT;
    return new JsonText(await runs.resultJson(run, done));
  });
  router.add({ method: "get", path: "/threads/:thread_id/runs/:run_id/stream", tag, summary: "Join a run's event stream (resumable with Last-Event-ID)", uuidParams: runParams, query: s.joinStreamQuery, produces: "text/event-stream" }, async ({ params, query, req, res }) => {
    await onThread(res, params.thread_id!);
    const run = await runs.get(params.thread_id!, params.run_id!);
    const from = lastEventId(req);
    const modes = query.stream_mode === undefined ? undefined : Array.isArray(query.stream_mode) ? query.stream_mode : [query.stream_mode];
    await streamRun(ctx, res, {
      runId: run.run_id,
      lastEventId: from,
      modes,
      headers: { "Content-Location": runPath(res, run) },
      onDisconnect: query.cancel_on_disconnect ? cancelOnDisconnect(run) : undefined,
    });
    return SENT;
  });
  router.add({ method: "post", path: "/threads/:thread_id/runs/:run_id/cancel", tag, summary: "Cancel a run (interrupt keeps its progress, rollback deletes it)", uuidParams: runParams, query: s.cancelQuery, optionalBody: true }, async ({ params, query, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "update", {
      thread_id: params.thread_id, action: query.action, metadata: { run_ids: [params.run_id], status: "pending" },
    });
    await runs.cancel(params.thread_id!, params.run_id!, query.action, query.wait);
    return new Reply(query.wait ? 204 : 202);
  });

  // ---- stateless runs --------------------------------------------------------------------------
  router.add({ method: "post", path: "/runs", tag: stateless, summary: "Create a run on a temporary thread", body: s.statelessRunCreate }, async ({ body, req, res }) => {
    const run = await createRun(null, body, req.headers, authzOf(ctx, res));
    return new Reply(200, run, { "Content-Location": runPath(res, run) });
  });
  router.add({ method: "post", path: "/runs/stream", tag: stateless, summary: "Create a stateless run and stream it", body: s.statelessRunCreate, produces: "text/event-stream" }, async ({ body, req, res }) => {
    const run = await createRun(null, body, req.headers, authzOf(ctx, res));
    return streamNew(res, run, body.on_disconnect);
  });
  router.add({ method: "post", path: "/runs/wait", tag: stateless, summary: "Create a stateless run and wait for its result", body: s.statelessRunCreate }, async ({ body, req, res }) => {
    const run = await createRun(null, body, req.headers, authzOf(ctx, res));
    return waitNew(req, res, run, body.on_disconnect);
  });
  // The JS SDK's createBatch sends each payload with its own camelCase keys (onCompletion,
  // multitaskStrategy…) beside assistant_id: read those as their snake_case names.
  const snakeItems = z.preprocess(
    (v) => (Array.isArray(v) ? v.map((item) => (item && typeof item === "object" && !Array.isArray(item) ? snakeKeys(item as Record<string, unknown>) : item)) : v),
    z.array(s.statelessRunCreate).min(1).max(1000),
  );
  router.add({ method: "post", path: "/runs/batch", tag: stateless, summary: "Create several stateless runs", body: snakeItems }, async ({ body, req, res }) => {
    const out: Run[] = [];
    for (const [i, item] of body.entries()) await checkWebhookUrl(item.webhook, ctx.settings, ["body", i, "webhook"]);
    for (const item of body) out.push(await runs.create(null, item, req.headers, undefined, undefined, authzOf(ctx, res)));
    return out;
  });
  router.add({ method: "get", path: "/runs/:run_id/stream", tag: stateless, summary: "Join a run's event stream by run id", uuidParams: ["run_id"], query: s.joinStreamQuery, produces: "text/event-stream" }, async ({ params, query, req, res }) => {
    await authorizeRun(ctx, authzOf(ctx, res), null, params.run_id!, "read", { thread_id: undefined, run_id: params.run_id });
    const run = await runs.get(null, params.run_id!);
    await streamRun(ctx, res, {
      runId: run.run_id,
      lastEventId: lastEventId(req),
      modes: query.stream_mode === undefined ? undefined : Array.isArray(query.stream_mode) ? query.stream_mode : [query.stream_mode],
      headers: { "Content-Location": runPath(res, run) },
      onDisconnect: query.cancel_on_disconnect ? cancelOnDisconnect(run) : undefined,
    });
    return SENT;
  });
  router.add({ method: "post", path: "/runs/cancel", tag: stateless, summary: "Cancel many runs", body: s.bulkCancel, query: s.cancelQuery.pick({ action: true }) }, async ({ body, query, res }) => {
    let ids: string[];
    // Only runs on threads the user may update are cancelled; the others are skipped like unknown ids.
    const authFilters = await authzOf(ctx, res).check("threads", "update", {
      thread_id: body.thread_id, action: query.action, metadata: { run_ids: body.run_ids, status: body.status },
    });
    const b = new SqlBuilder();
    if (body.run_ids) b.and(`r.run_id = ANY(${b.p(body.run_ids)}::uuid[])`);
    else b.and(`r.status = ANY(${b.p(body.status === "all" ? ["pending", "running"] : [body.status!])}::text[])`);
    if (body.thread_id) b.and(`r.thread_id = ${b.p(body.thread_id)}`);
    b.andAuth(authFilters, "t.metadata");
    if (body.run_ids && !authFilters) {
      ids = body.run_ids;
    } else {
      const { rows } = await ctx.pool.query<{ run_id: string }>(`SELECT r.run_id FROM runs r JOIN threads t USING (thread_id) ${b.whereSql()}`, b.params);
      ids = rows.map((r) => r.run_id);
    }
    for (const id of ids) await runs.cancel(body.thread_id ?? null, id, query.action, false).catch(() => undefined);
    return new Reply(204);
  });

}

/** Top-level camelCase keys → snake_case, the snake_case spelling winning when both are sent. */
function snakeKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    const snake = k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    if (snake === k || !(snake in o)) out[snake] = v;
  }
  return out;
}

import { randomUUID } from "node:crypto";
import type { Response } from "express";
import { z } from "zod";
import { ApiRouter, Reply, SENT, mountPrefixOf } from "../../../shared/http.js";
import { ConflictError, ValidationError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import { selectFields } from "../../storage/sql.js";
import { sseHeaders, sseHeartbeat, writeSse } from "../../runs/stream.js";
import { parseThreadEventId, THREAD_STREAM_MODES, threadEvents, threadStart, type ThreadStreamMode } from "../../runs/thread-stream.js";
import { paginationHeaders } from "../pagination.js";
import * as s from "../schemas.js";
import { authorizeThread, authzOf } from "../../auth/access.js";
import { matchesAuthFilters } from "../../auth/filters.js";

const subgraphsQuery = z.object({ subgraphs: z.enum(["true", "false", "1", "0"]).optional() });
const truthy = (v: string | undefined) => v === "true" || v === "1";
const threadStreamModes = z.union([z.enum(THREAD_STREAM_MODES), z.array(z.enum(THREAD_STREAM_MODES))]).optional();
// The SDK sends `stream_mode`; the platform's API reference names it `stream_modes`: both are read.
const threadStreamQuery = z.object({ stream_mode: threadStreamModes, stream_modes: threadStreamModes });
const asList = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

export function threadRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Threads";
  const uuidParams = ["thread_id"];
  /** A state write, as the platform checks it: readable (else 404), then threads:update (else 404). */
  const authorizeStateUpdate = async (res: Response, threadId: string) => {
    const authz = authzOf(ctx, res);
    await authorizeThread(ctx, authz, threadId, "read");
    await authorizeThread(ctx, authz, threadId, "update");
  };
  router.add({ method: "post", path: "/threads", tag, summary: "Create a thread", body: s.threadCreate, optionalBody: true }, async ({ body, res }) => {
    let metadata: Record<string, unknown> = { ...(body.metadata ?? {}), ...(body.graph_id ? { graph_id: body.graph_id } : {}) };
    const authz = authzOf(ctx, res);
    if (authz.active) {
      // threads:create may stamp the metadata (an owner); an existing thread the user may not see
      // is "already exists" to them, never returned (if_exists=do_nothing would otherwise leak it)
      const value: Record<string, unknown> = { thread_id: body.thread_id, metadata, if_exists: body.if_exists ?? "raise" };
      const filters = await authz.check("threads", "create", value);
      metadata = typeof value.metadata === "object" && value.metadata !== null ? (value.metadata as Record<string, unknown>) : {};
      const existing = body.thread_id ? await ctx.threads.find(body.thread_id) : undefined;
      if (existing && !matchesAuthFilters(existing.metadata, filters)) throw new ConflictError(`Thread ${body.thread_id} already exists`);
    }
    const supersteps = body.supersteps ?? [];
    if (supersteps.length > 0) {
      // Checked before anything is written, so a refused request leaves no thread behind.
      const graphId = metadata.graph_id;
      if (typeof graphId !== "string" || !ctx.registry.has(graphId)) {
        throw ValidationError.field(["body", "metadata", "graph_id"], "supersteps need the thread's graph: give graph_id (a graph of this deployment)");
      }
      supersteps.forEach((step, i) => {
        if (step.updates.length === 0) throw ValidationError.field(["body", "supersteps", i, "updates"], "a superstep needs at least one update");
      });
    }
    const existed = body.thread_id ? (await ctx.threads.find(body.thread_id)) !== undefined : false;
    const thread = await ctx.threads.create({ thread_id: body.thread_id, metadata, if_exists: body.if_exists, ttl_minutes: body.ttl });
    if (supersteps.length === 0 || existed) return thread;
    try {
      await ctx.state.bulkUpdate(thread.thread_id, supersteps);
    } catch (err) {
      await ctx.threads.delete(thread.thread_id).catch(() => undefined);
      throw err;
    }
    return ctx.threads.get(thread.thread_id);
  });
  router.add({ method: "post", path: "/threads/search", tag, summary: "Search threads", body: s.threadSearch, optionalBody: true }, async ({ body, res }) => {
    const authFilters = await authzOf(ctx, res).check("threads", "search", {
      metadata: body.metadata, ids: body.ids, status: body.status, values: body.values, limit: body.limit, offset: body.offset,
    });
    const { items, total } = await ctx.threads.search({ ...body, authFilters });
    return new Reply(200, items.map((t) => selectFields(t as unknown as Record<string, unknown>, body.select)), paginationHeaders(total, body.offset, items.length));
  });
  router.add({ method: "post", path: "/threads/count", tag, summary: "Count threads", body: s.threadCount, optionalBody: true }, async ({ body, res }) => {
    const authFilters = await authzOf(ctx, res).check("threads", "search", { metadata: body.metadata, values: body.values, status: body.status, limit: 0, offset: 0 });
    return ctx.threads.count({ ...body, authFilters });
  });
  router.add({ method: "post", path: "/threads/prune", tag, summary: "Delete threads, or drop all but their latest checkpoint", body: s.threadPrune }, async ({ body, res }) => {
    // only threads the user may delete are pruned; the others are left alone (and not counted)
    const authFilters = await authzOf(ctx, res).check("threads", "delete", { thread_ids: body.thread_ids });
    return { pruned_count: await ctx.threads.prune(await ctx.threads.visibleIds(body.thread_ids, authFilters), body.strategy) };
  });
  router.add({ method: "get", path: "/threads/:thread_id", tag, summary: "Get a thread", uuidParams }, async ({ params, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "read");
    return ctx.threads.get(params.thread_id!);
  });
  router.add({ method: "patch", path: "/threads/:thread_id", tag, summary: "Update a thread's metadata (merged)", uuidParams, body: s.threadPatch }, async ({ params, body, res }) => {
    const value: Record<string, unknown> = { thread_id: params.thread_id, metadata: { ...(body.metadata ?? {}) } };
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "update", value);
    return ctx.threads.patchMetadata(params.thread_id!, (value.metadata as Record<string, unknown> | undefined) ?? {}, body.ttl);
  });
  router.add({ method: "delete", path: "/threads/:thread_id", tag, summary: "Delete a thread with its runs and checkpoints", uuidParams }, async ({ params, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "delete");
    const inflight = await ctx.runs.inflight(params.thread_id!);
    for (const r of inflight) {
      if (r.status === "running") await ctx.runs.requestCancel(r.run_id, "interrupt");
      await ctx.bus.publish(ctx.channels.cancel, JSON.stringify({ run_id: r.run_id, action: "interrupt" })).catch(() => undefined);
    }
    await ctx.threads.delete(params.thread_id!);
    return Reply.noContent();
  });
  router.add({ method: "post", path: "/threads/:thread_id/copy", tag, summary: "Copy a thread with its checkpoints", uuidParams }, async ({ params, res }) => {
    const authz = authzOf(ctx, res);
    await authorizeThread(ctx, authz, params.thread_id!, "read");
    if (!authz.active) return ctx.threads.copy(params.thread_id!);
    // the copy is a new thread: threads:create decides and stamps it (as the platform does)
    const source = await ctx.threads.get(params.thread_id!);
    const id = randomUUID();
    const value: Record<string, unknown> = { thread_id: id, metadata: { ...source.metadata, thread_id: id } };
    await authz.check("threads", "create", value);
    return ctx.threads.copy(params.thread_id!, { id, metadata: (value.metadata as Record<string, unknown> | undefined) ?? {} });
  });
  router.add({ method: "get", path: "/threads/:thread_id/state", tag, summary: "The thread's current state", uuidParams, query: subgraphsQuery }, async ({ params, query, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "read");
    return ctx.state.get(params.thread_id!, { subgraphs: truthy(query.subgraphs) });
  });
  router.add({ method: "post", path: "/threads/:thread_id/state", tag, summary: "Update the thread's state", uuidParams, body: s.stateUpdate }, async ({ params, body, res }) => {
    await authorizeStateUpdate(res, params.thread_id!);
    return ctx.state.update(params.thread_id!, body);
  });
  router.add(
    {
      method: "patch",
      path: "/threads/:thread_id/state",
      tag,
      summary: "Merge metadata into the thread's latest checkpoint",
      uuidParams,
      body: z.object({ metadata: z.record(z.string(), z.unknown()) }),
      responses: { "204": "Patched" },
    },
    async ({ params, body, res }) => {
      await authorizeStateUpdate(res, params.thread_id!);
      await ctx.state.patchMetadata(params.thread_id!, body.metadata);
      return Reply.noContent();
    },
  );
  router.add({ method: "post", path: "/threads/:thread_id/state/checkpoint", tag, summary: "The thread's state at a checkpoint", uuidParams, body: s.stateCheckpointQuery }, async ({ params, body, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "read");
    return ctx.state.get(params.thread_id!, { checkpoint: body.checkpoint, subgraphs: body.subgraphs });
  });
  router.add({ method: "get", path: "/threads/:thread_id/state/:checkpoint_id", tag, summary: "The thread's state at a checkpoint id", uuidParams, query: subgraphsQuery }, async ({ params, query, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "read");
    return ctx.state.get(params.thread_id!, { checkpoint: { checkpoint_id: params.checkpoint_id }, subgraphs: truthy(query.subgraphs) });
  });
  router.add({ method: "get", path: "/threads/:thread_id/history", tag, summary: "The thread's past states, newest first", uuidParams, query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(10), before: z.string().optional() }) }, async ({ params, query, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "read");
    return ctx.state.history(params.thread_id!, query);
  });
  router.add({ method: "post", path: "/threads/:thread_id/history", tag, summary: "The thread's past states, newest first", uuidParams, body: s.historyQuery, optionalBody: true }, async ({ params, body, res }) => {
    await authorizeThread(ctx, authzOf(ctx, res), params.thread_id!, "read");
    return ctx.state.history(params.thread_id!, body);
  });
  router.add(
    {
      method: "get",
      path: "/threads/:thread_id/stream",
      tag,
      summary: "Stream the output of every run on the thread, one after another (resumable with Last-Event-ID; stays open)",
      uuidParams,
      query: threadStreamQuery,
      produces: "text/event-stream",
    },
    async ({ params, query, req, res }) => {
      const threadId = params.thread_id!;
      await authorizeThread(ctx, authzOf(ctx, res), threadId, "read");
      await ctx.threads.get(threadId); // 404 before the stream opens
      const cursor = parseThreadEventId(req.header("last-event-id"));
      const modes = new Set<ThreadStreamMode>([...asList(query.stream_mode), ...asList(query.stream_modes)]);
      if (modes.size === 0) modes.add("run_modes");
      const start = await threadStart(ctx, threadId, cursor);
      const gone = new AbortController();
      res.on("close", () => gone.abort());
      const stopHeartbeat = sseHeartbeat(res, ctx.settings.heartbeatSeconds, gone.signal);
      try {
        sseHeaders(res, { "Content-Location": `${mountPrefixOf(res)}/threads/${threadId}/stream` });
        for await (const e of threadEvents(ctx, threadId, { start, modes, signal: gone.signal })) writeSse(res, e.event, e.data, e.id);
      } finally {
        stopHeartbeat();
        if (!gone.signal.aborted) res.end();
      }
      return SENT;
    },
  );
}

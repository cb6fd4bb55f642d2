import { ApiRouter, Reply } from "../../../shared/http.js";
import { NotFoundError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import { graphSchemas } from "../../graphs/schemas.js";
import { SqlBuilder, selectFields } from "../../storage/sql.js";
import { paginationHeaders } from "../pagination.js";
import * as s from "../schemas.js";
import { z } from "zod";
import type { Response } from "express";
import { ConflictError } from "../../../shared/errors.js";
import { authorizeRecord, authzOf } from "../../auth/access.js";
import { matchesAuthFilters } from "../../auth/filters.js";

export function assistantRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Assistants";
  /** assistants:<action> on one assistant: another user's assistant is "not found". */
  const onAssistant = (res: Response, idOrGraph: string, action: string, value: Record<string, unknown> = { assistant_id: idOrGraph }) =>
    authorizeRecord(
      authzOf(ctx, res),
      "assistants",
      action,
      value,
      () => ctx.assistants.get(idOrGraph).catch(() => undefined),
      () => new NotFoundError(`Assistant ${idOrGraph} not found`),
    );
  router.add({ method: "post", path: "/assistants", tag, summary: "Create an assistant", body: s.assistantCreate }, async ({ body, res }) => {
    const authz = authzOf(ctx, res);
    if (!authz.active) return ctx.assistants.create(body);
    const value: Record<string, unknown> = { ...body, metadata: { ...(body.metadata ?? {}) } };
    const filters = await authz.check("assistants", "create", value);
    const existing = body.assistant_id ? await ctx.assistants.get(body.assistant_id).catch(() => undefined) : undefined;
    if (existing && !matchesAuthFilters(existing.metadata, filters)) throw new ConflictError("Assistant already exists");
    return ctx.assistants.create({ ...body, metadata: (value.metadata as Record<string, unknown> | undefined) ?? {} });
  });
  router.add({ method: "post", path: "/assistants/search", tag, summary: "Search assistants", body: s.assistantSearch, optionalBody: true }, async ({ body, res }) => {
    const authFilters = await authzOf(ctx, res).check("assistants", "search", { graph_id: body.graph_id, metadata: body.metadata, limit: body.limit, offset: body.offset });
    const { items, total } = await ctx.assistants.search({ ...body, authFilters });
    return new Reply(200, items.map((a) => selectFields(a as unknown as Record<string, unknown>, body.select)), paginationHeaders(total, body.offset, items.length));
  });
  router.add({ method: "post", path: "/assistants/count", tag, summary: "Count assistants", body: s.assistantCount, optionalBody: true }, async ({ body, res }) => {
    const authFilters = await authzOf(ctx, res).check("assistants", "search", { graph_id: body.graph_id, metadata: body.metadata, limit: 0, offset: 0 });
    return ctx.assistants.count({ ...body, authFilters });
  });
  router.add({ method: "get", path: "/assistants/:assistant_id", tag, summary: "Get an assistant" }, async ({ params, res }) => {
    await onAssistant(res, params.assistant_id!, "read");
    return ctx.assistants.get(params.assistant_id!);
  });
  router.add({ method: "patch", path: "/assistants/:assistant_id", tag, summary: "Update an assistant (makes a new version)", body: s.assistantPatch, optionalBody: true }, async ({ params, body, res }) => {
    const value: Record<string, unknown> = { ...body, assistant_id: params.assistant_id, metadata: body.metadata ? { ...body.metadata } : undefined };
    await onAssistant(res, params.assistant_id!, "update", value);
    return ctx.assistants.patch(params.assistant_id!, { ...body, metadata: (value.metadata as Record<string, unknown> | undefined) ?? body.metadata });
  });
  router.add(
    {
      method: "delete",
      path: "/assistants/:assistant_id",
      tag,
      summary: "Delete an assistant",
      query: z.object({ delete_threads: z.enum(["true", "false"]).optional() }),
    },
    async ({ params, query, res }) => {
      await onAssistant(res, params.assistant_id!, "delete");
      const id = await ctx.assistants.delete(params.assistant_id!);
      if (query.delete_threads === "true") {
        // only the threads the user may delete go with the assistant
        const b = new SqlBuilder();
        b.and(`metadata->>'assistant_id' = ${b.p(id)}`).andAuth(await authzOf(ctx, res).check("threads", "delete", { assistant_id: id }));
        await ctx.pool.query(`DELETE FROM threads ${b.whereSql()}`, b.params);
      }
      return new Reply(200, [id]);
    },
  );
  router.add({ method: "post", path: "/assistants/:assistant_id/versions", tag, summary: "List an assistant's versions", body: s.assistantVersionsSearch, optionalBody: true }, async ({ params, body, res }) => {
    await onAssistant(res, params.assistant_id!, "read");
    return ctx.assistants.versions(params.assistant_id!, body);
  });
  router.add({ method: "post", path: "/assistants/:assistant_id/latest", tag, summary: "Set the current version", body: s.assistantSetLatest }, async ({ params, body, res }) => {
    await onAssistant(res, params.assistant_id!, "update", { assistant_id: params.assistant_id, version: body.version });
    return ctx.assistants.setLatest(params.assistant_id!, body.version);
  });
  router.add(
    { method: "get", path: "/assistants/:assistant_id/graph", tag, summary: "The assistant's graph (nodes and edges)", query: z.object({ xray: z.string().optional() }) },
    async ({ params, query, res }) => {
      await onAssistant(res, params.assistant_id!, "read");
      const a = await ctx.assistants.get(params.assistant_id!);
      const graph = await ctx.registry.get(a.graph_id, { configurable: (a.config as { configurable?: Record<string, unknown> }).configurable });
      const xray = query.xray === undefined || query.xray === "false" ? undefined : query.xray === "true" ? true : Number(query.xray);
      const drawable = await graph.getGraphAsync({ ...(xray !== undefined ? { xray } : {}) } as never);
      return drawable.toJSON();
    },
  );
  router.add({ method: "get", path: "/assistants/:assistant_id/schemas", tag, summary: "The assistant's input, output, state and config schemas" }, async ({ params, res }) => {
    await onAssistant(res, params.assistant_id!, "read");
    const a = await ctx.assistants.get(params.assistant_id!);
    const graph = await ctx.registry.get(a.graph_id);
    return { graph_id: a.graph_id, ...graphSchemas(graph, ctx.typeSchemas?.get(a.graph_id)) };
  });
  const subgraphs = async (res: Response, assistantId: string, namespace: string | undefined, recurse: boolean) => {
    await onAssistant(res, assistantId, "read");
    const a = await ctx.assistants.get(assistantId);
    const graph = await ctx.registry.get(a.graph_id);
    const out: Record<string, unknown> = {};
    for await (const [ns, sub] of graph.getSubgraphsAsync(namespace, recurse)) out[ns] = graphSchemas(sub);
    if (namespace && Object.keys(out).length === 0) throw new NotFoundError(`Subgraph ${namespace} not found`);
    return out;
  };
  const recurseQuery = z.object({ recurse: z.enum(["true", "false"]).optional() });
  router.add({ method: "get", path: "/assistants/:assistant_id/subgraphs", tag, summary: "Schemas of the graph's subgraphs", query: recurseQuery }, ({ params, query, res }) =>
    subgraphs(res, params.assistant_id!, undefined, query.recurse === "true"),
  );
  router.add({ method: "get", path: "/assistants/:assistant_id/subgraphs/:namespace", tag, summary: "Schemas of one subgraph", query: recurseQuery }, ({ params, query, res }) =>
    subgraphs(res, params.assistant_id!, params.namespace, query.recurse === "true"),
  );
}

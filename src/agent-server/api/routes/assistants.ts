import { ApiRouter, Reply } from "../../../shared/http.js";
import { NotFoundError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import { graphSchemas } from "../../graphs/schemas.js";
import { selectFields } from "../../storage/sql.js";
import { paginationHeaders } from "../pagination.js";
import * as s from "../schemas.js";
import { z } from "zod";

export function assistantRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Assistants";
  router.add({ method: "post", path: "/assistants", tag, summary: "Create an assistant", body: s.assistantCreate }, ({ body }) =>
    ctx.assistants.create(body),
  );
  router.add({ method: "post", path: "/assistants/search", tag, summary: "Search assistants", body: s.assistantSearch, optionalBody: true }, async ({ body }) => {
    const { items, total } = await ctx.assistants.search(body);
    return new Reply(200, items.map((a) => selectFields(a as unknown as Record<string, unknown>, body.select)), paginationHeaders(total, body.offset, items.length));
  });
  router.add({ method: "post", path: "/assistants/count", tag, summary: "Count assistants", body: s.assistantCount, optionalBody: true }, ({ body }) =>
    ctx.assistants.count(body),
  );
  router.add({ method: "get", path: "/assistants/:assistant_id", tag, summary: "Get an assistant" }, ({ params }) =>
    ctx.assistants.get(params.assistant_id!),
  );
  router.add({ method: "patch", path: "/assistants/:assistant_id", tag, summary: "Update an assistant (makes a new version)", body: s.assistantPatch, optionalBody: true }, ({ params, body }) =>
    ctx.assistants.patch(params.assistant_id!, body),
  );
  router.add(
    {
      method: "delete",
      path: "/assistants/:assistant_id",
      tag,
      summary: "Delete an assistant",
      query: z.object({ delete_threads: z.enum(["true", "false"]).optional() }),
    },
    async ({ params, query }) => {
      const id = await ctx.assistants.delete(params.assistant_id!);
      if (query.delete_threads === "true") {
        await ctx.pool.query("DELETE FROM threads WHERE metadata->>'assistant_id' = $1", [id]);
      }
      return new Reply(200, [id]);
    },
  );
  router.add({ method: "post", path: "/assistants/:assistant_id/versions", tag, summary: "List an assistant's versions", body: s.assistantVersionsSearch, optionalBody: true }, ({ params, body }) =>
    ctx.assistants.versions(params.assistant_id!, body),
  );
  router.add({ method: "post", path: "/assistants/:assistant_id/latest", tag, summary: "Set the current version", body: s.assistantSetLatest }, ({ params, body }) =>
    ctx.assistants.setLatest(params.assistant_id!, body.version),
  );
  router.add(
    { method: "get", path: "/assistants/:assistant_id/graph", tag, summary: "The assistant's graph (nodes and edges)", query: z.object({ xray: z.string().optional() }) },
    async ({ params, query }) => {
      const a = await ctx.assistants.get(params.assistant_id!);
      const graph = await ctx.registry.get(a.graph_id, { configurable: (a.config as { configurable?: Record<string, unknown> }).configurable });
      const xray = query.xray === undefined || query.xray === "false" ? undefined : query.xray === "true" ? true : Number(query.xray);
      const drawable = await graph.getGraphAsync({ ...(xray !== undefined ? { xray } : {}) } as never);
      return drawable.toJSON();
    },
  );
  router.add({ method: "get", path: "/assistants/:assistant_id/schemas", tag, summary: "The assistant's input, output, state and config schemas" }, async ({ params }) => {
    const a = await ctx.assistants.get(params.assistant_id!);
    const graph = await ctx.registry.get(a.graph_id);
    return { graph_id: a.graph_id, ...graphSchemas(graph) };
  });
  const subgraphs = async (assistantId: string, namespace: string | undefined, recurse: boolean) => {
    const a = await ctx.assistants.get(assistantId);
    const graph = await ctx.registry.get(a.graph_id);
    const out: Record<string, unknown> = {};
    for await (const [ns, sub] of graph.getSubgraphsAsync(namespace, recurse)) out[ns] = graphSchemas(sub);
    if (namespace && Object.keys(out).length === 0) throw new NotFoundError(`Subgraph ${namespace} not found`);
    return out;
  };
  const recurseQuery = z.object({ recurse: z.enum(["true", "false"]).optional() });
  router.add({ method: "get", path: "/assistants/:assistant_id/subgraphs", tag, summary: "Schemas of the graph's subgraphs", query: recurseQuery }, ({ params, query }) =>
    subgraphs(params.assistant_id!, undefined, query.recurse === "true"),
  );
  router.add({ method: "get", path: "/assistants/:assistant_id/subgraphs/:namespace", tag, summary: "Schemas of one subgraph", query: recurseQuery }, ({ params, query }) =>
    subgraphs(params.assistant_id!, params.namespace, query.recurse === "true"),
  );
}

import { ApiRouter, Reply } from "../../../shared/http.js";
import { NotFoundError, ValidationError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import * as s from "../schemas.js";

interface StoreItem {
  namespace: string[];
  key: string;
  value: unknown;
  createdAt?: Date;
  updatedAt?: Date;
  score?: number;
}

const toApi = (item: StoreItem) => ({
  namespace: item.namespace,
  key: item.key,
  value: item.value,
  created_at: item.createdAt,
  updated_at: item.updatedAt,
  ...(item.score !== undefined ? { score: item.score } : {}),
});

/** The key-value store graphs use (`getStore()`), over HTTP. Backed by LangGraph's PostgresStore. */
export function storeRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Store";
  router.add({ method: "put", path: "/store/items", tag, summary: "Put an item", body: s.storePut }, async ({ body }) => {
    await ctx.store.put(body.namespace, body.key, body.value, body.index ?? undefined);
    return Reply.noContent();
  });
  router.add({ method: "delete", path: "/store/items", tag, summary: "Delete an item", body: s.storeDelete }, async ({ body }) => {
    await ctx.store.delete(body.namespace, body.key);
    return Reply.noContent();
  });
  router.add({ method: "get", path: "/store/items", tag, summary: "Get an item", query: s.storeGetQuery }, async ({ query }) => {
    const namespace = query.namespace ? query.namespace.split(".") : [];
    if (namespace.some((l) => l === "")) throw ValidationError.field(["query", "namespace"], "namespace labels must not be empty");
    const item = (await ctx.store.get(namespace, query.key)) as StoreItem | null;
    if (!item) throw new NotFoundError(`Item ${query.key} not found in namespace ${namespace.join(".") || "(root)"}`);
    return toApi(item);
  });
  router.add({ method: "post", path: "/store/items/search", tag, summary: "Search items", body: s.storeSearch, optionalBody: true }, async ({ body }) => {
    const items = (await ctx.store.search(body.namespace_prefix, {
      filter: body.filter ?? undefined,
      limit: body.limit,
      offset: body.offset,
      query: body.query ?? undefined,
    })) as StoreItem[];
    return { items: items.map(toApi) };
  });
  router.add({ method: "post", path: "/store/namespaces", tag, summary: "List namespaces", body: s.storeListNamespaces, optionalBody: true }, async ({ body }) => ({
    namespaces: await ctx.store.listNamespaces({
      prefix: body.prefix,
      suffix: body.suffix,
      maxDepth: body.max_depth,
      limit: body.limit,
      offset: body.offset,
    }),
  }));
}

import { ApiRouter, Reply } from "../../../shared/http.js";
import { ValidationError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import { checkNamespace, listNamespaces, searchItems, type StoreItem } from "../../storage/store-items.js";
import * as s from "../schemas.js";

const toApi = (item: StoreItem) => ({
  namespace: item.namespace,
  key: item.key,
  value: item.value,
  created_at: item.createdAt,
  updated_at: item.updatedAt,
  ...(item.score !== undefined ? { score: item.score } : {}),
});

/** The key-value store graphs use (`getStore()`), over HTTP, on LangGraph's PostgresStore and its table. */
export function storeRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Store";
  router.add({ method: "put", path: "/store/items", tag, summary: "Put an item", body: s.storePut }, async ({ body }) => {
    checkNamespace(body.namespace, ["body", "namespace"]);
    await ctx.store.put(body.namespace, body.key, body.value, body.index ?? undefined, body.ttl ? { ttl: body.ttl } : undefined);
    return Reply.noContent();
  });
  router.add({ method: "delete", path: "/store/items", tag, summary: "Delete an item", body: s.storeDelete }, async ({ body }) => {
    checkNamespace(body.namespace, ["body", "namespace"]);
    await ctx.store.delete(body.namespace, body.key);
    return Reply.noContent();
  });
  router.add({ method: "get", path: "/store/items", tag, summary: "Get an item (null when there is none)", query: s.storeGetQuery }, async ({ query }) => {
    const namespace = query.namespace ? query.namespace.split(".") : [];
    if (namespace.length === 0) throw ValidationError.field(["query", "namespace"], "a namespace is required");
    checkNamespace(namespace, ["query", "namespace"]);
    const item = (await ctx.store.get(namespace, query.key)) as StoreItem | null;
    // What the SDK's `store.getItem` expects for a missing item: `null`, not an error.
    return item ? toApi(item) : null;
  });
  router.add({ method: "post", path: "/store/items/search", tag, summary: "Search items", body: s.storeSearch, optionalBody: true }, async ({ body }) => ({
    items: (await searchItems(ctx.pool, body)).map(toApi),
  }));
  router.add({ method: "post", path: "/store/namespaces", tag, summary: "List namespaces", body: s.storeListNamespaces, optionalBody: true }, async ({ body }) => ({
    namespaces: await listNamespaces(ctx.pool, body),
  }));
}

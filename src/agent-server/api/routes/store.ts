import { ApiRouter, Reply } from "../../../shared/http.js";
import { ValidationError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import { checkNamespace, getItem, listNamespaces, refreshItems, searchItems, type StoreItem } from "../../storage/store-items.js";
import * as s from "../schemas.js";
import type { Response } from "express";
import { ApiError } from "../../../shared/errors.js";
import { authzOf } from "../../auth/access.js";
import { FieldPathError, parseFieldPath } from "../../storage/store-index/field-paths.js";
import { IndexedPostgresStore } from "../../storage/store-index/indexed-store.js";

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
  /**
   * store:<action>, as the platform runs it: the handler may forbid (403) or rewrite
   * `value.namespace` (typically prefixing the user's identity), and the operation uses the
   * namespace it leaves. Metadata filters do not apply to store items (the platform's rule).
   */
  const scoped = async (res: Response, action: string, value: Record<string, unknown>): Promise<string[] | undefined> => {
    const authz = authzOf(ctx, res);
    if (!authz.active) return value.namespace as string[] | undefined;
    await authz.check("store", action, value);
    const ns = value.namespace;
    if (ns === undefined || ns === null) return undefined;
    if (!Array.isArray(ns) || !ns.every((l) => typeof l === "string")) {
      throw new ApiError(500, `Auth handler for store:${action} set value.namespace to ${JSON.stringify(ns)}; it must be a list of strings`);
    }
    return ns;
  };
  router.add({ method: "put", path: "/store/items", tag, summary: "Put an item", body: s.storePut }, async ({ body, res }) => {
    checkNamespace(body.namespace, ["body", "namespace"]);
    (body.index || []).forEach((path, i) => {
      try {
        parseFieldPath(path);
      } catch (err) {
        if (err instanceof FieldPathError) throw ValidationError.field(["body", "index", i], err.message);
        throw err;
      }
    });
    const namespace = (await scoped(res, "put", { namespace: [...body.namespace], key: body.key, value: body.value })) ?? [];
    checkNamespace(namespace, ["body", "namespace"]);
    // no ttl: the configured default; null: never expires (see ../../store.ts)
    const options = body.ttl === undefined ? undefined : ({ ttl: body.ttl } as { ttl?: number });
    await ctx.store.put(namespace, body.key, body.value, body.index ?? undefined, options);
    return Reply.noContent();
  });
  router.add({ method: "delete", path: "/store/items", tag, summary: "Delete an item", body: s.storeDelete }, async ({ body, res }) => {
    checkNamespace(body.namespace, ["body", "namespace"]);
    const namespace = (await scoped(res, "delete", { namespace: [...body.namespace], key: body.key })) ?? [];
    checkNamespace(namespace, ["body", "namespace"]);
    await ctx.store.delete(namespace, body.key);
    return Reply.noContent();
  });
  router.add({ method: "get", path: "/store/items", tag, summary: "Get an item (null when there is none)", query: s.storeGetQuery }, async ({ query, res }) => {
    const asked = query.namespace ? query.namespace.split(".") : [];
    if (asked.length === 0) throw ValidationError.field(["query", "namespace"], "a namespace is required");
    checkNamespace(asked, ["query", "namespace"]);
    const namespace = (await scoped(res, "get", { namespace: asked, key: query.key })) ?? [];
    checkNamespace(namespace, ["query", "namespace"]);
    const item = await getItem(ctx.pool, namespace, query.key, query.refresh_ttl ?? ctx.config.ttl.store.refreshOnRead);
    // What the SDK's `store.getItem` expects for a missing item: `null`, not an error.
    return item ? toApi(item) : null;
  });
  router.add({ method: "post", path: "/store/items/search", tag, summary: "Search items", body: s.storeSearch, optionalBody: true }, async ({ body, res }) => {
    const namespace_prefix = await scoped(res, "search", { namespace: [...body.namespace_prefix], filter: body.filter, limit: body.limit, offset: body.offset, query: body.query });
    const q = { ...body, namespace_prefix: namespace_prefix ?? [] };
    // With store.index, a query ranks by meaning (cosine similarity); without, by text match.
    const items = body.query && ctx.store instanceof IndexedPostgresStore ? await ctx.store.searchByQuery(body.query, q) : await searchItems(ctx.pool, q);
    if (body.refresh_ttl ?? ctx.config.ttl.store.refreshOnRead) await refreshItems(ctx.pool, items);
    return { items: items.map(toApi) };
  });
  router.add({ method: "post", path: "/store/namespaces", tag, summary: "List namespaces", body: s.storeListNamespaces, optionalBody: true }, async ({ body, res }) => {
    const prefix = await scoped(res, "list_namespaces", { namespace: body.prefix ? [...body.prefix] : undefined, suffix: body.suffix, max_depth: body.max_depth, limit: body.limit, offset: body.offset });
    return { namespaces: await listNamespaces(ctx.pool, { ...body, prefix }) };
  });
}

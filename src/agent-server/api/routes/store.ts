import { ApiRouter, Reply } from "../../../shared/http.js";
import { ValidationError } from "../../../shared/errors.js";
import type { AgentServerContext } from "../../context.js";
import { SqlBuilder } from "../../storage/sql.js";
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

/**
 * LangGraph's PostgresStore (what graphs get from `getStore()`) keeps a namespace as its labels
 * joined with ':' and refuses labels with LIKE wildcards ('%', '_', '\') or the root "langgraph".
 * Labels it would refuse (a 500) or mangle (':' splits into two labels) are refused here with a
 * 422 instead, so what goes in over HTTP comes back out the same, and graphs can read it.
 */
const SEPARATOR = ":";
function checkNamespace(namespace: string[], where: (string | number)[]): void {
  namespace.forEach((label, i) => {
    const bad =
      label === ""
        ? "must not be empty"
        : label.includes(".")
          ? "must not contain '.'"
          : label.includes(SEPARATOR)
            ? "must not contain ':' (the store's label separator)"
            : /[%_\\]/.test(label)
              ? "must not contain '%', '_' or '\\' (reserved by the store's prefix matching)"
              : i === 0 && label === "langgraph"
                ? 'the root label "langgraph" is reserved'
                : undefined;
    if (bad) throw ValidationError.field([...where, i], `namespace label ${JSON.stringify(label)} ${bad}`);
  });
}

/** SQL for "the namespace path equals or lies under `labels`" (no LIKE: labels are matched literally). */
function underPrefix(b: SqlBuilder, labels: string[] | undefined): void {
  if (!labels?.length) return;
  const path = labels.join(SEPARATOR);
  b.and(`(namespace_path = ${b.p(path)} OR starts_with(namespace_path, ${b.p(path + SEPARATOR)}))`);
}

/** The value filters PostgresStore understands: equality (nested objects by containment) and $-operators. */
function valueFilter(b: SqlBuilder, filter: Record<string, unknown> | null | undefined): void {
  const numeric: Record<string, string> = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" };
  for (const [key, cond] of Object.entries(filter ?? {})) {
    const isOps = typeof cond === "object" && cond !== null && !Array.isArray(cond) && Object.keys(cond).some((k) => k.startsWith("$"));
    if (!isOps) {
      if (typeof cond === "object" && cond !== null) b.and(`value @> ${b.p(JSON.stringify({ [key]: cond }))}::jsonb`);
      else b.and(`value ->> ${b.p(key)} = ${b.p(String(cond))}`);
      continue;
    }
    for (const [op, v] of Object.entries(cond as Record<string, unknown>)) {
      if (op === "$eq") b.and(`value ->> ${b.p(key)} = ${b.p(String(v))}`);
      else if (op === "$ne") b.and(`value ->> ${b.p(key)} IS DISTINCT FROM ${b.p(String(v))}`);
      else if (numeric[op]) {
        const n = Number(v);
        if (!Number.isFinite(n)) throw ValidationError.field(["body", "filter", key, op], "must be a number");
        b.and(`(CASE WHEN jsonb_typeof(value -> ${b.p(key)}) = 'number' THEN (value ->> ${b.p(key)})::numeric END) ${numeric[op]} ${b.p(n)}`);
      } else if (op === "$in" || op === "$nin") {
        if (!Array.isArray(v)) throw ValidationError.field(["body", "filter", key, op], "must be an array");
        const clause = `value ->> ${b.p(key)} = ANY(${b.p(v.map(String))}::text[])`;
        b.and(op === "$in" ? clause : `NOT coalesce(${clause}, false)`);
      } else if (op === "$exists") b.and(`${v ? "" : "NOT "}(value ? ${b.p(key)})`);
      else throw ValidationError.field(["body", "filter", key, op], "unknown filter operator (use $eq, $ne, $gt, $gte, $lt, $lte, $in, $nin or $exists)");
    }
  }
}

const NOT_EXPIRED = "(expires_at IS NULL OR expires_at > CURRENT_TIMESTAMP)";

/** The key-value store graphs use (`getStore()`), over HTTP. Backed by LangGraph's PostgresStore and its table. */
export function storeRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "Store";
  router.add({ method: "put", path: "/store/items", tag, summary: "Put an item", body: s.storePut }, async ({ body }) => {
    checkNamespace(body.namespace, ["body", "namespace"]);
    await ctx.store.put(body.namespace, body.key, body.value, body.index ?? undefined);
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
  router.add({ method: "post", path: "/store/items/search", tag, summary: "Search items", body: s.storeSearch, optionalBody: true }, async ({ body }) => {
    // Our own query on the store's table: PostgresStore's search matches the prefix as text
    // (["user"] also finds ["users"]) and refuses an empty prefix (the whole store).
    const b = new SqlBuilder();
    b.and(NOT_EXPIRED);
    underPrefix(b, body.namespace_prefix);
    valueFilter(b, body.filter);
    let score = "NULL::float8";
    if (body.query) {
      const q = b.p(body.query);
      const like = b.p(`%${body.query.replace(/[\\%_]/g, (m) => `\\${m}`)}%`);
      score = `ts_rank(to_tsvector('english', value::text), plainto_tsquery('english', ${q}))`;
      b.and(`(to_tsvector('english', value::text) @@ plainto_tsquery('english', ${q}) OR value::text ILIKE ${like})`);
    }
    const { rows } = await ctx.pool.query<{ namespace_path: string; key: string; value: unknown; created_at: Date; updated_at: Date; score: number | null }>(
      `SELECT namespace_path, key, value, created_at, updated_at, ${score} AS score FROM store ${b.whereSql()}
       ORDER BY ${body.query ? "score DESC, " : ""}updated_at DESC, namespace_path, key
       LIMIT ${b.p(body.limit)} OFFSET ${b.p(body.offset)}`,
      b.params,
    );
    return {
      items: rows.map((r) =>
        toApi({
          namespace: r.namespace_path.split(SEPARATOR),
          key: r.key,
          value: r.value,
          createdAt: r.created_at,
          updatedAt: r.updated_at,
          ...(r.score !== null ? { score: Number(r.score) } : {}),
        }),
      ),
    };
  });
  router.add({ method: "post", path: "/store/namespaces", tag, summary: "List namespaces", body: s.storeListNamespaces, optionalBody: true }, async ({ body }) => {
    const b = new SqlBuilder();
    b.and(NOT_EXPIRED);
    underPrefix(b, body.prefix);
    if (body.suffix?.length) {
      const path = body.suffix.join(SEPARATOR);
      b.and(`(namespace_path = ${b.p(path)} OR right(namespace_path, ${b.p(path.length + 1)}::int) = ${b.p(SEPARATOR + path)})`);
    }
    // max_depth truncates deeper namespaces to their first labels (and de-duplicates them).
    const ns = body.max_depth
      ? `array_to_string((string_to_array(namespace_path, '${SEPARATOR}'))[1:${b.p(body.max_depth)}::int], '${SEPARATOR}')`
      : "namespace_path";
    const { rows } = await ctx.pool.query<{ ns: string }>(
      `SELECT DISTINCT ${ns} AS ns FROM store ${b.whereSql()} ORDER BY ns LIMIT ${b.p(body.limit)} OFFSET ${b.p(body.offset)}`,
      b.params,
    );
    return { namespaces: rows.map((r) => r.ns.split(SEPARATOR)) };
  });
}

/**
 * Store items read with our own SQL on LangGraph PostgresStore's `store` table, for the operations
 * where the library falls short: its search matches namespace prefixes as text (["user"] also
 * finds ["users"]) and refuses an empty prefix (the whole store), and its namespace listing drops
 * namespaces deeper than max_depth instead of truncating them; its reads refresh expiries by the
 * default TTL, not the item's own, and ignore a read's `refresh_ttl`. Writes go through the
 * library (with our TTL rules, see ../store.ts), like graphs' own `getStore()` calls.
 */
import type pg from "pg";
import { containsPattern } from "../../shared/db/like.js";
import { ValidationError } from "../../shared/errors.js";
import { SqlBuilder } from "./sql.js";

export interface StoreItem {
  namespace: string[];
  key: string;
  value: unknown;
  createdAt?: Date;
  updatedAt?: Date;
  score?: number;
}

/**
 * PostgresStore keeps a namespace as its labels joined with ':' and refuses labels with LIKE
 * wildcards ('%', '_', '\') or the root "langgraph". Labels it would refuse (a 500) or mangle
 * (':' splits into two labels) are refused here with a 422 instead, so what goes in over HTTP
 * comes back out the same, and graphs can read it.
 */
export const SEPARATOR = ":";
export function checkNamespace(namespace: string[], where: (string | number)[]): void {
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
export function underPrefix(b: SqlBuilder, labels: string[] | undefined): void {
  if (!labels?.length) return;
  const path = labels.join(SEPARATOR);
  b.and(`(namespace_path = ${b.p(path)} OR starts_with(namespace_path, ${b.p(path + SEPARATOR)}))`);
}

/** The value filters PostgresStore understands: equality (nested objects by containment) and $-operators. */
export function valueFilter(b: SqlBuilder, filter: Record<string, unknown> | null | undefined): void {
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

export const NOT_EXPIRED = "(expires_at IS NULL OR expires_at > now())";

type ItemRow = { namespace_path: string; key: string; value: unknown; created_at: Date; updated_at: Date; score?: number | null };
const toItem = (r: ItemRow): StoreItem => ({
  namespace: r.namespace_path.split(SEPARATOR),
  key: r.key,
  value: r.value,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.score !== null && r.score !== undefined ? { score: Number(r.score) } : {}),
});

/** One live item; `refresh` pushes its expiry forward by its own TTL in the same statement. */
export async function getItem(pool: pg.Pool, namespace: string[], key: string, refresh: boolean): Promise<StoreItem | null> {
  const { rows } = await pool.query<ItemRow>(
    `WITH hit AS (
       SELECT namespace_path, key, value, created_at, updated_at FROM store
       WHERE namespace_path = $1 AND key = $2 AND ${NOT_EXPIRED}
     ), refreshed AS (
       UPDATE store s SET expires_at = now() + s.ttl_minutes * interval '1 minute' FROM hit
       WHERE $3 AND s.namespace_path = hit.namespace_path AND s.key = hit.key AND s.ttl_minutes IS NOT NULL
     )
     SELECT * FROM hit`,
    [namespace.join(SEPARATOR), key, refresh],
  );
  return rows[0] ? toItem(rows[0]) : null;
}

/** Push the expiry of items just read forward by their own TTLs (a search with refresh). */
export async function refreshItems(pool: pg.Pool, items: StoreItem[]): Promise<void> {
  if (items.length === 0) return;
  await pool.query(
    `UPDATE store s SET expires_at = now() + s.ttl_minutes * interval '1 minute'
     FROM unnest($1::text[], $2::text[]) AS read(namespace_path, key)
     WHERE s.namespace_path = read.namespace_path AND s.key = read.key AND s.ttl_minutes IS NOT NULL AND ${NOT_EXPIRED.replace(/expires_at/g, "s.expires_at")}`,
    [items.map((i) => i.namespace.join(SEPARATOR)), items.map((i) => i.key)],
  );
}

export async function searchItems(
  pool: pg.Pool,
  q: { namespace_prefix?: string[]; filter?: Record<string, unknown> | null; query?: string | null; limit: number; offset: number },
): Promise<StoreItem[]> {
  const b = new SqlBuilder();
  b.and(NOT_EXPIRED);
  underPrefix(b, q.namespace_prefix);
  valueFilter(b, q.filter);
  let score = "NULL::float8";
  if (q.query) {
    const text = b.p(q.query);
    const like = b.p(containsPattern(q.query));
    score = `ts_rank(to_tsvector('english', value::text), plainto_tsquery('english', ${text}))`;
    b.and(`(to_tsvector('english', value::text) @@ plainto_tsquery('english', ${text}) OR value::text ILIKE ${like})`);
  }
  const { rows } = await pool.query<ItemRow>(
    `SELECT namespace_path, key, value, created_at, updated_at, ${score} AS score FROM store ${b.whereSql()}
     ORDER BY ${q.query ? "score DESC, " : ""}updated_at DESC, namespace_path, key
     LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
    b.params,
  );
  return rows.map(toItem);
}

export async function listNamespaces(
  pool: pg.Pool,
  q: { prefix?: string[]; suffix?: string[]; max_depth?: number; limit: number; offset: number },
): Promise<string[][]> {
  const b = new SqlBuilder();
  b.and(NOT_EXPIRED);
  underPrefix(b, q.prefix);
  if (q.suffix?.length) {
    const path = q.suffix.join(SEPARATOR);
    b.and(`(namespace_path = ${b.p(path)} OR right(namespace_path, ${b.p(path.length + 1)}::int) = ${b.p(SEPARATOR + path)})`);
  }
  // max_depth truncates deeper namespaces to their first labels (and de-duplicates them).
  const ns = q.max_depth
    ? `array_to_string((string_to_array(namespace_path, '${SEPARATOR}'))[1:${b.p(q.max_depth)}::int], '${SEPARATOR}')`
    : "namespace_path";
  const { rows } = await pool.query<{ ns: string }>(
    `SELECT DISTINCT ${ns} AS ns FROM store ${b.whereSql()} ORDER BY ns LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
    b.params,
  );
  return rows.map((r) => r.ns.split(SEPARATOR));
}

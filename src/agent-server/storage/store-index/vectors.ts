/**
 * The store's embeddings, in `store_item_vectors` beside LangGraph's `store` table: one row per
 * embedded field of an item, removed with the item (foreign key, ON DELETE CASCADE — also when the
 * library's TTL sweeper deletes it).
 *
 * Vectors are kept as `real[]`, normalised to length 1, so that one format works everywhere:
 * - with pgvector (`CREATE EXTENSION vector` succeeds: a Postgres that has it, or the embedded
 *   PGlite, which loads it), similarity is pgvector's inner product on `embedding::vector(dims)`;
 * - without it (Debian's and most CI Postgres images do not ship it), the same inner product in
 *   plain SQL over the arrays. Same scores, same order; only speed differs.
 * Of unit vectors the inner product is the cosine similarity: the `score` the platform returns.
 * Switching between the two needs no data migration. Vectors of another size than `dims` (left by
 * an earlier config) are ignored by searches.
 */
import type pg from "pg";
import type { Queryable } from "../../../shared/db/index.js";
import { SqlBuilder } from "../sql.js";
import { NOT_EXPIRED, SEPARATOR, underPrefix, valueFilter, type StoreItem } from "../store-items.js";

export type VectorMode = "pgvector" | "sql";

/** Create the table (idempotent, additive) and pgvector when the server has it. */
export async function setupVectorTable(pool: pg.Pool): Promise<VectorMode> {
  await pool.query(`CREATE TABLE IF NOT EXISTS store_item_vectors (
    namespace_path text NOT NULL,
    key text NOT NULL,
    field_path text NOT NULL,
    embedding real[] NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (namespace_path, key, field_path),
    FOREIGN KEY (namespace_path, key) REFERENCES store (namespace_path, key) ON DELETE CASCADE
  )`);
  const { rows } = await pool.query<{ available: boolean; installed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available,
            EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'vector') AS installed`,
  );
  if (rows[0]?.installed) return "pgvector";
  if (!rows[0]?.available) return "sql";
  try {
    await pool.query("CREATE EXTENSION IF NOT EXISTS vector");
    return "pgvector";
  } catch {
    // available but not ours to create (needs a superuser or the database owner): plain SQL
    return "sql";
  }
}

/** Scale to length 1 (a zero vector stays zero: it is similar to nothing). */
export function normalize(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}

/** Replace an item's vectors (inside the caller's transaction, after the item row is written). */
export async function replaceVectors(client: Queryable, namespacePath: string, key: string, vectors: { path: string; embedding: number[] }[]): Promise<void> {
  await client.query("DELETE FROM store_item_vectors WHERE namespace_path = $1 AND key = $2", [namespacePath, key]);
  for (const v of vectors) {
    await client.query("INSERT INTO store_item_vectors (namespace_path, key, field_path, embedding) VALUES ($1, $2, $3, $4::real[])", [
      namespacePath,
      key,
      v.path,
      v.embedding,
    ]);
  }
}

export interface VectorQuery {
  namespace_prefix?: string[];
  filter?: Record<string, unknown> | null;
  limit: number;
  offset: number;
}

/**
 * Items under the prefix that pass the filter and have vectors, best first: an item's score is
 * its best field's (max pooling, as LangGraph's stores do). Items stored with `index: false` have
 * no vectors and are not returned by a query.
 */
export async function searchByVector(db: Queryable, mode: VectorMode, dims: number, queryVector: number[], q: VectorQuery): Promise<StoreItem[]> {
  const b = new SqlBuilder();
  b.and(NOT_EXPIRED);
  underPrefix(b, q.namespace_prefix);
  valueFilter(b, q.filter);
  const vec = b.p(queryVector);
  const d = Math.trunc(dims); // a validated integer, inlined: a type modifier cannot be a parameter
  const similarity =
    mode === "pgvector"
      ? `-(v.embedding::vector(${d}) <#> ${vec}::real[]::vector(${d}))`
      : `(SELECT sum(a::float8 * b::float8) FROM unnest(v.embedding, ${vec}::real[]) AS t(a, b))`;
  const { rows } = await db.query<{ namespace_path: string; key: string; value: unknown; created_at: Date; updated_at: Date; score: number }>(
    `WITH candidates AS (SELECT namespace_path, key, value, created_at, updated_at FROM store ${b.whereSql()})
     SELECT c.namespace_path, c.key, c.value, c.created_at, c.updated_at, best.score
     FROM candidates c
     CROSS JOIN LATERAL (
       SELECT max(${similarity}) AS score FROM store_item_vectors v
       WHERE v.namespace_path = c.namespace_path AND v.key = c.key AND cardinality(v.embedding) = ${d}
     ) best
     WHERE best.score IS NOT NULL
     ORDER BY best.score DESC, c.updated_at DESC, c.namespace_path, c.key
     LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
    b.params,
  );
  return rows.map((r) => ({
    namespace: r.namespace_path.split(SEPARATOR),
    key: r.key,
    value: r.value,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    score: Number(r.score),
  }));
}

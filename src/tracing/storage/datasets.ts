/**
 * Datasets (LangSmith's `/datasets`): one per name per tenant, with their version tags. A dataset's
 * `modified_at` is its latest version; example writes move it (storage/examples.ts). Deleting a
 * dataset takes its examples, tags and experiments (projects whose reference dataset it is).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { withTransaction } from "../../shared/db/index.js";
import { ConflictError, isUniqueViolation, NotFoundError } from "../../shared/errors.js";
import type { AsOf, Json } from "../datasets/rules.js";
import { containsPattern } from "../../shared/db/like.js";
import { collectBlobs } from "./example-attachments.js";

export interface Dataset {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  data_type: string;
  inputs_schema_definition: Json | null;
  outputs_schema_definition: Json | null;
  metadata: Json | null;
  created_at: string;
  modified_at: string;
  example_count: number;
  session_count: number;
  last_session_start_time: string | null;
}

export interface DatasetCreate {
  id?: string | null;
  name: string;
  description?: string | null;
  data_type?: string | null;
  inputs_schema_definition?: Json | null;
  outputs_schema_definition?: Json | null;
  extra?: Json | null;
}

export interface DatasetUpdate {
  name?: string | null;
  description?: string | null;
  metadata?: Json | null;
  inputs_schema_definition?: Json | null;
  outputs_schema_definition?: Json | null;
}

export interface DatasetListQuery {
  ids?: string[];
  name?: string;
  nameContains?: string;
  dataType?: string;
  /** Any of these data types (v2's repeated `data_type`). */
  dataTypes?: string[];
  metadata?: Json;
  /** Default: newest first. */
  sortBy?: DatasetSortColumn;
  desc?: boolean;
  limit: number;
  offset: number;
}

/** The columns a dataset list may be sorted by (LangSmith's `SortByDatasetColumn`). */
export const DATASET_SORT_COLUMNS = ["name", "created_at", "last_session_start_time", "example_count", "session_count", "modified_at"] as const;
export type DatasetSortColumn = (typeof DATASET_SORT_COLUMNS)[number];

/** A dataset version: the moment of a change, and the tags naming it. */
export interface DatasetVersion {
  as_of: string;
  tags: string[];
}

const SELECT = `
  SELECT d.*,
    (SELECT count(*) FROM tracing_examples e WHERE e.dataset_id = d.id AND e.valid_to IS NULL) AS example_count,
    (SELECT count(*) FROM tracing_projects p WHERE p.reference_dataset_id = d.id AND p.tenant_id = d.tenant_id) AS session_count,
    (SELECT max(p.created_at) FROM tracing_projects p WHERE p.reference_dataset_id = d.id AND p.tenant_id = d.tenant_id) AS last_session_start_time
  FROM tracing_datasets d`;

function present(r: Record<string, any>): Dataset {
  const iso = (t: unknown) => (t ? new Date(t as string).toISOString() : null);
  return {
    id: r.id,
    tenant_id: r.tenant_id,
    name: r.name,
    description: r.description,
    data_type: r.data_type,
    inputs_schema_definition: r.inputs_schema_definition,
    outputs_schema_definition: r.outputs_schema_definition,
    metadata: (r.extra?.metadata as Json | undefined) ?? null,
    created_at: iso(r.created_at)!,
    modified_at: iso(r.modified_at)!,
    example_count: Number(r.example_count ?? 0),
    session_count: Number(r.session_count ?? 0),
    last_session_start_time: iso(r.last_session_start_time),
  };
}

export class DatasetStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(tenantId: string, input: DatasetCreate): Promise<Dataset> {
    let rows: { id: string }[];
    try {
      ({ rows } = await this.pool.query(
        `INSERT INTO tracing_datasets (id, tenant_id, name, description, data_type, inputs_schema_definition, outputs_schema_definition, extra, created_at, modified_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, date_trunc('milliseconds', clock_timestamp()), date_trunc('milliseconds', clock_timestamp()))
         ON CONFLICT (tenant_id, name) DO NOTHING RETURNING id`,
        [
          input.id ?? randomUUID(),
          tenantId,
          input.name,
          input.description ?? null,
          input.data_type ?? "kv",
          json(input.inputs_schema_definition),
          json(input.outputs_schema_definition),
          JSON.stringify(input.extra ?? {}),
        ],
      ));
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(`a dataset with id ${input.id} already exists`);
      throw err;
    }
    if (!rows[0]) throw new ConflictError(`a dataset named "${input.name}" already exists`);
    return this.get(tenantId, rows[0].id);
  }

  async get(tenantId: string, id: string): Promise<Dataset> {
    const { rows } = await this.pool.query(`${SELECT} WHERE d.tenant_id = $1 AND d.id = $2`, [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Dataset ${id} not found.`);
    return present(rows[0]);
  }

  async list(tenantId: string, q: DatasetListQuery): Promise<Dataset[]> {
    // the column name comes from a fixed list, never from the request text
    const sortBy: DatasetSortColumn = q.sortBy && DATASET_SORT_COLUMNS.includes(q.sortBy) ? q.sortBy : "created_at";
    const dir = (q.desc ?? true) ? "DESC" : "ASC";
    const { rows } = await this.pool.query(
      `SELECT * FROM (${SELECT} WHERE d.tenant_id = $1 AND ($2::uuid[] IS NULL OR d.id = ANY($2)) AND ($3::text IS NULL OR d.name = $3)
         AND ($4::text IS NULL OR d.name ILIKE $4)
         AND ($5::text IS NULL OR d.data_type = $5) AND ($6::jsonb IS NULL OR d.extra->'metadata' @> $6)
         AND ($9::text[] IS NULL OR d.data_type = ANY($9))) d
       ORDER BY d.${sortBy} ${dir} NULLS LAST, d.id ${dir} LIMIT $7 OFFSET $8`,
      [tenantId, q.ids ?? null, q.name ?? null, q.nameContains === undefined ? null : containsPattern(q.nameContains), q.dataType ?? null, q.metadata ? JSON.stringify(q.metadata) : null, q.limit, q.offset, q.dataTypes ?? null],
    );
    return rows.map(present);
  }

  /** Change the fields given; null or absent leaves a field as it is (the SDK sends only what changes). */
  async update(tenantId: string, id: string, patch: DatasetUpdate): Promise<Dataset> {
    const sets: string[] = [];
    const values: unknown[] = [tenantId, id];
    const set = (sql: string, v: unknown) => {
      values.push(v);
      sets.push(sql.replace("$?", `$${values.length}`));
    };
    if (patch.name) set("name = $?", patch.name);
    if (patch.description !== undefined && patch.description !== null) set("description = $?", patch.description);
    if (patch.metadata) set("extra = jsonb_set(extra, '{metadata}', $?::jsonb)", JSON.stringify(patch.metadata));
    if (patch.inputs_schema_definition) set("inputs_schema_definition = $?", JSON.stringify(patch.inputs_schema_definition));
    if (patch.outputs_schema_definition) set("outputs_schema_definition = $?", JSON.stringify(patch.outputs_schema_definition));
    if (sets.length) {
      try {
        const { rowCount } = await this.pool.query(`UPDATE tracing_datasets SET ${sets.join(", ")} WHERE tenant_id = $1 AND id = $2`, values);
        if (!rowCount) throw new NotFoundError(`Dataset ${id} not found.`);
      } catch (err) {
        if (isUniqueViolation(err)) throw new ConflictError(`a dataset named "${patch.name}" already exists`);
        throw err;
      }
    }
    return this.get(tenantId, id);
  }

  /** Delete a dataset, its examples and tags, and its experiments with their runs and feedback. */
  async delete(tenantId: string, id: string): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query("DELETE FROM tracing_datasets WHERE tenant_id = $1 AND id = $2", [tenantId, id]);
      if (!rowCount) throw new NotFoundError(`Dataset ${id} not found.`);
      await client.query("DELETE FROM tracing_projects WHERE tenant_id = $1 AND reference_dataset_id = $2", [tenantId, id]);
    });
    // the examples' files go with them, unless another example still uses the same bytes
    await collectBlobs(this.pool, tenantId);
  }

  /** The moment an `as_of` names: undefined for the latest version; 404 for an unknown tag. */
  async resolveAsOf(tenantId: string, datasetId: string, asOf: AsOf): Promise<Date | undefined> {
    if (asOf.kind === "latest") return undefined;
    if (asOf.kind === "time") return asOf.at;
    const { rows } = await this.pool.query<{ as_of: Date }>(
      "SELECT t.as_of FROM tracing_dataset_tags t JOIN tracing_datasets d ON d.id = t.dataset_id WHERE d.tenant_id = $1 AND d.id = $2 AND t.tag = $3",
      [tenantId, datasetId, asOf.tag],
    );
    if (!rows[0]) throw new NotFoundError(`Dataset ${datasetId} has no version tagged "${asOf.tag}".`);
    return rows[0].as_of;
  }

  /** Every version of a dataset (its creation and each change), newest first. */
  async versions(tenantId: string, datasetId: string, limit: number, offset: number): Promise<DatasetVersion[]> {
    await this.get(tenantId, datasetId);
    const { rows } = await this.pool.query<{ at: Date; tags: string[] }>(
      `WITH changes AS (
         SELECT created_at AS at FROM tracing_datasets WHERE id = $1
         UNION SELECT valid_from FROM tracing_examples WHERE dataset_id = $1
         UNION SELECT valid_to FROM tracing_examples WHERE dataset_id = $1 AND valid_to IS NOT NULL
       )
       SELECT c.at, coalesce(array_agg(t.tag ORDER BY t.tag) FILTER (WHERE t.tag IS NOT NULL), '{}') AS tags
       FROM changes c LEFT JOIN tracing_dataset_tags t ON t.dataset_id = $1 AND t.as_of = c.at
       GROUP BY c.at ORDER BY c.at DESC LIMIT $2 OFFSET $3`,
      [datasetId, limit, offset],
    );
    return rows.map((r) => ({ as_of: new Date(r.at).toISOString(), tags: r.tags }));
  }

  /** The version in effect at `at` (the latest change at or before it), or the one a tag names. */
  async version(tenantId: string, datasetId: string, at: Date): Promise<DatasetVersion> {
    const d = await this.get(tenantId, datasetId);
    const { rows } = await this.pool.query<{ at: Date | null }>(
      `SELECT max(x) AS at FROM (
         SELECT max(valid_from) AS x FROM tracing_examples WHERE dataset_id = $1 AND valid_from <= $2
         UNION ALL SELECT max(valid_to) FROM tracing_examples WHERE dataset_id = $1 AND valid_to <= $2
       ) v`,
      [datasetId, at],
    );
    const found = rows[0]?.at ?? (new Date(d.created_at) <= at ? new Date(d.created_at) : null);
    if (!found) throw new NotFoundError(`Dataset ${datasetId} did not exist at ${at.toISOString()}.`);
    const tags = await this.pool.query<{ tag: string }>("SELECT tag FROM tracing_dataset_tags WHERE dataset_id = $1 AND as_of = $2 ORDER BY tag", [datasetId, found]);
    return { as_of: new Date(found).toISOString(), tags: tags.rows.map((r) => r.tag) };
  }

  /** Name a version (moving the tag if it named another); `as_of` must be an exact version. */
  async tag(tenantId: string, datasetId: string, asOf: Date, tag: string): Promise<DatasetVersion> {
    const v = await this.version(tenantId, datasetId, asOf);
    if (new Date(v.as_of).getTime() !== asOf.getTime()) {
      throw new NotFoundError(`Dataset ${datasetId} has no version at ${asOf.toISOString()} (the version in effect then is ${v.as_of}): tag an exact version, as readDatasetVersion gives it.`);
    }
    await this.pool.query(
      "INSERT INTO tracing_dataset_tags (dataset_id, tag, as_of) VALUES ($1, $2, $3) ON CONFLICT (dataset_id, tag) DO UPDATE SET as_of = excluded.as_of",
      [datasetId, tag, asOf],
    );
    return this.version(tenantId, datasetId, asOf);
  }
}

function json(v: unknown): string | null {
  return v === undefined || v === null ? null : JSON.stringify(v);
}

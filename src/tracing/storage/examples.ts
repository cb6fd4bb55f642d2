/**
 * Examples of datasets, versioned. Every write (a batch of creates, changes or deletes) happens in
 * one transaction at one new version time of its dataset: the dataset row is locked, the version is
 * the current time in milliseconds (what the SDK's `toISOString()` can name exactly), and at least
 * 1 ms after the previous version, so versions are distinct and ordered. Old states stay readable
 * with `as_of` (see the table's comment in migrations.ts).
 */
import type pg from "pg";
import { withTransaction } from "../../shared/db/index.js";
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from "../../shared/errors.js";
import { exampleFilterSql } from "../query/filter.js";
import { applyMetadataOperation, changedState, initialState, SPLIT_KEY, type ExampleChange, type ExampleCreate, type ExampleState, type Json, type MetadataOperation } from "../datasets/rules.js";
import { nextAttachments, type AttachmentRef, type AttachmentsOperations, type AttachmentUpload } from "../datasets/attachments.js";
import { collectBlobs, refKey, refsOf, writeBlobs, writeRefs } from "./example-attachments.js";
import { runsByIdSql } from "./runs.js";

export interface Example {
  id: string;
  dataset_id: string;
  inputs: Json;
  outputs: Json | null;
  metadata: Json;
  source_run_id: string | null;
  created_at: string;
  modified_at: string;
  runs: unknown[];
  /** The files of this version (the API turns them into signed links). */
  attachments: AttachmentRef[];
}

/** Files sent with a create or a change (multipart uploads). */
export interface WithFiles {
  attachments?: AttachmentUpload[];
  /** Changes only: which current files to keep or rename (attachments.ts: nextAttachments). */
  attachments_operations?: AttachmentsOperations;
}

export interface ExampleListQuery {
  datasetId: string;
  /** undefined: the latest version. */
  asOf?: Date;
  ids?: string[];
  splits?: string[];
  metadata?: Json;
  /** A LangSmith filter expression (query/filter.ts), e.g. `and(has(metadata, '{"k": "v"}'), exists(metadata, "x"))`. */
  filter?: string;
  limit: number;
  offset: number;
}

export interface DatasetDiff {
  examples_added: string[];
  examples_modified: string[];
  examples_removed: string[];
}

export type { MetadataOperation };

/** What a bulk metadata change did to each example asked for, in request order. */
export type MetadataStatus = { id: string; status: "UPDATED" | "NOT_FOUND" };

function present(r: Record<string, any>, files: Map<string, AttachmentRef[]>): Example {
  return {
    id: r.id,
    dataset_id: r.dataset_id,
    inputs: r.inputs,
    outputs: r.outputs,
    metadata: r.metadata,
    source_run_id: r.source_run_id,
    created_at: new Date(r.created_at).toISOString(),
    modified_at: new Date(r.valid_from).toISOString(),
    runs: [],
    attachments: files.get(refKey(r.id, r.valid_from)) ?? [],
  };
}

/** Rows valid at `$n` (a timestamptz parameter, or NULL for the current ones). */
const validAt = (n: number, alias = "e") => `(CASE WHEN $${n}::timestamptz IS NULL THEN ${alias}.valid_to IS NULL ELSE ${alias}.valid_from <= $${n} AND (${alias}.valid_to IS NULL OR ${alias}.valid_to > $${n}) END)`;

export class ExampleStore {
  constructor(private readonly pool: pg.Pool) {}

  /** Create examples (ids must be new) at one new version of the dataset. */
  async create(tenantId: string, datasetId: string, items: (ExampleCreate & WithFiles)[], fromRuns = new Map<string, { inputs: Json; outputs: Json | null }>()): Promise<string[]> {
    assertDistinct(items.map((i) => i.id));
    return this.write(tenantId, datasetId, async (client, version) => {
      const ids = items.map((i) => i.id);
      const taken = await client.query<{ id: string }>("SELECT DISTINCT id FROM tracing_examples WHERE id = ANY($1::uuid[])", [ids]);
      if (taken.rows.length) throw new ConflictError(`examples with these ids already exist: ${taken.rows.map((r) => r.id).join(", ")}`);
      for (const item of items) {
        const fromRun = item.source_run_id ? fromRuns.get(item.id) : undefined;
        const state = initialState(fromRun ? { ...item, inputs: fromRun.inputs, outputs: fromRun.outputs } : item);
        await insertState(client, tenantId, datasetId, item.id, version, item.created_at ? new Date(item.created_at) : version, state);
        const files = item.attachments ?? [];
        await writeBlobs(client, tenantId, files);
        await writeRefs(client, tenantId, { id: item.id, valid_from: version }, nextAttachments([], files, undefined) as AttachmentRef[]);
      }
      return ids;
    });
  }

  /** Change examples of the dataset (each must exist now) at one new version. */
  async change(tenantId: string, datasetId: string, changes: (ExampleChange & WithFiles)[]): Promise<string[]> {
    assertDistinct(changes.map((c) => c.id));
    return this.write(tenantId, datasetId, async (client, version) => {
      const current = await this.currentRows(client, tenantId, datasetId, changes.map((c) => c.id));
      const files = await refsOf(client, tenantId, [...current.values()].map((r) => ({ id: r.id, valid_from: r.valid_from })));
      for (const c of changes) {
        const row = current.get(c.id)!;
        const next = nextAttachments(files.get(refKey(row.id, row.valid_from)) ?? [], c.attachments ?? [], c.attachments_operations);
        if (typeof next === "string") throw ValidationError.field(["body", `${c.id}.attachments_operations`], next);
        await writeBlobs(client, tenantId, c.attachments ?? []);
        await replaceState(client, tenantId, datasetId, row, version, changedState(stateOf(row), c), next);
      }
      return changes.map((c) => c.id);
    });
  }

  /**
   * Apply metadata operations (splits: `dataset_split`) to examples of the dataset, together at one
   * new version. `skipMissing`: examples not current in the dataset are left out and reported
   * NOT_FOUND (LangSmith's bulk endpoint); otherwise any of them fails the whole change with a 404.
   */
  async operateOnMetadata(tenantId: string, datasetId: string, ids: string[], operations: MetadataOperation[], skipMissing = false): Promise<MetadataStatus[]> {
    const unique = [...new Set(ids)];
    const found = await this.write(tenantId, datasetId, async (client, version) => {
      const current = await this.currentRows(client, tenantId, datasetId, unique, skipMissing);
      const files = await refsOf(client, tenantId, [...current.values()].map((r) => ({ id: r.id, valid_from: r.valid_from })));
      for (const row of current.values()) {
        const state = stateOf(row);
        const metadata = operations.reduce(applyMetadataOperation, state.metadata);
        await replaceState(client, tenantId, datasetId, row, version, { ...state, metadata }, files.get(refKey(row.id, row.valid_from)) ?? []);
      }
      return current;
    });
    return ids.map((id) => ({ id, status: found.has(id) ? "UPDATED" : "NOT_FOUND" }));
  }

  /**
   * Soft-delete one example of a dataset (LangSmith's per-dataset delete). Deleting an example
   * already deleted succeeds without a new version; one the dataset never had is a 404.
   */
  async deleteInDataset(tenantId: string, datasetId: string, id: string): Promise<void> {
    const { rows } = await this.pool.query<{ current: boolean }>(
      "SELECT bool_or(valid_to IS NULL) AS current FROM tracing_examples WHERE tenant_id = $1 AND dataset_id = $2 AND id = $3 HAVING count(*) > 0",
      [tenantId, datasetId, id],
    );
    if (!rows[0]) {
      await this.assertDataset(tenantId, datasetId);
      throw new NotFoundError(`Example ${id} not found in dataset ${datasetId}.`);
    }
    if (!rows[0].current) return;
    await this.write(tenantId, datasetId, (client, version) =>
      client.query("UPDATE tracing_examples SET valid_to = $3 WHERE tenant_id = $1 AND id = $2 AND valid_to IS NULL", [tenantId, id, version]),
    );
  }

  private async assertDataset(tenantId: string, datasetId: string): Promise<void> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM tracing_datasets WHERE tenant_id = $1 AND id = $2", [tenantId, datasetId]);
    if (!rowCount) throw new NotFoundError(`Dataset ${datasetId} not found.`);
  }

  /**
   * Delete examples, wherever they are. Soft: their current state ends at a new version of their
   * dataset (older versions still show them). Hard: every state of them is gone.
   */
  async delete(tenantId: string, ids: string[], hard = false): Promise<void> {
    const unique = [...new Set(ids)];
    if (!unique.length) return;
    const { rows } = await this.pool.query<{ id: string; dataset_id: string }>(
      `SELECT DISTINCT id, dataset_id FROM tracing_examples WHERE tenant_id = $1 AND id = ANY($2::uuid[]) ${hard ? "" : "AND valid_to IS NULL"}`,
      [tenantId, unique],
    );
    const missing = unique.filter((id) => !rows.some((r) => r.id === id));
    if (missing.length) throw new NotFoundError(`Examples not found: ${missing.join(", ")}.`);
    const byDataset = new Map<string, string[]>();
    for (const r of rows) byDataset.set(r.dataset_id, [...(byDataset.get(r.dataset_id) ?? []), r.id]);
    for (const [datasetId, list] of byDataset) {
      await this.write(tenantId, datasetId, async (client, version) => {
        if (hard) await client.query("DELETE FROM tracing_examples WHERE tenant_id = $1 AND id = ANY($2::uuid[])", [tenantId, list]);
        else await client.query("UPDATE tracing_examples SET valid_to = $3 WHERE tenant_id = $1 AND id = ANY($2::uuid[]) AND valid_to IS NULL", [tenantId, list, version]);
        return list;
      });
    }
    // the versions are gone with their references: so are the bytes only they used
    if (hard) await collectBlobs(this.pool, tenantId);
  }

  /** One example, now or as of a moment. */
  async get(tenantId: string, id: string, asOf?: Date): Promise<Example> {
    const { rows } = await this.pool.query(`SELECT * FROM tracing_examples e WHERE e.tenant_id = $1 AND e.id = $2 AND ${validAt(3)}`, [tenantId, id, asOf ?? null]);
    if (!rows[0]) throw new NotFoundError(`Example ${id} not found${asOf ? ` as of ${asOf.toISOString()}` : ""}.`);
    return present(rows[0], await refsOf(this.pool, tenantId, [{ id: rows[0].id, valid_from: rows[0].valid_from }]));
  }

  /** The dataset of an example that exists now (for changes that name only the example). */
  async datasetOf(tenantId: string, id: string): Promise<string> {
    const { rows } = await this.pool.query<{ dataset_id: string }>("SELECT dataset_id FROM tracing_examples WHERE tenant_id = $1 AND id = $2 AND valid_to IS NULL", [tenantId, id]);
    if (!rows[0]) throw new NotFoundError(`Example ${id} not found.`);
    return rows[0].dataset_id;
  }

  /** Examples of a dataset, oldest first, as of a version, filtered by ids, splits and metadata. */
  async list(tenantId: string, q: ExampleListQuery): Promise<Example[]> {
    const values: unknown[] = [tenantId, q.datasetId, q.asOf ?? null, q.ids ?? null, q.splits ?? null, q.metadata ? JSON.stringify(q.metadata) : null, q.limit, q.offset];
    const bind = (v: unknown) => `$${values.push(v)}`;
    const filter = q.filter === undefined ? "" : `AND ${exampleFilterSql(q.filter, "e", bind)}`;
    const { rows } = await this.pool.query(
      `SELECT * FROM tracing_examples e WHERE e.tenant_id = $1 AND e.dataset_id = $2 AND ${validAt(3)}
         AND ($4::uuid[] IS NULL OR e.id = ANY($4)) AND ($5::text[] IS NULL OR e.metadata->'${SPLIT_KEY}' ?| $5)
         AND ($6::jsonb IS NULL OR e.metadata @> $6) ${filter}
       ORDER BY e.created_at, e.id LIMIT $7 OFFSET $8`,
      values,
    );
    const files = await refsOf(this.pool, tenantId, rows.map((r) => ({ id: r.id, valid_from: r.valid_from })));
    return rows.map((r) => present(r, files));
  }

  /** The splits used by a dataset's examples at a version. */
  async splits(tenantId: string, datasetId: string, asOf?: Date): Promise<string[]> {
    const { rows } = await this.pool.query<{ split: string }>(
      `SELECT DISTINCT s.split FROM tracing_examples e,
         LATERAL jsonb_array_elements_text(CASE jsonb_typeof(e.metadata->'${SPLIT_KEY}') WHEN 'array' THEN e.metadata->'${SPLIT_KEY}' ELSE '[]'::jsonb END) AS s(split)
       WHERE e.tenant_id = $1 AND e.dataset_id = $2 AND ${validAt(3)} ORDER BY s.split`,
      [tenantId, datasetId, asOf ?? null],
    );
    return rows.map((r) => r.split);
  }

  /** Which examples were added, changed or removed between two versions. */
  async diff(tenantId: string, datasetId: string, from: Date | undefined, to: Date | undefined): Promise<DatasetDiff> {
    const { rows } = await this.pool.query<{ id: string; a: Date | null; b: Date | null }>(
      `SELECT coalesce(a.id, b.id) AS id, a.valid_from AS a, b.valid_from AS b FROM
         (SELECT id, valid_from FROM tracing_examples e WHERE e.tenant_id = $1 AND e.dataset_id = $2 AND ${validAt(3)}) a
         FULL JOIN (SELECT id, valid_from FROM tracing_examples e WHERE e.tenant_id = $1 AND e.dataset_id = $2 AND ${validAt(4)}) b ON a.id = b.id
       WHERE a.valid_from IS DISTINCT FROM b.valid_from ORDER BY 1`,
      [tenantId, datasetId, from ?? null, to ?? null],
    );
    return {
      examples_added: rows.filter((r) => !r.a).map((r) => r.id),
      examples_modified: rows.filter((r) => r.a && r.b).map((r) => r.id),
      examples_removed: rows.filter((r) => !r.b).map((r) => r.id),
    };
  }

  /** Inputs and outputs of runs of the tenant (examples created from runs). */
  async runPayloads(tenantId: string, runIds: string[]): Promise<Map<string, { inputs: Json; outputs: Json | null }>> {
    if (!runIds.length) return new Map();
    const { rows } = await this.pool.query<{ id: string; inputs: Json | null; outputs: Json | null }>(runsByIdSql("r.id, r.inputs, r.outputs"), [tenantId, [...new Set(runIds)]]);
    return new Map(rows.map((r) => [r.id, { inputs: r.inputs ?? {}, outputs: r.outputs }]));
  }

  /** Run `work` at a new version of the dataset (locked for the transaction), then record that version. */
  private async write<T>(tenantId: string, datasetId: string, work: (client: pg.PoolClient, version: Date) => Promise<T>): Promise<T> {
    return withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ version: Date }>(
        `SELECT greatest(date_trunc('milliseconds', clock_timestamp()), modified_at + interval '1 millisecond') AS version
         FROM tracing_datasets WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
        [tenantId, datasetId],
      );
      if (!rows[0]) throw new NotFoundError(`Dataset ${datasetId} not found.`);
      const version = rows[0].version;
      const out = await work(client, version);
      await client.query("UPDATE tracing_datasets SET modified_at = $2 WHERE id = $1", [datasetId, version]);
      return out;
    });
  }

  private async currentRows(client: pg.PoolClient, tenantId: string, datasetId: string, ids: string[], skipMissing = false): Promise<Map<string, Record<string, any>>> {
    const { rows } = await client.query("SELECT * FROM tracing_examples WHERE tenant_id = $1 AND dataset_id = $2 AND id = ANY($3::uuid[]) AND valid_to IS NULL FOR UPDATE", [tenantId, datasetId, ids]);
    const byId = new Map(rows.map((r) => [r.id as string, r]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length && !skipMissing) throw new NotFoundError(`Examples not found in dataset ${datasetId}: ${missing.join(", ")}.`);
    return byId;
  }
}

function assertDistinct(ids: string[]): void {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new BadRequestError(`example ${id} appears twice in one request`);
    seen.add(id);
  }
}

function stateOf(r: Record<string, any>): ExampleState {
  return { inputs: r.inputs, outputs: r.outputs, metadata: r.metadata ?? {}, source_run_id: r.source_run_id };
}

async function insertState(client: pg.PoolClient, tenantId: string, datasetId: string, id: string, version: Date, createdAt: Date, s: ExampleState): Promise<void> {
  await client.query(
    `INSERT INTO tracing_examples (tenant_id, dataset_id, id, valid_from, created_at, inputs, outputs, metadata, source_run_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [tenantId, datasetId, id, version, createdAt, JSON.stringify(s.inputs), s.outputs === null ? null : JSON.stringify(s.outputs), JSON.stringify(s.metadata), s.source_run_id],
  );
}

/** A new version of an example, with the files it has from then on (the old version keeps its own). */
async function replaceState(client: pg.PoolClient, tenantId: string, datasetId: string, row: Record<string, any>, version: Date, s: ExampleState, files: AttachmentRef[]): Promise<void> {
  await client.query("UPDATE tracing_examples SET valid_to = $2 WHERE id = $1 AND valid_to IS NULL", [row.id, version]);
  await insertState(client, tenantId, datasetId, row.id, version, new Date(row.created_at), s);
  await writeRefs(client, tenantId, { id: row.id, valid_from: version }, files);
}

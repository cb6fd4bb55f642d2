/** Stored runs: the row shape, its mapping to and from `RunRecord`, and batch upserts. */
import { prepared, type Queryable } from "../../shared/db/index.js";
import type { Json, RunRecord } from "../run.js";
import type { RunFacts } from "../rollups/contribution.js";
import { jsonText } from "../ingest/raw-json.js";
import { copyRows, type CopyType } from "./copy-rows.js";

/** A run row as stored (numeric columns come back from pg as strings; `fromRow` fixes that). */
export interface RunRow extends RunFacts {
  tenant_id: string;
  id: string;
  project_id: string;
  trace_id: string;
  parent_run_id: string | null;
  dotted_order: string | null;
  name: string;
  run_type: string;
  status: string;
  start_time: string | null;
  end_time: string | null;
  inputs: Json | null;
  outputs: Json | null;
  error: string | null;
  extra: Json | null;
  events: Json[] | null;
  tags: string[] | null;
  serialized: Json | null;
  session_name: string | null;
  session_id: string | null;
  reference_example_id: string | null;
  client_fields: Json | null;
  thread_id: string | null;
  model: string | null;
  provider: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  total_tokens: number | null;
  input_token_details: Json | null;
  output_token_details: Json | null;
  usage_estimated: boolean;
  input_cost: number | null;
  output_cost: number | null;
  total_cost: number | null;
  input_cost_details: Json | null;
  output_cost_details: Json | null;
  cost_source: string | null;
  cost_reason: string | null;
  price_id: string | null;
  first_token_time: string | null;
  ttft_ms: number | null;
  problems: string[] | null;
  created_at?: string;
  updated_at?: string;
}

const CLIENT_FIELDS = ["first_token_time", "prompt_tokens", "completion_tokens", "total_tokens", "prompt_cost", "completion_cost", "total_cost"] as const;

/** The run as received, rebuilt from its row (for merging a later post or patch). */
export function rowToRecord(row: RunRow): RunRecord {
  const r: RunRecord = { id: row.id };
  const set = <K extends keyof RunRecord>(k: K, v: RunRecord[K] | null | undefined) => {
    if (v !== null && v !== undefined) r[k] = v;
  };
  set("trace_id", row.trace_id);
  r.parent_run_id = row.parent_run_id;
  set("dotted_order", row.dotted_order);
  set("name", row.name);
  set("run_type", row.run_type);
  set("start_time", row.start_time ? new Date(row.start_time).toISOString() : undefined);
  set("end_time", row.end_time ? new Date(row.end_time).toISOString() : undefined);
  set("inputs", row.inputs);
  set("outputs", row.outputs);
  set("error", row.error);
  set("extra", row.extra);
  set("events", row.events as RunRecord["events"]);
  set("tags", row.tags);
  set("serialized", row.serialized);
  set("session_name", row.session_name);
  set("session_id", row.session_id);
  set("reference_example_id", row.reference_example_id);
  for (const k of CLIENT_FIELDS) if (row.client_fields?.[k] !== undefined) (r as Json)[k] = row.client_fields[k];
  // fields the server derived (from dotted_order) are not the client's: a later post may set them
  for (const k of (row.client_fields?.derived as string[] | undefined) ?? []) delete (r as Json)[k];
  return r;
}

export function clientFieldsOf(run: RunRecord, derived: string[] = []): Json | null {
  const out: Json = derived.length ? { derived } : {};
  for (const k of CLIENT_FIELDS) if (run[k] !== undefined) out[k] = run[k];
  return Object.keys(out).length ? out : null;
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/** Numeric columns arrive as strings (pg keeps numeric exact); timestamps as Dates. */
export function fromRow(row: Record<string, any>): RunRow {
  const iso = (v: unknown) => (v instanceof Date ? v.toISOString() : (v as string | null));
  return {
    ...row,
    start_time: iso(row.start_time),
    end_time: iso(row.end_time),
    first_token_time: iso(row.first_token_time),
    created_at: iso(row.created_at) ?? undefined,
    updated_at: iso(row.updated_at) ?? undefined,
    input_tokens: num(row.input_tokens),
    output_tokens: num(row.output_tokens),
    total_tokens: num(row.total_tokens),
    input_cost: num(row.input_cost),
    output_cost: num(row.output_cost),
    total_cost: num(row.total_cost),
    ttft_ms: num(row.ttft_ms),
  } as RunRow;
}

/** Columns written on upsert, with their SQL types (for jsonb_to_recordset and COPY). */
const COLUMNS: [keyof RunRow, CopyType][] = [
  ["tenant_id", "uuid"],
  ["id", "uuid"],
  ["project_id", "uuid"],
  ["trace_id", "uuid"],
  ["parent_run_id", "uuid"],
  ["dotted_order", "text"],
  ["name", "text"],
  ["run_type", "text"],
  ["status", "text"],
  ["start_time", "timestamptz"],
  ["end_time", "timestamptz"],
  ["inputs", "jsonb"],
  ["outputs", "jsonb"],
  ["error", "text"],
  ["extra", "jsonb"],
  ["events", "jsonb"],
  ["tags", "text[]"],
  ["serialized", "jsonb"],
  ["session_name", "text"],
  ["session_id", "uuid"],
  ["reference_example_id", "uuid"],
  ["client_fields", "jsonb"],
  ["thread_id", "text"],
  ["model", "text"],
  ["provider", "text"],
  ["input_tokens", "bigint"],
  ["output_tokens", "bigint"],
  ["total_tokens", "bigint"],
  ["input_token_details", "jsonb"],
  ["output_token_details", "jsonb"],
  ["usage_estimated", "boolean"],
  ["input_cost", "numeric"],
  ["output_cost", "numeric"],
  ["total_cost", "numeric"],
  ["input_cost_details", "jsonb"],
  ["output_cost_details", "jsonb"],
  ["cost_source", "text"],
  ["cost_reason", "text"],
  ["price_id", "text"],
  ["first_token_time", "timestamptz"],
  ["ttft_ms", "double precision"],
  ["problems", "text[]"],
];

const KEYS = COLUMNS.map(([c]) => [c, `${JSON.stringify(c)}:`] as const);

const RECORDSET = `jsonb_to_recordset($1::jsonb) AS x(${COLUMNS.map(([c, t]) => `${c} ${t}`).join(", ")})`;
const INSERT_SQL = `INSERT INTO tracing_runs (${COLUMNS.map(([c]) => c).join(", ")}) SELECT ${COLUMNS.map(([c]) => c).join(", ")} FROM ${RECORDSET}`;
const UPDATE_SQL = `
  UPDATE tracing_runs AS r SET
    ${COLUMNS.filter(([c]) => c !== "tenant_id" && c !== "id")
      .map(([c]) => `${c} = x.${c}`)
      .join(",\n    ")},
    updated_at = now()
  FROM ${RECORDSET}
  WHERE r.tenant_id = x.tenant_id AND r.id = x.id`;

/**
 * Rows per statement at most, and JSON text per statement at most (a row's text may be larger):
 * jsonb_to_recordset materialises its whole result before the INSERT reads it, and past work_mem
 * that goes to a temporary file. Measured (pg backend CPU per row, the bench's rows): 35-45 µs at
 * 100-200 rows a statement, 65 at 1,000, 125-195 at 2,000; a merge holds up to thousands of runs.
 */
const CHUNK_ROWS = 200;
const CHUNK_CHARS = 1 << 20;

/**
 * Write merged runs. The caller holds the runs' ingest locks and read which already exist, so new
 * ones are plain inserts (no speculative ON CONFLICT insertion) and the others plain updates.
 * With `copy` (a client of a real Postgres: not the embedded database's bridge), new runs go in
 * with COPY (storage/copy-rows.ts: about half the backend's CPU of the INSERT).
 */
export async function writeRuns(db: Queryable, rows: RunRow[], existing: Set<string>, usePrepared = false, copy = false): Promise<void> {
  // Absent keys read as NULL: leaving the (many) null columns out shortens the statement a lot.
  // Written by hand so a payload goes in as the text it was sent as (ingest/raw-json.ts).
  const write = async (name: string, sql: string, list: RunRow[]) => {
    let chunk: string[] = [];
    let chars = 0;
    const flush = async () => {
      if (!chunk.length) return;
      const text = `[${chunk.join(",")}]`;
      chunk = [];
      chars = 0;
      await db.query(prepared(usePrepared, name, sql, [text]));
    };
    for (const r of list) {
      const fields: string[] = [];
      for (const [c, key] of KEYS) {
        const v = r[c];
        if (v !== null && v !== undefined) fields.push(key + jsonText(v));
      }
      const row = `{${fields.join(",")}}`;
      if (chunk.length && (chunk.length >= CHUNK_ROWS || chars + row.length > CHUNK_CHARS)) await flush();
      chunk.push(row);
      chars += row.length;
    }
    await flush();
  };
  const fresh = rows.filter((r) => !existing.has(r.id));
  const known = rows.filter((r) => existing.has(r.id));
  if (fresh.length && copy && "release" in db) await copyRows(db, "tracing_runs", fresh, COLUMNS);
  else if (fresh.length) await write("berth_tracing_insert_runs", INSERT_SQL, fresh);
  if (known.length) await write("berth_tracing_update_runs", UPDATE_SQL, known);
}

/**
 * `columns` of a tenant's runs by id ($1 the tenant, $2 the ids, distinct): one primary-key probe
 * per id, whatever the statistics say. Written as `tenant_id = $1 AND id = ANY($2)`, the planner
 * on a table never analyzed yet (a new deployment's first minute under load, a restored dump)
 * takes `tenant_id = $1` for 0.5% of the rows and reads every run of the tenant through
 * tracing_runs_trace, filtering by id: each merge's lookup grew with the table (bench: the
 * merge's Postgres CPU per run went 58 → 190 µs over 240k runs until autovacuum analyzed it).
 * The fence (OFFSET 0) keeps the per-id lookup from being flattened into a join the planner may
 * run as a hash join over that same scan.
 */
export function runsByIdSql(columns: string): string {
  return `SELECT ${columns} FROM unnest($2::uuid[]) AS k(id) CROSS JOIN LATERAL (SELECT * FROM tracing_runs WHERE tenant_id = $1 AND id = k.id OFFSET 0) AS r`;
}

/**
 * Not a prepared statement: a `SELECT *` prepared before a migration adds a column fails ("cached
 * plan must not change result type") in a process still running the old code.
 */
export async function selectRuns(db: Queryable, tenantId: string, ids: string[]): Promise<RunRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query(runsByIdSql("r.*"), [tenantId, ids]);
  return rows.map(fromRow);
}

/**
 * Several checkpoint writes (checkpoints with their channel values, tasks' writes) as one
 * statement of fixed text: each table's rows go as one array per column and are inserted with
 * `unnest`, so the text does not depend on how many rows there are and is prepared once
 * (checkpoint-write-behind.ts sends batches; storage/runs.ts `finish` puts one in front of the
 * run's end).
 *
 * What is stored is what the writes one after another would store (checkpoint-writes.ts, the
 * library's rules): channel values and plain writes keep the first row of a key (DO NOTHING),
 * checkpoints and special-channel writes the last (DO UPDATE). One INSERT cannot touch a row
 * twice, so rows with the same key are resolved here, in the order the writes were made, and
 * each key is sent once.
 */
import type { BlobRow, WriteRow } from "./checkpoint-writes.js";

/** One checkpoint write as the saver prepared it. */
export type CheckpointWrite =
  | {
      kind: "checkpoint";
      threadId: string;
      ns: string;
      id: string;
      parentId: string | undefined;
      /** JSON text of the stored checkpoint and metadata. */
      checkpoint: string;
      metadata: string;
      blobs: BlobRow[];
    }
  | { kind: "writes"; rows: WriteRow[]; upsert: boolean };

/** Parameters a batch takes, in order (see `batchCtes`). */
export const BATCH_PARAMS = 28;

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const bytes = (b: Uint8Array | undefined) => (b === undefined ? null : Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/**
 * The batch's CTEs, `blobs_in, checkpoints_in, writes_replaced, writes_kept`, reading parameters
 * `$first` … `$first + 27`; every row is inserted only where `guard` (SQL) holds.
 */
export function batchCtes(schema: string, first: number, guard = "true"): string {
  const s = quoteIdent(schema);
  const p = (i: number, type: string) => `$${first + i}::${type}[]`;
  const cols = (from: number, types: string[]) => types.map((t, i) => p(from + i, t)).join(", ");
  const writeTypes = ["text", "text", "text", "text", "int4", "text", "text", "bytea"];
  return `blobs_in AS (
       INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
       SELECT * FROM unnest(${cols(0, ["text", "text", "text", "text", "text", "bytea"])}) WHERE ${guard}
       ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
     ), checkpoints_in AS (
       INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       SELECT * FROM unnest(${cols(6, ["text", "text", "text", "text", "jsonb", "jsonb"])}) WHERE ${guard}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
     ), writes_replaced AS (
       INSERT INTO ${s}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       SELECT * FROM unnest(${cols(12, writeTypes)}) WHERE ${guard}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob
     ), writes_kept AS (
       INSERT INTO ${s}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       SELECT * FROM unnest(${cols(20, writeTypes)}) WHERE ${guard}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO NOTHING
     )`;
}

/**
 * A batch alone: the statement the write-behind sends while its run goes on. `fenced`: stored only
 * while the run ($29) is leased to the worker ($30) — a worker that lost its run writes nothing.
 */
export function batchStatementText(schema: string, fenced: boolean): string {
  if (!fenced) return `WITH ${batchCtes(schema, 1)} SELECT 1`;
  const owned = `owned AS (SELECT 1 FROM runs WHERE run_id = $${BATCH_PARAMS + 1}::uuid AND lease_owner = $${BATCH_PARAMS + 2} AND status = 'running')`;
  return `WITH ${owned}, ${batchCtes(schema, 1, "EXISTS (SELECT 1 FROM owned)")} SELECT 1`;
}

/** The batch's parameters (`BATCH_PARAMS` column arrays), and the newest root checkpoint it stores. */
export function batchValues(writes: CheckpointWrite[]): { values: unknown[]; newestRootId: string | null } {
  const blobs = new Map<string, BlobRow>();
  const checkpoints = new Map<string, Extract<CheckpointWrite, { kind: "checkpoint" }>>();
  /** Each write key's surviving row, and whether it replaces a stored row (a special-channel upsert touched it). */
  const writeRows = new Map<string, { row: WriteRow; replace: boolean }>();
  let newestRootId: string | null = null;
  for (const w of writes) {
    if (w.kind === "checkpoint") {
      for (const b of w.blobs) {
        const key = `${b[0]}\u0000${b[1]}\u0000${b[2]}\u0000${b[3]}`;
        if (!blobs.has(key)) blobs.set(key, b);
      }
      const key = `${w.threadId}\u0000${w.ns}\u0000${w.id}`;
      checkpoints.delete(key);
      checkpoints.set(key, w);
      if (w.ns === "" && (newestRootId === null || w.id > newestRootId)) newestRootId = w.id;
      continue;
    }
    for (const row of w.rows) {
      const key = `${row[0]}\u0000${row[1]}\u0000${row[2]}\u0000${row[3]}\u0000${row[4]}`;
      const before = writeRows.get(key);
      if (w.upsert) writeRows.set(key, { row, replace: true });
      else if (!before) writeRows.set(key, { row, replace: false });
    }
  }
  const columns = (n: number) => Array.from({ length: n }, () => [] as unknown[]);
  const b = columns(6);
  for (const row of blobs.values()) row.forEach((v, i) => b[i]!.push(i === 5 ? bytes(v as Uint8Array | undefined) : v));
  const c = columns(6);
  for (const w of checkpoints.values()) [w.threadId, w.ns, w.id, w.parentId ?? null, w.checkpoint, w.metadata].forEach((v, i) => c[i]!.push(v));
  const replaced = columns(8);
  const kept = columns(8);
  for (const { row, replace } of writeRows.values()) row.forEach((v, i) => (replace ? replaced : kept)[i]!.push(i === 7 ? bytes(v as Uint8Array) : v));
  return { values: [...b, ...c, ...replaced, ...kept], newestRootId };
}

/**
 * The checkpointer's writes as single statements.
 *
 * The library writes a checkpoint as BEGIN, one INSERT per changed channel, the checkpoint's
 * INSERT, COMMIT (3 + channels round trips), and a task's writes as BEGIN, one INSERT per write,
 * COMMIT. A statement is atomic on its own, so one statement does the same work in one round trip:
 * the blobs in a data-modifying CTE, the writes as one multi-row INSERT. That matters most on the
 * embedded database, where a transaction holds its one session while each of its round trips
 * travels to the main thread and back, and every other statement waits (issue 16).
 *
 * Same tables, columns and conflict rules as the library's statements (sql.ts of
 * @langchain/langgraph-checkpoint-postgres), so what is stored is identical. Parameters are plain
 * values; blobs go as Buffers, which `pg` sends in binary.
 */
import type pg from "pg";

/** A blob row as the library's `_dumpBlobs` makes it: thread, namespace, channel, version, type, bytes. */
export type BlobRow = [string, string, string, string, string, Uint8Array | undefined];
/** A write row as the library's `_dumpWrites` makes it: thread, namespace, checkpoint, task, idx, channel, type, bytes. */
export type WriteRow = [string, string, string, string, number, string, string, Uint8Array];

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const bytes = (b: Uint8Array | undefined) => (b === undefined ? null : Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** `$first, $first+1, …` for `n` parameters, in parentheses. */
function placeholders(first: number, n: number): string {
  return `(${Array.from({ length: n }, (_, i) => `$${first + i}`).join(", ")})`;
}

/** One statement storing a checkpoint and the channel values it changed. */
export function putCheckpointStatement(
  schema: string,
  checkpoint: { threadId: string; ns: string; id: string; parentId: string | undefined; checkpoint: unknown; metadata: unknown },
  blobs: BlobRow[],
): pg.QueryConfig {
  const s = quoteIdent(schema);
  const values: unknown[] = [checkpoint.threadId, checkpoint.ns, checkpoint.id, checkpoint.parentId ?? null, checkpoint.checkpoint, checkpoint.metadata];
  const rows: string[] = [];
  for (const [, , channel, version, type, blob] of blobs) {
    rows.push(`($1, $2, ${placeholders(values.length + 1, 4).slice(1)}`);
    values.push(channel, version, type, bytes(blob));
  }
  const blobCte = rows.length
    ? `WITH blobs AS (
         INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
         VALUES ${rows.join(", ")}
         ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
       )
       `
    : "";
  return {
    text: `${blobCte}INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`,
    values,
  };
}

/**
 * One statement storing a task's writes. `upsert` (every channel is a special one with a fixed
 * index): later writes replace earlier ones, as the library's one-by-one upserts do — rows with
 * the same key are collapsed to the last, since one INSERT cannot update a row twice. Otherwise
 * existing rows are kept (the library's DO NOTHING), and so is the first of duplicate keys.
 */
export function putWritesStatement(schema: string, writes: WriteRow[], upsert: boolean): pg.QueryConfig | undefined {
  const byKey = new Map<string, WriteRow>();
  for (const w of writes) {
    const key = `${w[2]}\u0000${w[3]}\u0000${w[4]}`;
    if (upsert || !byKey.has(key)) {
      byKey.delete(key); // keep insertion order of the surviving row
      byKey.set(key, w);
    }
  }
  if (byKey.size === 0) return undefined;
  const values: unknown[] = [];
  const rows: string[] = [];
  for (const [threadId, ns, checkpointId, taskId, idx, channel, type, blob] of byKey.values()) {
    rows.push(placeholders(values.length + 1, 8));
    values.push(threadId, ns, checkpointId, taskId, idx, channel, type, bytes(blob));
  }
  return {
    text: `INSERT INTO ${quoteIdent(schema)}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       VALUES ${rows.join(", ")}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO ${
         upsert ? "UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob" : "NOTHING"
       }`,
    values,
  };
}

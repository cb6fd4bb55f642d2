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
 *
 * A statement's text depends only on the schema and its number of rows, so it is built once per
 * shape and, where the caller asks (`named`: not on PGlite, whose one session all connections
 * share — its connection bridge keeps plans of repeated texts itself), sent as a named statement:
 * Postgres then parses and plans each shape once per connection instead of on every write, about
 * 70 µs of its CPU per statement, five statements per chat run (issue 16).
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

/** Statement texts by shape (kind, schema, rows), each with the name it is prepared under. */
const shapes = new Map<string, { text: string; name: string }>();
/**
 * Shapes kept (and so named statements per connection, at most): a graph's writes come in a few
 * shapes (its channels, its tasks' writes); an odd large one is built and sent unnamed each time.
 */
const MAX_SHAPES = 256;
const MAX_SHAPE_ROWS = 64;

/** The statement of one shape: built by `build` once, named if `named`. */
function statement(key: string, rows: number, named: boolean, build: () => string, values: unknown[]): pg.QueryConfig {
  let shape = shapes.get(key);
  if (!shape) {
    const text = build();
    if (rows > MAX_SHAPE_ROWS || shapes.size >= MAX_SHAPES) return { text, values };
    // (a name stands for one text in this process: pg refuses a name prepared with another text)
    shape = { text, name: `berth_ckpt_${shapes.size + 1}` };
    shapes.set(key, shape);
  }
  return named ? { name: shape.name, text: shape.text, values } : { text: shape.text, values };
}

/** One statement storing a checkpoint and the channel values it changed. */
export function putCheckpointStatement(
  schema: string,
  checkpoint: { threadId: string; ns: string; id: string; parentId: string | undefined; checkpoint: unknown; metadata: unknown },
  blobs: BlobRow[],
  named = false,
): pg.QueryConfig {
  const values: unknown[] = [checkpoint.threadId, checkpoint.ns, checkpoint.id, checkpoint.parentId ?? null, checkpoint.checkpoint, checkpoint.metadata];
  for (const [, , channel, version, type, blob] of blobs) values.push(channel, version, type, bytes(blob));
  const build = () => {
    const s = quoteIdent(schema);
    const rows = blobs.map((_, i) => `($1, $2, ${placeholders(7 + 4 * i, 4).slice(1)}`);
    const blobCte = rows.length
      ? `WITH blobs AS (
         INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
         VALUES ${rows.join(", ")}
         ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
       )
       `
      : "";
    return `${blobCte}INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata`;
  };
  return statement(`put\u0000${schema}\u0000${blobs.length}`, blobs.length, named, build, values);
}

/**
 * One statement storing a task's writes. `upsert` (every channel is a special one with a fixed
 * index): later writes replace earlier ones, as the library's one-by-one upserts do — rows with
 * the same key are collapsed to the last, since one INSERT cannot update a row twice. Otherwise
 * existing rows are kept (the library's DO NOTHING), and so is the first of duplicate keys.
 */
export function putWritesStatement(schema: string, writes: WriteRow[], upsert: boolean, named = false): pg.QueryConfig | undefined {
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
  for (const [threadId, ns, checkpointId, taskId, idx, channel, type, blob] of byKey.values()) {
    values.push(threadId, ns, checkpointId, taskId, idx, channel, type, bytes(blob));
  }
  const n = byKey.size;
  const build = () =>
    `INSERT INTO ${quoteIdent(schema)}.checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
       VALUES ${Array.from({ length: n }, (_, i) => placeholders(1 + 8 * i, 8)).join(", ")}
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO ${
         upsert ? "UPDATE SET channel = EXCLUDED.channel, type = EXCLUDED.type, blob = EXCLUDED.blob" : "NOTHING"
       }`;
  return statement(`writes\u0000${schema}\u0000${n}\u0000${upsert}`, n, named, build, values);
}

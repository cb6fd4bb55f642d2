/**
 * The official LangGraph Postgres checkpointer, with one change: channel versions that cannot
 * collide across branches of a thread's history.
 *
 * The JS checkpointer inherits integer versions (1, 2, 3…) and stores channel values keyed by
 * (thread, namespace, channel, version) with ON CONFLICT DO NOTHING. A second branch of the same
 * thread — a fork from an older checkpoint, or the run after a rollback — produces the same
 * version numbers again and silently reads the first branch's values. Like the Python
 * checkpointer, we append a random suffix to the zero-padded counter, so versions still order
 * correctly as strings and never collide.
 *
 * Every checkpoint a run writes carries the run's metadata, as LangGraph Platform's do: the metadata
 * the run was created with, and `run_id`, `thread_id`, `graph_id`, `assistant_id`, `user_id` (where
 * known). Clients filter history by it (`getHistory({metadata})`) and trace a checkpoint to its
 * run; a run resumed after its worker died finds its own checkpoints by `run_id`, and knows whether
 * its final checkpoint was already written (see runs/resume.ts).
 *
 * It also lets the queue worker fence writes: a worker that lost a run's lease (it froze, or its
 * heartbeats could not reach the database) must not add checkpoints to a thread another worker
 * now owns.
 */
import { randomFillSync } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { WRITES_IDX_MAP, type Checkpoint, type CheckpointTuple, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { putCheckpointStatement, putWritesStatement, type BlobRow, type WriteRow } from "./checkpoint-writes.js";
import type { CheckpointWrite } from "./checkpoint-batch.js";
import { CheckpointWriteBehind, type TakenWrites } from "./checkpoint-write-behind.js";

/**
 * Called before every checkpoint write with the writing run's config; throws to refuse the write.
 * The queue worker installs one that refuses writes of runs whose lease this process lost.
 */
export type WriteFence = (config: RunnableConfig) => Promise<void>;

/** Keys LangGraph adds to a node's config metadata: they describe one task, not the run. */
const TASK_METADATA = new Set(["langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path", "langgraph_checkpoint_ns", "checkpoint_ns", "checkpoint_id", "checkpoint_map"]);

/**
 * A checkpoint's metadata with the writing run's metadata added. LangGraph's own keys (`source`,
 * `step`, `parents`, `writes`…) win over the run's, so a run's metadata cannot falsify them.
 */
export function withRunMetadata(metadata: Record<string, unknown>, runMetadata: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!runMetadata) return metadata;
  const inherited = Object.fromEntries(
    Object.entries(runMetadata).filter(([k, v]) => !k.startsWith("__") && !TASK_METADATA.has(k) && v !== undefined && typeof v !== "function"),
  );
  return { ...inherited, ...metadata };
}

/** A channel value as stored: its serde type and bytes (none for type 'empty'). */
interface HeldBlob {
  type: string;
  bytes: Uint8Array | undefined;
}

/** What this process stored of a held thread (see `BerthPostgresSaver.held`). */
interface HeldThread {
  /** The newest root checkpoint stored, as the JSON text sent (jsonb's key order is applied when it is read back), with its metadata. */
  newest?: { id: string; parentId: string | undefined; checkpoint: string; metadata: string; versions: Record<string, string> };
  /** Channel values stored, by `channel\0version`: only those `newest` names are kept once it is known. */
  blobs: Map<string, HeldBlob>;
  /** Checkpoints that got pending writes (none are answered from memory). */
  written: Set<string>;
}

const blobKey = (channel: string, version: string) => `${channel}\u0000${version}`;

/** A copy of a value with its object keys in the order a jsonb column gives them back (shorter first, then bytewise). */
function jsonbOrder(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonbOrder);
  if (v === null || typeof v !== "object") return v;
  const keys = Object.keys(v).map((k) => ({ k, bytes: Buffer.from(k) }));
  keys.sort((a, b) => a.bytes.length - b.bytes.length || Buffer.compare(a.bytes, b.bytes));
  return Object.fromEntries(keys.map(({ k }) => [k, jsonbOrder((v as Record<string, unknown>)[k])]));
}

export interface BerthSaverOptions {
  /**
   * Send the writes as named (server-side prepared) statements (checkpoint-writes.ts). Not on
   * PGlite: all its connections share one session, where two connections preparing one name clash.
   */
  namedStatements?: boolean;
  /**
   * Hold back the checkpoint writes of runs the worker names (`holdWrites`) for up to this many
   * milliseconds, to commit them together and with the run's end (checkpoint-write-behind.ts).
   * 0 or unset: every write is committed at once.
   */
  writeBehindMs?: number;
}

/** How the library's checkpoint read (getTuple, list) joins a checkpoint's channel versions to their values. */
const LIBRARY_CHANNEL_VALUES_JOIN = /inner join "[^"]+"\.checkpoint_blobs bl\s+on bl\.thread_id = cp\.thread_id\s+and bl\.checkpoint_ns = cp\.checkpoint_ns\s+and bl\.channel = jsonb_each_text\.key\s+and bl\.version = jsonb_each_text\.value/;

/**
 * The same join as one primary-key lookup per channel version. The library's join let Postgres
 * hash all of the thread's channel values (every version every run on the thread ever wrote, as
 * Postgres cannot tell how many there are): each state read, and each run starting on a thread
 * not held in memory, read a thread's whole history (6000 checkpoints: 12000 rows, 502 buffers,
 * with or without statistics). The fence (OFFSET 0) keeps the lookup from being flattened back
 * into that join.
 */
function channelValuesByKey(schema: string): string {
  return `cross join lateral (
        select bl.channel, bl.type, bl.blob from "${schema}".checkpoint_blobs bl
        where bl.thread_id = cp.thread_id and bl.checkpoint_ns = cp.checkpoint_ns
          and bl.channel = jsonb_each_text.key and bl.version = jsonb_each_text.value
        offset 0
      ) bl`;
}

export class BerthPostgresSaver extends PostgresSaver {
  private fence?: WriteFence;
  /** The library keeps its pool and schema private; the single-statement writes need both. */
  private readonly db: pg.Pool;
  private readonly schema: string;
  private readonly named: boolean;
  private readonly writeBehind?: CheckpointWriteBehind;

  constructor(pool: pg.Pool, serde?: SerializerProtocol, options?: ConstructorParameters<typeof PostgresSaver>[2] & BerthSaverOptions) {
    const { namedStatements, writeBehindMs, ...libOptions } = options ?? {};
    super(pool, serde, libOptions);
    this.db = pool;
    this.schema = options?.schema ?? "public";
    this.named = namedStatements ?? false;
    if (writeBehindMs && writeBehindMs > 0) this.writeBehind = new CheckpointWriteBehind(pool, writeBehindMs, this.schema, this.named);
    const statements = (this as unknown as { SQL_STATEMENTS?: { SELECT_SQL?: string } }).SQL_STATEMENTS;
    if (typeof statements?.SELECT_SQL !== "string" || !LIBRARY_CHANNEL_VALUES_JOIN.test(statements.SELECT_SQL)) {
      throw new Error("PostgresSaver's checkpoint read is no longer as expected: cannot look up channel values by key");
    }
    statements.SELECT_SQL = statements.SELECT_SQL.replace(LIBRARY_CHANNEL_VALUES_JOIN, channelValuesByKey(this.schema));
  }

  /**
   * Hold back the checkpoint writes of run `runId` on `threadId` (checkpoint-write-behind.ts):
   * false when this saver writes everything at once. With `leaseOwner` (the worker), writes sent
   * before the run ends are stored only while it holds the run's lease. End with `takeHeldWrites` (the run ends
   * here) or `releaseHeldWrites`.
   */
  holdWrites(threadId: string, runId: string, leaseOwner?: string): boolean {
    if (!this.writeBehind) return false;
    this.writeBehind.start(threadId, runId, leaseOwner);
    return true;
  }

  /** The run's writes still held, for the transaction that ends it (then call `committed`). Throws when one failed. */
  takeHeldWrites(threadId: string): Promise<TakenWrites | undefined> {
    return this.writeBehind?.take(threadId) ?? Promise.resolve(undefined);
  }

  /** Forget what is still held for run `runId` on `threadId`, if anything (its end was not recorded). */
  abandonHeldWrites(threadId: string, runId: string): void {
    this.writeBehind?.abandon(threadId, runId);
  }

  /** Stop holding back the thread's writes: commit those held, or drop them (see `CheckpointWriteBehind.stop`). */
  releaseHeldWrites(threadId: string, commit: boolean): Promise<void> {
    return this.writeBehind?.stop(threadId, commit) ?? Promise.resolve();
  }

  setWriteFence(fence: WriteFence | undefined): void {
    this.fence = fence;
  }

  /**
   * Threads known to have no checkpoint: the statement that claimed a run found none
   * (`start_checkpoint_id` ''), and the run, the only one that may write to its thread, has
   * not read it yet. A read of such a thread's latest root checkpoint is answered "none"
   * without a round trip, once (the run's first read; after it, the run writes).
   */
  private readonly knownEmpty = new Set<string>();

  /** Say that `threadId` has no checkpoint until its next read (see `knownEmpty`). */
  expectEmpty(threadId: string): void {
    this.knownEmpty.add(threadId);
  }

  /** Withdraw `expectEmpty` (the run ended without reading its thread). */
  forgetEmpty(threadId: string): void {
    this.knownEmpty.delete(threadId);
  }

  /**
   * The newest root checkpoint this process wrote to a thread whose runs execute here, kept as the
   * bytes it stored, so that the thread's next run, handed to this worker by the statement that
   * ended the run before it, reads its thread without a round trip. Only threads the worker names
   * (`holdLatest`) are kept, and only while it says so.
   */
  private readonly held = new Map<string, HeldThread>();
  /** Threads whose next read of their latest root checkpoint may be answered from `held`, with the id it must have. */
  private readonly knownLatest = new Map<string, string>();

  /** Keep the newest checkpoint this process writes to `threadId` (until `releaseLatest`). */
  holdLatest(threadId: string): void {
    if (!this.held.has(threadId)) this.held.set(threadId, { blobs: new Map(), written: new Set() });
  }

  /** Stop keeping `threadId`'s newest checkpoint (no run of it executes here now). */
  releaseLatest(threadId: string): void {
    this.held.delete(threadId);
    this.knownLatest.delete(threadId);
  }

  /**
   * Say that `threadId`'s newest root checkpoint is `checkpointId` (the statement that claimed a run
   * found it so, and the run, the only one that may write to its thread, has not read it yet): its
   * next read is answered from memory if this process stored that checkpoint and every channel
   * value it names, without a round trip.
   */
  expectLatest(threadId: string, checkpointId: string): void {
    this.knownLatest.set(threadId, checkpointId);
  }

  /** Withdraw `expectLatest` (the run ended without reading its thread). */
  forgetLatest(threadId: string): void {
    this.knownLatest.delete(threadId);
  }

  override async getTuple(config: RunnableConfig): ReturnType<PostgresSaver["getTuple"]> {
    const c = config.configurable;
    // (a thread is read with the writes held back for it: they are committed first)
    if (this.writeBehind && c?.thread_id !== undefined) await this.writeBehind.flush(String(c.thread_id));
    if (c && !c.checkpoint_id && (c.checkpoint_ns ?? "") === "") {
      const threadId = String(c.thread_id);
      if (this.knownEmpty.size && this.knownEmpty.delete(threadId)) return undefined;
      const expected = this.knownLatest.get(threadId);
      if (expected !== undefined) {
        this.knownLatest.delete(threadId);
        const tuple = await this.heldTuple(threadId, expected);
        if (tuple) return tuple;
      }
    }
    return super.getTuple(config);
  }

  override async *list(...args: Parameters<PostgresSaver["list"]>): ReturnType<PostgresSaver["list"]> {
    const threadId = args[0]?.configurable?.thread_id;
    if (this.writeBehind) await this.writeBehind.flush(threadId === undefined ? undefined : String(threadId));
    yield* super.list(...args);
  }

  override async deleteThread(threadId: string): Promise<void> {
    await this.writeBehind?.flush(threadId);
    return super.deleteThread(threadId);
  }

  /**
   * The tuple `getTuple` would read back for checkpoint `id` of a held thread, decoded from the
   * bytes stored; undefined when that is not the newest held, has pending writes, or a channel
   * value it names was not stored here.
   */
  private async heldTuple(threadId: string, id: string): Promise<CheckpointTuple | undefined> {
    const thread = this.held.get(threadId);
    const newest = thread?.newest;
    if (!thread || !newest || newest.id !== id || thread.written.has(id)) return undefined;
    const stored: [string, HeldBlob][] = [];
    for (const [channel, version] of Object.entries(newest.versions)) {
      const blob = thread.blobs.get(blobKey(channel, version));
      if (!blob) return undefined;
      if (blob.type !== "empty") stored.push([channel, blob]);
    }
    const values = await Promise.all(
      stored.map(async ([channel, b]) =>
        // (bytes are handed out as a copy: the held ones may be read again)
        [channel, await this.serde.loadsTyped(b.type, b.type === "bytes" ? new Uint8Array(b.bytes!) : b.bytes!)] as const,
      ),
    );
    // (in jsonb's key order only now: most held checkpoints are never read back)
    const checkpoint = jsonbOrder(JSON.parse(newest.checkpoint)) as Checkpoint;
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: id } },
      checkpoint: {
        ...checkpoint,
        channel_versions: checkpoint.channel_versions ?? {},
        versions_seen: checkpoint.versions_seen ?? {},
        channel_values: Object.fromEntries(values),
      },
      metadata: (await this.serde.loadsTyped("json", JSON.stringify(jsonbOrder(JSON.parse(newest.metadata))))) as CheckpointTuple["metadata"],
      parentConfig: newest.parentId ? { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: newest.parentId } } : undefined,
      pendingWrites: [],
    };
  }

  /**
   * Remember a root checkpoint just stored to a held thread: its channel values' bytes, and the
   * checkpoint and metadata as the database has them (jsonb) when it is the newest. Puts may
   * complete out of order (LangGraph does not wait for one before the next step), so values are
   * pooled by channel and version (versions never collide: one names one value) and only those the
   * newest checkpoint names are kept.
   */
  private hold(threadId: string, checkpoint: Checkpoint, parentId: string | undefined, storedCheckpoint: string, storedMetadata: string, blobs: BlobRow[]): void {
    const thread = this.held.get(threadId);
    if (!thread) return;
    for (const [, , channel, version, type, bytes] of blobs) thread.blobs.set(blobKey(channel, version), { type, bytes });
    if (checkpoint.v >= 4 && (!thread.newest || thread.newest.id < checkpoint.id)) {
      const versions = Object.fromEntries(Object.entries(checkpoint.channel_versions ?? {}).map(([k, v]) => [k, String(v)]));
      thread.newest = { id: checkpoint.id, parentId, checkpoint: storedCheckpoint, metadata: storedMetadata, versions };
    }
    const newest = thread.newest;
    if (!newest) return;
    const wanted = new Set(Object.entries(newest.versions).map(([k, v]) => blobKey(k, v)));
    for (const key of thread.blobs.keys()) if (!wanted.has(key)) thread.blobs.delete(key);
    for (const written of thread.written) if (written < newest.id) thread.written.delete(written);
  }

  /** The library's put as one statement (checkpoint-writes.ts): same rows, one round trip. */
  override async put(...args: Parameters<PostgresSaver["put"]>): ReturnType<PostgresSaver["put"]> {
    const [config, checkpoint, metadata, newVersions] = args;
    if (config.configurable === undefined) throw new Error(`Missing "configurable" field in "config" param`);
    await this.fence?.(config);
    // The config LangGraph passes carries the run's metadata (runs/execute.ts puts it there).
    const tagged = withRunMetadata(metadata as Record<string, unknown>, config.metadata) as typeof metadata;
    const { thread_id, checkpoint_ns = "", checkpoint_id } = config.configurable;
    const [blobs, storedMetadata] = await Promise.all([
      this._dumpBlobs(thread_id, checkpoint_ns, checkpoint.channel_values, newVersions),
      this._dumpMetadata(tagged),
    ]);
    const stored = this._dumpCheckpoint(checkpoint);
    const holding = checkpoint_ns === "" && this.held.has(String(thread_id));
    // (what is held is the text the statement sends: taken before, so nothing changes it meanwhile)
    const heldCheckpoint = holding ? JSON.stringify(stored) : undefined;
    const heldMetadata = holding ? JSON.stringify(storedMetadata) : undefined;
    const committed = holding ? () => this.hold(String(thread_id), checkpoint, checkpoint_id, heldCheckpoint!, heldMetadata!, blobs as BlobRow[]) : undefined;
    if (this.writeBehind?.holds(config.configurable)) {
      const write: CheckpointWrite = {
        kind: "checkpoint",
        threadId: String(thread_id),
        ns: checkpoint_ns,
        id: checkpoint.id,
        parentId: checkpoint_id,
        checkpoint: heldCheckpoint ?? JSON.stringify(stored),
        metadata: heldMetadata ?? JSON.stringify(storedMetadata),
        blobs: blobs as BlobRow[],
      };
      this.writeBehind.add(String(thread_id), { write, committed });
    } else {
      await this.db.query(
        putCheckpointStatement(
          this.schema,
          { threadId: thread_id, ns: checkpoint_ns, id: checkpoint.id, parentId: checkpoint_id, checkpoint: stored, metadata: storedMetadata },
          blobs,
          this.named,
        ),
      );
      committed?.();
    }
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** The library's putWrites as one statement (checkpoint-writes.ts). */
  override async putWrites(...args: Parameters<PostgresSaver["putWrites"]>): ReturnType<PostgresSaver["putWrites"]> {
    const [config, writes, taskId] = args;
    await this.fence?.(config);
    // a held checkpoint with pending writes is read from the database (none are held)
    const held = this.held.get(String(config.configurable?.thread_id));
    const checkpointId = config.configurable?.checkpoint_id;
    if (held && (config.configurable?.checkpoint_ns ?? "") === "" && typeof checkpointId === "string") held.written.add(checkpointId);
    const upsert = writes.every((w) => w[0] in WRITES_IDX_MAP);
    const rows = await this._dumpWrites(config.configurable?.thread_id, config.configurable?.checkpoint_ns, config.configurable?.checkpoint_id, taskId, writes);
    if (this.writeBehind?.holds(config.configurable)) {
      if (rows.length) this.writeBehind.add(String(config.configurable!.thread_id), { write: { kind: "writes", rows: rows as WriteRow[], upsert } });
      return;
    }
    const statement = putWritesStatement(this.schema, rows, upsert, this.named);
    if (statement) await this.db.query(statement);
  }

  // Typed as number by the base class (BaseCheckpointSaver<number>); LangGraph treats versions as
  // opaque and compares strings with localeCompare, which orders zero-padded counters correctly.
  override getNextVersion(current: number | undefined): number {
    const raw = current as unknown as string | number | undefined;
    let n = 0;
    if (typeof raw === "number") n = raw;
    else if (typeof raw === "string") n = Number.parseInt(raw.split(".")[0]!, 10) || 0;
    return `${String(n + 1).padStart(32, "0")}.${randomHex16()}` as unknown as number;
  }
}

/**
 * 8 random bytes as 16 hex digits, from a pool filled 256 suffixes at a time: a run takes one per
 * channel version it writes, and `randomBytes(8)` each time cost about 4 µs (a call into the
 * binding and OpenSSL) where a slice of the pool costs 0.1 µs. Same source, same format.
 */
const RANDOM_POOL = Buffer.allocUnsafe(8 * 256);
let randomAt = RANDOM_POOL.length;
function randomHex16(): string {
  if (randomAt === RANDOM_POOL.length) {
    randomFillSync(RANDOM_POOL);
    randomAt = 0;
  }
  const hex = RANDOM_POOL.toString("hex", randomAt, randomAt + 8);
  randomAt += 8;
  return hex;
}

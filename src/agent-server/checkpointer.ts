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
import { randomBytes } from "node:crypto";
import type { RunnableConfig } from "@langchain/core/runnables";
import { WRITES_IDX_MAP, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type pg from "pg";
import { putCheckpointStatement, putWritesStatement } from "./checkpoint-writes.js";

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

export class BerthPostgresSaver extends PostgresSaver {
  private fence?: WriteFence;
  /** The library keeps its pool and schema private; the single-statement writes need both. */
  private readonly db: pg.Pool;
  private readonly schema: string;

  constructor(pool: pg.Pool, serde?: SerializerProtocol, options?: ConstructorParameters<typeof PostgresSaver>[2]) {
    super(pool, serde, options);
    this.db = pool;
    this.schema = options?.schema ?? "public";
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

  override async getTuple(config: RunnableConfig): ReturnType<PostgresSaver["getTuple"]> {
    const c = config.configurable;
    if (this.knownEmpty.size && c && !c.checkpoint_id && (c.checkpoint_ns ?? "") === "" && this.knownEmpty.delete(String(c.thread_id))) return undefined;
    return super.getTuple(config);
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
    await this.db.query(
      putCheckpointStatement(
        this.schema,
        { threadId: thread_id, ns: checkpoint_ns, id: checkpoint.id, parentId: checkpoint_id, checkpoint: this._dumpCheckpoint(checkpoint), metadata: storedMetadata },
        blobs,
      ),
    );
    return { configurable: { thread_id, checkpoint_ns, checkpoint_id: checkpoint.id } };
  }

  /** The library's putWrites as one statement (checkpoint-writes.ts). */
  override async putWrites(...args: Parameters<PostgresSaver["putWrites"]>): ReturnType<PostgresSaver["putWrites"]> {
    const [config, writes, taskId] = args;
    await this.fence?.(config);
    const upsert = writes.every((w) => w[0] in WRITES_IDX_MAP);
    const rows = await this._dumpWrites(config.configurable?.thread_id, config.configurable?.checkpoint_ns, config.configurable?.checkpoint_id, taskId, writes);
    const statement = putWritesStatement(this.schema, rows, upsert);
    if (statement) await this.db.query(statement);
  }

  // Typed as number by the base class (BaseCheckpointSaver<number>); LangGraph treats versions as
  // opaque and compares strings with localeCompare, which orders zero-padded counters correctly.
  override getNextVersion(current: number | undefined): number {
    const raw = current as unknown as string | number | undefined;
    let n = 0;
    if (typeof raw === "number") n = raw;
    else if (typeof raw === "string") n = Number.parseInt(raw.split(".")[0]!, 10) || 0;
    return `${String(n + 1).padStart(32, "0")}.${randomBytes(8).toString("hex")}` as unknown as number;
  }
}

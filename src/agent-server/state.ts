/** Thread state through the graph (which reads our checkpointer): the API's ThreadState shape. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { ConflictError, NotFoundError, ValidationError } from "../shared/errors.js";
import type { CompiledGraph, GraphRegistry } from "./graphs/registry.js";
import type { AssistantStore } from "./storage/assistants.js";
import { checkpointOf } from "./runs/execute.js";
import { toPlain } from "./serde.js";
import type { RunStore } from "./storage/runs.js";
import type { ThreadStore, Thread } from "./storage/threads.js";

export interface ThreadState {
  values: unknown;
  next: string[];
  tasks: unknown[];
  metadata: unknown;
  created_at: string | null;
  checkpoint: ReturnType<typeof checkpointOf>;
  parent_checkpoint: ReturnType<typeof checkpointOf>;
  interrupts: unknown[];
}

const EMPTY_STATE: ThreadState = {
  values: {},
  next: [],
  tasks: [],
  metadata: {},
  created_at: null,
  checkpoint: null,
  parent_checkpoint: null,
  interrupts: [],
};

function isConfig(v: unknown): v is RunnableConfig {
  return typeof v === "object" && v !== null && "configurable" in v;
}

/**
 * Where a subgraph task's state lives: LangGraph gives a config naming the task's namespace
 * (`<node>:<task id>`) without a checkpoint id — the subgraph's latest checkpoint there. Reading or
 * updating the thread's state with this checkpoint addresses the subgraph.
 */
export function taskCheckpointOf(config: { configurable?: Record<string, unknown> }) {
  const c = config.configurable ?? {};
  if (typeof c.checkpoint_ns !== "string") return null;
  return {
    thread_id: c.thread_id ?? null,
    checkpoint_ns: c.checkpoint_ns,
    checkpoint_id: c.checkpoint_id ?? null,
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

/** StateSnapshot (LangGraph.js) → ThreadState (API). */
export function snapshotToState(snapshot: any): ThreadState {
  const tasks = (snapshot.tasks ?? []).map((t: any) => {
    // With `subgraphs`, LangGraph nests the subgraph's whole snapshot; without, a config naming it.
    const nested = t.state && !isConfig(t.state) ? snapshotToState(t.state) : null;
    return {
      id: t.id,
      name: t.name,
      path: t.path,
      error: t.error ? String(t.error?.message ?? t.error) : null,
      interrupts: t.interrupts ?? [],
      checkpoint: isConfig(t.state) ? taskCheckpointOf(t.state) : (nested?.checkpoint ?? null),
      state: nested,
      result: t.result ?? null,
    };
  });
  return toPlain({
    values: snapshot.values ?? {},
    next: snapshot.next ?? [],
    tasks,
    metadata: snapshot.metadata ?? {},
    created_at: snapshot.createdAt ?? null,
    checkpoint: checkpointOf(snapshot.config),
    parent_checkpoint: checkpointOf(snapshot.parentConfig),
    interrupts: tasks.flatMap((t: { interrupts: unknown[] }) => t.interrupts),
  });
}

export class StateService {
  constructor(
    private readonly registry: GraphRegistry,
    private readonly threads: ThreadStore,
    private readonly runs: RunStore,
    private readonly assistants: AssistantStore,
  ) {}

  private graphIdOf(thread: Thread): string | undefined {
    const g = thread.metadata.graph_id;
    return typeof g === "string" && this.registry.has(g) ? g : undefined;
  }

  /**
   * The thread's graph, built as its runs build it: a graph factory gets the config (and context)
   * of the thread's assistant — the one its last run used, else the graph's system assistant — so
   * nodes the factory adds for that config exist for state reads and `as_node` updates.
   */
  private async graphOf(thread: Thread, graphId: string): Promise<CompiledGraph> {
    const named = thread.metadata.assistant_id;
    const assistant =
      (typeof named === "string" ? await this.assistants.get(named).catch(() => undefined) : undefined) ??
      (await this.assistants.get(graphId).catch(() => undefined));
    const aConfig = (assistant?.config ?? {}) as { configurable?: Record<string, unknown> };
    return this.registry.get(graphId, {
      ...aConfig,
      configurable: {
        ...(aConfig.configurable ?? {}),
        thread_id: thread.thread_id,
        graph_id: graphId,
        ...(assistant ? { assistant_id: assistant.assistant_id } : {}),
      },
      ...(assistant?.context ? { context: assistant.context } : {}),
    } as RunnableConfig);
  }

  /**
   * The config addressing a checkpoint of this thread. `checkpoint` is a checkpoint object
   * (`{checkpoint_id, checkpoint_ns, checkpoint_map}`) or a RunnableConfig holding one in
   * `configurable` (what the SDK's `getHistory({before})` sends). Null fields are dropped and the
   * thread id is always this thread's.
   */
  private config(threadId: string, checkpoint?: Record<string, unknown>): RunnableConfig {
    const ref = isConfig(checkpoint) ? ((checkpoint.configurable ?? {}) as Record<string, unknown>) : (checkpoint ?? {});
    const fields = Object.fromEntries(Object.entries(ref).filter(([, v]) => v !== null && v !== undefined));
    return { configurable: { checkpoint_ns: "", ...fields, thread_id: threadId } };
  }

  async get(threadId: string, opts: { checkpoint?: Record<string, unknown>; subgraphs?: boolean } = {}): Promise<ThreadState> {
    const thread = await this.threads.get(threadId);
    const graphId = this.graphIdOf(thread);
    if (!graphId) return EMPTY_STATE;
    const graph = await this.graphOf(thread, graphId);
    const config = this.config(threadId, opts.checkpoint);
    const snapshot = await graph.getState(config, { subgraphs: opts.subgraphs ?? false });
    const wanted = config.configurable?.checkpoint_id;
    // For a checkpoint that does not exist LangGraph answers an empty snapshot carrying the
    // requested config back (so it has the id but no creation time).
    if (wanted && (!snapshot.createdAt || snapshot.config?.configurable?.checkpoint_id !== wanted)) {
      throw new NotFoundError(`Checkpoint ${String(wanted)} not found in thread ${threadId}`);
    }
    if (!snapshot.createdAt && !snapshot.config?.configurable?.checkpoint_id) return EMPTY_STATE;
    return snapshotToState(snapshot);
  }

  async history(
    threadId: string,
    opts: { limit: number; before?: string | Record<string, unknown>; metadata?: Record<string, unknown>; checkpoint?: Record<string, unknown> },
  ): Promise<ThreadState[]> {
    const thread = await this.threads.get(threadId);
    const graphId = this.graphIdOf(thread);
    if (!graphId) return [];
    const graph = await this.graphOf(thread, graphId);
    const before = typeof opts.before === "string" ? { checkpoint_id: opts.before } : opts.before;
    const out: ThreadState[] = [];
    for await (const snapshot of graph.getStateHistory(this.config(threadId, opts.checkpoint), {
      limit: opts.limit,
      before: before ? this.config(threadId, before) : undefined,
      filter: opts.metadata,
    })) {
      out.push(snapshotToState(snapshot));
    }
    return out;
  }

  /** Merge metadata into the newest checkpoint of the thread (what the SDK's `patchState` does). */
  async patchMetadata(threadId: string, metadata: Record<string, unknown>): Promise<void> {
    await this.threads.get(threadId);
    if (!(await this.threads.patchLatestCheckpointMetadata(threadId, metadata))) {
      throw new NotFoundError(`Thread ${threadId} has no state yet: run it or update its state first`);
    }
  }

  /**
   * Write values as if `as_node` produced them. Refused while the thread has runs in flight.
   * The answer carries the new checkpoint both as `checkpoint` (what the LangGraph servers send)
   * and as `configurable` (what the SDK's `updateState` is typed to return).
   */
  async update(
    threadId: string,
    body: { values?: unknown; as_node?: string; checkpoint_id?: string; checkpoint?: Record<string, unknown> },
  ): Promise<{ checkpoint: ReturnType<typeof checkpointOf>; configurable: ReturnType<typeof checkpointOf> }> {
    const checkpoint = body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : undefined);
    return this.bulkUpdate(threadId, [{ updates: [{ values: body.values ?? null, as_node: body.as_node }] }], checkpoint);
  }

  /** Apply supersteps of updates (each superstep's updates together, as one step), as `threads.create({supersteps})` does. */
  async bulkUpdate(
    threadId: string,
    supersteps: { updates: { values?: unknown; command?: unknown; as_node?: string }[] }[],
    checkpoint?: Record<string, unknown>,
  ): Promise<{ checkpoint: ReturnType<typeof checkpointOf>; configurable: ReturnType<typeof checkpointOf> }> {
    const thread = await this.threads.get(threadId);
    if ((await this.runs.inflight(threadId)).length > 0) {
      throw new ConflictError(`Thread ${threadId} is busy: a run is pending or running. Wait for it or cancel it first.`);
    }
    const graphId = this.graphIdOf(thread);
    if (!graphId) {
      throw ValidationError.field(["path", "thread_id"], "the thread has no graph yet: run it once, or create it with metadata.graph_id");
    }
    const graph = (await this.graphOf(thread, graphId)) as CompiledGraph & {
      bulkUpdateState?(config: RunnableConfig, supersteps: { updates: { values: unknown; asNode?: string }[] }[]): Promise<RunnableConfig>;
    };
    const config = this.config(threadId, checkpoint);
    let next: RunnableConfig;
    try {
      if (graph.bulkUpdateState) {
        next = await graph.bulkUpdateState(
          config,
          supersteps.map((s) => ({ updates: s.updates.map((u) => ({ values: u.values ?? null, asNode: u.as_node })) })),
        );
      } else {
        next = config;
        for (const s of supersteps) for (const u of s.updates) next = await graph.updateState(next, u.values ?? null, u.as_node);
      }
    } catch (err) {
      // LangGraph's InvalidUpdateError: an unknown node, an ambiguous update, no input writes…
      if ((err as Error)?.name === "InvalidUpdateError") throw ValidationError.field(["body"], (err as Error).message);
      throw err;
    }
    const snapshot = await graph.getState(this.config(threadId));
    await this.threads.setValues(threadId, toPlain(snapshot.values), (snapshot.next ?? []).length > 0);
    const cp = checkpointOf(next as { configurable?: Record<string, unknown> });
    return { checkpoint: cp, configurable: cp };
  }
}

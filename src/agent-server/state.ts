/** Thread state through the graph (which reads our checkpointer): the API's ThreadState shape. */
import type { RunnableConfig } from "@langchain/core/runnables";
import { ConflictError, NotFoundError, ValidationError } from "../shared/errors.js";
import type { GraphRegistry } from "./graphs/registry.js";
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

/** StateSnapshot (LangGraph.js) → ThreadState (API). */
export function snapshotToState(snapshot: any): ThreadState {
  const tasks = (snapshot.tasks ?? []).map((t: any) => ({
    id: t.id,
    name: t.name,
    path: t.path,
    error: t.error ? String(t.error?.message ?? t.error) : null,
    interrupts: t.interrupts ?? [],
    checkpoint: isConfig(t.state) ? checkpointOf(t.state as { configurable?: Record<string, unknown> }) : null,
    state: t.state && !isConfig(t.state) ? snapshotToState(t.state) : null,
    result: t.result,
  }));
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
  ) {}

  private graphIdOf(thread: Thread): string | undefined {
    const g = thread.metadata.graph_id;
    return typeof g === "string" && this.registry.has(g) ? g : undefined;
  }

  private config(threadId: string, checkpoint?: Record<string, unknown>): RunnableConfig {
    return { configurable: { thread_id: threadId, checkpoint_ns: "", ...(checkpoint ?? {}), ...(checkpoint?.thread_id ? { thread_id: threadId } : {}) } };
  }

  async get(threadId: string, opts: { checkpoint?: Record<string, unknown>; subgraphs?: boolean } = {}): Promise<ThreadState> {
    const thread = await this.threads.get(threadId);
    const graphId = this.graphIdOf(thread);
    if (!graphId) return EMPTY_STATE;
    const graph = await this.registry.get(graphId, this.config(threadId));
    const snapshot = await graph.getState(this.config(threadId, opts.checkpoint), { subgraphs: opts.subgraphs ?? false });
    if (opts.checkpoint?.checkpoint_id && !snapshot.config?.configurable?.checkpoint_id) {
      throw new NotFoundError(`Checkpoint ${String(opts.checkpoint.checkpoint_id)} not found in thread ${threadId}`);
    }
    return snapshotToState(snapshot);
  }

  async history(
    threadId: string,
    opts: { limit: number; before?: string | Record<string, unknown>; metadata?: Record<string, unknown>; checkpoint?: Record<string, unknown> },
  ): Promise<ThreadState[]> {
    const thread = await this.threads.get(threadId);
    const graphId = this.graphIdOf(thread);
    if (!graphId) return [];
    const graph = await this.registry.get(graphId, this.config(threadId));
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

  /** Write values as if `as_node` produced them. Refused while the thread has runs in flight. */
  async update(
    threadId: string,
    body: { values?: unknown; as_node?: string; checkpoint_id?: string; checkpoint?: Record<string, unknown> },
  ): Promise<{ checkpoint: ReturnType<typeof checkpointOf> }> {
    const thread = await this.threads.get(threadId);
    if ((await this.runs.inflight(threadId)).length > 0) {
      throw new ConflictError(`Thread ${threadId} is busy: a run is pending or running. Wait for it or cancel it first.`);
    }
    const graphId = this.graphIdOf(thread);
    if (!graphId) {
      throw ValidationError.field(["path", "thread_id"], "the thread has no graph yet: run it once, or create it with metadata.graph_id");
    }
    const graph = await this.registry.get(graphId, this.config(threadId));
    const checkpoint = body.checkpoint ?? (body.checkpoint_id ? { checkpoint_id: body.checkpoint_id } : undefined);
    const next = await graph.updateState(this.config(threadId, checkpoint), body.values ?? null, body.as_node);
    const snapshot = await graph.getState(this.config(threadId));
    await this.threads.setValues(threadId, toPlain(snapshot.values), (snapshot.next ?? []).length > 0);
    return { checkpoint: checkpointOf(next as { configurable?: Record<string, unknown> }) };
  }
}

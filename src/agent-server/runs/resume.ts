/**
 * Picking a run up again after the worker executing it died (or handed it back): did the earlier
 * attempt already finish the run, or must it go on?
 *
 * "Finished" means the run's *final* checkpoint exists: the last checkpoint this run wrote leaves
 * nothing to do — the graph reached its end, or stopped where the run asked it to stop (a node
 * called `interrupt()`, or an `interrupt_before` / `interrupt_after` breakpoint). Anything else is
 * continued from the latest checkpoint with no input, which is how LangGraph resumes: tasks whose
 * writes were saved before the crash are not run again, their writes are applied, and the rest run.
 *
 * In particular, a checkpoint whose every task has saved its writes is *not* finished: the attempt
 * died between the writes and the next checkpoint, and those writes still have to be applied.
 * (LangGraph's `StateSnapshot.next` leaves such tasks out, so "no next node" does not mean done.)
 */
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph-checkpoint";
import type { CompiledGraph } from "../graphs/registry.js";
import type { ClaimedRun } from "../storage/runs.js";

/** Writes that are not a task's output (LangGraph's `isTaskOutput`). */
const NOT_OUTPUT = new Set(["__error__", "__error_source_node__", "__interrupt__", "__resume__"]);
const HIDDEN_TAG = "langsmith:hidden";

type Version = string | number;
type Breakpoints = "*" | string[] | undefined;

export interface ScheduledTask {
  name: string;
  /** Tagged hidden: `"*"` breakpoints skip it. */
  hidden: boolean;
  /** The task's output writes were saved. */
  output: boolean;
  /** The task stopped at `interrupt()` (an interrupt write, and no output). */
  interrupted: boolean;
}

/** What the decision needs to know about the run's newest checkpoint. */
export interface CheckpointFacts {
  /** metadata.source: "input", "loop", "update", "fork"… */
  source: string | undefined;
  channelVersions: Record<string, Version>;
  /** The channel versions the last breakpoint saw (`versions_seen.__interrupt__`). */
  interruptSeen: Record<string, Version>;
  /** The tasks the checkpoint schedules, with what their saved writes say. */
  tasks: ScheduledTask[];
  /** The tasks whose writes produced this checkpoint (its parent's); needed for `interrupt_after` only. */
  producedBy?: Pick<ScheduledTask, "name" | "hidden">[];
}

export type ResumeDecision = { done: true; why: string } | { done: false; why: string };

/**
 * LangGraph's breakpoint rule (`shouldInterrupt` in pregel/algo): stop when a channel changed
 * since the last breakpoint and one of the tasks is a breakpoint node.
 */
export function breakpointHit(facts: Pick<CheckpointFacts, "channelVersions" | "interruptSeen">, nodes: Breakpoints, tasks: Pick<ScheduledTask, "name" | "hidden">[]): boolean {
  if (!nodes || (Array.isArray(nodes) && nodes.length === 0)) return false;
  const versions = facts.channelVersions;
  const first = Object.values(versions)[0];
  const nullVersion: Version = typeof first === "number" ? 0 : "";
  const changed = Object.keys(versions).some((chan) => versions[chan]! > (facts.interruptSeen[chan] ?? nullVersion));
  const triggered = tasks.some((t) => (nodes === "*" ? !t.hidden : nodes.includes(t.name)));
  return changed && triggered;
}

/** Whether the run whose newest checkpoint this is has finished (see the module comment). */
export function decideResume(facts: CheckpointFacts, breakpoints: { before?: Breakpoints; after?: Breakpoints }): ResumeDecision {
  const { tasks } = facts;
  if (tasks.length === 0) return { done: true, why: "the graph reached its end" };
  const settled = tasks.every((t) => t.output || t.interrupted);
  if (settled && tasks.some((t) => t.interrupted)) return { done: true, why: "stopped at interrupt()" };
  if (settled) return { done: false, why: "every task's writes were saved, but not the checkpoint that applies them" };
  const untouched = tasks.every((t) => !t.output && !t.interrupted);
  if (untouched && breakpointHit(facts, breakpoints.before, tasks)) return { done: true, why: "stopped at an interrupt_before breakpoint" };
  if (untouched && facts.source === "loop" && facts.producedBy && breakpointHit(facts, breakpoints.after, facts.producedBy)) {
    return { done: true, why: "stopped at an interrupt_after breakpoint" };
  }
  return { done: false, why: "tasks remain to run" };
}

/** Read what `decideResume` needs about checkpoint `checkpointId` of the thread's root graph. */
export async function checkpointFacts(
  graph: CompiledGraph,
  checkpointer: BaseCheckpointSaver,
  threadId: string,
  checkpointId: string,
  withProducers: boolean,
): Promise<CheckpointFacts> {
  const config = { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } };
  const [tuple, snapshot] = await Promise.all([checkpointer.getTuple(config), graph.getState(config)]);
  if (!tuple) throw new Error(`checkpoint ${checkpointId} of thread ${threadId} is gone`);
  const nodes = (graph as { nodes?: Record<string, { tags?: string[] }> }).nodes ?? {};
  const hidden = (name: string) => Boolean(nodes[name]?.tags?.includes(HIDDEN_TAG));
  const writes = tuple.pendingWrites ?? [];
  const tasks = ((snapshot.tasks ?? []) as { id: string; name: string }[]).map((t) => {
    const own = writes.filter(([id]) => id === t.id);
    const output = own.some(([, channel]) => !NOT_OUTPUT.has(channel));
    return { name: t.name, hidden: hidden(t.name), output, interrupted: !output && own.some(([, channel]) => channel === "__interrupt__") };
  });
  let producedBy: CheckpointFacts["producedBy"];
  if (withProducers && tuple.parentConfig) {
    const parent = await graph.getState(tuple.parentConfig);
    producedBy = ((parent.tasks ?? []) as { name: string }[]).map((t) => ({ name: t.name, hidden: hidden(t.name) }));
  }
  return {
    source: (tuple as CheckpointTuple).metadata?.source,
    channelVersions: tuple.checkpoint.channel_versions as Record<string, Version>,
    interruptSeen: (tuple.checkpoint.versions_seen?.["__interrupt__"] ?? {}) as Record<string, Version>,
    tasks,
    producedBy,
  };
}

/**
 * How a worker executes a run it has just claimed: from its input (no earlier attempt wrote a
 * checkpoint of this run), resumed from the thread's latest checkpoint, or not at all because an
 * earlier attempt finished it and died before recording so.
 */
export async function planExecution(
  graph: CompiledGraph,
  checkpointer: BaseCheckpointSaver,
  run: ClaimedRun,
): Promise<{ resume: boolean; done: boolean; why: string }> {
  if (run.own_checkpoint_id === null) return { resume: false, done: false, why: "no checkpoint of this run yet" };
  const { interrupt_before: before, interrupt_after: after } = run.kwargs;
  const facts = await checkpointFacts(graph, checkpointer, run.thread_id, run.own_checkpoint_id, Boolean(after));
  const decision = decideResume(facts, { before, after });
  return { resume: true, done: decision.done, why: decision.why };
}

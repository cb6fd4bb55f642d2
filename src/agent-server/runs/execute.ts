/**
 * Executes one run of a graph and turns what the graph streams into the API's stream events:
 * `metadata` first, then one event per requested mode (`values`, `updates`, `messages`,
 * `messages-tuple` → `messages`, `events`, `debug`, `custom`, `tasks`, `checkpoints`), named
 * `mode|ns1|ns2` for subgraph output when `stream_subgraphs` is set.
 *
 * Graphs stream through `graph.stream()` when that can produce every requested mode (cheaper), and
 * through `streamEvents` v2 when `events` or the emulated `messages` mode is asked for.
 */
import type { BaseMessageChunk } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import type { CompiledGraph } from "../graphs/registry.js";
import type { ClaimedRun } from "../storage/runs.js";
import { JsonText } from "../../shared/json-text.js";
import { toPlain, toWireJson } from "../serde.js";

export type Emit = (event: string, data: unknown) => Promise<void>;

type LibMode = "values" | "updates" | "debug" | "messages" | "checkpoints" | "tasks" | "custom";
const LIB_MODES: readonly string[] = ["values", "updates", "debug", "messages", "checkpoints", "tasks", "custom"];

export interface ExecuteOptions {
  graph: CompiledGraph;
  run: ClaimedRun;
  /** Continue from the thread's latest checkpoint instead of starting from the run's input. */
  resume: boolean;
  signal: AbortSignal;
  emit: Emit;
}

function runInput(run: ClaimedRun, resume: boolean): unknown {
  if (resume) return null;
  const { command, input } = run.kwargs;
  if (command != null) {
    return new Command({
      ...(command.resume !== undefined ? { resume: command.resume } : {}),
      ...(command.update !== undefined ? { update: command.update as Record<string, unknown> } : {}),
      ...(command.goto !== undefined ? { goto: command.goto as string } : {}),
    });
  }
  return input ?? null;
}

/** The RunnableConfig-ish options passed to the graph. */
export function graphOptions(run: ClaimedRun, resume: boolean, signal: AbortSignal): Record<string, unknown> {
  const k = run.kwargs;
  const configurable: Record<string, unknown> = { ...k.config.configurable };
  if (!resume && k.checkpoint_id) configurable.checkpoint_id = k.checkpoint_id;
  // (null fields of a checkpoint the server answered, e.g. a subgraph task's, mean "not given")
  if (!resume && k.checkpoint) Object.assign(configurable, Object.fromEntries(Object.entries(k.checkpoint).filter(([, v]) => v != null)));
  if (resume) delete configurable.checkpoint_id;
  return {
    configurable,
    tags: k.config.tags,
    recursionLimit: k.config.recursion_limit,
    // The run's metadata and ids: they name the run in traces (agent-server/tracing.ts) and go into
    // every checkpoint it writes (checkpointer.ts), as LangGraph Platform does.
    metadata: {
      ...run.metadata,
      ...(k.config.metadata as Record<string, unknown> | undefined),
      run_id: run.run_id,
      thread_id: run.thread_id,
      assistant_id: run.assistant_id,
      graph_id: configurable.graph_id,
      ...userIdOf(configurable),
      run_attempt: run.attempt,
      langgraph_host: "self-hosted",
      langgraph_plan: "berth",
    },
    runName: typeof configurable.graph_id === "string" ? configurable.graph_id : undefined,
    context: k.context,
    runId: run.run_id,
    signal,
    // Kept on resume: the breakpoints of later steps still apply. (LangGraph does not stop again at
    // the step it resumes from; runs/resume.ts has already checked the run had not stopped there.)
    interruptBefore: k.interrupt_before,
    interruptAfter: k.interrupt_after,
    ...(k.durability ? { durability: k.durability } : {}),
  };
}

/** The run's user, where the server knows one (custom auth puts it in `configurable`). */
function userIdOf(configurable: Record<string, unknown>): { user_id?: string } {
  const id = configurable.user_id ?? configurable.langgraph_auth_user_id;
  return typeof id === "string" && id ? { user_id: id } : {};
}

const nsName = (mode: string, ns: string[] | null | undefined, subgraphs: boolean) =>
  subgraphs && ns && ns.length ? `${mode}|${ns.join("|")}` : mode;

/** What the worker learns from streaming a run, so it can skip re-reading the state. */
export interface ExecutionSummary {
  /** The last root-graph `values` chunk: the final state, unless the run stopped at an interrupt. */
  lastValues?: unknown;
  /** Its JSON text as its `values` event carried it (when the run streams `values`). */
  lastValuesJson?: string;
  sawInterrupt: boolean;
}

export async function executeRun(opts: ExecuteOptions): Promise<ExecutionSummary> {
  const summary: ExecutionSummary = { sawInterrupt: false };
  const { graph, run, emit } = opts;
  const userModes = run.kwargs.stream_mode.length ? run.kwargs.stream_mode : ["values"];
  const streamsValues = userModes.includes("values");
  /**
   * Note the root graph's state; returns what to emit for the chunk. A root `values` chunk that
   * is emitted is serialised here, once: the same text is the event's and, for the last one, the
   * run's final state (queue/worker.ts), which would otherwise be a second walk over the whole state.
   */
  const observe = (mode: string, ns: string[] | null, payload: unknown): unknown => {
    if (mode !== "values" || (ns && ns.length)) return payload;
    if (payload && typeof payload === "object" && "__interrupt__" in payload) {
      summary.sawInterrupt = true;
      return payload;
    }
    summary.lastValues = payload;
    summary.lastValuesJson = undefined;
    if (!streamsValues) return payload;
    const wire = new JsonText(toWireJson(payload));
    summary.lastValuesJson = wire.text;
    return wire;
  };
  const subgraphs = run.kwargs.subgraphs;
  await emit("metadata", { run_id: run.run_id, attempt: run.attempt });

  const libModes = new Set<LibMode>(userModes.filter((m): m is LibMode => LIB_MODES.includes(m) && m !== "messages"));
  if (userModes.includes("messages-tuple")) libModes.add("messages");
  const needsEvents = userModes.includes("events") || userModes.includes("messages");
  const input = runInput(run, opts.resume);
  const options = graphOptions(run, opts.resume, opts.signal);

  if (!needsEvents) {
    if (libModes.size === 0) libModes.add("values");
    const stream = await graph.stream(input, { ...options, streamMode: [...libModes], subgraphs });
    for await (const chunk of stream as AsyncIterable<unknown[]>) {
      const [ns, mode, payload] = subgraphs ? (chunk as [string[], LibMode, unknown]) : [null, ...(chunk as [LibMode, unknown])];
      await emitModeChunk(emit, userModes, mode, observe(mode, ns, payload), ns, subgraphs);
    }
    return summary;
  }

  if (userModes.includes("messages")) libModes.add("values");
  if (libModes.size === 0) libModes.add("values");
  const events = graph.streamEvents(input, { ...options, version: "v2", streamMode: [...libModes], subgraphs });
  const partial: Record<string, BaseMessageChunk> = {};
  const completed = new Set<string>();
  for await (const event of events) {
    if ((event.tags as string[] | undefined)?.includes("langsmith:hidden")) continue;
    const isRootStream = event.event === "on_chain_stream" && (subgraphs || event.run_id === run.run_id);
    if (isRootStream) {
      const tuple = (subgraphs ? event.data.chunk : [null, ...event.data.chunk]) as [string[] | null, LibMode, unknown];
      const [ns, mode, payload] = tuple;
      await emitModeChunk(emit, userModes, mode, observe(mode, ns, payload), ns, subgraphs);
      if (userModes.includes("messages") && mode === "values" && (!ns || ns.length === 0)) {
        // messages/complete for every message id the state gained
        const msgs = (payload as { messages?: unknown } | null)?.messages;
        const list = Array.isArray(msgs) ? msgs : msgs ? [msgs] : [];
        const fresh = list.filter((m: { id?: string }) => m?.id && !completed.has(m.id));
        for (const m of fresh) completed.add((m as { id: string }).id);
        if (fresh.length) await emit("messages/complete", fresh);
      }
    } else if (userModes.includes("events")) {
      await emit("events", event);
    }
    if (userModes.includes("messages") && event.event === "on_chat_model_stream" && !(event.tags as string[] | undefined)?.includes("nostream")) {
      const chunk = event.data.chunk as BaseMessageChunk;
      if (!chunk?.id) continue;
      if (!partial[chunk.id]) {
        partial[chunk.id] = chunk;
        await emit("messages/metadata", { [chunk.id]: { metadata: event.metadata } });
      } else {
        partial[chunk.id] = partial[chunk.id]!.concat(chunk);
      }
      await emit("messages/partial", [partial[chunk.id]]);
    }
  }
  return summary;
}

async function emitModeChunk(
  emit: Emit,
  userModes: string[],
  mode: LibMode,
  payload: unknown,
  ns: string[] | null,
  subgraphs: boolean,
): Promise<void> {
  if (mode === "messages") {
    if (userModes.includes("messages-tuple")) await emit(nsName("messages", ns, subgraphs), payload);
    return;
  }
  if (!userModes.includes(mode)) return;
  let data = payload;
  if (mode === "checkpoints") data = checkpointPayload(payload as DebugCheckpoint);
  if (mode === "debug") {
    const d = payload as { type: string; payload: DebugCheckpoint };
    if (d?.type === "checkpoint") data = { ...d, payload: checkpointPayload(d.payload) };
  }
  await emit(nsName(mode, ns, subgraphs), data);
}

interface DebugCheckpoint {
  config?: { configurable?: Record<string, unknown> };
  parentConfig?: { configurable?: Record<string, unknown> };
  [k: string]: unknown;
}

/** API shape of a configurable's checkpoint coordinates. */
export function checkpointOf(config: { configurable?: Record<string, unknown> } | undefined | null) {
  const c = config?.configurable;
  if (!c?.checkpoint_id) return null;
  return {
    thread_id: c.thread_id,
    checkpoint_ns: c.checkpoint_ns ?? "",
    checkpoint_id: c.checkpoint_id,
    checkpoint_map: c.checkpoint_map ?? null,
  };
}

function publicConfig(config: DebugCheckpoint["config"]) {
  if (!config?.configurable) return config;
  return {
    ...config,
    configurable: Object.fromEntries(Object.entries(config.configurable).filter(([k]) => !k.startsWith("__"))),
  };
}

function checkpointPayload(p: DebugCheckpoint) {
  if (!p || typeof p !== "object") return p;
  const { parentConfig, ...rest } = p;
  return toPlain({
    ...rest,
    config: publicConfig(p.config),
    parent_config: publicConfig(parentConfig),
    checkpoint: checkpointOf(p.config),
    parent_checkpoint: checkpointOf(parentConfig),
  });
}

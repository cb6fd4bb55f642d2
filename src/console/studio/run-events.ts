/**
 * What a streamed run shows, as a reducer over its SSE events (pure): the messages as they build
 * up (`messages-tuple` tokens, replaced by each `values` snapshot), the state's values, the node
 * running now and the nodes done (`tasks`, `updates`), and interrupts. Event names come as the SDK
 * yields them: `mode` or, with subgraphs, `mode|parent:task|child:task`.
 */
import { mergeChunk, type LcMessage } from "./lc-messages";

export interface InterruptShown {
  value: unknown;
  id?: string;
  /** The node that raised it (graph id, subgraph path included). */
  node?: string;
}

export interface RunView {
  messages: LcMessage[];
  values: unknown;
  /** Nodes running now (a superstep may run several). */
  running: string[];
  /** Nodes finished in this run, in order. */
  done: string[];
  /**
   * Nodes stopped at an interrupt() and waiting to be resumed: not done (they run again, from their
   * start, when resumed), so the graph marks them waiting rather than finished.
   */
  waiting: string[];
  /**
   * Ids of messages still being built from streamed chunks. Every other message with an id is
   * whole (from a `values` snapshot or sent whole), and a chunk of it is one already applied — a
   * run joined from its first event (Last-Event-ID -1) replays what the page has shown — so it is
   * skipped rather than appended a second time.
   */
  partial: string[];
  interrupts: InterruptShown[];
  /**
   * The run stopped to wait: at interrupt() (with `interrupts`) or at a breakpoint
   * (`interrupt_before`/`after`, an empty `__interrupt__`). The server then reports the run
   * `success` and the *thread* `interrupted`, as LangGraph Platform does (a run's `interrupted`
   * means it was cancelled), so the stream is where the page learns it.
   */
  paused: boolean;
  error?: string;
  events: number;
}

export const EMPTY_RUN: RunView = { messages: [], values: undefined, running: [], done: [], waiting: [], partial: [], interrupts: [], paused: false, events: 0 };

/** A run's status as the run panel shows it (pure): a run that stopped to wait is `interrupted`, not `success`. */
export function shownRunStatus(serverStatus: string, paused: boolean): string {
  return serverStatus === "success" && paused ? "interrupted" : serverStatus;
}

export const ROLLED_BACK = "cancelled (rolled back)";

/** What asking the server for a run after its stream ended gave: the run, no such run (404), or no answer. */
export type RunLookup = { status: string } | "gone" | "failed";

/**
 * The status a run is left showing once its stream has ended (pure). A run cancelled with
 * `rollback` is deleted with its checkpoints, so the server no longer knows it: that is the
 * outcome to show, never a guessed `success`. A run that vanished without this page cancelling it
 * was rolled back from elsewhere (a run is only deleted that way, or with its thread).
 */
export function settledRunStatus(lookup: RunLookup, paused: boolean, cancelled?: "interrupt" | "rollback"): string {
  if (lookup === "gone") return ROLLED_BACK;
  if (lookup === "failed") return cancelled === "rollback" ? ROLLED_BACK : cancelled === "interrupt" ? "interrupted" : "unknown";
  // asked to roll back and not finished on its own first (success/error): its deletion is under way
  if (cancelled === "rollback" && lookup.status !== "success" && lookup.status !== "error") return ROLLED_BACK;
  return shownRunStatus(lookup.status, paused);
}

/**
 * The statuses a thread's runs are shown with (pure), derived as the run panel derives them: a run
 * the server reports `success` that stopped at an interrupt or breakpoint is `interrupted`. The
 * thread tells which one it waits in now: while it is `interrupted`, the run that wrote its current
 * checkpoint (`stateRunId`, the checkpoint's metadata.run_id), else — that checkpoint was an edit —
 * the newest run that has finished. Runs that paused earlier and were resumed since are known from
 * their own newest checkpoint (`pausedRunIds`, see runPaused).
 */
export function threadRunStatuses<R extends { run_id: string; status: string }>(
  runsNewestFirst: readonly R[],
  threadStatus: string,
  stateRunId?: string,
  pausedRunIds: ReadonlySet<string> = new Set(),
): string[] {
  const waitingIn =
    threadStatus !== "interrupted"
      ? undefined
      : runsNewestFirst.find((r) => r.run_id === stateRunId)?.run_id ?? runsNewestFirst.find((r) => r.status !== "pending" && r.status !== "running")?.run_id;
  return runsNewestFirst.map((r) => shownRunStatus(r.status, r.run_id === waitingIn || pausedRunIds.has(r.run_id)));
}

/**
 * Whether a run stopped to wait, from the newest checkpoint it wrote (pure): a run that ran to its
 * end leaves nothing next; one that stopped at interrupt() or a breakpoint leaves the nodes to run
 * when resumed (a run cancelled midway also does, but the server reports that one `interrupted`).
 */
export function runPaused(newestCheckpoint: { next?: readonly string[]; tasks?: readonly { interrupts?: readonly unknown[] }[] } | undefined): boolean {
  if (!newestCheckpoint) return false;
  return (newestCheckpoint.next?.length ?? 0) > 0 || (newestCheckpoint.tasks ?? []).some((t) => (t.interrupts?.length ?? 0) > 0);
}

/** `mode|a:1|b:2` → mode and the graph path of the namespace (`a:b`). */
export function splitEvent(event: string): { mode: string; path: string } {
  const [mode = "", ...ns] = event.split("|");
  return { mode, path: ns.map((p) => p.split(":")[0]).join(":") };
}

const withPath = (path: string, node: string) => (path ? `${path}:${node}` : node);

function interruptsOf(raw: unknown, node?: string): InterruptShown[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((i) => {
    const o: { value?: unknown; id?: unknown; interrupt_id?: unknown } = i && typeof i === "object" ? i : { value: i };
    const id = typeof o.id === "string" ? o.id : typeof o.interrupt_id === "string" ? o.interrupt_id : undefined;
    return { value: o.value, ...(id ? { id } : {}), ...(node ? { node } : {}) };
  });
}

export function applyEvent(view: RunView, event: string, data: unknown): RunView {
  const { mode, path } = splitEvent(event);
  const next: RunView = { ...view, events: view.events + 1 };
  switch (mode) {
    case "messages": {
      // messages-tuple: [chunk, metadata]; the metadata names the node streaming it
      if (!Array.isArray(data) || !data[0] || typeof data[0] !== "object") return next;
      if (path) return next; // a subgraph's messages also reach the parent's state; show them once
      const [chunk, meta] = data as [LcMessage, { langgraph_node?: string } | undefined];
      Object.assign(next, applyMessage(view, chunk));
      if (meta?.langgraph_node && !view.running.includes(meta.langgraph_node)) next.running = [...view.running, meta.langgraph_node];
      return next;
    }
    case "values": {
      if (path) return next;
      next.values = data;
      const msgs = data && typeof data === "object" ? (data as { messages?: unknown }).messages : undefined;
      if (Array.isArray(msgs)) {
        // the snapshot's messages are whole; one still streaming that it does not hold yet is kept after them
        const snapshot = msgs as LcMessage[];
        const inSnapshot = new Set(snapshot.map((m) => m.id).filter(Boolean));
        const streaming = view.messages.filter((m) => m.id && view.partial.includes(m.id) && !inSnapshot.has(m.id));
        next.messages = [...snapshot, ...streaming];
        next.partial = streaming.map((m) => m.id!);
      }
      const intr = data && typeof data === "object" ? (data as { __interrupt__?: unknown }).__interrupt__ : undefined;
      if (intr) {
        next.interrupts = mergeInterrupts(view.interrupts, interruptsOf(intr));
        next.paused = true;
      }
      return next;
    }
    case "tasks": {
      const t = data && typeof data === "object" ? (data as { name?: unknown; result?: unknown; error?: unknown; interrupts?: unknown }) : undefined;
      if (!t || typeof t.name !== "string") return next;
      const node = withPath(path, t.name);
      const finished = "result" in t || "error" in t || "interrupts" in t;
      if (!finished) {
        if (!view.running.includes(node)) next.running = [...view.running, node];
        return next;
      }
      next.running = view.running.filter((n) => n !== node);
      const intr = interruptsOf(t.interrupts, node);
      if (intr.length) {
        // stopped at interrupt(): waiting, not done (resumed, it runs again from its start)
        next.interrupts = mergeInterrupts(view.interrupts, intr);
        next.paused = true;
        if (!view.waiting.includes(node)) next.waiting = [...view.waiting, node];
        return next;
      }
      if (!view.done.includes(node)) next.done = [...view.done, node];
      next.waiting = view.waiting.filter((n) => n !== node);
      return next;
    }
    case "updates": {
      if (!data || typeof data !== "object") return next;
      const keys = Object.keys(data);
      const intr = (data as { __interrupt__?: unknown }).__interrupt__;
      if (intr) {
        const node = view.running.at(-1);
        next.interrupts = mergeInterrupts(view.interrupts, interruptsOf(intr, node));
        next.paused = true;
        if (node && !view.waiting.includes(node)) next.waiting = [...view.waiting, node];
      }
      const nodes = keys.filter((k) => k !== "__interrupt__" && k !== "__metadata__").map((k) => withPath(path, k));
      if (!nodes.length) return next;
      next.running = view.running.filter((n) => !nodes.includes(n));
      next.done = [...view.done, ...nodes.filter((n) => !view.done.includes(n))];
      next.waiting = view.waiting.filter((n) => !nodes.includes(n));
      return next;
    }
    case "error": {
      const d = data as { message?: unknown; error?: unknown } | undefined;
      next.error = typeof d?.message === "string" ? d.message : typeof d?.error === "string" ? d.error : JSON.stringify(data);
      next.running = [];
      return next;
    }
    default:
      return next;
  }
}

/**
 * One `messages-tuple` event applied by message id (pure), so applying an event again changes
 * nothing. Each event is a delta of its message (a token, or a message sent whole once — LangGraph
 * does not tell them apart, its SDK concatenates both), merged into the message while it is still
 * being built. Once a `values` snapshot holds the message it is whole: an event for it is one
 * already applied, replayed, and is skipped.
 */
function applyMessage(view: RunView, m: LcMessage): Pick<RunView, "messages" | "partial"> {
  const whole = !!m.id && !view.partial.includes(m.id) && view.messages.some((x) => x.id === m.id);
  if (whole) return { messages: view.messages, partial: view.partial };
  return { messages: mergeChunk(view.messages, m), partial: m.id && !view.partial.includes(m.id) ? [...view.partial, m.id] : view.partial };
}

/** New interrupts beside the known ones; one with a known id replaces it (it arrives by several modes). */
function mergeInterrupts(known: InterruptShown[], incoming: InterruptShown[]): InterruptShown[] {
  const out = known.slice();
  for (const i of incoming) {
    const at = out.findIndex((k) => (i.id && k.id === i.id) || (!i.id && JSON.stringify(k.value) === JSON.stringify(i.value)));
    if (at >= 0) out[at] = { ...out[at], ...i, node: i.node ?? out[at]!.node };
    else out.push(i);
  }
  return out;
}

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

export const EMPTY_RUN: RunView = { messages: [], values: undefined, running: [], done: [], interrupts: [], paused: false, events: 0 };

/** A run's status as the run panel shows it (pure): a run that stopped to wait is `interrupted`, not `success`. */
export function shownRunStatus(serverStatus: string | undefined, paused: boolean): string {
  const status = serverStatus ?? "success";
  return status === "success" && paused ? "interrupted" : status;
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
      next.messages = mergeChunk(view.messages, chunk);
      if (meta?.langgraph_node && !view.running.includes(meta.langgraph_node)) next.running = [...view.running, meta.langgraph_node];
      return next;
    }
    case "values": {
      if (path) return next;
      next.values = data;
      const msgs = data && typeof data === "object" ? (data as { messages?: unknown }).messages : undefined;
      if (Array.isArray(msgs)) next.messages = msgs as LcMessage[];
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
      if (!view.done.includes(node)) next.done = [...view.done, node];
      const intr = interruptsOf(t.interrupts, node);
      if (intr.length) {
        next.interrupts = mergeInterrupts(view.interrupts, intr);
        next.paused = true;
      }
      return next;
    }
    case "updates": {
      if (!data || typeof data !== "object") return next;
      const keys = Object.keys(data);
      const intr = (data as { __interrupt__?: unknown }).__interrupt__;
      if (intr) {
        next.interrupts = mergeInterrupts(view.interrupts, interruptsOf(intr, view.running.at(-1)));
        next.paused = true;
      }
      const nodes = keys.filter((k) => k !== "__interrupt__" && k !== "__metadata__").map((k) => withPath(path, k));
      if (!nodes.length) return next;
      next.running = view.running.filter((n) => !nodes.includes(n));
      next.done = [...view.done, ...nodes.filter((n) => !view.done.includes(n))];
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

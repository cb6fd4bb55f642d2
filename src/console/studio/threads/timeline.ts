/**
 * A thread's checkpoint history as pages (pure). The server returns history newest first, at
 * most `limit` states before a checkpoint; a page asks for one more than it shows, so whether
 * an older page exists is known without another request. The panel never holds more than one
 * page, which keeps a thread with thousands of checkpoints as quick as one with ten.
 */
import type { Config, ThreadState } from "@langchain/langgraph-sdk";

export const PAGE_SIZE = 50;

export interface Paging {
  pageSize: number;
  /** `before` cursor of each page visited, newest page first (undefined: the newest checkpoints). */
  cursors: (string | undefined)[];
}

export const firstPage = (pageSize = PAGE_SIZE): Paging => ({ pageSize, cursors: [undefined] });

export const pageNumber = (p: Paging) => p.cursors.length;

/** The getHistory options for the current page. */
export function historyQuery(p: Paging): { limit: number; before?: Config } {
  const cursor = p.cursors[p.cursors.length - 1];
  return { limit: p.pageSize + 1, ...(cursor ? { before: { configurable: { checkpoint_id: cursor } } } : {}) };
}

export interface Page<T> {
  items: T[];
  /** The checkpoint id an older page starts before; undefined on the oldest page. */
  olderCursor?: string;
}

export function toPage<T extends { checkpoint: { checkpoint_id?: string | null } }>(p: Paging, states: T[]): Page<T> {
  const items = states.slice(0, p.pageSize);
  const last = items[items.length - 1];
  const olderCursor = states.length > p.pageSize ? (last?.checkpoint.checkpoint_id ?? undefined) : undefined;
  return { items, ...(olderCursor ? { olderCursor } : {}) };
}

export const older = (p: Paging, cursor: string): Paging => ({ ...p, cursors: [...p.cursors, cursor] });

export const newer = (p: Paging): Paging => (p.cursors.length > 1 ? { ...p, cursors: p.cursors.slice(0, -1) } : p);

export interface CheckpointSummary {
  checkpointId: string;
  step?: number;
  source?: string;
  /** Nodes whose writes made this checkpoint: metadata.writes keys, else its parent's `next` (see below). */
  writers: string[];
  next: string[];
  runId?: string;
  createdAt?: string;
  /** Made by an update_state (an edit in Studio or an API call), not by running the graph. */
  edited: boolean;
  interrupted: boolean;
}

type Summarized = Pick<ThreadState, "checkpoint" | "metadata" | "next" | "created_at" | "tasks">;

/**
 * What a timeline entry says about one checkpoint. LangGraph.js 1.x no longer records
 * `metadata.writes`, so the nodes that wrote a checkpoint of the run loop are read from its parent:
 * the nodes the parent had next are the ones that ran.
 */
export function summarizeCheckpoint(s: Summarized, parent?: Pick<ThreadState, "next">): CheckpointSummary {
  const m = (s.metadata ?? {}) as Record<string, unknown>;
  const recorded = m.writes && typeof m.writes === "object" ? Object.keys(m.writes as object) : [];
  const writes = recorded.length ? recorded : m.source === "loop" && parent ? parent.next.filter((n) => n !== "__start__") : [];
  return {
    checkpointId: s.checkpoint.checkpoint_id ?? "",
    ...(typeof m.step === "number" ? { step: m.step } : {}),
    ...(typeof m.source === "string" ? { source: m.source } : {}),
    writers: writes,
    next: Array.isArray(s.next) ? s.next : [],
    ...(typeof m.run_id === "string" ? { runId: m.run_id } : {}),
    ...(s.created_at ? { createdAt: s.created_at } : {}),
    edited: m.source === "update",
    interrupted: (s.tasks ?? []).some((t) => (t.interrupts ?? []).length > 0),
  };
}

/** The parent of each state among `states` (by parent_checkpoint id), for summarizeCheckpoint. */
export function parentsOf<T extends Pick<ThreadState, "checkpoint" | "parent_checkpoint">>(states: readonly T[]): Map<string, T> {
  const byId = new Map(states.map((s) => [s.checkpoint.checkpoint_id ?? "", s]));
  const out = new Map<string, T>();
  for (const s of states) {
    const parent = s.parent_checkpoint?.checkpoint_id ? byId.get(s.parent_checkpoint.checkpoint_id) : undefined;
    if (parent) out.set(s.checkpoint.checkpoint_id ?? "", parent);
  }
  return out;
}

/**
 * The runs executing in this process, by run id, as their stream readers here see them: the events
 * announced but not stored yet, and whether memory holds every event after a point.
 *
 * A reader here takes those events from memory instead of the database: a graph busy emitting a
 * burst of tokens from promise chains holds back every database reply (and Redis reply, and so the
 * `stored` message) until the burst ends, so a reader that needed one would see nothing until then.
 */
import type { StoredEvent } from "../storage/events.js";

export interface LocalRunSource {
  /** Announced, not stored yet (ascending seq, without gaps). */
  unstored(): readonly StoredEvent[];
  /** The first seq no stored block covers yet: every event from it on is in `unstored()`. */
  unstoredFrom(): number;
  /** The seq the next event will get. */
  nextSeq(): number;
}

const local = new Map<string, LocalRunSource>();

/** Register a run executing here; returns the unregister function. */
export function registerUnstored(runId: string, source: LocalRunSource): () => void {
  local.set(runId, source);
  return () => {
    if (local.get(runId) === source) local.delete(runId);
  };
}

/** Whether the run executes in this process (its events are announced here first). */
export function isLocalRun(runId: string): boolean {
  return local.has(runId);
}

/** The run's unstored events from `after + 1` on, without gaps, up to `upTo`; empty when this process has none. */
export function unstoredAfter(runId: string, after: number, upTo = Number.MAX_SAFE_INTEGER): StoredEvent[] {
  const events = local.get(runId)?.unstored() ?? [];
  const out: StoredEvent[] = [];
  let next = after + 1;
  for (const e of events) {
    if (e.seq < next) continue;
    if (e.seq !== next || e.seq > upTo) break;
    out.push(e);
    next++;
  }
  return out;
}

/**
 * Every event of a run executing here after `after`, when memory alone holds them all (nothing after
 * `after` is stored, and no seq is skipped); undefined otherwise (the reader reads the log).
 */
export function localTail(runId: string, after: number): StoredEvent[] | undefined {
  const source = local.get(runId);
  if (!source || after + 1 < source.unstoredFrom()) return undefined;
  const events = unstoredAfter(runId, after);
  const next = events.length ? events[events.length - 1]!.seq + 1 : after + 1;
  // (a retried run numbers its events past a gap: a reader before the gap reads the log)
  return next === source.nextSeq() ? events : undefined;
}

/** How far the stored log of a run executing here reaches (undefined: not executing here). */
export function localStoredThrough(runId: string): number | undefined {
  const source = local.get(runId);
  return source ? source.unstoredFrom() - 1 : undefined;
}

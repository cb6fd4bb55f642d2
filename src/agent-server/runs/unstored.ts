/**
 * The events of runs executing in this process that are announced but not stored yet, by run id.
 * A reader here that needs one of them (it subscribed just after the event went out on the bus)
 * takes it from memory instead of waiting for the database: a graph busy emitting a burst of
 * tokens holds back every database reply — and so the `stored` message — until the burst ends.
 */
import type { StoredEvent } from "../storage/events.js";

const pending = new Map<string, () => readonly StoredEvent[]>();

/** Register the source of a run's unstored events (ascending seq); returns the unregister function. */
export function registerUnstored(runId: string, source: () => readonly StoredEvent[]): () => void {
  pending.set(runId, source);
  return () => {
    if (pending.get(runId) === source) pending.delete(runId);
  };
}

/** The run's unstored events from `after + 1` on, without gaps, up to `upTo`; empty when this process has none. */
export function unstoredAfter(runId: string, after: number, upTo = Number.MAX_SAFE_INTEGER): StoredEvent[] {
  const events = pending.get(runId)?.() ?? [];
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

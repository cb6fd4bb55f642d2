/**
 * The runs executing in this process, by run id, as their stream readers here see them: the events
 * announced but not stored yet, and whether memory holds every event after a point.
 *
 * A reader here takes those events from memory instead of the database: a graph busy emitting a
 * burst of tokens from promise chains holds back every database reply (and Redis reply, and so the
 * `stored` message) until the burst ends, so a reader that needed one would see nothing until then.
 *
 * Readers elsewhere: a run's events and `stored` messages reach this process's readers at once, and
 * go out on the carrier (Redis, Postgres) only once a reader in another process has asked for them
 * on the `readers` channel — most runs have no such reader, and each publish costs a write, a
 * Redis wake-up and one per subscribed process. Such a reader asks once it is subscribed, and again
 * whenever a poll interval passes without a word from the run (the run may not have started, or
 * started again elsewhere); until the run's process has heard it, the reader still has the log.
 */
import type { Bus } from "../../shared/bus/index.js";
import type { Channels } from "./channels.js";
import type { StoredEvent } from "../storage/events.js";

export interface LocalRunSource {
  /** Announced, not stored yet (ascending seq, without gaps). */
  unstored(): readonly StoredEvent[];
  /** The first seq no stored block covers yet: every event from it on is in `unstored()`. */
  unstoredFrom(): number;
  /** The seq the next event will get. */
  nextSeq(): number;
  /** A reader in another process asked for the run's events. */
  remoteReader(): void;
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

/**
 * Readers elsewhere asked for these runs before they executed here: run id → until when (ms), in
 * the order they expire (a request asked again moves to the back), so the expired ones are
 * dropped from the front as new ones come: most runs asked for never execute here (another
 * process runs them), and their requests must not pile up.
 */
const wanted = new Map<string, number>();
/** How long a request for a run not executing here is kept (its reader asks again meanwhile). */
const WANTED_MS = 60_000;

function remoteReaderOf(runId: string): void {
  const source = local.get(runId);
  if (source) return source.remoteReader();
  const now = Date.now();
  for (const [id, until] of wanted) {
    if (until >= now) break;
    wanted.delete(id);
  }
  wanted.delete(runId);
  wanted.set(runId, now + WANTED_MS);
}

/** How many requests of readers elsewhere are kept for runs not executing here (memory; tests). */
export function remoteRequestsKept(): number {
  return wanted.size;
}

/** Whether a reader elsewhere asked for the run's events before it began executing here. */
export function takeRemoteReader(runId: string): boolean {
  const until = wanted.get(runId);
  wanted.delete(runId);
  return until !== undefined && until >= Date.now();
}

/** Hear other processes' readers ask for runs' events (a process that executes runs listens). */
export function listenForReaders(bus: Bus, channels: Channels): Promise<() => Promise<void>> {
  return bus.subscribe(channels.readers, (runId) => remoteReaderOf(runId));
}

/** Ask, from a reader of a run not executing here, for the run's events on the carrier. */
export function askForEvents(bus: Bus, channels: Channels, runId: string): void {
  if (bus.kind === "memory") return; // one process: every message reaches every reader
  bus.publish(channels.readers, runId).catch(() => undefined);
}

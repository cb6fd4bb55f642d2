/**
 * Following a revision's build or deploy log (GET …/revisions/{rid}/logs, ascending, with the
 * `offset` cursor): the lines read so far, where to ask next, and when. Pure; the hook in
 * useLogFollow.ts does the I/O.
 *
 * The API answers `next_offset: null` on the last page, which is also where a follower stands, so
 * the cursor to poll with is then taken from the last line's id. That is what the server's cursor is
 * today (src/control-plane/storage/deployments.ts); lines are de-duplicated by id as well, so a
 * cursor that repeats a line does no harm.
 */
import type { LogEntry, LogPage } from "../api/types";

/** Lines kept in the browser; a runaway build log must not eat the tab's memory. */
export const MAX_LINES = 20_000;
/** Lines per request (the API allows up to 1000). */
export const PAGE_SIZE = 500;
/** Poll interval while the revision is in progress. */
export const FOLLOW_MS = 1_500;

export interface LogBuffer {
  entries: LogEntry[];
  ids: ReadonlySet<string>;
  /** The `offset` of the next request; undefined = from the start. */
  cursor: string | undefined;
  /** Lines dropped from the front to stay under MAX_LINES. */
  dropped: number;
}

export function emptyBuffer(): LogBuffer {
  return { entries: [], ids: new Set(), cursor: undefined, dropped: 0 };
}

export function nextCursor(previous: string | undefined, page: Pick<LogPage, "logs" | "next_offset">): string | undefined {
  return page.next_offset ?? page.logs.at(-1)?.id ?? previous;
}

/** The buffer after one more page: new lines appended in order, repeats ignored, the cursor moved on. */
export function appendPage(buffer: LogBuffer, page: Pick<LogPage, "logs" | "next_offset">, max = MAX_LINES): LogBuffer {
  const fresh = page.logs.filter((l) => !buffer.ids.has(l.id));
  const cursor = nextCursor(buffer.cursor, page);
  if (fresh.length === 0) return cursor === buffer.cursor ? buffer : { ...buffer, cursor };
  let entries = [...buffer.entries, ...fresh];
  let dropped = buffer.dropped;
  let ids: Set<string>;
  if (entries.length > max) {
    dropped += entries.length - max;
    entries = entries.slice(entries.length - max);
    ids = new Set(entries.map((e) => e.id));
  } else {
    ids = new Set(buffer.ids);
    for (const l of fresh) ids.add(l.id);
  }
  return { entries, ids, cursor, dropped };
}

/**
 * How long to wait before the next request, or null to stop following.
 * - `more`: the page was full (the API has a next page): ask again at once;
 * - `settledBeforeFetch`: the revision had already reached a terminal status when this request
 *   started, so this answer holds every line it will write: stop;
 * - otherwise the revision is still running: poll.
 */
export function followDelay(p: { more: boolean; settledBeforeFetch: boolean }): number | null {
  if (p.more) return 0;
  if (p.settledBeforeFetch) return null;
  return FOLLOW_MS;
}

/**
 * Whether a scrolled box shows its last line (within `slack` px): only then does a new line scroll
 * the box down, so reading earlier lines is never interrupted.
 */
export function isAtBottom(box: { scrollTop: number; clientHeight: number; scrollHeight: number }, slack = 24): boolean {
  return box.scrollHeight - box.scrollTop - box.clientHeight <= slack;
}

/** A log line as one line of text: time, level, message (the message is shown as text, never as HTML). */
export function logLineText(e: Pick<LogEntry, "timestamp" | "level" | "message">): string {
  return `${e.timestamp} ${e.level.padEnd(5)} ${e.message}`;
}

/** A log time as the reader's local clock time with milliseconds (the full ISO time is in the tooltip). */
export function logTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, "0")}`;
}

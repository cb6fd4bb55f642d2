/**
 * Reads a revision's build or deploy log and keeps reading while the revision is in progress:
 * page after page with the cursor, then every FOLLOW_MS, and one last read after the revision
 * settles (see followDelay). A new revision or log type (`key`) starts over. Pass `inProgress`
 * true while the revision's status is not known yet, so the first answer does not end the follow.
 */
import { useEffect, useRef, useState } from "react";
import type { LogPage } from "../api/types";
import { appendPage, emptyBuffer, followDelay, PAGE_SIZE, type LogBuffer } from "./logs-follow";

export type LogFetcher = (cursor: string | undefined) => Promise<LogPage>;

export interface LogFollowState {
  buffer: LogBuffer;
  /** Still asking for more (the revision is in progress, or pages remain). */
  following: boolean;
  error: unknown;
  /** Start over from the first line (after an error, or to pick up late lines). */
  reload(): void;
}

const RETRY_MS = 5_000;

export function useLogFollow(key: string, fetchPage: LogFetcher, inProgress: boolean): LogFollowState {
  const [buffer, setBuffer] = useState<LogBuffer>(emptyBuffer);
  const [following, setFollowing] = useState(true);
  const [error, setError] = useState<unknown>();
  const [generation, setGeneration] = useState(0);
  // read at request time: the revision's status changes while the loop runs
  const inProgressRef = useRef(inProgress);
  inProgressRef.current = inProgress;
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  useEffect(() => {
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current = emptyBuffer();
    setBuffer(current);
    setError(undefined);
    setFollowing(true);
    const tick = async () => {
      const settledBeforeFetch = !inProgressRef.current;
      let delay: number | null;
      try {
        const page = await fetchRef.current(current.cursor);
        if (cancelled) return;
        current = appendPage(current, page);
        setBuffer(current);
        setError(undefined);
        delay = followDelay({ more: page.next_offset !== null && page.logs.length >= PAGE_SIZE, settledBeforeFetch });
      } catch (err) {
        if (cancelled) return;
        setError(err);
        delay = settledBeforeFetch ? null : RETRY_MS;
      }
      if (delay === null) setFollowing(false);
      else timer = setTimeout(tick, delay);
    };
    void tick();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [key, generation]);

  return { buffer, following, error, reload: () => setGeneration((g) => g + 1) };
}

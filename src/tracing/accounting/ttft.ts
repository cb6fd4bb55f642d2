/** Time to first token (pure): the first `new_token` event, or a supplied first_token_time. */

export interface RunEvent {
  name?: string;
  time?: string | number;
}

function toMs(t: string | number | undefined): number | undefined {
  if (t === undefined) return undefined;
  const ms = typeof t === "number" ? t : Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Milliseconds from the run's start to its first token; undefined when unknown. */
export function timeToFirstToken(startTime: string | number, events: RunEvent[] | undefined, firstTokenTime?: string | number): number | undefined {
  const start = toMs(startTime);
  if (start === undefined) return undefined;
  const first =
    toMs(firstTokenTime) ??
    (events ?? [])
      .filter((e) => e?.name === "new_token")
      .map((e) => toMs(e.time))
      .filter((t): t is number => t !== undefined)
      .sort((a, b) => a - b)[0];
  return first === undefined ? undefined : Math.max(0, first - start);
}

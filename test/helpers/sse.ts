/**
 * Server-Sent Events as a test reads them off a raw `fetch` (where the SDK would hide the ids and
 * heartbeats a test needs to check): every event with its id, name and parsed JSON data.
 */
export interface SseEvent {
  /** The `id:` field as sent (absent when the server sent none). */
  id?: string;
  event: string;
  data: unknown;
}

/**
 * Read a response's events until the stream ends or `stopAfter` returns true for one (then
 * `abort`, the fetch's controller, hangs up). Comments (heartbeats) are skipped.
 */
export async function readSse(res: Response, stopAfter?: (e: SseEvent, count: number) => boolean, abort?: AbortController): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let idx: number;
      while ((idx = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, idx);
        buf = buf.slice(idx + 2);
        const e: Partial<SseEvent> = {};
        for (const line of block.split("\n")) {
          if (line.startsWith("event: ")) e.event = line.slice(7);
          else if (line.startsWith("data: ")) e.data = JSON.parse(line.slice(6));
          else if (line.startsWith("id: ")) e.id = line.slice(4);
        }
        if (!e.event) continue;
        out.push(e as SseEvent);
        if (stopAfter?.(e as SseEvent, out.length)) {
          abort?.abort();
          return out;
        }
      }
    }
  } catch (err) {
    if (!abort?.signal.aborted) throw err;
  }
  return out;
}

/**
 * Streams a run's events to an HTTP client as Server-Sent Events, exactly as the LangGraph SDK
 * reads them (`event:`, `data:`, `id:` lines), from the durable event log plus live bus messages:
 *
 * 1. subscribe to the run's channel (buffering), so nothing published from now on is missed;
 * 2. replay stored events after `Last-Event-ID` (`-1` = from the start), or for a fresh
 *    stream that created the run, everything;
 * 3. forward live events in order, filling any gap from the database;
 * 4. close as soon as the run's done message has been handled (or a poll finds the run ended).
 *
 * Comment lines (`: heartbeat`) keep idle connections open through proxies and let the SDK's
 * reconnect logic tell a live stream from a dead one.
 */
import type { Response } from "express";
import type { AgentServerContext } from "../context.js";
import type { DoneMessage, RunMessage } from "./channels.js";
import { isTerminal } from "./rules.js";

export interface StreamOptions {
  runId: string;
  /** Replay after this event id; -1 replays everything; undefined = live only. */
  lastEventId?: number;
  /** Only these modes (join stream's `stream_mode`); undefined = all the run produces. */
  modes?: string[];
  /** Called when the client goes away before the run ended. */
  onDisconnect?: () => void;
  headers?: Record<string, string>;
}

export function sseHeaders(res: Response, extra: Record<string, string> = {}): void {
  res.status(200).set({
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
    ...extra,
  });
  res.flushHeaders();
}

export function writeSse(res: Response, event: string, data: string, id?: number | string): void {
  res.write(`event: ${event}\ndata: ${data}\n${id === undefined ? "" : `id: ${id}\n`}\n`);
}

/** Whether an event belongs to the requested modes (metadata and error always do). */
export function eventMatchesModes(event: string, modes: string[] | undefined): boolean {
  if (!modes || modes.length === 0) return true;
  const base = event.split("|")[0]!;
  if (base === "metadata" || base === "error") return true;
  if (base.startsWith("messages/")) return modes.includes("messages");
  if (base === "messages") return modes.includes("messages-tuple");
  return modes.includes(base);
}

export interface RunEvent {
  seq: number;
  event: string;
  /** JSON text. */
  data: string;
}

/**
 * Every event of a run, in order and without gaps, until the run ends (or `signal` aborts):
 * `after` is the last event id the reader has (-1: from the start; undefined: only new events).
 * Reads the durable log and live bus messages together (see the header comment).
 */
export async function* runEvents(
  ctx: AgentServerContext,
  runId: string,
  opts: { after?: number; signal?: AbortSignal } = {},
): AsyncGenerator<RunEvent, void> {
  const { bus, channels, events, runs, settings } = ctx;
  const buffer: RunMessage[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = await bus.subscribe(channels.run(runId), (raw) => {
    buffer.push(JSON.parse(raw) as RunMessage);
    wake?.();
  });
  const onAbort = () => wake?.();
  opts.signal?.addEventListener("abort", onAbort);
  let finished: DoneMessage | undefined;
  const poll = setInterval(async () => {
    let run;
    try {
      run = await runs.find(runId);
    } catch {
      return; // a failed look-up says nothing about the run; the next poll retries
    }
    if (!run || isTerminal(run.status)) {
      finished ??= { type: "done", status: run?.status ?? "rollback", last_seq: Number.MAX_SAFE_INTEGER };
      wake?.();
    }
  }, Math.min(2000, settings.heartbeatSeconds * 1000));

  let last = opts.after ?? (await events.lastSeq(runId));
  async function* fill(upTo?: number): AsyncGenerator<RunEvent> {
    for (const e of await events.after(runId, last, upTo)) {
      if (e.seq <= last) continue;
      last = e.seq;
      yield e;
    }
  }
  try {
    if (opts.after !== undefined) yield* fill();
    const run = await runs.find(runId);
    if (!run || isTerminal(run.status)) {
      yield* fill();
      return;
    }
    while (!opts.signal?.aborted) {
      while (buffer.length) {
        const msg = buffer.shift()!;
        if (msg.type === "done") {
          finished = msg;
          break;
        }
        if (msg.seq <= last) continue;
        if (msg.seq === last + 1 && msg.data !== undefined) {
          last = msg.seq;
          yield { seq: msg.seq, event: msg.event, data: msg.data };
        } else {
          yield* fill(msg.seq);
        }
      }
      if (finished) {
        yield* fill(finished.last_seq === Number.MAX_SAFE_INTEGER ? undefined : finished.last_seq);
        return;
      }
      await new Promise<void>((r) => {
        wake = r;
        if (buffer.length || opts.signal?.aborted || finished) r();
      });
      wake = undefined;
    }
  } finally {
    clearInterval(poll);
    opts.signal?.removeEventListener("abort", onAbort);
    await unsubscribe();
  }
}

/** Keep an SSE response alive with comment lines until `signal` aborts; returns the stopper. */
export function sseHeartbeat(res: Response, seconds: number, signal: AbortSignal): () => void {
  const timer = setInterval(() => {
    if (!signal.aborted) res.write(": heartbeat\n\n");
  }, seconds * 1000);
  return () => clearInterval(timer);
}

export async function streamRun(ctx: AgentServerContext, res: Response, opts: StreamOptions): Promise<void> {
  const gone = new AbortController();
  res.on("close", () => gone.abort());
  const heartbeat = setInterval(() => {
    if (!gone.signal.aborted) res.write(": heartbeat\n\n");
  }, ctx.settings.heartbeatSeconds * 1000);
  try {
    sseHeaders(res, opts.headers);
    for await (const e of runEvents(ctx, opts.runId, { after: opts.lastEventId, signal: gone.signal })) {
      if (eventMatchesModes(e.event, opts.modes)) writeSse(res, e.event, e.data, e.seq);
    }
    if (gone.signal.aborted) opts.onDisconnect?.();
  } finally {
    clearInterval(heartbeat);
    if (!gone.signal.aborted) res.end();
  }
}

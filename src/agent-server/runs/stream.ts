/**
 * Streams a run's events to an HTTP client as Server-Sent Events, exactly as the LangGraph SDK
 * reads them (`event:`, `data:`, `id:` lines), from the durable event log plus live bus messages:
 *
 * 1. subscribe to the run's channel (buffering), so nothing published from now on is missed;
 * 2. replay stored events after `Last-Event-ID` (`-1` = from the start), or for a fresh
 *    stream that created the run, everything;
 * 3. forward live events in order (they arrive before they are stored), filling any gap from
 *    the database once it has them;
 * 4. close as soon as the run's done message has been handled (or a poll finds the run ended).
 *
 * Comment lines (`: heartbeat`) keep idle connections open through proxies and let the SDK's
 * reconnect logic tell a live stream from a dead one.
 */
import type { Response } from "express";
import type { AgentServerContext } from "../context.js";
import type { DoneMessage, RunMessage } from "./channels.js";
import { isTerminal } from "./rules.js";
import { TRUNCATED_EVENT } from "../storage/events.js";
import { askForEvents, isLocalRun, localStoredThrough, localTail, unstoredAfter } from "./unstored.js";

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

export function sseText(event: string, data: string, id?: number | string): string {
  return `event: ${event}\ndata: ${data}\n${id === undefined ? "" : `id: ${id}\n`}\n`;
}

export function writeSse(res: Response, event: string, data: string, id?: number | string): void {
  res.write(sseText(event, data, id));
}

/** Whether an event belongs to the requested modes (metadata, error and the budget's marker always do). */
export function eventMatchesModes(event: string, modes: string[] | undefined): boolean {
  if (!modes || modes.length === 0) return true;
  const base = event.split("|")[0]!;
  if (base === "metadata" || base === "error" || base === TRUNCATED_EVENT) return true;
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
 *
 * Events reach the bus before the durable log (queue/emitter.ts), so the two are joined by seq:
 * subscribe first (buffering), then read the stored tail; a live event is passed on when it is
 * the next seq and carries its payload; anything else — seqs announced before the subscription
 * but not stored when the tail was read, payloads too large for the bus, lost messages — is read
 * from the log, waiting for its `stored` message if the log is not there yet. Seqs a stored block
 * covers without an event (dropped by the budget, or never stored by a crashed attempt) are
 * skipped. Each event is yielded once, in seq order, in batches: what arrived together (one bus
 * message, one read of the log) leaves together, so an SSE response writes it at once.
 */
export async function* runEventBatches(
  ctx: AgentServerContext,
  runId: string,
  opts: { after?: number; signal?: AbortSignal } = {},
): AsyncGenerator<RunEvent[], void> {
  const { bus, channels, events, runs, settings } = ctx;
  type LiveEvent = { seq: number; event: string; data?: string };
  let live: LiveEvent[] = [];
  /** How far the log reaches, as last announced. */
  let storedThrough = -1;
  let finished: DoneMessage | undefined;
  let wake: (() => void) | undefined;
  /** Whether the run said anything since the last poll (a reader elsewhere asks again if not). */
  let heard = false;
  // A run executing in this process publishes here first: its reader need not wait for the
  // carrier (Redis, Postgres) to confirm the subscription, a reply a burst of tokens holds back.
  const local = isLocalRun(runId);
  const unsubscribe = await bus.subscribe(channels.run(runId), (raw) => {
    heard = true;
    const msg = JSON.parse(raw) as RunMessage;
    if (msg.type === "events") for (const e of msg.events) live.push(e);
    else if (msg.type === "event") live.push(msg);
    else if (msg.type === "stored") storedThrough = Math.max(storedThrough, msg.through);
    else if (msg.type === "done") finished = msg;
    wake?.();
  }, { awaitCarrier: !local });
  // A run executing elsewhere sends its events on the carrier only once a reader asks.
  if (!local) askForEvents(bus, channels, runId);
  const onAbort = () => wake?.();
  opts.signal?.addEventListener("abort", onAbort);
  const poll = setInterval(async () => {
    if (!local && !heard && !finished) askForEvents(bus, channels, runId);
    heard = false;
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
  /** Wait for a bus message, the poll or the abort, at most `ms`. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      wake = done;
      if (opts.signal?.aborted) done();
    });

  let last = opts.after ?? localStoredThrough(runId) ?? (await events.lastSeq(runId));
  /** Read the log after `last`, up to `target` (undefined: all of it), waiting for it to be stored. */
  async function* fill(target?: number): AsyncGenerator<RunEvent[]> {
    for (;;) {
      // Announced but not stored yet, by a run executing in this process: take it from memory
      // (no database round trip, which a burst of tokens would hold back).
      if (target !== undefined) {
        const local = unstoredAfter(runId, last, target);
        if (local.length) {
          last = local[local.length - 1]!.seq;
          yield local;
          if (last >= target) return;
        }
      }
      const ended = finished !== undefined;
      const { events: found, through } = await events.read(runId, last, target);
      const out: RunEvent[] = [];
      for (const e of found) {
        if (e.seq <= last) continue;
        last = e.seq;
        out.push(e);
      }
      if (through > last) last = through;
      if (out.length) yield out;
      // Once the run has ended, its log is complete: what is not there now never will be.
      if (target === undefined || last >= target || ended || opts.signal?.aborted) return;
      // Announced live before it was stored: wait for its `stored` message (or re-read after a
      // while, in case that message was lost).
      const deadline = Date.now() + 500;
      while (storedThrough < target && !finished && !opts.signal?.aborted && Date.now() < deadline) await pause(deadline - Date.now());
    }
  }
  try {
    // Whether the run has ended already is looked up without waiting for the answer: while the
    // run executes in this process, a burst of tokens holds back every database reply, and live
    // events must not queue behind it. An ended run's reader then reads the log to its end.
    void runs.find(runId).then(
      (run) => {
        if (run && !isTerminal(run.status)) return;
        finished ??= { type: "done", status: run?.status ?? "rollback", last_seq: Number.MAX_SAFE_INTEGER };
        wake?.();
      },
      () => undefined, // the poll looks again
    );
    // What a run executing here has emitted and not stored is all in memory: no read of the log.
    const tail = localTail(runId, last);
    if (tail) {
      if (tail.length) {
        last = tail[tail.length - 1]!.seq;
        yield tail;
      }
    } else if (opts.after !== undefined) yield* fill();
    while (!opts.signal?.aborted) {
      while (live.length) {
        const batch = live;
        live = [];
        let out: RunEvent[] = [];
        for (const e of batch) {
          if (e.seq <= last) continue;
          if (e.seq === last + 1 && e.data !== undefined) {
            last = e.seq;
            out.push({ seq: e.seq, event: e.event, data: e.data });
            continue;
          }
          if (out.length) yield out;
          out = [];
          yield* fill(e.seq);
          if (opts.signal?.aborted) return;
        }
        if (out.length) yield out;
        if (opts.signal?.aborted) return;
      }
      if (finished) {
        yield* fill(finished.last_seq === Number.MAX_SAFE_INTEGER ? undefined : finished.last_seq);
        return;
      }
      // Events announced before this reader subscribed, and stored after it read the log: no live
      // event may follow them for a while (the graph is busy), so the `stored` message says so.
      if (storedThrough > last) {
        yield* fill(storedThrough);
        continue;
      }
      await pause(60_000);
    }
  } finally {
    clearInterval(poll);
    opts.signal?.removeEventListener("abort", onAbort);
    await unsubscribe();
  }
}

/** Every event of a run, one at a time (see runEventBatches). */
export async function* runEvents(
  ctx: AgentServerContext,
  runId: string,
  opts: { after?: number; signal?: AbortSignal } = {},
): AsyncGenerator<RunEvent, void> {
  for await (const batch of runEventBatches(ctx, runId, opts)) yield* batch;
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
    // Events that come together (one bus message's worth of tokens) leave in one socket write.
    for await (const batch of runEventBatches(ctx, opts.runId, { after: opts.lastEventId, signal: gone.signal })) {
      let text = "";
      for (const e of batch) if (eventMatchesModes(e.event, opts.modes)) text += sseText(e.event, e.data, e.seq);
      if (!text) continue;
      res.write(text);
      // Node's http corks the socket on a write until process.nextTick, and a graph emitting a
      // burst of tokens from promise chains holds nextTick back until the burst ends: send now.
      while (res.socket && res.socket.writableCorked > 0) res.socket.uncork();
    }
    if (gone.signal.aborted) opts.onDisconnect?.();
  } finally {
    clearInterval(heartbeat);
    if (!gone.signal.aborted) res.end();
  }
}

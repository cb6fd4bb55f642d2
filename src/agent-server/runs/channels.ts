/**
 * Bus channel names and message shapes. Run events are announced BEFORE they are stored (live
 * readers must not wait for the database); a `stored` message follows once they are. Everything
 * else is committed before it is announced, so a lost message only delays a reader until its next
 * poll.
 */
export interface Channels {
  /** "A run may be claimable": workers try to claim. */
  wake: string;
  /** Cancel requests for running runs, for whichever worker holds them. */
  cancel: string;
  /** Events and completion of one run. */
  run(runId: string): string;
  /**
   * "A reader in another process wants this run's events" (the message is the run id): a run's
   * events and `stored` messages go out on the carrier only once someone elsewhere asked (see
   * runs/unstored.ts); its `done` always does.
   */
  readers: string;
}

export function channelsFor(prefix: string): Channels {
  return {
    wake: `${prefix}:wake`,
    cancel: `${prefix}:cancel`,
    run: (runId) => `${prefix}:run:${runId}`,
    readers: `${prefix}:readers`,
  };
}

/** One stream event; `data` is JSON text, omitted when too large for the bus (read it from the DB). */
export interface EventMessage {
  type: "event";
  seq: number;
  event: string;
  data?: string;
}

/** The events a run emitted in one turn of the event loop, in seq order (not yet stored). */
export interface EventsMessage {
  type: "events";
  events: { seq: number; event: string; data?: string }[];
}

/** The run's durable event log now covers every seq up to `through`. */
export interface StoredMessage {
  type: "stored";
  through: number;
}

/** The run ended (or vanished, for rollback). `last_seq` is its last event. */
export interface DoneMessage {
  type: "done";
  status: string;
  last_seq: number;
  /** JSON text of the final thread values, when it fits: readers of deleted temporary threads need it. */
  output?: string;
  error?: { error: string; message: string };
}

export type RunMessage = EventMessage | EventsMessage | StoredMessage | DoneMessage;

export interface CancelMessage {
  run_id: string;
  action: "interrupt" | "rollback";
}

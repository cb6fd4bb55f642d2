/**
 * Bus channel names and message shapes. Everything announced here is already committed to the
 * database, so a lost message only delays a reader until its next poll.
 */
export interface Channels {
  /** "A run may be claimable": workers try to claim. */
  wake: string;
  /** Cancel requests for running runs, for whichever worker holds them. */
  cancel: string;
  /** Events and completion of one run. */
  run(runId: string): string;
}

export function channelsFor(prefix: string): Channels {
  return {
    wake: `${prefix}:wake`,
    cancel: `${prefix}:cancel`,
    run: (runId) => `${prefix}:run:${runId}`,
  };
}

/** One stream event; `data` is JSON text, omitted when too large for the bus (read it from the DB). */
export interface EventMessage {
  type: "event";
  seq: number;
  event: string;
  data?: string;
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

export type RunMessage = EventMessage | DoneMessage;

export interface CancelMessage {
  run_id: string;
  action: "interrupt" | "rollback";
}

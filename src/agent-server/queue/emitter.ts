/**
 * Writes a run's stream events: each event is stored durably first, then announced on the bus
 * (with its payload when it fits), so a reader can always fill gaps from the database.
 *
 * Writes are pipelined off the graph's critical path: `emit` queues the event and returns; one
 * writer at a time stores everything queued so far in a single statement, then announces those
 * events in order. `flush` waits until the queue is empty (the worker flushes before it marks the
 * run ended, so `done` always follows every event).
 */
import type { Bus } from "../../shared/bus/index.js";
import type { Channels, DoneMessage, EventMessage } from "../runs/channels.js";
import { toWireJson } from "../serde.js";
import type { EventStore, StoredEvent } from "../storage/events.js";

export class RunEmitter {
  private seq: number;
  private queue: StoredEvent[] = [];
  private writing?: Promise<void>;
  private failure: unknown;

  constructor(
    private readonly runId: string,
    private readonly events: EventStore,
    private readonly bus: Bus,
    private readonly channels: Channels,
    firstSeq: number,
  ) {
    this.seq = firstSeq;
  }

  get lastSeq(): number {
    return this.seq - 1;
  }

  emit = async (event: string, data: unknown): Promise<void> => {
    // Serialise now: the graph may mutate the object after this call returns.
    this.queue.push({ seq: this.seq++, event, data: toWireJson(data) });
    // After a failed write nothing more is stored (flush reports the failure). Starting a writer
    // then would also be wrong: write() would finish synchronously, clearing `writing` before
    // this assignment, leaving a settled promise in `writing` that flush() awaits forever in a
    // microtask loop that starves the event loop (seen when the database restarted mid-run).
    if (!this.writing && !this.failure) this.writing = this.write();
  };

  private async write(): Promise<void> {
    while (this.queue.length && !this.failure) {
      const batch = this.queue;
      this.queue = [];
      try {
        await this.events.appendMany(this.runId, batch);
      } catch (err) {
        this.failure = err;
        break;
      }
      for (const e of batch) {
        const msg: EventMessage = { type: "event", seq: e.seq, event: e.event };
        if (e.data.length < this.bus.maxMessageBytes - 200) msg.data = e.data;
        await this.bus.publish(this.channels.run(this.runId), JSON.stringify(msg)).catch(() => undefined);
      }
    }
    this.writing = undefined;
  }

  /** Wait until every event emitted so far is stored and announced. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failure) throw this.failure;
  }

  async done(msg: Omit<DoneMessage, "type" | "last_seq">): Promise<void> {
    await this.flush().catch(() => undefined);
    const full: DoneMessage = { type: "done", last_seq: this.lastSeq, ...msg };
    let text = JSON.stringify(full);
    if (text.length > this.bus.maxMessageBytes) {
      delete full.output;
      text = JSON.stringify(full);
    }
    await this.bus.publish(this.channels.run(this.runId), text).catch(() => undefined);
  }
}

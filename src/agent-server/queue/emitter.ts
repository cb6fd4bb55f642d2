/**
 * Writes a run's stream events: each event is stored durably first, then announced on the bus
 * (with its payload when it fits), so a reader can always fill gaps from the database.
 *
 * Writes are pipelined off the graph's critical path: `emit` queues the event and returns, a
 * single chain stores and announces events strictly in order, and `flush` waits for the chain
 * (the worker flushes before it marks the run ended, so `done` always follows every event).
 */
import type { Bus } from "../../shared/bus/index.js";
import type { Channels, DoneMessage, EventMessage } from "../runs/channels.js";
import { toWireJson } from "../serde.js";
import type { EventStore } from "../storage/events.js";

export class RunEmitter {
  private seq: number;
  private chain: Promise<void> = Promise.resolve();
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
    const seq = this.seq++;
    // Serialise now: the graph may mutate the object after this call returns.
    const json = toWireJson(data);
    this.chain = this.chain.then(async () => {
      if (this.failure) return;
      try {
        await this.events.append(this.runId, seq, event, json);
      } catch (err) {
        this.failure = err;
        return;
      }
      const msg: EventMessage = { type: "event", seq, event };
      if (json.length < this.bus.maxMessageBytes - 200) msg.data = json;
      await this.bus.publish(this.channels.run(this.runId), JSON.stringify(msg)).catch(() => undefined);
    });
  };

  /** Wait until every event emitted so far is stored and announced. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure) throw this.failure;
  }

  async done(msg: Omit<DoneMessage, "type" | "last_seq">): Promise<void> {
    await this.chain;
    const full: DoneMessage = { type: "done", last_seq: this.lastSeq, ...msg };
    let text = JSON.stringify(full);
    if (text.length > this.bus.maxMessageBytes) {
      delete full.output;
      text = JSON.stringify(full);
    }
    await this.bus.publish(this.channels.run(this.runId), text).catch(() => undefined);
  }
}

/**
 * A run's event writer lingers longer the more runs store events at once (queue/emitter.ts), but
 * not when a reader in another process asks for the run's events: what it missed and is still
 * queued is stored at once, and a `stored` message says so.
 */
import { expect, it, vi } from "vitest";
import { MemoryBus } from "../../src/shared/bus/index.js";
import { channelsFor } from "../../src/agent-server/runs/channels.js";
import { listenForReaders } from "../../src/agent-server/runs/unstored.js";
import { RunEmitter } from "../../src/agent-server/queue/emitter.js";
import { RunEventWriter, decodeBlock, type EventStore } from "../../src/agent-server/storage/events.js";

it("a reader in another process asking for a run's events has the queued ones stored at once, however long the linger", async () => {
  const bus = new MemoryBus();
  const channels = channelsFor(`linger-${process.pid}`);
  const blocks: { firstSeq: number; lastSeq: number; data: string }[] = [];
  const store = {
    budgetBytes: 1 << 30,
    writer: (runId: string, from: number) => new RunEventWriter(store as unknown as EventStore, runId, from),
    insertBlock: async (_runId: string, firstSeq: number, lastSeq: number, data: string) => void blocks.push({ firstSeq, lastSeq, data }),
  };
  const runId = "00000000-0000-4000-8000-000000000001";
  const stored: number[] = [];
  await bus.subscribe(channels.run(runId), (raw) => {
    const msg = JSON.parse(raw) as { type: string; through?: number };
    if (msg.type === "stored") stored.push(msg.through!);
  });
  const stopListening = await listenForReaders(bus, channels);
  // a linger no test would wait out
  const emitter = new RunEmitter(runId, store as unknown as EventStore, bus, channels, 0, { lingerMs: 3_600_000 });
  try {
    for (let i = 0; i < 3; i++) await emitter.emit("custom", { i });
    expect(blocks).toEqual([]);
    await bus.publish(channels.readers, runId); // what askForEvents sends from another process
    await vi.waitFor(() => expect(blocks).toHaveLength(1), { timeout: 30_000 });
    expect(decodeBlock(blocks[0]!.data, blocks[0]!.firstSeq).map((e) => e.data)).toEqual(['{"i":0}', '{"i":1}', '{"i":2}']);
    await vi.waitFor(() => expect(stored).toContain(2), { timeout: 30_000 });
  } finally {
    await emitter.done({ status: "success" });
    await stopListening();
  }
});

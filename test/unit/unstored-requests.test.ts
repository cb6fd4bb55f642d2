/**
 * Requests of readers in other processes for runs' events (runs/unstored.ts): a request for a run
 * that does not execute here expires after a minute, and is dropped then, not only once 10,000
 * have piled up (most runs asked for execute elsewhere; a busy deployment asks for many).
 */
import { afterEach, expect, it, vi } from "vitest";
import { MemoryBus } from "../../src/shared/bus/index.js";
import { channelsFor } from "../../src/agent-server/runs/channels.js";
import { listenForReaders, remoteRequestsKept, takeRemoteReader } from "../../src/agent-server/runs/unstored.js";

afterEach(() => vi.useRealTimers());

it("requests for runs that never executed here are dropped once expired", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  const bus = new MemoryBus();
  const channels = channelsFor(`unstored-${Math.random().toString(36).slice(2)}`);
  const stop = await listenForReaders(bus, channels);
  const ask = async (runId: string) => {
    await bus.publish(channels.readers, runId);
    await new Promise((r) => setImmediate(r)); // (the memory bus delivers on a later tick)
  };
  const before = remoteRequestsKept();
  for (let i = 0; i < 100; i++) await ask(`old-${i}`);
  await ask("old-0"); // asked again: kept as one request
  expect(remoteRequestsKept() - before).toBe(100);

  vi.setSystemTime(Date.now() + 61_000);
  await ask("fresh");
  expect(remoteRequestsKept()).toBe(1);
  // the fresh request is still there for the run, once; the expired ones are not
  expect(takeRemoteReader("fresh")).toBe(true);
  expect(takeRemoteReader("fresh")).toBe(false);
  expect(takeRemoteReader("old-5")).toBe(false);
  expect(remoteRequestsKept()).toBe(0);
  await stop();
});

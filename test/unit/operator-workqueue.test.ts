/**
 * The controller's work queue: de-duplication, one worker per key, no lost re-adds, delayed and
 * rate-limited retries, shutdown.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { WorkQueue } from "../../src/operator/controller/workqueue.js";

afterEach(() => {
  vi.useRealTimers();
});

describe("WorkQueue", () => {
  it("hands out each waiting key once, however often it was added", async () => {
    const q = new WorkQueue<string>();
    q.add("a");
    q.add("b");
    q.add("a");
    expect(q.depth).toBe(2);
    expect(await q.get()).toBe("a");
    expect(await q.get()).toBe("b");
    expect(q.depth).toBe(0);
  });

  it("does not give a key to a second worker while the first processes it, and re-queues it on done", async () => {
    const q = new WorkQueue<string>();
    q.add("a");
    const first = await q.get();
    q.add("a"); // changed while being processed
    expect(q.depth).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await Promise.resolve();
    expect(second).toBeUndefined();
    q.done(first!);
    await Promise.resolve();
    expect(second).toBe("a");
  });

  it("drops nothing: a key added while processing and then done is processed again exactly once", async () => {
    const q = new WorkQueue<string>();
    q.add("k");
    const k = await q.get();
    q.add("k");
    q.add("k");
    q.done(k!);
    expect(q.depth).toBe(1);
    expect(await q.get()).toBe("k");
    q.done("k");
    expect(q.depth).toBe(0);
  });

  it("wakes a waiting worker on add", async () => {
    const q = new WorkQueue<string>();
    const got = q.get();
    q.add("x");
    expect(await got).toBe("x");
  });

  it("delays retries exponentially per key and resets them on forget", () => {
    vi.useFakeTimers();
    let now = 0;
    const q = new WorkQueue<string>({ baseDelayMs: 10, maxDelayMs: 1000, now: () => now });
    const times: number[] = [];
    for (let i = 0; i < 8; i++) {
      q.addRateLimited("a");
      // find when it lands
      let t = 0;
      while (q.depth === 0) {
        vi.advanceTimersByTime(1);
        now++;
        t++;
      }
      times.push(t);
      void q.get();
      q.done("a");
    }
    expect(times).toEqual([10, 20, 40, 80, 160, 320, 640, 1000]);
    q.forget("a");
    expect(q.failuresOf("a")).toBe(0);
  });

  it("limits the overall retry rate with a token bucket", () => {
    vi.useFakeTimers();
    const now = 0;
    const q = new WorkQueue<string>({ baseDelayMs: 0, qps: 10, burst: 2, now: () => now });
    for (const k of ["a", "b", "c", "d"]) q.addRateLimited(k);
    // two from the burst at once, then one per 100 ms
    vi.advanceTimersByTime(0);
    expect(q.depth).toBe(2);
    vi.advanceTimersByTime(100);
    expect(q.depth).toBe(3);
    vi.advanceTimersByTime(100);
    expect(q.depth).toBe(4);
  });

  it("keeps the earliest of two delayed adds", () => {
    vi.useFakeTimers();
    const q = new WorkQueue<string>();
    q.addAfter("a", 1000);
    q.addAfter("a", 100);
    q.addAfter("a", 5000);
    vi.advanceTimersByTime(100);
    expect(q.depth).toBe(1);
  });

  it("releases waiting workers with undefined on shutdown and accepts nothing after", async () => {
    const q = new WorkQueue<string>();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add("a");
    expect(q.depth).toBe(0);
    expect(await q.get()).toBeUndefined();
  });
});

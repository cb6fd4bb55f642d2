/**
 * The Redis bus hears its channels again after Redis restarts: ioredis reconnects and re-subscribes
 * (autoResubscribe), which the bus relies on. Against a private redis-server (the shared one is
 * never restarted).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { RedisBus } from "../../src/shared/bus/index.js";
import { eventually } from "../helpers/server.js";
import { freePort } from "../helpers/ports.js";

const REDIS_SERVER = "/usr/bin/redis-server";


/** A throwaway redis-server on `port`, without persistence; resolves once it accepts connections. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS_SERVER, ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await eventually(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect({ host: "127.0.0.1", port }, () => (s.end(), resolve(true)));
        s.on("error", () => resolve(false));
      }),
    30_000,
    50,
  );
  return child;
}

const stop = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : (c.once("exit", () => r()), c.kill("SIGKILL"))));

(existsSync(REDIS_SERVER) ? describe : describe.skip)("a Redis restart under the Redis bus", () => {
  let redis: ChildProcess | undefined;
  afterAll(async () => {
    if (redis) await stop(redis);
  });

  it("re-subscribes every channel once Redis is back", async () => {
    const port = await freePort();
    redis = await startRedis(port);
    const bus = await RedisBus.connect(`redis://127.0.0.1:${port}`);
    const received: string[] = [];
    await bus.subscribe("alpha", (m) => received.push(`alpha:${m}`));
    await bus.subscribe("beta", (m) => received.push(`beta:${m}`));
    let n = 0;
    const delivered = async (channel: string) => {
      const sent = new Set<string>();
      await eventually(async () => {
        if (received.some((r) => sent.has(r))) return true;
        const m = `m${n++}`;
        sent.add(`${channel}:${m}`);
        await bus.publish(channel, m).catch(() => undefined);
        return false;
      }, 60_000, 100);
    };
    try {
      await delivered("alpha");
      await stop(redis);
      redis = await startRedis(port);
      await delivered("alpha");
      await delivered("beta");
      expect(received.length).toBeGreaterThanOrEqual(3);
    } finally {
      await bus.close();
    }
  }, 120_000);
});

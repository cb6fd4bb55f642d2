/**
 * `/join` of a run that has already ended (issue 16: 100 runs on one thread, joined one after
 * another, mostly find their run ended): answered from one look at the database, without a
 * subscription to the run's channel — on Postgres + Redis that was a SUBSCRIBE and an UNSUBSCRIBE
 * per join. Runs still going are joined as before; a run on another thread is still a 404.
 */
import { Redis } from "ioredis";
import { expect, it } from "vitest";
import { REDIS_URI } from "../helpers/services.js";
import { describeBackends, eventually, serverForSuite, userMessage, type TestServer } from "../helpers/server.js";

type MsgState = { messages: { content: string }[] };
const texts = (v: unknown) => ((v as MsgState).messages ?? []).map((m) => m.content);

/** The Redis commands that name `needle`, as MONITOR sees them from now on (every client's). */
async function watchRedis(needle: string) {
  const seen: string[] = [];
  const monitor = await new Redis(REDIS_URI).monitor();
  monitor.on("monitor", (_time: string, args: string[]) => {
    if (args.some((a) => a.includes(needle))) seen.push(args[0]!.toLowerCase());
  });
  // MONITOR reports itself once active: wait until a command of ours shows up
  const probe = new Redis(REDIS_URI);
  await eventually(async () => (await probe.echo(`probe ${needle}`), seen.includes("echo")), 30_000);
  probe.disconnect();
  return { seen, close: () => monitor.disconnect() };
}

describeBackends("join of an ended run", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s));

  it("answers the thread's values from the database, without subscribing to the run's channel", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("done already") });
    await eventually(async () => (await client.runs.get(thread.thread_id, run.run_id)).status === "success");

    const watch = backend === "postgres" ? await watchRedis(run.run_id) : undefined;
    try {
      const joined = await client.runs.join(thread.thread_id, run.run_id);
      expect(texts(joined)).toEqual(["done already", "You said: done already"]);
      expect(joined).toEqual((await client.threads.getState(thread.thread_id)).values);
      // (a second join, so that a subscription of the first would have been sent by now)
      expect(await client.runs.join(thread.thread_id, run.run_id)).toEqual(joined);
      if (watch) expect(watch.seen.filter((c) => c === "subscribe" || c === "unsubscribe")).toEqual([]);
    } finally {
      watch?.close();
    }

    // not on that thread: 404, as before
    const other = await client.threads.create();
    const res = await fetch(`${server.url}/threads/${other.thread_id}/runs/${run.run_id}/join`);
    expect(res.status).toBe(404);
  });

  it("a join of a run still queued waits for its end and answers its values", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const slow = await client.runs.create(thread.thread_id, "slow", { input: userMessage("first"), config: { configurable: { delay_ms: 300 } } });
    const queued = await client.runs.create(thread.thread_id, "chat", { input: userMessage("second"), multitaskStrategy: "enqueue" });
    const joined = await client.runs.join(thread.thread_id, queued.run_id);
    expect(texts(joined)).toEqual(["first", "You said: first", "second", "You said: second"]);
    expect((await client.runs.get(thread.thread_id, slow.run_id)).status).toBe("success");
    expect((await client.runs.get(thread.thread_id, queued.run_id)).status).toBe("success");
  });
});

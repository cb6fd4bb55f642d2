/**
 * The thread stream, `GET /threads/{thread_id}/stream`, through the SDK's `client.threads.joinStream`:
 * every run of the thread one after another while the stream stays open, the `run_modes`,
 * `lifecycle` and `state_update` modes, resuming with `Last-Event-ID`, and its bad inputs.
 */
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { jsonFetch } from "../helpers/http.js";
import { describeBackends, eventually, serverForSuite, userMessage, type TestServer } from "../helpers/server.js";

type Ev = { id?: string; event: string; data: any };

/** Read a thread stream in the background until `stop()`. */
function follow(client: Client, threadId: string, options: { lastEventId?: string; streamMode?: any } = {}) {
  const controller = new AbortController();
  const events: Ev[] = [];
  let failure: unknown;
  const done = (async () => {
    try {
      for await (const e of client.threads.joinStream(threadId, { ...options, signal: controller.signal })) events.push(e as Ev);
    } catch (err) {
      if (!controller.signal.aborted) failure = err;
    }
  })();
  return {
    events,
    /** Wait until `pred` holds for the events so far (fails fast if the stream broke). */
    async until(pred: (evs: Ev[]) => boolean) {
      await eventually(async () => failure !== undefined || pred(events));
      if (failure !== undefined) throw new Error(`stream failed: ${String(failure)}`);
    },
    async stop() {
      controller.abort();
      await done;
    },
  };
}

const runIdOf = (e: Ev) => e.id?.split(":")[0];

describeBackends("thread stream (joinStream)", (backend) => {
  let server: TestServer;
  serverForSuite(backend, (s) => (server = s));

  it("streams each run on the thread in turn and stays open between runs; '-' replays them all, Last-Event-ID resumes mid-run", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const live = follow(client, thread.thread_id, { lastEventId: "-" });
    const first = await client.runs.create(thread.thread_id, "chat", { input: userMessage("one"), streamMode: ["values", "updates"] });
    await live.until((evs) => evs.some((e) => e.event === "values" && e.data.messages?.length === 2));
    // the stream is still open: a later run on the thread comes through it too
    const second = await client.runs.create(thread.thread_id, "chat", { input: userMessage("two"), streamMode: ["values", "updates"] });
    await live.until((evs) => evs.some((e) => e.event === "values" && e.data.messages?.length === 4));
    await live.stop();

    const evs = live.events;
    const runs = [...new Set(evs.map(runIdOf))];
    expect(runs).toEqual([first.run_id, second.run_id]);
    const ofFirst = evs.filter((e) => runIdOf(e) === first.run_id);
    expect(ofFirst[0]).toMatchObject({ event: "metadata", data: { run_id: first.run_id }, id: `${first.run_id}:0` });
    expect(ofFirst.map((e) => e.event)).toContain("updates");
    expect(evs.filter((e) => e.event === "metadata").map((e) => e.data.run_id)).toEqual([first.run_id, second.run_id]);

    // replay from the start gives the same events, with the same ids
    const replay = follow(client, thread.thread_id, { lastEventId: "-" });
    await replay.until((r) => r.length >= evs.length);
    await replay.stop();
    expect(replay.events.map((e) => [e.id, e.event])).toEqual(evs.map((e) => [e.id, e.event]));

    // resume after the first run's second event: the rest of it, then the second run, no duplicates
    const resumed = follow(client, thread.thread_id, { lastEventId: ofFirst[1]!.id });
    await resumed.until((r) => r.length >= evs.length - 2);
    await resumed.stop();
    expect(resumed.events.map((e) => e.id)).toEqual(evs.slice(2).map((e) => e.id));
  });

  it("without Last-Event-ID starts with the run in flight, from its first event", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const busy = await client.runs.create(thread.thread_id, "slow", { input: userMessage("wait"), config: { configurable: { delay_ms: 600_000 } } });
    await eventually(async () => (await client.runs.get(thread.thread_id, busy.run_id)).status === "running");
    const live = follow(client, thread.thread_id, { streamMode: ["run_modes", "lifecycle"] });
    await live.until((evs) => evs.some((e) => e.event === "metadata" && e.data.run_id === busy.run_id));
    await client.runs.cancel(thread.thread_id, busy.run_id, true);
    const next = await client.runs.create(thread.thread_id, "chat", { input: userMessage("after") });
    await live.until((evs) => evs.some((e) => e.event === "lifecycle" && e.data.run_id === next.run_id && e.data.status === "success"));
    await live.stop();
    const lifecycle = live.events.filter((e) => e.event === "lifecycle").map((e) => [e.data.run_id, e.data.status, e.id]);
    expect(lifecycle).toEqual([
      [busy.run_id, "running", `${busy.run_id}:start`],
      [busy.run_id, "interrupted", `${busy.run_id}:end`],
      [next.run_id, "running", `${next.run_id}:start`],
      [next.run_id, "success", `${next.run_id}:end`],
    ]);
  });

  it("lifecycle and state_update modes carry only their events", async () => {
    const { client } = server;
    const thread = await client.threads.create();
    const a = await client.runs.create(thread.thread_id, "chat", { input: userMessage("a"), streamMode: ["values", "updates"] });
    await client.runs.join(thread.thread_id, a.run_id);
    await client.runs.wait(thread.thread_id, "failing", { input: userMessage("b") }).catch(() => undefined);
    const lifecycle = follow(client, thread.thread_id, { lastEventId: "-", streamMode: "lifecycle" });
    await lifecycle.until((evs) => evs.length >= 4);
    const states = follow(client, thread.thread_id, { lastEventId: "-", streamMode: "state_update" });
    await states.until((evs) => evs.some((e) => e.data?.messages?.length === 2));
    await Promise.all([lifecycle.stop(), states.stop()]);
    expect(lifecycle.events.map((e) => [e.event, e.data.status])).toEqual([
      ["lifecycle", "running"],
      ["lifecycle", "success"],
      ["lifecycle", "running"],
      ["lifecycle", "error"],
    ]);
    expect(states.events.length).toBeGreaterThan(0);
    expect(states.events.every((e) => e.event === "values")).toBe(true);
  });

  it("bad input: unknown thread 404, malformed Last-Event-ID or mode 422; another thread's run id never leaks its events", async () => {
    const { client, url } = server;
    expect((await jsonFetch(url, `/threads/${randomUUID()}/stream`)).status).toBe(404);
    const thread = await client.threads.create();
    const bad = await jsonFetch(url, `/threads/${thread.thread_id}/stream`, { headers: { "Last-Event-ID": "7" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain("Last-Event-ID");
    expect((await jsonFetch(url, `/threads/${thread.thread_id}/stream?stream_mode=values`)).status).toBe(422);

    // a cursor naming another thread's run: treated as unknown here, the other thread's events stay there
    const other = await client.threads.create();
    const secret = await client.runs.create(other.thread_id, "chat", { input: userMessage("secret") });
    await client.runs.join(other.thread_id, secret.run_id);
    const mine = await client.runs.create(thread.thread_id, "slow", { input: userMessage("mine"), config: { configurable: { delay_ms: 600_000 } } });
    await eventually(async () => (await client.runs.get(thread.thread_id, mine.run_id)).status === "running");
    const probe = follow(client, thread.thread_id, { lastEventId: `${secret.run_id}:-1` });
    await probe.until((evs) => evs.some((e) => e.event === "metadata" && e.data.run_id === mine.run_id));
    await client.runs.cancel(thread.thread_id, mine.run_id, true);
    await probe.until((evs) => evs.length > 0 && evs.every((e) => runIdOf(e) === mine.run_id));
    await probe.stop();
    expect(probe.events.every((e) => runIdOf(e) === mine.run_id)).toBe(true);
    expect(JSON.stringify(probe.events)).not.toContain("secret");
  });
});

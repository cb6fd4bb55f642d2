/**
 * Runs through the real SDK client: create / wait / join / list / get / delete, stateless runs and
 * batches, interrupts and resume, factories, delayed runs, if_not_exists, config round-trips and
 * webhooks — on PGlite and on Postgres + Redis.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { describeBackends, eventually, sleep, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";

interface Msg {
  type: string;
  content: string;
}
type MsgState = { messages: Msg[] };
const texts = (v: unknown) => ((v as MsgState).messages ?? []).map((m) => m.content);
const lastText = (v: unknown) => texts(v).at(-1);

/** The stateless `on_completion` values the server takes (the SDK 1.x typing says complete|continue). */
const keep = "keep" as never;
const del = "delete" as never;

/** A local webhook receiver that answers `statuses[i]` to the i-th delivery (then 200). */
async function webhookReceiver(statuses: number[] = []) {
  const deliveries: { at: number; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const status = statuses[deliveries.length] ?? 200;
      deliveries.push({ at: Date.now(), body: JSON.parse(raw), headers: req.headers });
      res.writeHead(status).end(status === 200 ? "ok" : "boom");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, deliveries, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function expectStatus(p: Promise<unknown>, status: number): Promise<void> {
  await expect(p).rejects.toMatchObject({ status });
}

describeBackends("runs", (backend) => {
  let server: TestServer;
  let client: Client;
  // the webhook receivers listen on loopback, which the outbound policy refuses unless allowed
  serverForSuite(backend, (s) => ((server = s), (client = s.client)), { allowPrivateWebhooks: "127.0.0.1" });

  it("create answers a pending run with a Content-Location header the SDK understands", async () => {
    const thread = await client.threads.create();
    let created: { run_id: string; thread_id?: string } | undefined;
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("hi"), onRunCreated: (m) => (created = m) });
    expect(run.thread_id).toBe(thread.thread_id);
    expect(["pending", "running"]).toContain(run.status);
    expect(created).toEqual({ run_id: run.run_id, thread_id: thread.thread_id });

    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "chat", input: userMessage("again") }),
    });
    expect(res.status).toBe(200);
    const raw = (await res.json()) as { run_id: string };
    expect(res.headers.get("content-location")).toBe(`/threads/${thread.thread_id}/runs/${raw.run_id}`);
    await client.runs.join(thread.thread_id, raw.run_id);
    const state = await client.threads.getState(thread.thread_id);
    expect(texts(state.values)).toEqual(["hi", "You said: hi", "again", "You said: again"]);
  });

  it("wait answers the final values", async () => {
    const thread = await client.threads.create();
    const values = await client.runs.wait(thread.thread_id, "chat", { input: userMessage("hello") });
    expect(texts(values)).toEqual(["hello", "You said: hello"]);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.status).toBe("success");
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("wait on a failing graph: the SDK throws, the raw body carries __error__ {error, message}", async () => {
    const thread = await client.threads.create();
    await expect(client.runs.wait(thread.thread_id, "failing", { input: userMessage("x") })).rejects.toThrow(
      "TypeError: the tool is broken",
    );
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "failing", input: userMessage("y") }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-location")).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`));
    const body = JSON.parse(await res.text()) as { __error__: { error: string; message: string } };
    expect(body).toEqual({ __error__: { error: "TypeError", message: "the tool is broken" } });
    // raiseError: false hands the body back instead of throwing
    const quiet = await client.runs.wait(thread.thread_id, "failing", { input: userMessage("z"), raiseError: false });
    expect(quiet).toMatchObject({ __error__: { error: "TypeError" } });
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.map((r) => r.status)).toEqual(["error", "error", "error"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("error");
  });

  it("join waits for a run and answers its values; join of a finished run answers at once", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", {
      input: userMessage("wait for me"),
      config: { configurable: { delay_ms: 300 } },
    });
    const started = Date.now();
    const values = await client.runs.join(thread.thread_id, run.run_id);
    expect(texts(values)).toEqual(["wait for me", "You said: wait for me"]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
    expect(texts(await client.runs.join(thread.thread_id, run.run_id))).toEqual(["wait for me", "You said: wait for me"]);
    // a failed run's join answers __error__
    const bad = await client.runs.create(thread.thread_id, "failing", { input: userMessage("x") });
    expect(await client.runs.join(thread.thread_id, bad.run_id)).toEqual({
      __error__: { error: "TypeError", message: "the tool is broken" },
    });
  });

  it("join and wait answer the thread's values as JSON text (live and finished runs, with __interrupt__)", async () => {
    // The answer is the run's output text as serialised when it ended, not re-serialised per answer:
    // it must still be what res.json would have sent (header, canonical text, the thread's values).
    const answer = async (res: Response) => {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const text = (await res.text()).trim(); // /wait may send keep-alive newlines first
      const body = JSON.parse(text) as Record<string, unknown>;
      expect(text).toBe(JSON.stringify(body));
      return body;
    };
    const join = (t: string, r: string) => fetch(`${server.url}/threads/${t}/runs/${r}/join`);
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "slow", { input: userMessage("long"), config: { configurable: { delay_ms: 200 } } });
    const live = await answer(await join(thread.thread_id, run.run_id));
    const state = await client.threads.getState(thread.thread_id);
    expect(live).toEqual(state.values);
    expect(texts(live)).toEqual(["long", "You said: long"]);
    expect(await answer(await join(thread.thread_id, run.run_id))).toEqual(state.values);

    const waited = await answer(
      await fetch(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ assistant_id: "chat", input: userMessage("again") }),
      }),
    );
    expect(waited).toEqual((await client.threads.getState(thread.thread_id)).values);

    // a run that stops at interrupt(): the values with the interrupts, live and once finished
    const t2 = await client.threads.create();
    const stopped = await client.runs.create(t2.thread_id, "approval", { input: userMessage("ship it?") });
    const withInterrupt = await answer(await join(t2.thread_id, stopped.run_id));
    expect((withInterrupt.__interrupt__ as { value: unknown }[]).map((i) => i.value)).toEqual([
      { question: "Send this answer?", draft: "Draft answer to: ship it?" },
    ]);
    const { __interrupt__: _, ...values } = withInterrupt;
    expect(values).toEqual((await client.threads.getState(t2.thread_id)).values);
    expect(await answer(await join(t2.thread_id, stopped.run_id))).toEqual(withInterrupt);
  });

  it("list: newest first, limit/offset slice correctly, status filter", async () => {
    const thread = await client.threads.create();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await client.runs.create(thread.thread_id, i === 2 ? "failing" : "chat", { input: userMessage(`m${i}`) });
      ids.push(r.run_id);
    }
    await client.runs.join(thread.thread_id, ids[4]!);
    const newestFirst = [...ids].reverse();
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual(newestFirst);
    expect((await client.runs.list(thread.thread_id, { limit: 2 })).map((r) => r.run_id)).toEqual(newestFirst.slice(0, 2));
    expect((await client.runs.list(thread.thread_id, { limit: 2, offset: 2 })).map((r) => r.run_id)).toEqual(newestFirst.slice(2, 4));
    expect((await client.runs.list(thread.thread_id, { limit: 2, offset: 4 })).map((r) => r.run_id)).toEqual(newestFirst.slice(4));
    expect(await client.runs.list(thread.thread_id, { offset: 5 })).toEqual([]);
    const failed = await client.runs.list(thread.thread_id, { status: "error" });
    expect(failed.map((r) => r.run_id)).toEqual([ids[2]]);
    const ok = await client.runs.list(thread.thread_id, { status: "success" });
    expect(ok.map((r) => r.run_id)).toEqual(newestFirst.filter((id) => id !== ids[2]));
    expect(await client.runs.list(thread.thread_id, { status: "pending" })).toEqual([]);
    await expectStatus(client.runs.list(randomUUID()), 404);
  });

  it("list honours select (the SDK's repeated query parameter)", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("s") });
    await client.runs.join(thread.thread_id, run.run_id);
    const two = await client.runs.list(thread.thread_id, { select: ["run_id", "status"] });
    expect(two).toEqual([{ run_id: run.run_id, status: "success" }]);
    const one = await client.runs.list(thread.thread_id, { select: ["run_id"] });
    expect(one).toEqual([{ run_id: run.run_id }]);
  });

  it("wait keeps a slow request alive with newlines before the JSON, which the SDK accepts", async () => {
    const thread = await client.threads.create();
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: userMessage("zzz"), config: { configurable: { delay_ms: 1300 } } }),
    });
    const text = await res.text();
    expect(text.startsWith("\n")).toBe(true);
    expect(texts(JSON.parse(text))).toEqual(["zzz", "You said: zzz"]);
    const v = await client.runs.wait(thread.thread_id, "slow", { input: userMessage("again"), config: { configurable: { delay_ms: 1300 } } });
    expect(lastText(v)).toBe("You said: again");
  });

  it("get shows a run's fields; unknown or foreign runs are 404", async () => {
    const thread = await client.threads.create();
    const other = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("x"), metadata: { purpose: "get" } });
    await client.runs.join(thread.thread_id, run.run_id);
    const got = await client.runs.get(thread.thread_id, run.run_id);
    expect(got).toMatchObject({
      run_id: run.run_id,
      thread_id: thread.thread_id,
      assistant_id: run.assistant_id,
      status: "success",
      metadata: { purpose: "get" },
      multitask_strategy: "enqueue",
    });
    expect(typeof got.created_at).toBe("string");
    expect(typeof got.updated_at).toBe("string");
    await expectStatus(client.runs.get(thread.thread_id, randomUUID()), 404);
    await expectStatus(client.runs.get(other.thread_id, run.run_id), 404);
  });

  it("delete removes a finished run; a second delete is 404", async () => {
    const thread = await client.threads.create();
    const a = await client.runs.create(thread.thread_id, "chat", { input: userMessage("a") });
    const b = await client.runs.create(thread.thread_id, "chat", { input: userMessage("b") });
    await client.runs.join(thread.thread_id, b.run_id);
    await client.runs.delete(thread.thread_id, a.run_id);
    await expectStatus(client.runs.get(thread.thread_id, a.run_id), 404);
    expect((await client.runs.list(thread.thread_id)).map((r) => r.run_id)).toEqual([b.run_id]);
    await expectStatus(client.runs.delete(thread.thread_id, a.run_id), 404);
    // the thread's state is untouched by deleting a run record
    expect(texts((await client.threads.getState(thread.thread_id)).values)).toHaveLength(4);
  });

  it("stateless wait answers values and deletes its temporary thread by default", async () => {
    let created: { run_id: string; thread_id?: string } | undefined;
    const values = await client.runs.wait(null, "chat", { input: userMessage("stateless"), onRunCreated: (m) => (created = m) });
    expect(texts(values)).toEqual(["stateless", "You said: stateless"]);
    expect(created?.run_id).toMatch(/^[0-9a-f-]{36}$/);
    // stateless runs are addressed as /runs/<id>
    expect(created?.thread_id).toBeUndefined();
    const failing = client.runs.wait(null, "failing", { input: userMessage("x") });
    await expect(failing).rejects.toThrow("TypeError: the tool is broken");
  });

  it("stateless create: on_completion delete removes the thread, keep keeps it with its values", async () => {
    const kept = await client.runs.create(null, "chat", { input: userMessage("keep me"), onCompletion: keep });
    const dropped = await client.runs.create(null, "chat", { input: userMessage("drop me"), onCompletion: del });
    const byDefault = await client.runs.create(null, "chat", { input: userMessage("default") });
    expect(kept.thread_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set([kept.thread_id, dropped.thread_id, byDefault.thread_id]).size).toBe(3);

    expect(texts(await client.runs.join(kept.thread_id, kept.run_id))).toEqual(["keep me", "You said: keep me"]);
    const thread = await client.threads.get(kept.thread_id);
    expect(texts(thread.values)).toEqual(["keep me", "You said: keep me"]);
    expect(thread.status).toBe("idle");
    expect((await client.runs.get(kept.thread_id, kept.run_id)).status).toBe("success");

    for (const r of [dropped, byDefault]) {
      await eventually(async () => {
        try {
          await client.threads.get(r.thread_id);
          return false;
        } catch (err) {
          return (err as { status?: number }).status === 404;
        }
      }, 30_000);
    }
  });

  it("a kept stateless run can be joined by run id alone (/runs/<id>/stream)", async () => {
    const run = await client.runs.create(null, "steps", {
      input: userMessage("alone"),
      onCompletion: keep,
      streamMode: ["updates"],
      config: { configurable: { delay_ms: 100 } },
    });
    const parts: { event: string }[] = [];
    for await (const p of client.runs.joinStream(null, run.run_id, { lastEventId: "-1" })) parts.push(p as { event: string });
    expect(parts.map((p) => p.event)).toEqual(["metadata", "updates", "updates", "updates"]);
    await expectStatus(client.runs.join(randomUUID(), run.run_id), 404);
    await expectStatus(client.runs.join(run.thread_id, randomUUID()), 404);
  });

  it("/runs/batch creates several stateless runs", async () => {
    const runs = await client.runs.createBatch([
      { assistantId: "chat", input: userMessage("one"), onCompletion: keep },
      { assistantId: "chat", input: userMessage("two"), onCompletion: keep },
      { assistantId: "custom", input: userMessage("three"), onCompletion: keep, metadata: { n: 3 } },
    ]);
    expect(runs).toHaveLength(3);
    expect(new Set(runs.map((r) => r.thread_id)).size).toBe(3);
    expect(runs[2]!.metadata).toEqual({ n: 3 });
    const results = await Promise.all(runs.map((r) => client.runs.join(r.thread_id, r.run_id)));
    expect(results.map(lastText)).toEqual(["You said: one", "You said: two", "done: three"]);
    // the SDK sends its own camelCase keys in batch items: onCompletion "keep" kept the threads
    for (const r of runs) expect((await client.threads.get(r.thread_id)).thread_id).toBe(r.thread_id);
    // bad input in any item rejects the whole batch
    await expectStatus(client.runs.createBatch([{ assistantId: "chat" }, { assistantId: "" } as never]), 422);
    await expectStatus(client.runs.createBatch([]), 422);
  });

  it("interrupt() stops the thread as interrupted; command.resume continues it to idle", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.wait(thread.thread_id, "approval", { input: userMessage("what is 2+2?") });
    expect(texts(first)).toEqual(["what is 2+2?", "Draft answer to: what is 2+2?"]);
    const t1 = await client.threads.get(thread.thread_id);
    expect(t1.status).toBe("interrupted");
    const interrupts = Object.values(t1.interrupts ?? {}).flat() as { value?: unknown }[];
    expect(interrupts.map((i) => i.value)).toEqual([{ question: "Send this answer?", draft: "Draft answer to: what is 2+2?" }]);
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["review"]);
    expect(state.tasks).toHaveLength(1);
    expect(state.tasks[0]!.name).toBe("review");
    expect(state.tasks[0]!.interrupts.map((i) => i.value)).toEqual([
      { question: "Send this answer?", draft: "Draft answer to: what is 2+2?" },
    ]);
    const [run] = await client.runs.list(thread.thread_id);
    expect(run!.status).toBe("success");

    const resumed = await client.runs.wait(thread.thread_id, "approval", { command: { resume: { edit: "four" } } });
    expect(texts(resumed)).toEqual(["what is 2+2?", "Draft answer to: what is 2+2?", "Edited: four"]);
    const t2 = await client.threads.get(thread.thread_id);
    expect(t2.status).toBe("idle");
    expect(Object.values(t2.interrupts ?? {}).flat()).toEqual([]);
    const after = await client.threads.getState(thread.thread_id);
    expect(after.next).toEqual([]);
    expect(after.tasks).toEqual([]);

    // approve path on a second thread, through create + join
    const t3 = await client.threads.create();
    await client.runs.wait(t3.thread_id, "approval", { input: userMessage("ship it?") });
    const r = await client.runs.create(t3.thread_id, "approval", { command: { resume: "approve" } });
    expect(lastText(await client.runs.join(t3.thread_id, r.run_id))).toBe("Approved: Draft answer to: ship it?");
  });

  it("interrupt_before stops before the node; a null-input run continues", async () => {
    const thread = await client.threads.create();
    const v = await client.runs.wait(thread.thread_id, "steps", { input: userMessage("go"), interruptBefore: ["two"] });
    expect(texts(v)).toEqual(["go", "step one"]);
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["two"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("interrupted");
    const rest = await client.runs.wait(thread.thread_id, "steps", { input: null });
    expect(texts(rest)).toEqual(["go", "step one", "step two", "step three"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");

    const t2 = await client.threads.create();
    const after = await client.runs.wait(t2.thread_id, "steps", { input: userMessage("go"), interruptAfter: ["two"] });
    expect(texts(after)).toEqual(["go", "step one", "step two"]);
    expect((await client.threads.getState(t2.thread_id)).next).toEqual(["three"]);
  });

  it("checkpoint_id starts a run from an earlier checkpoint (a fork)", async () => {
    const thread = await client.threads.create();
    await client.runs.wait(thread.thread_id, "steps", { input: userMessage("go") });
    const history = await client.threads.getHistory(thread.thread_id, { limit: 10 });
    const afterOne = history.find((h) => texts(h.values).at(-1) === "step one" && h.next[0] === "two")!;
    expect(afterOne).toBeDefined();
    const forked = await client.runs.wait(thread.thread_id, "steps", {
      input: null,
      checkpointId: afterOne.checkpoint.checkpoint_id!,
      interruptBefore: ["three"],
    });
    expect(texts(forked)).toEqual(["go", "step one", "step two"]);
    const state = await client.threads.getState(thread.thread_id);
    expect(state.next).toEqual(["three"]);
    // the new head descends from the chosen checkpoint, not from the original run's end
    const all = await client.threads.getHistory(thread.thread_id, { limit: 50 });
    const byId = new Map(all.map((h) => [h.checkpoint.checkpoint_id, h]));
    const ancestors: string[] = [];
    for (let cur = byId.get(state.checkpoint.checkpoint_id!); cur?.parent_checkpoint; cur = byId.get(cur.parent_checkpoint.checkpoint_id!)) {
      ancestors.push(cur.parent_checkpoint.checkpoint_id!);
    }
    expect(ancestors).toContain(afterOne.checkpoint.checkpoint_id);
    expect(ancestors).not.toContain(history[0]!.checkpoint.checkpoint_id);
  });

  it("a factory graph is built per run from the run's configurable (and the assistant's config)", async () => {
    const thread = await client.threads.create();
    const v1 = await client.runs.wait(thread.thread_id, "factory", { input: userMessage("x"), config: { configurable: { greeting: "bonjour" } } });
    expect(lastText(v1)).toBe("bonjour");
    const v2 = await client.runs.wait(thread.thread_id, "factory", { input: userMessage("y") });
    expect(lastText(v2)).toBe("hello");
    const assistant = await client.assistants.create({ graphId: "factory", config: { configurable: { greeting: "hola" } } });
    const v3 = await client.runs.wait(thread.thread_id, assistant.assistant_id, { input: userMessage("z") });
    expect(lastText(v3)).toBe("hola");
    // the run's own configurable wins over the assistant's
    const v4 = await client.runs.wait(null, assistant.assistant_id, { input: userMessage("w"), config: { configurable: { greeting: "ciao" } } });
    expect(lastText(v4)).toBe("ciao");
  });

  it("after_seconds delays pickup", async () => {
    const thread = await client.threads.create();
    const started = Date.now();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("later"), afterSeconds: 1.5 });
    // Long after a worker would pick up an undelayed run, but only while the delay has not passed
    // (a busy machine may take longer than the delay to get here: then there is nothing to check).
    await sleep(500);
    const [runNow, threadNow] = await Promise.all([client.runs.get(thread.thread_id, run.run_id), client.threads.get(thread.thread_id)]);
    if (Date.now() - started < 1400) {
      expect(runNow.status).toBe("pending");
      expect(threadNow.status).toBe("busy");
    }
    await client.runs.join(thread.thread_id, run.run_id);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("if_not_exists: reject (default) is 404 and creates nothing; create makes the thread", async () => {
    const id = randomUUID();
    await expectStatus(client.runs.create(id, "chat", { input: userMessage("x") }), 404);
    await expectStatus(client.runs.create(id, "chat", { input: userMessage("x"), ifNotExists: "reject" }), 404);
    await expectStatus(client.threads.get(id), 404);
    await expectStatus(client.runs.wait(id, "chat", { input: userMessage("x") }), 404);
    const run = await client.runs.create(id, "chat", { input: userMessage("made"), ifNotExists: "create" });
    expect(run.thread_id).toBe(id);
    await client.runs.join(id, run.run_id);
    const thread = await client.threads.get(id);
    expect(texts(thread.values)).toEqual(["made", "You said: made"]);
    expect(thread.metadata).toMatchObject({ graph_id: "chat" });
    // a second run with create on the now-existing thread just runs there
    const v = await client.runs.wait(id, "chat", { input: userMessage("again"), ifNotExists: "create" });
    expect(texts(v)).toHaveLength(4);
  });

  it("config, context and metadata round-trip to the run record and the graph", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "introspect", {
      input: userMessage("x"),
      config: { configurable: { colour: "teal", n: 7 }, tags: ["t-one"] },
      context: { user: "ada" },
      metadata: { source: "test", nested: { a: [1, 2] } },
    });
    expect(run.metadata).toEqual({ source: "test", nested: { a: [1, 2] } });
    const kwargs = (run as unknown as { kwargs: Record<string, any> }).kwargs;
    expect(kwargs.config.configurable).toMatchObject({
      colour: "teal",
      n: 7,
      run_id: run.run_id,
      thread_id: thread.thread_id,
      graph_id: "introspect",
      assistant_id: run.assistant_id,
    });
    expect(kwargs.config.tags).toContain("t-one");
    expect(kwargs.context).toEqual({ user: "ada" });

    const values = await client.runs.join(thread.thread_id, run.run_id);
    const seen = JSON.parse(lastText(values)!) as { configurable: Record<string, unknown>; context: unknown; metadata: Record<string, unknown> };
    expect(seen.configurable).toMatchObject({ colour: "teal", n: 7, run_id: run.run_id, thread_id: thread.thread_id, graph_id: "introspect" });
    expect(seen.context).toEqual({ user: "ada" });
    expect((await client.runs.get(thread.thread_id, run.run_id)).metadata).toEqual({ source: "test", nested: { a: [1, 2] } });
  });

  it("x-* request headers (but not x-api-key) appear in config.configurable", async () => {
    const withHeaders = new Client({
      apiUrl: server.url,
      callerOptions: { maxRetries: 0 },
      defaultHeaders: { "X-Request-Source": "vitest", "x-tenant-label": "blue", "x-api-key": "do-not-leak" },
    });
    const thread = await withHeaders.threads.create();
    const run = await withHeaders.runs.create(thread.thread_id, "introspect", { input: userMessage("x") });
    const kwargs = (run as unknown as { kwargs: { config: { configurable: Record<string, unknown> } } }).kwargs;
    expect(kwargs.config.configurable).toMatchObject({ "x-request-source": "vitest", "x-tenant-label": "blue" });
    expect(kwargs.config.configurable).not.toHaveProperty("x-api-key");
    const seen = JSON.parse(lastText(await withHeaders.runs.join(thread.thread_id, run.run_id))!) as { configurable: Record<string, unknown> };
    expect(seen.configurable).toMatchObject({ "x-request-source": "vitest", "x-tenant-label": "blue" });
    expect(seen.configurable).not.toHaveProperty("x-api-key");
    // the body's configurable wins over a header of the same name
    const r2 = await withHeaders.runs.create(thread.thread_id, "introspect", {
      input: userMessage("y"),
      config: { configurable: { "x-tenant-label": "red" } },
    });
    const seen2 = JSON.parse(lastText(await withHeaders.runs.join(thread.thread_id, r2.run_id))!) as { configurable: Record<string, unknown> };
    expect(seen2.configurable["x-tenant-label"]).toBe("red");
  });

  it("webhook: the run is POSTed on completion and a failed delivery is retried", async () => {
    const hook = await webhookReceiver([500]);
    try {
      const thread = await client.threads.create();
      const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("hook"), webhook: hook.url });
      await client.runs.join(thread.thread_id, run.run_id);
      await eventually(async () => hook.deliveries.length >= 2, 60_000);
      await sleep(300);
      expect(hook.deliveries).toHaveLength(2); // accepted the second time: no third try
      const [first, second] = hook.deliveries;
      expect(second!.at - first!.at).toBeGreaterThanOrEqual(900);
      expect(second!.body).toEqual(first!.body);
      expect(second!.headers["content-type"]).toContain("application/json");
      expect(second!.body).toMatchObject({ run_id: run.run_id, thread_id: thread.thread_id, status: "success" });
      expect(texts(second!.body.values)).toEqual(["hook", "You said: hook"]);

      // a failing run reports status error and its error
      const bad = await client.runs.create(thread.thread_id, "failing", { input: userMessage("x"), webhook: hook.url });
      await client.runs.join(thread.thread_id, bad.run_id);
      await eventually(async () => hook.deliveries.length >= 3, 60_000);
      expect(hook.deliveries[2]!.body).toMatchObject({
        run_id: bad.run_id,
        status: "error",
        error: { error: "TypeError", message: "the tool is broken" },
      });
      await expectStatus(client.runs.create(thread.thread_id, "chat", { input: userMessage("x"), webhook: "not a url" }), 422);
    } finally {
      await hook.close();
    }
  });
});

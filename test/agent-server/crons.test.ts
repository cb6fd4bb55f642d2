/**
 * Crons through the real SDK client: create (thread and stateless), search, count, update, delete,
 * bad input — and that the queue actually fires them (6-field schedules tick every second).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { describeBackends, eventually, sleep, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";

const EVERY_SECOND = "* * * * * *";
const YEARLY = "0 0 1 1 *";
const texts = (v: unknown) => ((v as { messages?: { content: string }[] }).messages ?? []).map((m) => m.content);

async function expectStatus(p: Promise<unknown>, status: number): Promise<void> {
  await expect(p).rejects.toMatchObject({ status });
}

async function receiver() {
  const bodies: Record<string, any>[] = [];
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      bodies.push(JSON.parse(raw));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return { url, bodies, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describeBackends("crons", (backend) => {
  let server: TestServer;
  let client: Client;
  // the webhook receivers listen on loopback, which the outbound policy refuses unless allowed
  serverForSuite(backend, (s) => ((server = s), (client = s.client)), { allowPrivateWebhooks: "127.0.0.1" });

  it("create on a thread and stateless; search, count, delete", async () => {
    const thread = await client.threads.create();
    const tag = randomUUID();
    const onThread = await client.crons.createForThread(thread.thread_id, "chat", {
      schedule: YEARLY,
      input: userMessage("new year"),
      metadata: { tag, kind: "thread" },
    });
    expect(onThread).toMatchObject({ thread_id: thread.thread_id, schedule: YEARLY, metadata: { tag, kind: "thread" } });
    expect(onThread.cron_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(onThread.payload).toMatchObject({ input: userMessage("new year") });
    const next = new Date(onThread.next_run_date!);
    expect(next.getUTCMonth()).toBe(0);
    expect(next.getUTCDate()).toBe(1);
    expect(next.getTime()).toBeGreaterThan(Date.now());

    const stateless = await client.crons.create("chat", { schedule: YEARLY, input: userMessage("x"), metadata: { tag, kind: "stateless" } });
    expect(stateless.thread_id).toBeNull();
    expect((stateless as { on_run_completed?: string }).on_run_completed).toBe("delete");
    expect(stateless.assistant_id).toBe(onThread.assistant_id);

    const other = await client.crons.create("custom", { schedule: YEARLY, metadata: { tag, kind: "other" } });

    const all = await client.crons.search({ metadata: { tag } });
    expect(all.map((c) => c.cron_id).sort()).toEqual([onThread.cron_id, stateless.cron_id, other.cron_id].sort());
    expect((await client.crons.search({ assistantId: "chat", metadata: { tag } })).map((c) => c.cron_id).sort()).toEqual(
      [onThread.cron_id, stateless.cron_id].sort(),
    );
    expect((await client.crons.search({ threadId: thread.thread_id })).map((c) => c.cron_id)).toEqual([onThread.cron_id]);
    expect((await client.crons.search({ metadata: { tag, kind: "stateless" } })).map((c) => c.cron_id)).toEqual([stateless.cron_id]);
    const page1 = await client.crons.search({ metadata: { tag }, limit: 2, sortBy: "created_at", sortOrder: "asc" });
    const page2 = await client.crons.search({ metadata: { tag }, limit: 2, offset: 2, sortBy: "created_at", sortOrder: "asc" });
    expect([...page1, ...page2].map((c) => c.cron_id)).toEqual([onThread.cron_id, stateless.cron_id, other.cron_id]);
    const selected = await client.crons.search({ metadata: { tag }, select: ["cron_id", "schedule"] });
    for (const c of selected) expect(Object.keys(c).sort()).toEqual(["cron_id", "schedule"]);

    expect(await client.crons.count({ metadata: { tag } })).toBe(3);
    expect(await client.crons.count({ assistantId: "chat", metadata: { tag } })).toBe(2);
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(1);

    await client.crons.delete(stateless.cron_id);
    expect(await client.crons.count({ metadata: { tag } })).toBe(2);
    await expectStatus(client.crons.delete(stateless.cron_id), 404);
    await client.crons.delete(onThread.cron_id);
    await client.crons.delete(other.cron_id);
    expect(await client.crons.search({ metadata: { tag } })).toEqual([]);
  });

  it("update (PATCH) changes the schedule, merges metadata and replans the next date", async () => {
    const cron = await client.crons.create("chat", { schedule: YEARLY, input: userMessage("a"), metadata: { a: 1 } });
    const updated = await client.crons.update(cron.cron_id, {
      schedule: "0 12 * * *",
      metadata: { b: 2 },
      input: userMessage("b"),
      timezone: "Europe/Paris",
    });
    expect(updated).toMatchObject({ cron_id: cron.cron_id, schedule: "0 12 * * *", timezone: "Europe/Paris", metadata: { a: 1, b: 2 } });
    expect(updated.payload).toMatchObject({ input: userMessage("b") });
    const next = new Date(updated.next_run_date!);
    expect(next.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000 + 60_000);
    // noon in Paris is 10:00 or 11:00 UTC
    expect([10, 11]).toContain(next.getUTCHours());
    const disabled = await client.crons.update(cron.cron_id, { enabled: false });
    expect(disabled.enabled).toBe(false);
    expect(disabled.schedule).toBe("0 12 * * *");
    expect((await client.crons.search({ enabled: false })).map((c) => c.cron_id)).toContain(cron.cron_id);
    await expectStatus(client.crons.update(cron.cron_id, { schedule: "every tuesday" }), 422);
    await expectStatus(client.crons.update(randomUUID(), { schedule: YEARLY }), 404);
    await client.crons.delete(cron.cron_id);
  });

  it("bad input: invalid schedule or timezone is 422; unknown assistant or thread is 404", async () => {
    const thread = await client.threads.create();
    await expectStatus(client.crons.create("chat", { schedule: "not a schedule" }), 422);
    await expectStatus(client.crons.create("chat", { schedule: "61 * * * *" }), 422);
    await expectStatus(client.crons.createForThread(thread.thread_id, "chat", { schedule: "* * *" }), 422);
    await expectStatus(client.crons.create("chat", { schedule: YEARLY, timezone: "Mars/Olympus" }), 422);
    await expectStatus(client.crons.create("no-such-graph", { schedule: YEARLY }), 404);
    await expectStatus(client.crons.createForThread(randomUUID(), "chat", { schedule: YEARLY }), 404);
    const res = await fetch(`${server.url}/runs/crons`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "chat", schedule: "nope" }),
    });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("schedule");
    expect(await client.crons.count({ threadId: thread.thread_id })).toBe(0);
  });

  it("a thread cron fires every second; deleting it stops it", async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "chat", { schedule: EVERY_SECOND, input: userMessage("tick") });
    try {
      const runs = await eventually(async () => {
        const rs = await client.runs.list(thread.thread_id, { status: "success" });
        return rs.length >= 2 && rs;
      }, 30_000);
      for (const r of runs) expect(r.metadata).toMatchObject({ cron_id: cron.cron_id });
      const state = await client.threads.getState(thread.thread_id);
      expect(texts(state.values).slice(0, 4)).toEqual(["tick", "You said: tick", "tick", "You said: tick"]);
    } finally {
      await client.crons.delete(cron.cron_id);
    }
    // the delete waited for any firing in progress (it holds the cron's row lock): from here on no new runs
    await eventually(async () => (await client.runs.list(thread.thread_id, { status: "pending" })).length === 0, 30_000);
    const before = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
    await sleep(1500);
    expect((await client.runs.list(thread.thread_id, { limit: 100 })).length).toBe(before);
  });

  it("a disabled cron does not fire until enabled; its updated input is used", async () => {
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "chat", {
      schedule: EVERY_SECOND,
      input: userMessage("old"),
      enabled: false,
    });
    try {
      await sleep(1500);
      expect(await client.runs.list(thread.thread_id)).toEqual([]);
      await client.crons.update(cron.cron_id, { enabled: true, input: userMessage("new") });
      await eventually(async () => (await client.runs.list(thread.thread_id, { status: "success" })).length >= 1, 30_000);
      expect(texts((await client.threads.getState(thread.thread_id)).values).slice(0, 2)).toEqual(["new", "You said: new"]);
    } finally {
      await client.crons.delete(cron.cron_id);
    }
  });

  it("a cron stops firing at its end_time", async () => {
    const thread = await client.threads.create();
    const end = new Date(Date.now() + 2200);
    const cron = await client.crons.createForThread(thread.thread_id, "chat", {
      schedule: EVERY_SECOND,
      input: userMessage("until"),
      endTime: end.toISOString(),
    });
    try {
      // the schedule is over once the scheduler has fired its last time (however late a busy machine runs it)
      await eventually(async () => (await client.crons.search({ threadId: thread.thread_id }))[0]?.next_run_date === null, 30_000);
      await eventually(async () => (await client.runs.list(thread.thread_id, { status: "pending" })).length === 0, 30_000);
      const fired = (await client.runs.list(thread.thread_id, { limit: 100 })).length;
      expect(fired).toBeGreaterThanOrEqual(1);
      expect(fired).toBeLessThanOrEqual(3);
      await sleep(1300);
      expect((await client.runs.list(thread.thread_id, { limit: 100 })).length).toBe(fired);
      const [after] = await client.crons.search({ threadId: thread.thread_id });
      expect(after!.next_run_date).toBeNull();
    } finally {
      await client.crons.delete(cron.cron_id);
    }
  });

  it("a stateless cron fires runs on temporary threads (delete vs keep), reported by webhook", async () => {
    const hook = await receiver();
    const dropped = await client.crons.create("chat", { schedule: EVERY_SECOND, input: userMessage("s"), webhook: hook.url, metadata: { k: "drop" } });
    const kept = await client.crons.create("chat", {
      schedule: EVERY_SECOND,
      input: userMessage("k"),
      webhook: hook.url,
      onRunCompleted: "keep",
    });
    try {
      const byCron = (id: string) => hook.bodies.filter((b) => b.metadata?.cron_id === id);
      await eventually(async () => byCron(dropped.cron_id).length >= 1 && byCron(kept.cron_id).length >= 1, 60_000);
      const d = byCron(dropped.cron_id)[0]!;
      const k = byCron(kept.cron_id)[0]!;
      expect(d).toMatchObject({ status: "success" });
      expect(texts(d.values)).toEqual(["s", "You said: s"]);
      expect(texts(k.values)).toEqual(["k", "You said: k"]);
      expect(d.thread_id).not.toBe(k.thread_id);
      const keptThread = await client.threads.get(k.thread_id);
      expect(texts(keptThread.values)).toEqual(["k", "You said: k"]);
      await eventually(async () => {
        try {
          await client.threads.get(d.thread_id);
          return false;
        } catch (err) {
          return (err as { status?: number }).status === 404;
        }
      }, 30_000);
    } finally {
      await client.crons.delete(dropped.cron_id);
      await client.crons.delete(kept.cron_id);
      await hook.close();
    }
  });
});

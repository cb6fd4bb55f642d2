/**
 * Streaming through the real SDK client (and raw fetch for the wire format): every stream mode,
 * subgraphs, the metadata-first rule, headers, prompt close, join/replay with Last-Event-ID and
 * mode filters, and errors — on PGlite and on Postgres + Redis.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { expect, it } from "vitest";
import { describeBackends, userMessage, type TestServer, serverForSuite } from "../helpers/server.js";

interface Part {
  event: string;
  data: any;
  id?: string;
}

async function collect(iter: AsyncIterable<unknown>): Promise<Part[]> {
  const out: Part[] = [];
  for await (const p of iter) out.push(p as Part);
  return out;
}
const names = (parts: Part[]) => parts.map((p) => p.event);
const contents = (msgs: { content: string }[]) => msgs.map((m) => m.content);

/** Parse raw SSE text into events (comment lines skipped). */
function parseSse(text: string): { event?: string; data?: string; id?: string }[] {
  return text
    .split("\n\n")
    .filter((b) => b.trim() && !b.split("\n").every((l) => l.startsWith(":")))
    .map((block) => {
      const e: { event?: string; data?: string; id?: string } = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const i = line.indexOf(": ");
        const [k, v] = [line.slice(0, i), line.slice(i + 2)];
        if (k === "event" || k === "data" || k === "id") e[k] = v;
      }
      return e;
    });
}

describeBackends("streaming", (backend) => {
  let server: TestServer;
  let client: Client;
  serverForSuite(backend, (s) => ((server = s), (client = s.client)));

  const stream = async (assistant: string, payload: Record<string, unknown>, threadId?: string | null) => {
    const tid = threadId === undefined ? (await client.threads.create()).thread_id : threadId;
    const iter = tid === null ? client.runs.stream(null, assistant, payload as never) : client.runs.stream(tid, assistant, payload as never);
    return { threadId: tid ?? "", parts: await collect(iter) };
  };

  it("values (the default): metadata first with the run id, then each state", async () => {
    let runId: string | undefined;
    const { threadId, parts } = await stream("chat", { input: userMessage("hi"), onRunCreated: (m: { run_id: string }) => (runId = m.run_id) });
    expect(names(parts)).toEqual(["metadata", "values", "values"]);
    expect(parts[0]!.data).toMatchObject({ run_id: runId, attempt: 1 });
    expect(contents(parts[1]!.data.messages)).toEqual(["hi"]);
    expect(contents(parts[2]!.data.messages)).toEqual(["hi", "You said: hi"]);
    expect(parts[2]!.data.messages[1].type).toBe("ai");
    expect(parts.map((p) => p.id)).toEqual(["0", "1", "2"]);
    const run = await client.runs.get(threadId, runId!);
    expect(run.status).toBe("success");
  });

  it("updates: one event per node with that node's writes", async () => {
    const { parts } = await stream("steps", { input: userMessage("go"), streamMode: "updates" });
    expect(names(parts)).toEqual(["metadata", "updates", "updates", "updates"]);
    expect(parts.slice(1).map((p) => Object.keys(p.data))).toEqual([["one"], ["two"], ["three"]]);
    expect(contents(parts[2]!.data.two.messages)).toEqual(["step two"]);
  });

  it("messages: metadata, growing partials and complete messages from the streaming chat model", async () => {
    const { parts } = await stream("chat", { input: userMessage("hello big world"), streamMode: "messages" });
    expect(parts[0]!.event).toBe("metadata");
    const evs = names(parts);
    expect(evs).toContain("messages/metadata");
    expect(evs).toContain("messages/complete");
    const partials = parts.filter((p) => p.event === "messages/partial").map((p) => p.data[0].content as string);
    // "You said: hello big world" streams word by word, each partial the accumulated text so far
    expect(partials.length).toBeGreaterThanOrEqual(4);
    expect(partials.at(-1)).toBe("You said: hello big world");
    for (let i = 1; i < partials.length; i++) expect(partials[i]!.startsWith(partials[i - 1]!)).toBe(true);
    const meta = parts.find((p) => p.event === "messages/metadata")!;
    const [msgId, info] = Object.entries(meta.data)[0] as [string, { metadata: Record<string, unknown> }];
    expect(info.metadata).toMatchObject({ langgraph_node: "agent" });
    expect(parts.filter((p) => p.event === "messages/partial").every((p) => p.data[0].id === msgId)).toBe(true);
    // the metadata event for a message precedes its first partial
    expect(evs.indexOf("messages/metadata")).toBeLessThan(evs.indexOf("messages/partial"));
    const completed = parts.filter((p) => p.event === "messages/complete").flatMap((p) => p.data as { content: string; type: string }[]);
    expect(completed.map((m) => [m.type, m.content])).toContainEqual(["ai", "You said: hello big world"]);
    expect(completed.map((m) => m.content)).toContain("hello big world");
    // mode messages alone does not send values events
    expect(evs).not.toContain("values");
  });

  it("messages-tuple: events named `messages` carrying [chunk, metadata]", async () => {
    const { parts } = await stream("chat", { input: userMessage("a b c"), streamMode: "messages-tuple" });
    expect(parts[0]!.event).toBe("metadata");
    const msgs = parts.filter((p) => p.event === "messages");
    expect(msgs.length).toBeGreaterThanOrEqual(3);
    expect(names(parts).filter((e) => e !== "metadata" && e !== "messages")).toEqual([]);
    for (const m of msgs) {
      expect(Array.isArray(m.data)).toBe(true);
      expect(m.data[1]).toMatchObject({ langgraph_node: "agent" });
    }
    expect(msgs.map((m) => m.data[0].content).join("")).toBe("You said: a b c");
  });

  it("events: raw streamEvents v2 records", async () => {
    const { parts } = await stream("chat", { input: userMessage("ev"), streamMode: "events" });
    expect(parts[0]!.event).toBe("metadata");
    const evs = parts.filter((p) => p.event === "events").map((p) => p.data);
    expect(evs.length).toBeGreaterThan(3);
    const kinds = new Set(evs.map((e) => e.event));
    for (const k of ["on_chain_start", "on_chain_end", "on_chat_model_start", "on_chat_model_stream", "on_chat_model_end"]) {
      expect(kinds.has(k), k).toBe(true);
    }
    for (const e of evs) expect(typeof e.run_id).toBe("string");
  });

  it("debug: checkpoint, task and task_result records", async () => {
    const { parts } = await stream("chat", { input: userMessage("dbg"), streamMode: "debug" });
    const evs = parts.filter((p) => p.event === "debug").map((p) => p.data);
    expect(names(parts).filter((e) => e !== "debug")).toEqual(["metadata"]);
    const types = evs.map((e) => e.type);
    expect(types).toContain("checkpoint");
    expect(types).toContain("task");
    expect(types).toContain("task_result");
    const cp = evs.filter((e) => e.type === "checkpoint").at(-1)!;
    expect(typeof cp.step).toBe("number");
    expect(cp.payload.checkpoint).toMatchObject({ checkpoint_ns: "" });
    expect(typeof cp.payload.checkpoint.checkpoint_id).toBe("string");
    expect(contents(cp.payload.values.messages)).toEqual(["dbg", "You said: dbg"]);
    const task = evs.find((e) => e.type === "task" && e.payload.name === "agent");
    expect(task).toBeDefined();
  });

  it("custom: what the node writes with config.writer", async () => {
    const { parts } = await stream("custom", { input: userMessage("c"), streamMode: ["custom", "values"] });
    expect(parts.filter((p) => p.event === "custom").map((p) => p.data)).toEqual([{ progress: 50 }, { progress: 100 }]);
    expect(contents(parts.at(-1)!.data.messages)).toEqual(["c", "done: c"]);
    expect(parts[0]!.event).toBe("metadata");
  });

  it("tasks: task starts and results", async () => {
    const { parts } = await stream("steps", { input: userMessage("t"), streamMode: "tasks" });
    const tasks = parts.filter((p) => p.event === "tasks").map((p) => p.data);
    expect(names(parts).filter((e) => e !== "tasks")).toEqual(["metadata"]);
    const starts = tasks.filter((t) => "input" in t);
    const results = tasks.filter((t) => "result" in t);
    expect(starts.map((t) => t.name)).toEqual(["one", "two", "three"]);
    expect(results.map((t) => t.name)).toEqual(["one", "two", "three"]);
    for (const t of tasks) expect(typeof t.id).toBe("string");
  });

  it("checkpoints: each checkpoint with API-shaped checkpoint coordinates", async () => {
    const { threadId, parts } = await stream("steps", { input: userMessage("cp"), streamMode: "checkpoints" });
    const cps = parts.filter((p) => p.event === "checkpoints").map((p) => p.data);
    expect(names(parts).filter((e) => e !== "checkpoints")).toEqual(["metadata"]);
    expect(cps.length).toBeGreaterThanOrEqual(4); // input, after one, two, three
    const last = cps.at(-1)!;
    expect(contents(last.values.messages)).toEqual(["cp", "step one", "step two", "step three"]);
    expect(last.next).toEqual([]);
    expect(last.checkpoint).toMatchObject({ thread_id: threadId, checkpoint_ns: "" });
    expect(last.parent_checkpoint.checkpoint_id).toBe(cps.at(-2)!.checkpoint.checkpoint_id);
    // internal config keys are not leaked
    expect(Object.keys(last.config.configurable).filter((k) => k.startsWith("__"))).toEqual([]);
    const state = await client.threads.getState(threadId);
    expect(state.checkpoint.checkpoint_id).toBe(last.checkpoint.checkpoint_id);
  });

  it("several modes at once, in one stream", async () => {
    const { parts } = await stream("custom", { input: userMessage("m"), streamMode: ["values", "updates", "custom"] });
    const set = new Set(names(parts));
    expect([...set].sort()).toEqual(["custom", "metadata", "updates", "values"]);
    expect(parts.filter((p) => p.event === "metadata")).toHaveLength(1);
    expect(parts[0]!.event).toBe("metadata");
  });

  it("stream_subgraphs: subgraph events are named mode|ns", async () => {
    const { parts } = await stream("parent", { input: userMessage("sub"), streamMode: ["updates", "values"], streamSubgraphs: true });
    const evs = names(parts);
    const sub = evs.filter((e) => e.startsWith("updates|"));
    expect(sub.length).toBeGreaterThanOrEqual(1);
    for (const e of sub) expect(e).toMatch(/^updates\|child:[0-9a-f-]+$/);
    const inner = parts.find((p) => p.event.startsWith("updates|child:"))!;
    expect(contents(inner.data.inner.messages)).toEqual(["from the subgraph"]);
    expect(evs).toContain("updates");
    expect(evs.some((e) => e.startsWith("values|child:"))).toBe(true);
    const rootUpdates = parts.filter((p) => p.event === "updates").map((p) => Object.keys(p.data)[0]);
    expect(rootUpdates).toEqual(["child", "after"]);
    expect(contents(parts.filter((p) => p.event === "values").at(-1)!.data.messages)).toEqual([
      "sub",
      "from the subgraph",
      "after the subgraph",
    ]);

    // without stream_subgraphs, nothing from inside the child
    const { parts: flat } = await stream("parent", { input: userMessage("sub"), streamMode: ["updates"] });
    expect(names(flat)).toEqual(["metadata", "updates", "updates"]);
  });

  it("messages-tuple with subgraphs names inner messages messages|ns", async () => {
    const { parts } = await stream("parent", { input: userMessage("t"), streamMode: "messages-tuple", streamSubgraphs: true });
    const inner = parts.find((p) => p.event.startsWith("messages|child:"));
    expect(inner?.data[0].content).toBe("from the subgraph");
    expect(parts.find((p) => p.event === "messages")?.data[0].content).toBe("after the subgraph");
  });

  it("an interrupt streams as __interrupt__ in updates and values", async () => {
    const { threadId, parts } = await stream("approval", { input: userMessage("q"), streamMode: ["updates", "values"] });
    const value = { question: "Send this answer?", draft: "Draft answer to: q" };
    const upd = parts.filter((p) => p.event === "updates").at(-1)!;
    expect(upd.data.__interrupt__.map((i: { value: unknown }) => i.value)).toEqual([value]);
    const vals = parts.filter((p) => p.event === "values").at(-1)!;
    expect(vals.data.__interrupt__.map((i: { value: unknown }) => i.value)).toEqual([value]);
    // resuming streams the rest
    const resumed = await collect(client.runs.stream(threadId, "approval", { command: { resume: "approve" }, streamMode: "updates" }));
    expect(resumed.filter((p) => p.event === "updates").map((p) => Object.keys(p.data)[0])).toEqual(["review"]);
    expect((await client.threads.get(threadId)).status).toBe("idle");
  });

  it("a queued run's stream waits for its turn and carries only its own events", async () => {
    const thread = await client.threads.create();
    const first = await client.runs.create(thread.thread_id, "slow", {
      input: userMessage("first"),
      config: { configurable: { delay_ms: 600 } },
    });
    const parts = await collect(client.runs.stream(thread.thread_id, "chat", { input: userMessage("second"), streamMode: "values" }));
    expect(names(parts)).toEqual(["metadata", "values", "values"]);
    expect(parts[0]!.data.run_id).not.toBe(first.run_id);
    expect(contents(parts.at(-1)!.data.messages)).toEqual(["first", "You said: first", "second", "You said: second"]);
    expect((await client.runs.get(thread.thread_id, first.run_id)).status).toBe("success");
  });

  it("idle streams carry `: heartbeat` comments", async () => {
    const thread = await client.threads.create();
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "slow", input: userMessage("hb"), config: { configurable: { delay_ms: 1600 } } }),
    });
    const text = await res.text();
    expect(text).toMatch(/(^|\n): heartbeat\n\n/);
    expect(parseSse(text).map((e) => e.event)).toEqual(["metadata", "values", "values"]);
  });

  it("stateless runs stream too", async () => {
    const { parts } = await stream("chat", { input: userMessage("nothread"), streamMode: ["values"] }, null);
    expect(names(parts)).toEqual(["metadata", "values", "values"]);
    expect(contents(parts.at(-1)!.data.messages)).toEqual(["nothread", "You said: nothread"]);
  });

  it("raw wire format: event/data/id lines, SSE headers, Content-Location and Location", async () => {
    const thread = await client.threads.create();
    const res = await fetch(`${server.url}/threads/${thread.thread_id}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "chat", input: userMessage("wire"), stream_mode: ["values", "updates"] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    expect(res.headers.get("cache-control")).toContain("no-cache");
    const loc = res.headers.get("content-location")!;
    expect(loc).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/[0-9a-f-]{36}$`));
    expect(res.headers.get("location")).toBe(`${loc}/stream`);
    const text = await res.text();
    expect(text.startsWith("event: metadata\ndata: ")).toBe(true);
    const events = parseSse(text);
    expect(events.map((e) => e.event)).toEqual(["metadata", "values", "updates", "values"]);
    expect(events.map((e) => e.id)).toEqual(["0", "1", "2", "3"]);
    const runId = loc.split("/").at(-1);
    expect(JSON.parse(events[0]!.data!)).toEqual({ run_id: runId, attempt: 1 });
    for (const e of events) expect(() => JSON.parse(e.data!)).not.toThrow();
    // every block is exactly event, data, id
    for (const block of text.split("\n\n").filter((b) => b && !b.startsWith(":"))) {
      expect(block.split("\n").map((l) => l.split(":")[0])).toEqual(["event", "data", "id"]);
    }

    const stateless = await fetch(`${server.url}/runs/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ assistant_id: "chat", input: userMessage("s") }),
    });
    const sloc = stateless.headers.get("content-location")!;
    expect(sloc).toMatch(/^\/runs\/[0-9a-f-]{36}$/);
    expect(stateless.headers.get("location")).toBe(`${sloc}/stream`);
    expect(parseSse(await stateless.text()).map((e) => e.event)).toEqual(["metadata", "values", "values"]);
  });

  it("the stream follows the run and closes once the run ends", async () => {
    const thread = await client.threads.create();
    let lastEventAt = 0;
    const started = Date.now();
    const events: string[] = [];
    for await (const e of client.runs.stream(thread.thread_id, "slow", {
      input: userMessage("x"),
      config: { configurable: { delay_ms: 500 } },
    })) {
      events.push(e.event);
      lastEventAt = Date.now();
    }
    // the last event came after the node's delay: the stream waited for the run, then ended by itself
    // (how fast it closes after the run is a latency, not an effect: no bound on it here, a busy
    // machine would break any)
    expect(lastEventAt - started).toBeGreaterThanOrEqual(450);
    expect(events).toEqual(["metadata", "values", "values"]);
    expect((await client.threads.get(thread.thread_id)).status).toBe("idle");
  });

  it("joinStream of a finished run: lastEventId -1 replays everything, a numeric id only what follows", async () => {
    const thread = await client.threads.create();
    let runId = "";
    const original = await collect(
      client.runs.stream(thread.thread_id, "steps", {
        input: userMessage("replay"),
        streamMode: ["values", "updates"],
        onRunCreated: (m) => (runId = m.run_id),
      }),
    );
    expect(original.length).toBe(1 + 4 + 3);
    const all = await collect(client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1" }));
    expect(all.map((p) => [p.event, p.id])).toEqual(original.map((p) => [p.event, p.id]));
    expect(all.map((p) => p.data)).toEqual(original.map((p) => p.data));

    const later = await collect(client.runs.joinStream(thread.thread_id, runId, { lastEventId: "3" }));
    expect(later.map((p) => p.id)).toEqual(original.slice(4).map((p) => p.id));
    expect(later.map((p) => p.data)).toEqual(original.slice(4).map((p) => p.data));

    const updatesOnly = await collect(client.runs.joinStream(thread.thread_id, runId, { lastEventId: "-1", streamMode: "updates" }));
    expect(names(updatesOnly)).toEqual(["metadata", "updates", "updates", "updates"]);
    expect(updatesOnly.map((p) => p.id)).toEqual(original.filter((p) => p.event !== "values").map((p) => p.id));

    // without Last-Event-ID a finished run has nothing new: the stream just ends
    const nothing = await collect(client.runs.joinStream(thread.thread_id, runId));
    expect(nothing).toEqual([]);
  });

  it("joinStream of a running run follows it live, with the mode filter", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "steps", {
      input: userMessage("live"),
      streamMode: ["values", "updates"],
      config: { configurable: { delay_ms: 250 } },
    });
    const joined = await collect(client.runs.joinStream(thread.thread_id, run.run_id, { lastEventId: "-1", streamMode: ["updates"] }));
    expect(names(joined)).toEqual(["metadata", "updates", "updates", "updates"]);
    expect(joined.map((p) => Object.keys(p.data)[0])).toEqual(["run_id", "one", "two", "three"]);
    expect((await client.runs.get(thread.thread_id, run.run_id)).status).toBe("success");
  });

  it("joining a run before it starts gets every event, even without Last-Event-ID", async () => {
    const thread = await client.threads.create();
    const run = await client.runs.create(thread.thread_id, "chat", { input: userMessage("early"), afterSeconds: 0.8 });
    const parts = await collect(client.runs.joinStream(thread.thread_id, run.run_id));
    expect(names(parts)).toEqual(["metadata", "values", "values"]);
    expect(parts[0]!.data.run_id).toBe(run.run_id);
    expect(contents(parts.at(-1)!.data.messages)).toEqual(["early", "You said: early"]);
  });

  it("join stream: bad Last-Event-ID is 422, unknown run 404, an id past the end replays nothing", async () => {
    const thread = await client.threads.create();
    let runId = "";
    await collect(client.runs.stream(thread.thread_id, "chat", { input: userMessage("x"), onRunCreated: (m) => (runId = m.run_id) }));
    const url = `${server.url}/threads/${thread.thread_id}/runs/${runId}/stream`;
    const bad = await fetch(url, { headers: { "Last-Event-ID": "abc" } });
    expect(bad.status).toBe(422);
    const missing = await fetch(`${server.url}/threads/${thread.thread_id}/runs/${crypto.randomUUID()}/stream`);
    expect(missing.status).toBe(404);
    const past = await fetch(url, { headers: { "Last-Event-ID": "99" } });
    expect(past.status).toBe(200);
    expect(past.headers.get("content-location")).toBe(`/threads/${thread.thread_id}/runs/${runId}`);
    expect(parseSse(await past.text())).toEqual([]);
  });

  it("a failing graph streams an error event, then the stream ends", async () => {
    const { threadId, parts } = await stream("failing", { input: userMessage("x"), streamMode: ["values"] });
    expect(names(parts)).toEqual(["metadata", "values", "error"]);
    expect(parts.at(-1)!.data).toEqual({ error: "TypeError", message: "the tool is broken" });
    const [run] = await client.runs.list(threadId);
    expect(run!.status).toBe("error");
  });
});

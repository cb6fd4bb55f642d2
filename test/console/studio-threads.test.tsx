// @vitest-environment happy-dom
/**
 * The Studio's Threads tab against a real `berth serve` (a child process, reached by the real
 * @langchain/langgraph-sdk Client the way the console reaches a deployment, CORS and all): the
 * list is the graph's threads and filters by metadata and status, a thread's messages render with
 * the console's message renderer, an A2A conversation shows its context id, runs and checkpoints
 * open their traces, a past checkpoint is edited as a node and a run forked from it (checked on
 * the server), two checkpoints are compared, and a thread with more checkpoints than a page is
 * shown one page at a time.
 */
import { randomUUID } from "node:crypto";
import { Client, type ThreadState } from "@langchain/langgraph-sdk";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ThreadsPanel } from "../../src/console/studio/threads";
import { createTestDatabase, startChild, type ChildServer, type TestDatabase } from "../helpers/server";

let db: TestDatabase;
let server: ChildServer;
let client: Client;
let chatAssistant: string;
let counterAssistant: string;

const say = (content: string) => ({ messages: [{ role: "user", content }] });

beforeAll(async () => {
  db = await createTestDatabase("pglite");
  // the console is served from another origin than a deployment: the page's requests are cross-origin
  server = await startChild("serve", db, { CORS_ALLOW_ORIGINS: "*" });
  client = new Client({ apiUrl: server.url!, callerOptions: { maxRetries: 0 } });
  chatAssistant = (await client.assistants.search({ graphId: "chat" }))[0]!.assistant_id;
  counterAssistant = (await client.assistants.search({ graphId: "counter" }))[0]!.assistant_id;
});

afterAll(async () => {
  await server?.stop();
  await db?.drop();
});

afterEach(() => cleanup());

async function chatThread(metadata: Record<string, unknown>, ...turns: string[]) {
  // graphId, not metadata.graph_id: the server keeps graph_id for itself (set by a thread's first run otherwise)
  const t = await client.threads.create({ graphId: "chat", metadata });
  for (const turn of turns) await client.runs.wait(t.thread_id, chatAssistant, { input: say(turn) });
  return t.thread_id;
}

const renderPanel = (props: { graphId?: string; assistantId?: string; onOpenTrace?: (runId: string) => void; initialThreadId?: string } = {}) =>
  render(<ThreadsPanel client={client} assistantId={props.assistantId ?? chatAssistant} graphId={props.graphId ?? "chat"} onOpenTrace={props.onOpenTrace} initialThreadId={props.initialThreadId} />);

const listedThreads = () =>
  within(screen.getByRole("region", { name: "Threads" }))
    .queryAllByRole("button")
    .map((b) => b.querySelector("code")?.textContent)
    .filter(Boolean);

describe("thread list", () => {
  it("lists this graph's threads, filters by metadata and status, and refuses a malformed filter", async () => {
    const run = randomUUID();
    const ann = await chatThread({ user: "ann", suite: run }, "hello");
    const bob = await chatThread({ user: "bob", suite: run });
    const counter = await client.threads.create({ graphId: "counter", metadata: { suite: run } });
    renderPanel();
    await waitFor(() => expect(listedThreads()).toEqual(expect.arrayContaining([ann, bob])));
    expect(listedThreads()).not.toContain(counter.thread_id);

    const search = screen.getByRole("search", { name: "Search threads" });
    const metadata = within(search).getByLabelText("Metadata");
    fireEvent.change(metadata, { target: { value: `suite=${run}, user=ann` } });
    fireEvent.click(within(search).getByRole("button", { name: "Search" }));
    await waitFor(() => expect(listedThreads()).toEqual([ann]));

    // bob's thread never ran: idle; so is ann's, and no thread of this suite is interrupted
    fireEvent.change(metadata, { target: { value: `suite=${run}` } });
    fireEvent.change(within(search).getByLabelText("Status"), { target: { value: "interrupted" } });
    fireEvent.click(within(search).getByRole("button", { name: "Search" }));
    await waitFor(() => expect(screen.getByText("No threads match.")).toBeTruthy());

    // every graph: the counter thread is there too
    fireEvent.change(within(search).getByLabelText("Status"), { target: { value: "" } });
    fireEvent.click(within(search).getByLabelText(/only graph chat/));
    fireEvent.click(within(search).getByRole("button", { name: "Search" }));
    await waitFor(() => expect(new Set(listedThreads())).toEqual(new Set([ann, bob, counter.thread_id])));

    fireEvent.change(metadata, { target: { value: "not a filter" } });
    expect(within(search).getByRole("button", { name: "Search" }).hasAttribute("disabled")).toBe(true);
    expect(screen.getByRole("alert").textContent).toBe('Metadata filter: "not a filter" is not key=value');
  });
});

describe("a thread", () => {
  it("shows its state with messages rendered as messages, its runs with trace links", async () => {
    const id = await chatThread({ user: "carol" }, "first question", "second question");
    const runs = await client.runs.list(id);
    const opened: string[] = [];
    renderPanel({ initialThreadId: id, onOpenTrace: (r) => opened.push(r) });
    const tree = await screen.findByRole("tree", { name: "Current state" });
    const articles = await waitFor(() => {
      const a = [...tree.querySelectorAll("article.msg")];
      expect(a).toHaveLength(4);
      return a;
    });
    expect(articles.map((a) => a.getAttribute("aria-label"))).toEqual(["User message", "Assistant message", "User message", "Assistant message"]);
    expect(articles[3]!.textContent).toContain("You said: second question");
    // the raw tree is one click away
    fireEvent.click(within(tree).getByRole("button", { name: "show raw" }));
    expect(tree.querySelectorAll("article.msg")).toHaveLength(0);
    expect(within(tree).getAllByRole("treeitem").map((i) => i.getAttribute("data-path"))).toContain("messages/3");

    const runList = screen.getByRole("list", { name: "Runs" });
    expect(within(runList).getAllByRole("listitem")).toHaveLength(2);
    fireEvent.click(within(runList).getByRole("button", { name: `Open trace of run ${runs[0]!.run_id}` }));
    expect(opened).toEqual([runs[0]!.run_id]);
  });

  it("lists a run that stopped at an interrupt as interrupted (the server says success), also once resumed by a later run", async () => {
    const approval = (await client.assistants.search({ graphId: "approval" }))[0]!.assistant_id;
    const t = await client.threads.create({ graphId: "approval" });
    await client.runs.wait(t.thread_id, approval, { input: say("may I?") });
    const [paused] = await client.runs.list(t.thread_id);
    // what LangGraph Platform reports: the run success, the thread interrupted
    expect(paused!.status).toBe("success");
    expect((await client.threads.get(t.thread_id)).status).toBe("interrupted");
    renderPanel({ graphId: "approval", assistantId: approval, initialThreadId: t.thread_id });
    const runList = await screen.findByRole("list", { name: "Runs" });
    expect(within(runList).getAllByRole("listitem").map((li) => li.getAttribute("data-status"))).toEqual(["interrupted"]);
    expect(within(runList).getByText("interrupted")).toBeTruthy();
    cleanup();

    await client.runs.wait(t.thread_id, approval, { command: { resume: "approve" } });
    renderPanel({ graphId: "approval", assistantId: approval, initialThreadId: t.thread_id });
    const after = await screen.findByRole("list", { name: "Runs" });
    // newest first: the run that resumed it went to the end; the first one still stopped at the interrupt
    await waitFor(() => expect(within(after).getAllByRole("listitem").map((li) => li.getAttribute("data-status"))).toEqual(["success", "interrupted"]));
  });

  it("shows the A2A context id of a conversation started over A2A", async () => {
    const contextId = randomUUID();
    const res = await fetch(`${server.url}/a2a/${chatAssistant}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: { message: { kind: "message", messageId: randomUUID(), role: "user", contextId, parts: [{ kind: "text", text: "over a2a" }] } },
      }),
    });
    const body = (await res.json()) as { result?: { status: { state: string } } };
    expect(body.result?.status.state).toBe("completed");
    // a UUID context id is the thread id (threadIdForContext)
    renderPanel({ initialThreadId: contextId });
    expect((await screen.findByLabelText("A2A context id")).textContent).toBe(contextId);
    // and the agent card other agents reach it by (A2A is on in this server)
    const card = await screen.findByRole("group", { name: "A2A agent card" });
    expect(within(card).getByLabelText("A2A endpoint").textContent).toContain(`/a2a/${chatAssistant}`);
    const served = (await (await fetch(`${server.url}/a2a/${chatAssistant}/.well-known/agent-card.json`)).json()) as { name: string };
    expect(card.textContent).toContain(served.name);
    cleanup();
    const plain = await chatThread({}, "no a2a");
    renderPanel({ initialThreadId: plain });
    await screen.findByRole("tree", { name: "Current state" });
    expect(screen.queryByLabelText("A2A context id")).toBeNull();
  });
});

/** The timeline's checkpoint ids, top (newest) first. */
const timelineIds = () => [...screen.getByRole("list", { name: "Checkpoints" }).querySelectorAll("li")].map((li) => li.getAttribute("data-checkpoint")!);

async function openHistory() {
  fireEvent.click(await screen.findByRole("tab", { name: "History" }));
  await screen.findByRole("list", { name: "Checkpoints" });
}

describe("time travel", () => {
  it("edits a past checkpoint as a node, forks a run from the edit, and links the fork's trace", async () => {
    const id = await chatThread({}, "one", "two");
    const history = await client.threads.getHistory(id, { limit: 100 });
    // the checkpoint where the first turn had finished: its last message is the first reply
    const past = history.find((s) => (s.values as any).messages?.length === 2 && s.next.length === 0)!;
    const reply = (past.values as any).messages[1];
    const opened: string[] = [];
    renderPanel({ initialThreadId: id, onOpenTrace: (r) => opened.push(r) });
    await openHistory();
    expect(timelineIds()).toEqual(history.map((s) => s.checkpoint.checkpoint_id));

    fireEvent.click(screen.getByRole("button", { name: new RegExp(`^Open Checkpoint \\d+ ${past.checkpoint.checkpoint_id}$`) }));
    const panel = await screen.findByRole("region", { name: `Checkpoint ${past.checkpoint.checkpoint_id}` });
    expect(within(panel).getByRole("tree").querySelectorAll("article.msg")).toHaveLength(2);

    // a bad edit is refused in the form
    const editBox = within(panel).getByLabelText("Edited state (JSON)");
    fireEvent.change(editBox, { target: { value: "{oops" } });
    expect(within(panel).getByRole("button", { name: "Save as new checkpoint" }).hasAttribute("disabled")).toBe(true);
    expect(within(panel).getByRole("alert").textContent).toMatch(/^The edited state is not valid JSON/);

    // the reply rewritten (same id: the messages reducer replaces it), as if the agent had said it
    const edited = { messages: [{ ...reply, content: "EDITED REPLY" }] };
    fireEvent.change(editBox, { target: { value: JSON.stringify(edited) } });
    expect((within(panel).getByLabelText("As node") as HTMLSelectElement).value).toBe("agent");
    fireEvent.click(within(panel).getByRole("button", { name: "Save as new checkpoint" }));

    // the new checkpoint is the newest, opened, its parent the past one
    const editedCp = await waitFor(async () => {
      const h = await client.threads.getHistory(id, { limit: 1 });
      expect(h[0]!.metadata?.source).toBe("update");
      return h[0]!;
    });
    expect(editedCp.parent_checkpoint?.checkpoint_id).toBe(past.checkpoint.checkpoint_id);
    // written as the agent: what follows the agent runs next (the end)
    expect(editedCp.next).toEqual([]);
    expect((editedCp.values as any).messages.map((m: any) => m.content)).toEqual(["one", "EDITED REPLY"]);
    const editedPanel = await screen.findByRole("region", { name: `Checkpoint ${editedCp.checkpoint.checkpoint_id}` });
    expect(timelineIds()[0]).toBe(editedCp.checkpoint.checkpoint_id);
    expect(within(editedPanel).getByRole("tree").textContent).toContain("EDITED REPLY");

    // fork: a new turn from the edited checkpoint
    fireEvent.change(within(editedPanel).getByLabelText("Fork input (JSON)"), { target: { value: JSON.stringify(say("three")) } });
    fireEvent.click(within(editedPanel).getByRole("button", { name: "Fork run" }));
    const runsAfter = await waitFor(async () => {
      const runs = await client.runs.list(id);
      const fork = runs.find((r) => r.metadata?.studio_fork_of === editedCp.checkpoint.checkpoint_id);
      expect(fork?.status).toBe("success");
      return { runs, fork: fork! };
    });
    const state = await client.threads.getState(id);
    // the fork continued the edited branch: the original second turn is not in it
    expect((state.values as any).messages.map((m: any) => m.content)).toEqual(["one", "EDITED REPLY", "three", "You said: three"]);
    const status = await screen.findByText((_, el) => el?.classList.contains("tt-forked") === true && el.textContent!.includes(runsAfter.fork.run_id));
    fireEvent.click(within(status).getByRole("button", { name: `Open trace of run ${runsAfter.fork.run_id}` }));
    expect(opened).toEqual([runsAfter.fork.run_id]);
    // and the history shows the fork's checkpoints on top, with their run's trace link
    await waitFor(() => expect(timelineIds()[0]).toBe(state.checkpoint.checkpoint_id));
    const top = screen.getByRole("list", { name: "Checkpoints" }).querySelector("li")!;
    fireEvent.click(within(top).getByRole("button", { name: `Open trace of run ${runsAfter.fork.run_id}` }));
    expect(opened).toEqual([runsAfter.fork.run_id, runsAfter.fork.run_id]);
  });

  it("compares two checkpoints: what the later one added, older first whichever is ticked first", async () => {
    const id = await chatThread({}, "alpha", "beta");
    const history: ThreadState[] = await client.threads.getHistory(id, { limit: 100 });
    const done = history.filter((s) => s.next.length === 0);
    const [after, before] = [done[0]!, done[1]!];
    const added = (after.values as any).messages.slice(2).map((m: any) => m.id);
    renderPanel({ initialThreadId: id });
    await openHistory();
    const tick = (s: ThreadState) => fireEvent.click(screen.getByRole("checkbox", { name: new RegExp(`^Compare Checkpoint \\d+ ${s.checkpoint.checkpoint_id}$`) }));
    tick(after);
    tick(before);
    const diff = await screen.findByRole("region", { name: "Checkpoint comparison" });
    const changes = within(diff).getByRole("list", { name: "Changes" }).querySelectorAll("li");
    expect([...changes].map((li) => [li.getAttribute("data-change"), li.querySelector(".tt-diff-path")?.textContent])).toEqual(
      added.map((m: string) => ["added", `messages[id=${m}]`]),
    );
    expect(diff.textContent).toContain("You said: beta");
    expect(diff.textContent).toContain("2 added, 0 removed, 0 changed");
    fireEvent.click(within(diff).getByRole("button", { name: "Close comparison" }));
    expect(screen.queryByRole("region", { name: "Checkpoint comparison" })).toBeNull();
  });
});

describe("a long history", () => {
  it("is shown one page of 50 at a time, older pages on request, every checkpoint once", async () => {
    const t = await client.threads.create({ graphId: "counter" });
    // 120 checkpoints written as the counter's node: more than two pages
    for (let i = 0; i < 120; i++) await client.threads.updateState(t.thread_id, { values: { count: 1 }, asNode: "inc" });
    const all = (await client.threads.getHistory(t.thread_id, { limit: 1000 })).map((s) => s.checkpoint.checkpoint_id);
    expect(all).toHaveLength(120);
    renderPanel({ initialThreadId: t.thread_id, graphId: "counter", assistantId: counterAssistant });
    await openHistory();
    const pages: string[][] = [timelineIds()];
    const pager = () => screen.getByLabelText("History pages");
    for (;;) {
      const olderButton = within(pager()).getByRole("button", { name: "Older" });
      if (olderButton.hasAttribute("disabled")) break;
      const before = timelineIds()[0];
      fireEvent.click(olderButton);
      await waitFor(() => expect(timelineIds()[0]).not.toBe(before));
      pages.push(timelineIds());
    }
    expect(pages.map((p) => p.length)).toEqual([50, 50, 20]);
    expect(pages.flat()).toEqual(all);
    fireEvent.click(within(pager()).getByRole("button", { name: "Newer" }));
    await waitFor(() => expect(timelineIds()).toEqual(pages[1]));
  });
});

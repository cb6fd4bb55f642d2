/**
 * The console's Studio end to end, in a real headless Chromium against a real `berth dev` (its
 * loopback-open default: the person at this machine, no key) deploying the bundled example agents
 * from a git repository: the control plane's proxy of the deployment's agent server answers the
 * real LangGraph SDK with the session's credentials only; the Studio draws the graph, chats with
 * the `chat` example with streaming, and stops at the `approval` example's interrupt and resumes
 * it from the page; in the Threads tab a past checkpoint is edited and a run forked from it, whose
 * trace opens; a run sent to a busy thread is queued then runs; one cancelled with rollback is shown rolled back; an assistant is created and edited with the form from its config schema. Each effect is
 * checked through the SDK too. Screenshots in artifacts/screenshots/.
 */
import { rmSync } from "node:fs";
import { Client } from "@langchain/langgraph-sdk";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { browserAvailability, buildConsole, launchBrowser, newContext, pageProblems, screenshot } from "../helpers/browser.js";
import { scratchDir } from "../runtime/local-repo.js";
import { gateGraphSource, startGate, type Gate } from "./gate.js";
import { createExampleRepo } from "./seed.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

// a global of the page, for the function that runs inside Chromium (the server's tsconfig has no DOM lib)
declare const sessionStorage: { setItem(k: string, v: string): void };

type Msg = { type: string; content: unknown };
const texts = (messages: Msg[] | undefined) => (messages ?? []).map((m) => `${m.type}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`);

const availability = browserAvailability();
if (!availability.ok) console.warn(`\n⚠ ${availability.reason}: the Studio e2e suite is SKIPPED on this machine.\n`);

const UI_TIMEOUT = 30_000;
const DEPLOY_TIMEOUT = 150_000;

async function visible(locator: Locator, timeout = UI_TIMEOUT): Promise<Locator> {
  await locator.first().waitFor({ state: "visible", timeout });
  return locator.first();
}

describe("Studio: the deployment's agent server through the control plane", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  let deploymentId: string;
  let browser: Browser | undefined;
  let page: Page;
  let problems: string[];
  let gate: Gate;
  let client: Client;

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { "x-api-key": dev.adminKey }) => {
    const res = await fetch(`${dev.url}${path}`, { method, headers: { ...headers, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    const consoleDir = availability.ok ? await buildConsole() : undefined;
    dir = scratchDir("studio-e2e");
    gate = await startGate();
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent", ...(consoleDir ? { consoleDir } : {}) }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 300,
    });
    const repo = createExampleRepo(dir, { gate: gateGraphSource(gate.url) });
    const created = await api("POST", "/v2/deployments", {
      name: "studio-examples",
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repo.url },
      source_revision_config: { repo_ref: "main", agent_config_path: repo.configPath },
      secrets: [],
    });
    expect(created.status).toBe(201);
    deploymentId = created.body.id;
    // waits on the revision itself: the API holds each request until it settles or the wait is over
    let status = "";
    for (const until = Date.now() + DEPLOY_TIMEOUT * 3; status !== "DEPLOYED" && !/FAILED/.test(status) && Date.now() < until; ) {
      status = (await api("GET", `/v2/deployments/${deploymentId}/revisions/${created.body.latest_revision_id}?wait=60`)).body.status;
    }
    expect(status).toBe("DEPLOYED");
    client = new Client({ apiUrl: `${dev.url}/v2/deployments/${deploymentId}/agent`, apiKey: dev.adminKey });
    if (availability.ok) {
      browser = await launchBrowser();
      const context = await newContext(browser);
      // loopback-open: the session is "no key" in every page of the context (each test can start from an address)
      await context.addInitScript(() => sessionStorage.setItem("berth.session", "{}"));
      page = await context.newPage();
      problems = pageProblems(page);
    }
  }, DEPLOY_TIMEOUT * 4);

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    await gate?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers the LangGraph SDK with the caller's key, streaming, and refuses what the key may not do", async () => {
    const assistants = await client.assistants.search({ graphId: "approval" });
    expect(assistants.map((a) => a.graph_id)).toEqual(["approval"]);
    const graph = await client.assistants.getGraph(assistants[0]!.assistant_id);
    expect(graph.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(["draft", "review"]));
    const thread = await client.threads.create();
    const events: string[] = [];
    for await (const part of client.runs.stream(thread.thread_id, "chat", { input: { messages: [{ role: "user", content: "hello proxy" }] }, streamMode: ["messages-tuple", "values"] })) events.push(part.event);
    expect(events).toContain("messages");
    const state = await client.threads.getState<{ messages: { type: string; content: unknown }[] }>(thread.thread_id);
    expect(state.values.messages.map((m) => m.type)).toEqual(["human", "ai"]);

    // a wrong key is refused by the control plane before anything is forwarded
    expect((await api("GET", `/v2/deployments/${deploymentId}/agent/assistants/chat`, undefined, { "x-api-key": "berth_wrong-0123456789abcdef" })).status).toBe(401);
    // a deployment the tenant does not have: the documented 404
    const missing = await api("GET", `/v2/deployments/00000000-0000-4000-8000-00000000abcd/agent/ok`);
    expect(missing.status).toBe(404);
    expect(typeof missing.body.detail).toBe("string");
    // loopback-open (berth dev, no key): the person at this machine reaches it too
    expect((await api("GET", `/v2/deployments/${deploymentId}/agent/assistants/chat`, undefined, {})).status).toBe(200);
  });

  it.skipIf(!availability.ok)("opens the Studio from the deployment, draws the graph, chats with streaming, and resumes the approval interrupt", async () => {
    // loopback-open: the session is "no key" (what the sign-in page starts when the server lets this machine in)
    await page.goto(`${dev.url}/sign-in`, { waitUntil: "domcontentloaded" });
    await page.evaluate(() => sessionStorage.setItem("berth.session", "{}"));
    await page.goto(`${dev.url}/deployments/${deploymentId}`, { waitUntil: "domcontentloaded" });
    await (await visible(page.getByRole("link", { name: "Open Studio" }))).click();
    await page.waitForURL(new RegExp(`/deployments/${deploymentId}/studio/graph$`), { timeout: UI_TIMEOUT });

    // the graph: the chat example's single node between start and end
    const drawing = await visible(page.getByRole("img", { name: "Graph drawing" }));
    await visible(drawing.locator('[data-node="agent"]'));
    await visible(drawing.locator('[data-node="__start__"]'));
    await screenshot(page, "studio-01-graph");

    // chat: the answer streams into the conversation with the console's message renderer
    await page.getByRole("tab", { name: "Run" }).click();
    const input = await visible(page.getByRole("textbox", { name: "Message" }));
    await input.fill("hello studio");
    await page.getByRole("button", { name: /^Send/ }).click();
    const conversation = page.getByRole("region", { name: "Conversation" });
    await visible(conversation.getByRole("heading", { name: "Assistant", exact: true }));
    await visible(conversation.getByText(/hello studio/).nth(1));
    await expect.poll(() => page.getByRole("table", { name: "Runs" }).textContent()).toMatch(/success/);
    // the graph beside the run: the node that ran is marked done
    await expect.poll(() => page.locator('[data-node="agent"]').getAttribute("data-state")).toBe("done");
    const timing = await page.evaluate(() => performance.getEntriesByName("studio:first-token-shown").length);
    expect(timing).toBe(1);
    await screenshot(page, "studio-02-chat-streamed");

    // the approval example: its review node interrupts; the page shows the question and resumes it
    const approval = (await api("POST", `/v2/deployments/${deploymentId}/agent/assistants/search`, { graph_id: "approval" })).body[0];
    await page.getByRole("combobox", { name: "Assistant" }).selectOption(approval.assistant_id);
    await page.getByRole("tab", { name: "Run" }).click();
    await (await visible(page.getByRole("textbox", { name: "Message" }))).fill("may I ship it?");
    await page.getByRole("button", { name: /^Send/ }).click();
    const interrupt = await visible(page.getByRole("region", { name: "Interrupt" }));
    await visible(interrupt.getByText(/Send this answer\?/));
    // the node waiting at the interrupt is drawn waiting, not done; the node before it is done
    await expect.poll(() => page.locator('[data-node="review"]').getAttribute("data-state")).toBe("interrupted");
    expect(await page.locator('[data-node="draft"]').getAttribute("data-state")).toBe("done");
    await expect.poll(() => page.getByRole("table", { name: "Runs" }).locator("tr").last().getAttribute("data-status")).toBe("interrupted");
    await screenshot(page, "studio-03-interrupted");
    await page.getByRole("textbox", { name: "Resume value" }).fill('"approve"');
    await page.getByRole("button", { name: "Resume" }).click();
    await visible(conversation.getByText(/Approved: Draft answer to: may I ship it\?/));
    await expect.poll(() => page.getByRole("region", { name: "Interrupt" }).count()).toBe(0);
    await screenshot(page, "studio-04-resumed");

    // the assistants tab: versions of the selected assistant
    await page.getByRole("tab", { name: "Assistants" }).click();
    await visible(page.getByRole("table", { name: "Versions" }).getByText("latest"));
    expect(problems).toEqual([]);
  });
  const studio = async (tab: string, assistantId: string, thread?: string) => {
    await page.goto(`${dev.url}/deployments/${deploymentId}/studio/${tab}?assistant=${assistantId}${thread ? `&thread=${thread}` : ""}`, { waitUntil: "domcontentloaded" });
  };
  const assistantOf = async (graphId: string) => (await client.assistants.search({ graphId, limit: 1, sortBy: "created_at", sortOrder: "asc" }))[0]!.assistant_id;

  it.skipIf(!availability.ok)("edits a past checkpoint, forks a run from it (its effect once in the thread's state) and opens the fork's trace", async () => {
    const chat = await assistantOf("chat");
    const thread = await client.threads.create({ graphId: "chat", metadata: { graph_id: "chat" } });
    await client.runs.wait(thread.thread_id, chat, { input: { messages: [{ role: "user", content: "first question" }] } });
    await studio("threads", chat, thread.thread_id);
    const detail = await visible(page.getByRole("region", { name: `Thread ${thread.thread_id}` }));
    await detail.getByRole("tab", { name: "History" }).click();
    // the checkpoint before the agent ran: its state holds the question only, the agent runs next
    const timeline = await visible(page.getByRole("list", { name: "Checkpoints" }));
    const before = timeline.locator("li", { hasText: "→ agent" });
    await (await visible(before)).getByRole("button", { name: /^Open Checkpoint/ }).click();
    const panel = await visible(page.locator("section.tt-checkpoint"));
    await visible(panel.getByText("Next: agent"));
    const pastLabel = (await panel.getAttribute("aria-label"))!;
    await panel.getByText("Edit state", { exact: true }).click();
    const editor = panel.getByRole("textbox", { name: "Edited state (JSON)" });
    const edited = (await editor.inputValue()).replace("first question", "edited question");
    expect(edited).toContain("edited question"); // the message keeps its id: the reducer replaces it
    await editor.fill(edited);
    await panel.getByRole("combobox", { name: "As node" }).selectOption("__start__");
    await panel.getByRole("button", { name: "Save as new checkpoint" }).click();
    // the new checkpoint is opened: fork the run from it
    const editedPanel = await visible(page.locator(`section.tt-checkpoint:not([aria-label="${pastLabel}"])`));
    await visible(editedPanel.getByRole("tree").getByText("edited question"));
    await visible(editedPanel.getByText("Next: agent"));
    await screenshot(page, "studio-05-checkpoint-edited");
    await editedPanel.getByRole("button", { name: "Fork run" }).click();
    const forked = await visible(editedPanel.getByRole("status").filter({ hasText: "Forked run" }));
    await expect.poll(() => forked.textContent(), { timeout: UI_TIMEOUT * 2 }).toMatch(/success/);
    const forkRunId = (await forked.locator("code").textContent())!;

    // the fork's effect, through the SDK: the edited question answered, each message once
    const state = await client.threads.getState<{ messages: Msg[] }>(thread.thread_id);
    expect(texts(state.values.messages)).toEqual(["human: edited question", "ai: You said: edited question"]);
    const runs = await client.runs.list(thread.thread_id);
    expect(runs.map((r) => r.run_id)).toContain(forkRunId);
    await screenshot(page, "studio-06-forked");

    // its trace: the agent server traces each run with the run id as the trace's id
    await expect.poll(async () => (await api("GET", `/tracing/traces/${forkRunId}`)).status, { timeout: UI_TIMEOUT * 2 }).toBe(200);
    await forked.getByRole("button", { name: `Open trace of run ${forkRunId}` }).click();
    await page.waitForURL(new RegExp(`/traces/${forkRunId}`), { timeout: UI_TIMEOUT });
    const tree = await visible(page.getByRole("tree"));
    await visible(tree.getByRole("treeitem", { name: /agent/ }));
    await screenshot(page, "studio-07-fork-trace");
    // and back: the trace leads to the thread in the deployment's Studio
    await (await visible(page.getByRole("link", { name: "Open thread in Studio" }))).click();
    await page.waitForURL(new RegExp(`/deployments/${deploymentId}/studio/threads\\?.*thread=${thread.thread_id}`), { timeout: UI_TIMEOUT });
    await visible(page.getByRole("region", { name: `Thread ${thread.thread_id}` }));
    expect(problems).toEqual([]);
  });

  it.skipIf(!availability.ok)("shows a run sent to a busy thread as queued, then runs it and shows what it wrote", async () => {
    const gated = await assistantOf("gate");
    await studio("run", gated);
    const runsTable = page.getByRole("table", { name: "Runs" });
    const statuses = () => runsTable.locator("tr").evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: Record<string, string> }).dataset.status));
    const conversation = page.getByRole("region", { name: "Conversation" });
    const input = await visible(page.getByRole("textbox", { name: "Message" }));
    await input.fill("first");
    await page.getByRole("button", { name: /^Send/ }).click();
    await gate.arrived("first");
    await visible(conversation.getByText("started: first"));
    await expect.poll(() => runsTable.locator("tr").first().getAttribute("data-status")).toBe("running");
    // the thread is busy: the next message is queued behind the run
    await visible(page.getByRole("button", { name: "Send (queued)" }));
    await input.fill("second");
    await page.getByRole("button", { name: "Send (queued)" }).click();
    await expect.poll(() => runsTable.locator("tr").nth(1).getAttribute("data-status")).toBe("queued");
    await screenshot(page, "studio-08-queued");
    gate.open("first");
    gate.open("second");
    await visible(conversation.getByText("passed: second"), UI_TIMEOUT * 2);
    await expect.poll(() => statuses()).toEqual(["success", "success"]);
    const threadId = (await page.locator(".studio-thread-line code").textContent())!;
    const state = await client.threads.getState<{ messages: Msg[] }>(threadId);
    expect(texts(state.values.messages)).toEqual(["human: first", "ai: started: first", "ai: passed: first", "human: second", "ai: started: second", "ai: passed: second"]);
    await screenshot(page, "studio-09-queue-done");

    // a run cancelled with rollback: deleted with what it wrote, and shown so (not "success")
    await input.fill("third");
    await page.getByRole("button", { name: /^Send/ }).click();
    await gate.arrived("third");
    await expect.poll(() => runsTable.locator("tr").nth(2).getAttribute("data-status")).toBe("running");
    const shortId = (await runsTable.locator("tr").nth(2).locator("code").textContent())!;
    const failed: string[] = [];
    const onResponse = (r: { status(): number; url(): string; request(): { method(): string } }) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    };
    page.on("response", onResponse);
    const problemsBefore = problems.length;
    await page.getByRole("button", { name: "Cancel and roll back" }).click();
    // the stream has ended (no active run): the status the run is left with
    await visible(page.getByRole("button", { name: "Send", exact: true }));
    expect(await statuses()).toEqual(["success", "success", "cancelled (rolled back)"]);
    expect(texts((await client.threads.getState<{ messages: Msg[] }>(threadId)).values.messages)).toHaveLength(6);
    await expect.poll(() => conversation.getByText("started: third").count()).toBe(0);
    await screenshot(page, "studio-10-rolled-back");
    expect(await page.getByRole("alert").count()).toBe(0);
    page.off("response", onResponse);
    // the one failed request: the SDK's own check, once the stream closed, whether the run is still
    // active (GET of the run) — it was deleted by the rollback. The page asks nothing that fails.
    expect(failed.every((f) => new RegExp(`^404 GET .*/threads/${threadId}/runs/${shortId}[0-9a-f-]+$`).test(f))).toBe(true);
    expect(problems.slice(problemsBefore).every((p) => /404/.test(p))).toBe(true);
    expect(problems.length - problemsBefore).toBe(failed.length);
    problems.splice(problemsBefore);

    expect(problems).toEqual([]);
  });

  it.skipIf(!availability.ok)("creates and edits an assistant with the form generated from its config schema", async () => {
    const gated = await assistantOf("gate");
    // the config schema comes from the graph's TypeScript types, read after the server started
    await expect.poll(async () => Object.keys(((await client.assistants.getSchemas(gated)).config_schema as { properties?: object } | null)?.properties ?? {}).sort(), { timeout: DEPLOY_TIMEOUT }).toEqual(["greeting", "max_words", "tone"]);
    await studio("assistants", gated);
    await (await visible(page.getByRole("button", { name: "New assistant" }))).click();
    const form = await visible(page.getByRole("form", { name: "New assistant" }));
    await form.getByRole("textbox", { name: "Name" }).fill("cheerful gate");
    const config = form.getByRole("group", { name: "Config" });
    await (await visible(config.getByRole("textbox", { name: /greeting/ }))).fill("Bonjour");
    await config.getByRole("combobox", { name: /tone/ }).selectOption("cheerful");
    await config.getByRole("spinbutton", { name: /max_words/ }).fill("12");
    await screenshot(page, "studio-11-assistant-form");
    await form.getByRole("button", { name: "Create" }).click();
    await visible(page.getByRole("heading", { name: /cheerful gate/ }));
    const created = (await client.assistants.search({ graphId: "gate", metadata: {} })).find((a) => a.name === "cheerful gate");
    expect(created?.config.configurable).toEqual({ greeting: "Bonjour", tone: "cheerful", max_words: 12 });

    // edit it: a new version with the changed field, the others as they were
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const edit = await visible(page.getByRole("form", { name: "Edit assistant" }));
    await edit.getByRole("group", { name: "Config" }).getByRole("textbox", { name: /greeting/ }).fill("Salut");
    await edit.getByRole("button", { name: "Save new version" }).click();
    await visible(page.getByRole("heading", { name: /version 2/ }));
    const updated = await client.assistants.get(created!.assistant_id);
    expect(updated.version).toBe(2);
    expect(updated.config.configurable).toEqual({ greeting: "Salut", tone: "cheerful", max_words: 12 });
    await screenshot(page, "studio-12-assistant-edited");
    expect(problems).toEqual([]);
  });
});

/**
 * The console's Studio end to end, in a real headless Chromium against a real `berth dev` (its
 * loopback-open default: the person at this machine, no key) deploying the bundled example agents
 * from a git repository: the control plane's proxy of the deployment's agent server answers the
 * real LangGraph SDK with the session's credentials only; the Studio draws the graph, chats with
 * the `chat` example with streaming, and stops at the `approval` example's interrupt and resumes
 * it from the page. Screenshots in artifacts/screenshots/.
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
import { createExampleRepo } from "./seed.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

// a global of the page, for the function that runs inside Chromium (the server's tsconfig has no DOM lib)
declare const sessionStorage: { setItem(k: string, v: string): void };

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

  const api = async (method: string, path: string, body?: unknown, headers: Record<string, string> = { "x-api-key": dev.adminKey }) => {
    const res = await fetch(`${dev.url}${path}`, { method, headers: { ...headers, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    const consoleDir = availability.ok ? await buildConsole() : undefined;
    dir = scratchDir("studio-e2e");
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent", ...(consoleDir ? { consoleDir } : {}) }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 300,
    });
    const repo = createExampleRepo(dir);
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
    if (availability.ok) {
      browser = await launchBrowser();
      page = await (await newContext(browser)).newPage();
      problems = pageProblems(page);
    }
  }, DEPLOY_TIMEOUT * 4);

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("answers the LangGraph SDK with the caller's key, streaming, and refuses what the key may not do", async () => {
    const client = new Client({ apiUrl: `${dev.url}/v2/deployments/${deploymentId}/agent`, apiKey: dev.adminKey });
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
    await expect.poll(() => page.locator('[data-node="review"]').getAttribute("class")).toMatch(/interrupted/);
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
});

/**
 * The web console end to end, in a real headless Chromium (Debian's package, driven by
 * playwright-core) against a real `berth dev` control plane (tracing and the local runtime on one
 * port, embedded database), serving a fresh build of the console:
 * sign in with the admin key; follow a deployment of the bundled example agents to DEPLOYED
 * without reloading; open a trace sent through the langsmith SDK and check what a person would see
 * (role headers, the tool call beside its result, the image, the cost); check that a script
 * injection in a trace stays text; open the project's dashboard and check the charts have data.
 * Every step leaves a screenshot in artifacts/screenshots/.
 */
import { rmSync } from "node:fs";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/index.js";
import { silentLogger } from "../../src/shared/logging.js";
import { browserAvailability, buildConsole, launchBrowser, newContext, pageProblems, screenshot } from "../helpers/browser.js";
import { scratchDir } from "../runtime/local-repo.js";
import { createExampleRepo, INJECTION, seedTraces, WEATHER, type SeededTraces } from "./seed.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

// Globals of the page, for the functions that run inside Chromium (the server's tsconfig has no DOM lib).
declare const window: any;
declare const document: any;

const availability = browserAvailability();
if (!availability.ok) console.warn(`\n⚠ ${availability.reason}: the console e2e suite is SKIPPED on this machine.\n`);

const PROJECT = "console-e2e";
const UI_TIMEOUT = 30_000;
/** Cloning and starting the example agents on a busy 2-core machine. */
const DEPLOY_TIMEOUT = 150_000;

async function visible(locator: Locator, timeout = UI_TIMEOUT): Promise<Locator> {
  await locator.first().waitFor({ state: "visible", timeout });
  return locator.first();
}

describe.skipIf(!availability.ok)("web console in Chromium", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  /** Every URL the page asked for: the console works offline, so all of them are this origin's. */
  const requested: string[] = [];
  let seeded: SeededTraces;
  let projectId: string;

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${dev.url}${path}`, {
      method,
      headers: { "x-api-key": dev.adminKey, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const go = (path: string) => page.goto(`${dev.url}${path}`, { waitUntil: "domcontentloaded" });

  beforeAll(async () => {
    const consoleDir = await buildConsole();
    dir = scratchDir("console-e2e");
    // auth required (not berth dev's loopback-open default), so signing in is the real thing
    dev = await startControlPlaneServer(
      resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent", authMode: "required", consoleDir }, {}),
      silentLogger,
      { deployer: { stopGraceMs: 5000, drainMs: 500 }, pollMs: 300 },
    );
    seeded = await seedTraces(`${dev.url}/tracing`, dev.adminKey, PROJECT);
    const projects = (await api("GET", `/tracing/projects?name=${PROJECT}`)).body.projects;
    expect(projects).toHaveLength(1);
    projectId = projects[0].id;
    browser = await launchBrowser();
    const context = await newContext(browser);
    page = await context.newPage();
    problems = pageProblems(page);
    page.on("request", (r) => requested.push(r.url()));
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("sends a visitor without a session to sign-in, refuses a wrong key and lets the admin key in", async () => {
    await go("/");
    await page.waitForURL(/\/sign-in$/, { timeout: UI_TIMEOUT });
    await visible(page.getByRole("heading", { name: /sign in/i }));
    const key = page.getByLabel(/api key/i);
    await key.fill("berth_not-a-key-0123456789abcdef");
    await page.getByRole("button", { name: /^sign in$/i }).click();
    expect(await (await visible(page.getByRole("alert"))).textContent()).toMatch(/not accepted/i);
    await screenshot(page, "01-sign-in-refused");

    await key.fill(dev.adminKey);
    await page.getByRole("button", { name: /^sign in$/i }).click();
    await page.waitForURL(/\/deployments$/, { timeout: UI_TIMEOUT });
    await visible(page.getByRole("button", { name: /sign out/i }));
    await screenshot(page, "02-signed-in");
  });

  it("follows a new deployment's revision to DEPLOYED while the page stays open", async () => {
    const repo = createExampleRepo(dir);
    const created = await api("POST", "/v2/deployments", {
      name: "examples",
      source: "hosted_git",
      // a few seconds of "install", so the page is open while the revision is still on its way
      source_config: { integration_id: dev.integrationId, repo_url: repo.url, install_command: "sleep 6" },
      source_revision_config: { repo_ref: "main", agent_config_path: repo.configPath },
      secrets: [{ name: "E2E_SECRET", value: "do-not-show-this-value" }],
    });
    expect(created.status).toBe(201);
    const id: string = created.body.id;

    // the list shows it; its name leads to the detail page
    await go("/deployments");
    await (await visible(page.getByRole("link", { name: "examples" }))).click();
    await page.waitForURL(new RegExp(`/deployments/${id}$`), { timeout: UI_TIMEOUT });
    // a mark that a reload would wipe: the status must arrive by the page's own polling
    await page.evaluate(() => (window.__e2eMark = 1));
    const revisions = await visible(page.getByRole("table", { name: "Revisions" }));
    // still on its way when the page opened (the install takes seconds)
    await visible(revisions.getByText(/^(QUEUED|AWAITING_BUILD|BUILDING|AWAITING_DEPLOY|DEPLOYING)$/));
    await screenshot(page, "03-deployment-in-progress");

    await visible(revisions.getByText("DEPLOYED", { exact: true }), DEPLOY_TIMEOUT);
    expect(await page.evaluate(() => window.__e2eMark)).toBe(1);
    const revision = (await api("GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}`)).body;
    expect(revision.status).toBe("DEPLOYED");
    // the timeline: every status the revision went through, in order
    const history = await visible(revisions.getByRole("list", { name: /^Status history of / }));
    await expect.poll(() => history.textContent(), { timeout: UI_TIMEOUT }).toMatch(/QUEUED[\s\S]*BUILDING[\s\S]*DEPLOYING[\s\S]*DEPLOYED/);
    // the deployment itself is READY and serves at a URL
    await visible(page.getByText("READY", { exact: true }));
    await visible(page.getByRole("link", { name: /^http:\/\/127\.0\.0\.1:\d+/ }));
    // secrets are masked: the value never reaches the page
    expect(await page.content()).not.toContain("do-not-show-this-value");
    await screenshot(page, "04-deployment-deployed");

    // the build log of the revision, as the deployer wrote it
    await page.getByRole("tab", { name: "Logs" }).click();
    await page.getByRole("tab", { name: "Build log" }).click();
    await visible(page.getByRole("log").getByText(/cloning/), UI_TIMEOUT);
    await screenshot(page, "04b-deployment-build-log");

    // a second revision deployed: both read DEPLOYED, the timeline tells the serving one from the one it superseded
    const first: string = created.body.latest_revision_id;
    const second = (await api("POST", `/v2/deployments/${id}/revisions`, {})).body;
    expect((await api("GET", `/v2/deployments/${id}/revisions/${second.id}?wait=${DEPLOY_TIMEOUT / 1000}`)).body.status).toBe("DEPLOYED");
    await go(`/deployments/${id}`);
    const rows = await visible(page.getByRole("table", { name: "Revisions" }));
    const newer = rows.locator(`[data-revision-id="${second.id}"]`);
    const older = rows.locator(`[data-revision-id="${first}"]`);
    await visible(newer.getByText("active", { exact: true }));
    await visible(older.getByText("superseded", { exact: true }));
    expect(await older.getByText("DEPLOYED", { exact: true }).count()).toBeGreaterThan(0);
    expect(await older.getByText("active", { exact: true }).count()).toBe(0);
    expect(await newer.getByText("superseded", { exact: true }).count()).toBe(0);
    await screenshot(page, "04c-deployment-superseded-revision");
  }, 2 * DEPLOY_TIMEOUT + 30_000);

  it("lists the tracing project and its traces", async () => {
    // typed as the console names the section: /tracing (the API's root) brings a browser to the projects
    await go("/tracing");
    await page.waitForURL(/\/projects$/, { timeout: UI_TIMEOUT });
    await (await visible(page.getByRole("link", { name: PROJECT }))).click();
    await page.waitForURL(new RegExp(`/projects/${projectId}`), { timeout: UI_TIMEOUT });
    const table = await visible(page.getByRole("table"));
    await visible(table.getByRole("link", { name: "weather_agent" }));
    await visible(table.getByRole("link", { name: "injection_agent" }));
    // the weather trace's row: its tokens and cost
    const row = table.getByRole("row").filter({ has: page.getByRole("link", { name: "weather_agent" }) });
    expect(await row.textContent()).toMatch(/\$\d/);
    await screenshot(page, "05-project-traces");
  });

  it("renders a trace: role headers, the tool call paired with its result, the image and the cost", async () => {
    await (await visible(page.getByRole("link", { name: "weather_agent" }))).click();
    await page.waitForURL(new RegExp(`/traces/${seeded.weather.traceId}`), { timeout: UI_TIMEOUT });
    // the run tree shows every run; choosing the LLM call shows its messages
    const tree = await visible(page.getByRole("tree", { name: "Runs of this trace" }));
    await visible(tree.getByRole("treeitem").filter({ hasText: WEATHER.toolName }));
    await (await visible(tree.getByRole("treeitem").filter({ hasText: seeded.weather.llmName }))).click();
    await visible(page.getByRole("region", { name: "Selected run" }).getByRole("heading", { name: seeded.weather.llmName }));

    const messages = await visible(page.getByRole("list", { name: "Messages" }));
    for (const role of ["System", "User", "Assistant", "Tool"]) await visible(messages.getByRole("heading", { name: role, exact: true }));
    await visible(messages.getByText(WEATHER.system));
    await visible(messages.getByText(WEATHER.answer));
    // the tool call with its arguments, and the result that answered it (by id) right under it
    const call = await visible(messages.getByRole("region", { name: `Tool call ${WEATHER.toolName}` }));
    expect(await call.textContent()).toContain(WEATHER.toolCallId);
    expect(await call.textContent()).toContain(`"city"`);
    expect(await call.textContent()).toContain("Paris");
    await visible(call.getByRole("group", { name: "Tool result" }).getByText(WEATHER.toolResult));

    // the image: inline (data:), or the attachment Berth moved it to (fetched with the key: blob:)
    const img = await visible(messages.locator('img[src^="data:image/"], img[src^="blob:"], img[src*="/tracing/"]'));
    await expect.poll(() => img.evaluate((el: any) => el.naturalWidth), { timeout: UI_TIMEOUT }).toBeGreaterThan(0);
    // usage and cost of the call (gpt-4o-mini has a default price)
    const summary = await visible(page.locator('[aria-label="Call summary"]'));
    const cost = await visible(summary.locator('dt:text-is("Cost") + dd'));
    expect(await cost.textContent()).toMatch(/^\$\d/);
    expect(Number(/\$([\d.e-]+)/.exec((await cost.textContent()) ?? "")?.[1])).toBeGreaterThan(0);
    expect(await summary.textContent()).toContain(WEATHER.model);
    await screenshot(page, "06-trace-llm-run");
  });

  it("shows a script-injection payload as text and runs none of it", async () => {
    await go(`/traces/${seeded.injection.traceId}`);
    const tree = await visible(page.getByRole("tree", { name: "Runs of this trace" }));
    // the chain's inputs, raw: the payload is a JSON string, shown as text
    await (await visible(tree.getByRole("treeitem").filter({ hasText: "injection_agent" }))).click();
    await visible(page.getByRole("region", { name: "Selected run" }).getByText(INJECTION.script, { exact: false }));
    await (await visible(tree.getByRole("treeitem").filter({ hasText: seeded.injection.llmName }))).click();
    const messages = await visible(page.getByRole("list", { name: "Messages" }));
    // the user's message and the assistant's Markdown answer: the tags and the handler as text
    const user = await visible(messages.getByRole("article", { name: "User message" }));
    await visible(user.getByText(INJECTION.script, { exact: false }));
    await visible(user.getByText(INJECTION.img, { exact: false }));
    const assistant = await visible(messages.getByRole("article", { name: "Assistant message" }));
    await visible(assistant.getByText(INJECTION.script, { exact: false }));
    await screenshot(page, "07-injection");
    const dom = await page.evaluate(() => ({
      pwned: window.__pwned,
      scripts: [...document.querySelectorAll("script")].filter((el: any) => (el.textContent ?? "").includes("__pwned")).length,
      handlers: document.querySelectorAll("[onerror], [onload], [onclick]").length,
      javascriptUrls: [...document.querySelectorAll("[href], [src]")].filter((el: any) => /^\s*javascript:/i.test(el.getAttribute("href") ?? el.getAttribute("src") ?? "")).length,
      imgsFromPayload: document.querySelectorAll('img[src="x"]').length,
    }));
    expect(dom).toEqual({ pwned: undefined, scripts: 0, handlers: 0, javascriptUrls: 0, imgsFromPayload: 0 });
  });

  it("draws the project's dashboard charts with data", async () => {
    await go(`/projects/${projectId}/dashboard`);
    await visible(page.locator(".recharts-surface"));
    // every chart has drawn marks (bars, areas, lines or their dots), not just axes
    const MARKS = ".recharts-bar-rectangle path, .recharts-rectangle, .recharts-area-area, .recharts-line-curve, .recharts-line-dot, .recharts-dot";
    const charts = () =>
      page.evaluate(
        (marks: string) =>
          [...document.querySelectorAll("section.chart")].map((section: any) => ({
            title: section.querySelector("h2")?.textContent,
            marks: [...section.querySelectorAll(`.recharts-surface :is(${marks})`)].filter((el: any) => {
              const d = el.getAttribute("d");
              return (d !== null && d.trim() !== "") || Number(el.getAttribute("height") ?? 0) > 0 || Number(el.getAttribute("r") ?? 0) > 0;
            }).length,
          })),
        MARKS,
      );
    await expect.poll(async () => (await charts()).filter((c) => c.marks === 0), { timeout: UI_TIMEOUT }).toEqual([]);
    const drawn = await charts();
    expect(drawn.length).toBeGreaterThanOrEqual(6);
    expect(drawn.map((c) => c.title)).toEqual(expect.arrayContaining(["Tokens over time", "Cost over time", "Latency over time", "Time to first token over time", "Error rate over time", "Cost by model"]));
    await screenshot(page, "08-dashboard");
  });

  it("edits the tenant's price table: a new price is listed and prices a model", async () => {
    await go("/prices");
    await visible(page.getByRole("heading", { name: "Model prices" }));
    await page.getByRole("button", { name: "Add price" }).first().click();
    await page.getByLabel("Model name").fill("e2e-model");
    await page.getByLabel("Match pattern").fill("^e2e-model$");
    await page.getByLabel("Input $/1M tokens").fill("1.5");
    await page.getByLabel("Output $/1M tokens").fill("6");
    await page.getByRole("button", { name: "Add price" }).last().click();
    expect(await (await visible(page.getByText("Added e2e-model."))).isVisible()).toBe(true);
    // what the API now holds is what was typed
    const mine = (await api("GET", "/tracing/model-prices")).body.prices.filter((p: { source: string }) => p.source === "tenant");
    expect(mine).toEqual([expect.objectContaining({ model_name: "e2e-model", match_pattern: "^e2e-model$", input_per_million: 1.5, output_per_million: 6 })]);
    await page.getByLabel("Filter prices").fill("e2e-model");
    await visible(page.getByText(/is priced by/));
    await screenshot(page, "09-prices");
  });

  it("offers a tenant picker to a key that spans tenants, and shows each tenant its own data", async () => {
    const acme = await dev.controlPlane.auth.createTenant("acme-e2e");
    const { key } = await dev.controlPlane.auth.createKey([DEFAULT_TENANT_ID, acme.id], "two tenants");
    await page.getByRole("button", { name: /sign out/i }).click();
    await page.waitForURL(/\/sign-in$/, { timeout: UI_TIMEOUT });
    await page.getByLabel(/api key/i).fill(key);
    await page.getByRole("button", { name: /^sign in$/i }).click();
    await visible(page.getByRole("heading", { name: /choose a tenant/i }));
    await screenshot(page, "10-tenant-picker");
    await page.getByRole("button", { name: "acme-e2e" }).click();
    await go("/projects");
    await visible(page.getByRole("heading", { name: "Tracing projects" }));
    // acme has no traces: the default tenant's project must not show here
    await visible(page.getByText(/No tracing projects yet/));
    expect(await page.getByRole("link", { name: PROJECT, exact: true }).count()).toBe(0);
    // switching to the default tenant shows its project, without signing in again
    await page.getByLabel("Tenant").selectOption(DEFAULT_TENANT_ID);
    await visible(page.getByRole("link", { name: PROJECT, exact: true }));
    await screenshot(page, "11-tenant-switched");
  });

  it("loaded nothing from outside this origin (no CDN: it works offline)", () => {
    expect(requested.length).toBeGreaterThan(10);
    const origin = new URL(dev.url).origin;
    expect(requested.filter((u) => !(u.startsWith(`${origin}/`) || u.startsWith("data:") || u.startsWith("blob:")))).toEqual([]);
    // the built assets came from the console's own /assets
    expect(requested.some((u) => u.startsWith(`${origin}/assets/`) && u.endsWith(".js"))).toBe(true);
  });

  it("raised no error inside the page", () => {
    // the one expected: the browser logs the 401 of the refused key's /v2/whoami
    const expected = /Failed to load resource: the server responded with a status of 401/;
    expect(problems.filter((p) => !expected.test(p))).toEqual([]);
  });
});

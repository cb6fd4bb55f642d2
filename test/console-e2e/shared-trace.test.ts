/**
 * A shared trace in a real headless Chromium against `berth dev` (auth required, fresh console
 * build): the langsmith SDK's shareRun makes the public link; a visitor with no session opens it and
 * sees the run tree and the LLM call's messages rendered, read-only — no sign-in, no editing
 * controls — and the link stops working once unshared.
 */
import { rmSync } from "node:fs";
import { Client } from "langsmith";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { browserAvailability, buildConsole, launchBrowser, newContext, pageProblems, screenshot } from "../helpers/browser.js";
import { scratchDir } from "../runtime/local-repo.js";
import { seedTraces, WEATHER, type SeededTraces } from "./seed.js";

const availability = browserAvailability();
const UI_TIMEOUT = 30_000;

async function visible(locator: Locator, timeout = UI_TIMEOUT): Promise<Locator> {
  await locator.first().waitFor({ state: "visible", timeout });
  return locator.first();
}

describe.skipIf(!availability.ok)("shared trace page in Chromium", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let seeded: SeededTraces;
  let client: Client;

  beforeAll(async () => {
    const consoleDir = await buildConsole();
    dir = scratchDir("shared-trace-e2e");
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent", authMode: "required", consoleDir }, {}), silentLogger);
    seeded = await seedTraces(`${dev.url}/tracing`, dev.adminKey, "shared-e2e");
    // the console is served at the root of berth dev: that is the SDK's web URL
    client = new Client({ apiUrl: `${dev.url}/tracing`, apiKey: dev.adminKey, webUrl: dev.url });
    browser = await launchBrowser();
    page = await (await newContext(browser)).newPage();
    problems = pageProblems(page);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("opens the SDK's public link without a session and renders the trace's messages read-only", async () => {
    const url = await client.shareRun(seeded.weather.rootId);
    expect(url.startsWith(`${dev.url}/public/`)).toBe(true);
    await page.goto(url, { waitUntil: "domcontentloaded" });
    await visible(page.getByText("shared, read-only"));
    expect(page.url()).not.toMatch(/sign-in/);
    const tree = await visible(page.getByRole("tree", { name: "Runs of this trace" }));
    await visible(tree.getByRole("treeitem").filter({ hasText: WEATHER.toolName }));
    await (await visible(tree.getByRole("treeitem").filter({ hasText: seeded.weather.llmName }))).click();
    const messages = await visible(page.getByRole("list", { name: "Messages" }));
    for (const role of ["System", "User", "Assistant", "Tool"]) await visible(messages.getByRole("heading", { name: role, exact: true }));
    await visible(messages.getByText(WEATHER.answer));
    await visible(messages.getByRole("region", { name: `Tool call ${WEATHER.toolName}` }));
    await screenshot(page, "shared-trace-01-messages");
    // read-only: nothing to edit or submit, and no signed-in chrome
    expect(await page.locator("textarea, input:not([type=search]), [contenteditable=true]").count()).toBe(0);
    expect(await page.getByRole("button", { name: /sign out|delete|save|share/i }).count()).toBe(0);
    expect(problems).toEqual([]);

    await client.unshareRun(seeded.weather.rootId);
    await page.reload({ waitUntil: "domcontentloaded" });
    await visible(page.getByText(/not shared|not found/i));
  });
});

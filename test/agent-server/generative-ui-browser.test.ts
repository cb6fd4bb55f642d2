/**
 * Generative UI in a real browser (Chromium, as the console e2e tests use): a page on another
 * origin renders the SDK's own `LoadExternalComponent` (`@langchain/langgraph-sdk/react-ui`), which
 * asks the agent server for the graph's component (`POST /ui/{graph}`), inserts the snippet into a
 * shadow root, loads the stylesheet and the script, and renders the fixture's component with the
 * page's React, the message's props and a `ui_config.shared` package the page provides.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import * as esbuild from "esbuild";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { browserAvailability, launchBrowser, newContext, pageProblems } from "../helpers/browser.js";
import { createTestDatabase, ROOT, testSettings, type TestDatabase } from "../helpers/server.js";

const CONFIG = path.join(ROOT, "test/fixtures/generative-ui/langgraph.json");
const availability = browserAvailability();

/** The page's script: React, the SDK's react-ui and a shared package, as an app would bundle them. */
const PAGE_SOURCE = `
import * as React from "react";
import { createRoot } from "react-dom/client";
import { Client } from "@langchain/langgraph-sdk";
import { LoadExternalComponent, experimental_loadShare } from "@langchain/langgraph-sdk/react-ui";
experimental_loadShare("@fixture/shared-widgets", { badge: (text) => React.createElement("em", { className: "badge" }, text) });
const client = new Client({ apiUrl: window.API_URL });
const stream = { client, assistantId: "ui-agent" };
const message = { type: "ui", id: "m1", name: "weather", props: { city: "Lima", degrees: 19 } };
createRoot(document.getElementById("app")).render(
  React.createElement(LoadExternalComponent, { stream, message, fallback: React.createElement("i", { id: "fallback" }, "loading") }),
);
`;

describe.skipIf(!availability.ok)("generative UI in Chromium [pglite]", () => {
  let db: TestDatabase;
  let handle: AgentServerHandle;
  let pages: Server;
  let pageUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    db = await createTestDatabase("pglite");
    handle = await startAgentServer(testSettings(db, { configPath: CONFIG }), silentLogger);
    const bundled = await esbuild.build({
      stdin: { contents: PAGE_SOURCE, resolveDir: ROOT, loader: "js" },
      bundle: true,
      write: false,
      platform: "browser",
      format: "iife",
      define: { "process.env.NODE_ENV": '"production"' },
      logLevel: "silent",
    });
    const script = bundled.outputFiles[0]!.text;
    const html = `<!doctype html><html><body><div id="app"></div><script>window.API_URL = ${JSON.stringify(handle.url)};</script><script src="/page.js"></script></body></html>`;
    pages = createServer((req, res) => {
      if (req.url === "/page.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
      else res.writeHead(200, { "content-type": "text/html" }).end(html);
    });
    await new Promise<void>((r) => pages.listen(0, "127.0.0.1", r));
    // another origin than the API's (localhost vs 127.0.0.1), as an app's page is
    pageUrl = `http://localhost:${(pages.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => (pages ? pages.close(r) : r(undefined)));
    await handle?.close(0);
    await db?.drop();
  });

  it("LoadExternalComponent renders the graph's component, styled by its extracted CSS", async () => {
    const context = await newContext(browser);
    try {
      const page = await context.newPage();
      const problems = pageProblems(page);
      await page.goto(pageUrl);
      // playwright's locators see into open shadow roots
      const card = page.locator(".weather-card");
      await card.waitFor({ timeout: 60_000 });
      expect(await card.textContent()).toBe("Weather in Lima19°C fixture-marker-7f3a");
      // (the functions run in the page: DOM globals, which this file's Node types do not declare)
      expect(await card.evaluate((el) => (globalThis as any).getComputedStyle(el).borderTopColor)).toBe("rgb(12, 34, 56)");
      // inside the shadow root, not the page
      expect(await page.evaluate(() => (globalThis as any).document.querySelectorAll(".weather-card").length)).toBe(0);
      expect(await page.locator("#fallback").count()).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

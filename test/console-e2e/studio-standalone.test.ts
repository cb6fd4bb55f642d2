/**
 * The standalone Studio end to end, in a real headless Chromium against a bare `berth serve` of
 * the bundled examples (no control plane, no console): the page at http://127.0.0.1:PORT/studio/
 * talks to the agent server at its own origin. It draws the graph, chats with the `chat` example
 * with streaming, shows the `approval` example's run as interrupted (the server reports such a run
 * `success`, its thread `interrupted`) and resumes it. With `--api-key` the page asks for the key
 * and keeps it in sessionStorage only. Screenshots in artifacts/screenshots/.
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserAvailability, buildStudio, launchBrowser, newContext, pageProblems, screenshot } from "../helpers/browser.js";
import { captureOutput, childLogLevel } from "../helpers/child-output.js";
import { BERTH_BIN, ROOT } from "../helpers/server.js";

// globals of the page, for functions that run inside Chromium (the server's tsconfig has no DOM lib)
declare const sessionStorage: { length: number; key(i: number): string | null; getItem(k: string): string | null };
declare const localStorage: { length: number };
declare const document: { cookie: string };

const availability = browserAvailability();
if (!availability.ok) console.warn(`\n⚠ ${availability.reason}: the standalone Studio e2e suite is SKIPPED on this machine.\n`);

const UI_TIMEOUT = 30_000;
const KEY = "standalone-studio-key-0123456789";

interface Served {
  url: string;
  studioUrl: string;
  stop(): Promise<void>;
}

/** `berth serve --config examples/langgraph.json --port 0 …` from this checkout's sources. */
async function serve(args: string[], studioDir: string): Promise<Served> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "berth-studio-e2e-"));
  const env: NodeJS.ProcessEnv = { ...process.env, BERTH_DATA_DIR: dataDir, BERTH_STUDIO_DIR: studioDir, LOG_LEVEL: childLogLevel("warn"), BERTH_FROM_SOURCE: "1" };
  // the examples' offline model, whatever the caller's environment holds
  for (const k of ["DATABASE_URI", "POSTGRES_URI", "REDIS_URI", "PORT", "HOST", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "BERTH_CHAT_MODEL", "BERTH_STUDIO", "BERTH_API_KEY"]) delete env[k];
  const child = fork(BERTH_BIN, ["serve", "--config", path.join(ROOT, "examples/langgraph.json"), "--port", "0", ...args], { env, stdio: ["ignore", "pipe", "pipe", "ipc"] });
  const output = captureOutput(child, "berth serve");
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const ready = await new Promise<{ url: string; studioUrl: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`berth serve did not start in 150 s:\n${output()}`)), 150_000);
    child.on("message", (m: { type?: string; url?: string; studioUrl?: string }) => {
      if (m?.type !== "ready") return;
      clearTimeout(timer);
      resolve({ url: m.url!, studioUrl: m.studioUrl! });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`berth serve exited with code ${code} before it was ready:\n${output()}`));
    });
  });
  return {
    ...ready,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function visible(locator: Locator, timeout = UI_TIMEOUT): Promise<Locator> {
  await locator.first().waitFor({ state: "visible", timeout });
  return locator.first();
}

describe.skipIf(!availability.ok)("the standalone Studio of a bare berth serve", () => {
  let studioDir: string;
  let browser: Browser;

  beforeAll(async () => {
    studioDir = await buildStudio();
    browser = await launchBrowser();
  }, 300_000);
  afterAll(async () => {
    await browser?.close();
  });

  describe("on loopback without a key (its default)", () => {
    let server: Served;
    let page: Page;
    let problems: string[];
    beforeAll(async () => {
      server = await serve([], studioDir);
      page = await (await newContext(browser)).newPage();
      problems = pageProblems(page);
    }, 300_000);
    afterAll(() => server?.stop());

    it("draws the graph, chats with streaming, shows an interrupt()ed run as interrupted and resumes it", async () => {
      expect(server.studioUrl).toBe(`${server.url}/studio/`);
      await page.goto(`${server.url}/studio`, { waitUntil: "domcontentloaded" });
      // no key asked for: the server has no auth (this machine is trusted)
      const drawing = await visible(page.getByRole("img", { name: "Graph drawing" }));
      await visible(drawing.locator('[data-node="agent"]'));
      await visible(drawing.locator('[data-node="__start__"]'));
      expect(page.url()).toBe(`${server.url}/studio/`);
      await screenshot(page, "studio-standalone-01-graph");

      await page.getByRole("tab", { name: "Run" }).click();
      await page.waitForURL(/\/studio\/run$/, { timeout: UI_TIMEOUT });
      await (await visible(page.getByRole("textbox", { name: "Message" }))).fill("hello standalone");
      await page.getByRole("button", { name: /^Send/ }).click();
      const conversation = page.getByRole("region", { name: "Conversation" });
      await visible(conversation.getByRole("heading", { name: "Assistant", exact: true }));
      await visible(conversation.getByText(/hello standalone/).nth(1));
      const runs = page.getByRole("table", { name: "Runs" });
      await expect.poll(() => runs.textContent()).toMatch(/success/);
      // streamed: the first token was put on screen as it came (the page's own mark)
      expect(await page.evaluate(() => performance.getEntriesByName("studio:first-token-shown").length)).toBe(1);
      // no tracing view beside a bare agent server: no trace links
      expect(await runs.getByRole("button", { name: "Trace" }).count()).toBe(0);
      await screenshot(page, "studio-standalone-02-chat-streamed");

      // a reload at a tab's URL gets the page again (the server's fallback for the Studio's routes)
      await page.reload({ waitUntil: "domcontentloaded" });
      await visible(page.getByRole("textbox", { name: "Message" }));

      const assistants = (await (await fetch(`${server.url}/assistants/search`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ graph_id: "approval" }) })).json()) as { assistant_id: string }[];
      await page.getByRole("combobox", { name: "Assistant" }).selectOption(assistants[0]!.assistant_id);
      await (await visible(page.getByRole("textbox", { name: "Message" }))).fill("may I ship it?");
      await page.getByRole("button", { name: /^Send/ }).click();
      const interrupt = await visible(page.getByRole("region", { name: "Interrupt" }));
      await visible(interrupt.getByText(/Send this answer\?/));
      // the fix: the run stopped at interrupt() reads "interrupted", not "success"
      await expect.poll(() => page.getByRole("table", { name: "Runs" }).locator("tr").first().getAttribute("data-status")).toBe("interrupted");
      await screenshot(page, "studio-standalone-03-interrupted");
      await page.getByRole("textbox", { name: "Resume value" }).fill('"approve"');
      await page.getByRole("button", { name: "Resume" }).click();
      await visible(conversation.getByText(/Approved: Draft answer to: may I ship it\?/));
      await expect.poll(() => page.getByRole("table", { name: "Runs" }).locator("tr").nth(1).getAttribute("data-status")).toBe("success");
      // nothing kept in the page: no key here, so nothing at all
      expect(await page.evaluate(() => ({ session: sessionStorage.length, local: localStorage.length, cookie: document.cookie }))).toEqual({ session: 0, local: 0, cookie: "" });
      expect(problems).toEqual([]);
    });
  });

  describe("with --api-key", () => {
    let server: Served;
    beforeAll(async () => {
      server = await serve(["--api-key", KEY], studioDir);
    }, 300_000);
    afterAll(() => server?.stop());

    it("asks for the key, refuses a wrong one, keeps the right one in sessionStorage only", async () => {
      const context = await newContext(browser);
      const page = await context.newPage();
      const problems = pageProblems(page);
      await page.goto(`${server.url}/studio/`, { waitUntil: "domcontentloaded" });
      const form = await visible(page.getByRole("form", { name: "Sign in" }));
      await screenshot(page, "studio-standalone-04-sign-in");
      await form.getByRole("textbox", { name: "Key or token" }).fill("wrong-key-0123456789abcdef");
      await form.getByRole("button", { name: "Open Studio" }).click();
      await visible(form.getByRole("alert").getByText(/refused it \(HTTP 401\)/));
      await form.getByRole("textbox", { name: "Key or token" }).fill(KEY);
      await form.getByRole("button", { name: "Open Studio" }).click();
      await visible(page.getByRole("img", { name: "Graph drawing" }).locator('[data-node="agent"]'));
      const stored = await page.evaluate(() => Array.from({ length: sessionStorage.length }, (_, i) => [sessionStorage.key(i), sessionStorage.getItem(sessionStorage.key(i)!)]));
      expect(stored).toEqual([["berth.studio.credential", JSON.stringify({ header: "x-api-key", value: KEY })]]);
      expect(await page.evaluate(() => ({ local: localStorage.length, cookie: document.cookie }))).toEqual({ local: 0, cookie: "" });
      await screenshot(page, "studio-standalone-05-signed-in");
      // a new tab of the browser has no session: it asks again
      const other = await (await newContext(browser)).newPage();
      await other.goto(`${server.url}/studio/`, { waitUntil: "domcontentloaded" });
      await visible(other.getByRole("form", { name: "Sign in" }));
      // the wrong key's 401 is the one console error expected
      expect(problems.filter((p) => !/401/.test(p))).toEqual([]);
    });
  });
});

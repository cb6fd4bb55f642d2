/**
 * A real browser for the console's end-to-end tests and benchmark: Debian's `chromium` package
 * (`.ci/run` installs it), driven by playwright-core, which never downloads a browser of its own.
 * BERTH_CHROMIUM points at another binary. With CI=true a missing browser fails the run; elsewhere
 * `browserAvailability()` says why, and the suites that need it skip with that reason.
 *
 * Also: the console built once per process into a temporary directory (the server is pointed at it
 * through the `consoleDir` setting, so no test depends on a dist/ left by an earlier build), and
 * screenshots written to artifacts/screenshots/ (git-ignored; CI keeps them as test artifacts).
 */
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";
import { inCI } from "./services.js";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const CHROMIUM_PATH = process.env.BERTH_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = path.join(ROOT, "artifacts", "screenshots");

// Headless on a shared 2-core machine without a GPU, talking to nothing but 127.0.0.1.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
  "--disable-sync",
  "--disable-quic",
];

export type BrowserAvailability = { ok: true; executablePath: string } | { ok: false; reason: string };

let cached: BrowserAvailability | undefined;

function resolveAvailability(): BrowserAvailability {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return { ok: true, executablePath: CHROMIUM_PATH };
  } catch {
    return {
      ok: false,
      reason: `no executable Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set BERTH_CHROMIUM)`,
    };
  }
}

/** Whether the browser is there; throws with CI=true when it is not (the e2e tests are not skipped in CI). */
export function browserAvailability(): BrowserAvailability {
  cached ??= resolveAvailability();
  if (!cached.ok && inCI) throw new Error(`CI=true but ${cached.reason} — the console e2e tests are not skipped in CI`);
  return cached;
}

/** Headless Chromium; playwright gives each context (and `newPage()`) a fresh profile. */
export async function launchBrowser(): Promise<Browser> {
  const a = browserAvailability();
  if (!a.ok) throw new Error(`Chromium is unavailable: ${a.reason}`);
  return chromium.launch({ executablePath: a.executablePath, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A fresh context (its own profile: no cookies, storage or cache) in which functions sent to the
 * page work when this code runs under tsx: its esbuild keeps function names by wrapping them in a
 * `__name(fn, "name")` helper that exists only in Node, so the page gets a stand-in.
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, ...options });
  await context.addInitScript("globalThis.__name ??= (fn) => fn;");
  return context;
}

/** A full-page PNG at artifacts/screenshots/<name>.png; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, "-")}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * What went wrong inside a page: uncaught exceptions and console errors. A test asserts on it at
 * the end, so a page that throws while still showing something does not pass unnoticed.
 */
export function pageProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console.error: ${msg.text()}`);
  });
  return problems;
}

let built: Promise<string> | undefined;

/**
 * The console's production build (Vite's JS API, the repository's vite.config.ts) in a fresh
 * temporary directory, once per process; removed when the process exits. Pass it to the server as
 * the `consoleDir` setting (env BERTH_CONSOLE_DIR).
 */
export function buildConsole(): Promise<string> {
  built ??= (async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), "berth-console-"));
    process.once("exit", () => rmSync(outDir, { recursive: true, force: true }));
    const { build } = await import("vite");
    await build({
      configFile: path.join(ROOT, "src/console/vite.config.ts"),
      build: { outDir, emptyOutDir: true, sourcemap: false },
      // quiet test output: a slow build on a busy machine warns about plugin timings; build errors still throw
      logLevel: "error",
    });
    return outDir;
  })();
  return built;
}

let builtStudio: Promise<string> | undefined;

/**
 * The standalone Studio's production build (src/console/vite.studio.config.ts) in a fresh
 * temporary directory, once per process; pass it to an agent server as the `studioDir` setting
 * (env BERTH_STUDIO_DIR).
 */
export function buildStudio(): Promise<string> {
  builtStudio ??= (async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), "berth-studio-"));
    process.once("exit", () => rmSync(outDir, { recursive: true, force: true }));
    const { build } = await import("vite");
    await build({
      configFile: path.join(ROOT, "src/console/vite.studio.config.ts"),
      build: { outDir, emptyOutDir: true, sourcemap: false },
      logLevel: "error",
    });
    return outDir;
  })();
  return builtStudio;
}

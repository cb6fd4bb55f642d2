/**
 * Web console benchmark: how fast the console's heaviest views become usable in a real headless
 * Chromium (Debian's package, driven by playwright-core). Prints one table per view (median, p90,
 * min over --runs page loads, each in a fresh browser context: cold cache, a new session).
 *
 * - trace view of one trace of --trace-runs (2,000) runs: a chain root → turns → LLM calls (with
 *   messages and tool calls), tools → HTTP calls and retrievers, 4 levels deep, sent through the
 *   langsmith SDK (the real ingest path: normalised messages, usage, cost);
 * - the traces table of a project of --project-runs (1,000,000) runs, inserted with SQL as the
 *   tracing benchmark's stats do (bench/lib.ts seedProjectRuns), with its hourly rollups;
 *   and the project list and the project's dashboard (30 days of those runs), which read the rollups.
 *
 * Each figure is a time from the navigation's start, read inside the page (`performance.now()`):
 *   FCP           first contentful paint (PerformanceObserver, paint timing)
 *   … answered    when the page's main API response ended (resource timing): what is left after it
 *                 is the console's own work (parse, render)
 *   first render  the first row of the run tree / traces table is in the DOM
 *   detail        the selected run's detail is in the DOM (trace view: the root, selected on open)
 *   interactive   the page is usable: trace view — the run selected on open shows its detail, and
 *                 a click on another row sent at that moment (queued behind whatever the page still
 *                 does, as a person's click would be) has shown that row's detail; traces table — a
 *                 click on a trace sent when the first row appeared has opened its trace view
 *   click         once the page is idle, a click on yet another row → its detail shown (latency)
 * Marks are taken by a MutationObserver installed before the page's scripts run, so they are DOM
 * times (the frame is painted within a few ms after). A warm-up load of each view is not counted.
 *
 * The server is `berth dev` from a fresh dist/ build, on a scratch Postgres database, serving a fresh
 * build of the console (Vite's JS API). Needs Postgres on 127.0.0.1 and Chromium at /usr/bin/chromium
 * (or BERTH_CHROMIUM).
 * - the Studio of the bundled example agents deployed on that `berth dev` (bench/console-studio.ts):
 *   the graph view's first render, a thread of 1,000 checkpoints (its state, then its history's first
 *   page after a click on History), and in the Run tab the first token shown after Send against when
 *   the page's SDK handed over its SSE event (the console's added delay). Its data directory is
 *   under scratch/ (the examples' checkouts resolve @langchain/langgraph from this repository).
 * Usage: node --import tsx bench/console.ts [--runs 5] [--trace-runs 2000] [--project-runs 1000000] [--skip-project] [--skip-trace] [--skip-studio] [--checkpoints 1000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { Client, RunTree } from "langsmith";
import pg from "pg";
import type { Browser } from "playwright-core";
import { generateKey, keyToConfig } from "../src/control-plane/rules/index.js";
import { DEFAULT_TENANT_ID } from "../src/shared/auth/service.js";
import { buildConsole, launchBrowser, newContext, screenshot } from "../test/helpers/browser.js";
import { deployExamples, firstTokenOnce, seedCheckpoints, type FirstToken } from "./console-studio.js";
import { buildDist, createDb, forkBerth, pct, printTable, ROOT, seedProjectRuns } from "./lib.js";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    "trace-runs": { type: "string", default: "2000" },
    "project-runs": { type: "string", default: "1000000" },
    "skip-project": { type: "boolean", default: false },
    "skip-studio": { type: "boolean", default: false },
    "skip-trace": { type: "boolean", default: false },
    checkpoints: { type: "string", default: "1000" },
  },
});
const RUNS = Number(args.runs);
const TRACE_RUNS = Number(args["trace-runs"]);
const PROJECT_RUNS = Math.ceil(Number(args["project-runs"]) / 4) * 4;
const CHECKPOINTS = Number(args.checkpoints);
const API_KEY = "berth-bench-console-key-0123456789";
const TRACE_PROJECT = "bench-console-trace";
const BIG_PROJECT = "bench-console-1m";
const VIEWPORT = { width: 1440, height: 900 };
const TIMEOUT = 120_000;

// ---- what the page shows, as the console marks it up --------------------------------------------
/**
 * The run tree's rows (TraceView's Waterfall), the selected run's detail once loaded (RunDetailPane:
 * its heading beside the messages of an LLM call or the inputs of another run), the traces table's
 * rows (ProjectTraces) and the marks of a chart with data (Dashboard).
 */
const SEL = {
  treeRow: '[role="tree"] [role="treeitem"]',
  detailLoaded: 'section[aria-label="Selected run"]:has(ol[aria-label="Messages"], pre[aria-label="Inputs"]) > h2',
  tableRow: "table.traces-table tbody tr",
  tableLink: "table.traces-table tbody tr a",
  projectRow: "table.data tbody tr",
  chartMark: "section.chart .recharts-surface :is(.recharts-bar-rectangle path, .recharts-rectangle, .recharts-area-area, .recharts-line-curve)",
};

// ---- the 2,000-run trace -----------------------------------------------------------------------
const filler = (i: number, words: number) => Array.from({ length: words }, (_, w) => `w${(i * 31 + w * 7) % 997}`).join(" ");

/**
 * One trace of exactly `n` runs: root chain → turns (chain) → an LLM call deciding on tools, tool
 * runs each with an HTTP call (4 levels), a retriever, and an LLM call answering; run names carry
 * their index so the benchmark can find and click a given row.
 */
async function seedTrace(tracingUrl: string, n: number): Promise<{ traceId: string; rootName: string }> {
  const client = new Client({ apiUrl: tracingUrl, apiKey: API_KEY, autoBatchTracing: true });
  const start = Date.now() - 3_600_000;
  let count = 0;
  let clock = start;
  const runs: RunTree[] = [];
  const tick = (ms: number) => (clock += ms);
  const add = (parent: RunTree | undefined, fields: Partial<ConstructorParameters<typeof RunTree>[0]> & { name: string }) => {
    count++;
    const config = { run_type: "chain", start_time: tick(5), ...fields, name: `${fields.name} (${count})` };
    const run = parent ? parent.createChild(config) : new RunTree({ ...config, project_name: TRACE_PROJECT, client });
    runs.push(run);
    return run;
  };
  const finish = async (run: RunTree, outputs: Record<string, unknown>, ms: number) => run.end(outputs, undefined, tick(ms));
  const llm = (parent: RunTree, i: number, toolCall: boolean) => {
    const model = "gpt-4o-mini";
    const run = add(parent, {
      name: "ChatOpenAI",
      run_type: "llm",
      inputs: {
        messages: [
          { role: "system", content: `You are a research agent. ${filler(i, 20)}` },
          { role: "user", content: `Question ${i}: ${filler(i + 1, 30)}` },
          ...(toolCall ? [] : [{ role: "tool", tool_call_id: `call_${i - 1}`, content: `Result: ${filler(i + 2, 40)}` }]),
        ],
      },
      metadata: { ls_provider: "openai", ls_model_name: model },
      extra: { invocation_params: { model } },
    });
    const message = toolCall
      ? { role: "assistant", content: null, tool_calls: [{ id: `call_${i}`, type: "function", function: { name: "search_web", arguments: JSON.stringify({ query: filler(i, 5) }) } }] }
      : { role: "assistant", content: `**Answer ${i}.** ${filler(i + 3, 60)}` };
    return { run, output: { choices: [{ index: 0, message, finish_reason: toolCall ? "tool_calls" : "stop" }], model, usage: { prompt_tokens: 400 + (i % 300), completion_tokens: 50 + (i % 90), total_tokens: 450 + (i % 300) + (i % 90) } } };
  };

  const root = add(undefined, { name: "research_agent", inputs: { question: filler(0, 20) } });
  for (let turn = 0; count < n; turn++) {
    const t = add(root, { name: "turn", inputs: { turn } });
    const plan = llm(t, count, true);
    await finish(plan.run, plan.output, 400);
    for (let k = 0; k < 3 && count < n - 2; k++) {
      const tool = add(t, { name: "search_web", run_type: "tool", inputs: { query: filler(count, 5) } });
      if (count < n - 2) {
        const http = add(tool, { name: "http_get", run_type: "tool", inputs: { url: `https://example.com/${count}` } });
        await finish(http, { status: 200, body: filler(count, 30) }, 120);
      }
      await finish(tool, { results: [filler(count, 20)] }, 10);
    }
    if (count < n - 1) {
      const docs = add(t, { name: "retrieve_notes", run_type: "retriever", inputs: { query: filler(count, 5) } });
      await finish(docs, { documents: [{ page_content: filler(count, 40), metadata: { source: `notes/${count % 50}.md` } }] }, 30);
    }
    if (count < n) {
      const answer = llm(t, count, false);
      await finish(answer.run, answer.output, 900);
    }
    await finish(t, { done: true }, 5);
  }
  await finish(root, { answer: filler(1, 30) }, 5);
  // each run posted whole, outputs and end time included (one operation per run), root first
  for (const r of runs) await r.postRun();
  await client.awaitPendingTraceBatches();
  if (count !== n) throw new Error(`seeded ${count} runs, not ${n}`);
  return { traceId: root.trace_id, rootName: root.name };
}

// ---- measuring a page load --------------------------------------------------------------------
interface Watch {
  /** Mark name → [CSS selector, text the element must contain (optional)]. */
  marks: Record<string, [string, string?]>;
  /**
   * The first click: once the mark `after` is set, a click (el.click(), queued as a task, as a
   * person's click would be) on the first element matching [selector, text].
   */
  clickAfter?: { after: string; click: [string, string] };
  /** Mark name → a regular expression on request URLs: when the first matching response ended (resource timing). */
  responses?: Record<string, string>;
}
type Marks = Record<string, number>;

/**
 * Installed before the page's scripts: records when each watched element first appears, the first
 * contentful paint, and sends the early click. Runs in the page (no closure over this module).
 */
function pageObserver(arg: { session: unknown; watch: Watch }): void {
  const w = globalThis as any;
  w.sessionStorage.setItem("berth.session", JSON.stringify(arg.session));
  const marks: Record<string, number> = {};
  w.__bench = { marks };
  const find = (sel: string, text?: string) => {
    for (const el of w.document.querySelectorAll(sel)) if (!text || (el.textContent ?? "").includes(text)) return el;
    return undefined;
  };
  let clicked = false;
  const check = () => {
    for (const [name, [sel, text]] of Object.entries(arg.watch.marks)) if (!(name in marks) && find(sel, text)) marks[name] = w.performance.now();
    const c = arg.watch.clickAfter;
    if (c && !clicked && c.after in marks && find(...c.click)) {
      clicked = true;
      setTimeout(() => {
        marks.clickSent = w.performance.now();
        find(...c.click)?.click(); // found again: the row may have been re-rendered in between
      }, 0);
    }
  };
  new w.MutationObserver(check).observe(w.document, { childList: true, subtree: true, characterData: true });
  new w.PerformanceObserver((list: any) => {
    for (const e of list.getEntries()) if (e.name === "first-contentful-paint") marks.fcp = e.startTime;
  }).observe({ type: "paint", buffered: true });
  const responses = Object.entries(arg.watch.responses ?? {}).map(([name, re]) => [name, new RegExp(re)] as const);
  new w.PerformanceObserver((list: any) => {
    for (const e of list.getEntries()) for (const [name, re] of responses) if (!(name in marks) && re.test(e.name)) {
          marks[name] = e.responseEnd;
          marks[`${name}Took`] = e.responseEnd - e.startTime;
          marks[`${name}Sent`] = e.startTime;
        }
  }).observe({ type: "resource", buffered: true });
}

interface Sample {
  marks: Marks;
  /** Idle-page click latency (ms), when measured. */
  click?: number;
}

async function loadOnce(
  browser: Browser,
  url: string,
  watch: Watch,
  done: string[],
  idleClick?: { selector: string; text: string; shows: [string, string?] },
): Promise<Sample> {
  const context = await newContext(browser, { viewport: VIEWPORT });
  try {
    await context.addInitScript(pageObserver, { session: { apiKey: API_KEY, tenantId: DEFAULT_TENANT_ID }, watch });
    const page = await context.newPage();
    await page.goto(url, { waitUntil: "commit" });
    await page.waitForFunction((names: string[]) => names.every((n) => n in (globalThis as any).__bench.marks), done, { timeout: TIMEOUT, polling: 50 }).catch(async (err: Error) => {
      const got = await page.evaluate(() => (globalThis as any).__bench?.marks).catch(() => undefined);
      const shot = await screenshot(page, "bench-console-timeout").catch(() => "none");
      throw new Error(`${url}: waiting for ${done.join(", ")}; marks so far ${JSON.stringify(got)} (screenshot: ${shot})`, { cause: err });
    });
    const marks = (await page.evaluate(() => (globalThis as any).__bench.marks)) as Marks;
    let click: number | undefined;
    if (idleClick) {
      await page.waitForTimeout(500); // settled: fetches answered, nothing left to render
      click = await page.evaluate(
        ({ selector, text, shows, timeout }) =>
          new Promise<number>((resolve, reject) => {
            const w = globalThis as any;
            const find = (sel: string, t?: string) => [...w.document.querySelectorAll(sel)].find((el: any) => !t || (el.textContent ?? "").includes(t));
            const target = find(selector, text);
            if (!target) return reject(new Error(`no ${selector} with "${text}" to click`));
            const t0 = w.performance.now();
            const observer = new w.MutationObserver(() => {
              if (!find(shows[0], shows[1])) return;
              observer.disconnect();
              resolve(w.performance.now() - t0);
            });
            observer.observe(w.document, { childList: true, subtree: true, characterData: true });
            setTimeout(() => reject(new Error(`no ${shows[0]} "${shows[1]}" within ${timeout} ms of the click`)), timeout);
            target.click();
          }),
        { selector: idleClick.selector, text: idleClick.text, shows: idleClick.shows, timeout: TIMEOUT },
      );
    }
    return { marks, click };
  } finally {
    await context.close();
  }
}

/** A warm-up load (not counted), then RUNS loads. */
async function measure(browser: Browser, label: string, load: () => Promise<Sample>): Promise<Sample[]> {
  process.stdout.write(`  ${label}: warm-up`);
  await load();
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) {
    process.stdout.write(` ${i + 1}`);
    samples.push(await load());
  }
  process.stdout.write("\n");
  return samples;
}

// ---- report ----------------------------------------------------------------------------------
const f = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? "—" : n.toFixed(0));
const int = (n: number) => Math.round(n).toLocaleString("en-US");
function stats(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? { median: pct(s, 50), p90: pct(s, 90), min: s[0]! } : undefined;
}
function report(title: string, samples: Sample[], rows: [string, (s: Sample) => number | undefined, string][]): Record<string, ReturnType<typeof stats>> {
  console.log(`\n## ${title}`);
  const out: Record<string, ReturnType<typeof stats>> = {};
  printTable(
    ["from navigation start (ms)", "median", "p90", "min", "note"],
    rows.map(([name, get, note]) => {
      const st = stats(samples.map(get).filter((x): x is number => x !== undefined));
      out[name] = st;
      return [name, f(st?.median), f(st?.p90), f(st?.min), note];
    }),
  );
  return out;
}

// ---- main ------------------------------------------------------------------------------------
const began = performance.now();
buildDist();
console.log("building the console (vite)…");
const consoleDir = await buildConsole();
const db = await createDb("postgres", path.join(ROOT, "scratch"));
const env: NodeJS.ProcessEnv = { ...process.env };
for (const k of ["POSTGRES_URI", "REDIS_URI", "BERTH_FROM_SOURCE", "PORT", "HOST"]) delete env[k];
const dev = await forkBerth<{ url: string }>(["dev", "--port", "0", "--data-dir", db.dataDir, "--log-level", "warn"], {
  env: {
    ...env,
    DATABASE_URI: db.uri!,
    BERTH_API_KEY: API_KEY,
    BERTH_AUTH_MODE: "required",
    BERTH_SECRETS_KEY: keyToConfig(generateKey()),
    BERTH_CONSOLE_DIR: consoleDir,
  },
});
const url = dev.ready.url;
const sql = new pg.Pool({ connectionString: db.uri, max: 4 });
let browser: Browser | undefined;
try {
  const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(`${url}${path}`, { ...init, headers: { "x-api-key": API_KEY, ...(init.body ? { "content-type": "application/json" } : {}) } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  let t0 = performance.now();
  let trace: { traceId: string } | undefined;
  if (!args["skip-trace"]) {
    console.log(`seeding a trace of ${int(TRACE_RUNS)} runs through the langsmith SDK…`);
    trace = await seedTrace(`${url}/tracing`, TRACE_RUNS);
    const tree = await api<{ runs: unknown[] }>(`/tracing/traces/${trace.traceId}`);
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s (GET /tracing/traces/{id}: ${int(JSON.stringify(tree).length / 1024)} KiB)`);
  }

  let big: { id: string } | undefined;
  if (!args["skip-project"]) {
    console.log(`seeding a project of ${int(PROJECT_RUNS)} runs with SQL…`);
    t0 = performance.now();
    big = await api<{ id: string }>("/tracing/projects", { method: "POST", body: JSON.stringify({ name: BIG_PROJECT }) });
    const seeded = await seedProjectRuns(sql, { id: big.id, name: BIG_PROJECT }, PROJECT_RUNS);
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s (${int(seeded.rollupRows)} hourly rollup rows)`);
  }

  browser = await launchBrowser();
  console.log(
    `\nBerth console benchmark — Chromium ${browser.version()}, ${os.cpus().length} cores, node ${process.version}; ` +
      `${RUNS} loads per view (+1 warm-up), each in a fresh browser context (cold cache)`,
  );

  // ---- the trace view
  // rows on the first screen: research_agent (1) → turn (2) → ChatOpenAI (3), search_web (4) → http_get (5), …
  // the first LLM call is selected on open; once its detail shows, a click goes to another run; the idle click to a third
  const selectedOnOpen = "ChatOpenAI (3)";
  const second = "search_web (4)";
  const third = "http_get (5)";
  const results: Record<string, Record<string, ReturnType<typeof stats>>> = {};
  if (trace) {
    const traceSamples = await measure(browser, "trace view", () =>
      loadOnce(
        browser!,
        `${url}/traces/${trace!.traceId}`,
        {
          marks: { firstRow: [SEL.treeRow], detail: [SEL.detailLoaded, selectedOnOpen], interactive: [SEL.detailLoaded, second] },
          clickAfter: { after: "detail", click: [SEL.treeRow, second] },
          responses: { treeLoaded: "/tracing/traces/[0-9a-f-]+$" },
        },
        ["firstRow", "detail", "interactive"],
        { selector: SEL.treeRow, text: third, shows: [SEL.detailLoaded, third] },
      ),
    );
    results.trace = report(`Trace view, one trace of ${int(TRACE_RUNS)} runs (/traces/{id})`, traceSamples, [
      ["FCP", (s) => s.marks.fcp, "first contentful paint"],
      ["GET /tracing/traces/{id} sent", (s) => s.marks.treeLoadedSent, "after the page's scripts loaded and ran (cold cache)"],
      ["GET /tracing/traces/{id} answered", (s) => s.marks.treeLoaded, "the whole tree (response end)"],
      ["  of which the request", (s) => s.marks.treeLoadedTook, "request sent → response end (the server, mostly)"],
      ["first render: first tree row", (s) => s.marks.firstRow, ""],
      ["selected run's detail", (s) => s.marks.detail, `"${selectedOnOpen}" (selected on open) with its messages`],
      ["interactive: first click answered", (s) => s.marks.interactive, `click on "${second}" sent when the detail above showed → its detail`],
      ["click latency (idle page)", (s) => s.click, `click on "${third}" → its detail (ms from the click)`],
    ]);
  }

  if (big) {
    const id = big.id;
    // the traces table: first row, then a click on a trace sent at once opens its trace view
    const tableSamples = await measure(browser, "traces table", () =>
      loadOnce(
        browser!,
        `${url}/projects/${id}`,
        {
          marks: { firstRow: [SEL.tableRow], interactive: [SEL.treeRow] },
          clickAfter: { after: "firstRow", click: [SEL.tableLink, "support_agent"] },
          responses: { listLoaded: "/tracing/runs\\?" },
        },
        ["firstRow", "interactive"],
      ),
    );
    results.table = report(`Traces table of a project of ${int(PROJECT_RUNS)} runs (/projects/{id})`, tableSamples, [
      ["FCP", (s) => s.marks.fcp, "first contentful paint"],
      ["GET /tracing/runs?… sent", (s) => s.marks.listLoadedSent, "after the page's scripts loaded and ran (cold cache)"],
      ["GET /tracing/runs?… answered", (s) => s.marks.listLoaded, "the first page of root runs (response end)"],
      ["  of which the request", (s) => s.marks.listLoadedTook, "request sent → response end (the server, mostly)"],
      ["first render: first table row", (s) => s.marks.firstRow, "newest traces, first page"],
      ["interactive: first click answered", (s) => s.marks.interactive, "click on a trace sent at first render → its trace view's first tree row"],
    ]);

    const listSamples = await measure(browser, "projects list", () =>
      loadOnce(browser!, `${url}/projects`, { marks: { row: [SEL.projectRow, BIG_PROJECT] }, responses: { listLoaded: "/tracing/projects\\?" } }, ["row"]),
    );
    results.list = report(`Projects list with the ${int(PROJECT_RUNS)}-run project (/projects)`, listSamples, [
      ["FCP", (s) => s.marks.fcp, ""],
      ["GET /tracing/projects?… sent", (s) => s.marks.listLoadedSent, "after the page's scripts loaded and ran (cold cache)"],
      ["GET /tracing/projects?… answered", (s) => s.marks.listLoaded, "with each project's stats (response end)"],
      ["  of which the request", (s) => s.marks.listLoadedTook, "request sent → response end (the server, mostly)"],
      ["its row, with stats", (s) => s.marks.row, "run count, tokens, cost, latency p50/p99 (all time)"],
    ]);

    const dashSamples = await measure(browser, "dashboard", () =>
      loadOnce(browser!, `${url}/projects/${id}/dashboard`, { marks: { chart: [SEL.chartMark] }, responses: { statsLoaded: "/tracing/projects/[0-9a-f-]+/stats\\?" } }, ["chart"]),
    );
    results.dashboard = report(`Dashboard of the ${int(PROJECT_RUNS)}-run project (/projects/{id}/dashboard)`, dashSamples, [
      ["FCP", (s) => s.marks.fcp, ""],
      ["GET /tracing/projects/{id}/stats sent", (s) => s.marks.statsLoadedSent, "after the page's scripts loaded and ran (cold cache)"],
      ["GET /tracing/projects/{id}/stats answered", (s) => s.marks.statsLoaded, "response end"],
      ["  of which the request", (s) => s.marks.statsLoadedTook, "request sent → response end (the server, mostly)"],
      ["first chart drawn with data", (s) => s.marks.chart, "default range"],
    ]);
  }
  if (!args["skip-studio"]) {
    console.log("\ndeploying the example agents for the Studio…");
    t0 = performance.now();
    const repoDir = mkdtempSync(path.join(db.dataDir, "studio-repo-"));
    const examples = await deployExamples(url, API_KEY, repoDir, 600_000);
    rmSync(repoDir, { recursive: true, force: true }); // cloned by the deployment: no longer needed
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const graphSamples = await measure(browser, "studio graph", () =>
      loadOnce(
        browser!,
        `${url}/deployments/${examples.id}/studio/graph?assistant=${examples.chatAssistant}`,
        { marks: { graph: ['svg[aria-label="Graph drawing"] [data-node="agent"]'] }, responses: { graphLoaded: "/agent/assistants/[^/]+/graph" } },
        ["graph"],
      ),
    );
    results.studioGraph = report("Studio graph view of the chat example (/deployments/{id}/studio/graph)", graphSamples, [
      ["FCP", (s) => s.marks.fcp, ""],
      ["GET …/agent/assistants/{id}/graph answered", (s) => s.marks.graphLoaded, "through the control plane's proxy (response end)"],
      ["  of which the request", (s) => s.marks.graphLoadedTook, "request sent → response end"],
      ["first render: graph drawn", (s) => s.marks.graph, "laid out by dagre, the agent node in the DOM"],
    ]);
    console.log(`seeding a thread of ${int(CHECKPOINTS)} checkpoints (update_state through the proxy)…`);
    t0 = performance.now();
    const { threadId: bigThread, messages } = await seedCheckpoints(url, API_KEY, examples.id, CHECKPOINTS);
    console.log(`  ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // the thread opened from the address: its state first; once shown, a click on History → the first checkpoint row
    const threadSamples = await measure(browser, "studio thread", () =>
      loadOnce(
        browser!,
        `${url}/deployments/${examples.id}/studio/threads?assistant=${examples.chatAssistant}&thread=${bigThread}`,
        {
          marks: { state: ['ul[role="tree"][aria-label="Current state"] li'], history: ['ol[aria-label="Checkpoints"] li[data-checkpoint]'] },
          clickAfter: { after: "state", click: ['section.tt-detail [role="tab"]', "History"] },
          responses: { stateLoaded: "/agent/threads/[^/]+/state", historyLoaded: "/agent/threads/[^/]+/history" },
        },
        ["state", "history"],
      ),
    );
    results.studioThread = report(`Studio thread of ${int(CHECKPOINTS)} checkpoints, ${int(messages)} messages (/deployments/{id}/studio/threads?thread=…)`, threadSamples, [
      ["FCP", (s) => s.marks.fcp, ""],
      ["GET …/threads/{id}/state answered", (s) => s.marks.stateLoaded, "through the proxy (response end)"],
      ["  of which the request", (s) => s.marks.stateLoadedTook, "request sent → response end"],
      ["first render: current state", (s) => s.marks.state, "its tree, the messages with the message renderer"],
      ["POST …/threads/{id}/history answered", (s) => s.marks.historyLoaded, "first page, after the click on History"],
      ["  of which the request", (s) => s.marks.historyLoadedTook, "request sent → response end"],
      ["history: first checkpoint row", (s) => s.marks.history, "click on History sent when the state showed → the timeline's first row"],
    ]);
    const runUrl = `${url}/deployments/${examples.id}/studio/run?assistant=${examples.chatAssistant}`;
    process.stdout.write("  studio first token: warm-up");
    await firstTokenOnce(browser, runUrl, API_KEY, TIMEOUT);
    const tokens: FirstToken[] = [];
    for (let i = 0; i < RUNS; i++) {
      process.stdout.write(` ${i + 1}`);
      tokens.push(await firstTokenOnce(browser, runUrl, API_KEY, TIMEOUT));
    }
    process.stdout.write("\n");
    console.log("\n## Studio Run tab, chat example: first token after Send");
    const rows: [string, number[], string][] = [
      ["SSE event handed over by the SDK", tokens.map((t) => t.received), "Send → first messages-tuple event yielded in the page"],
      ["first token shown", tokens.map((t) => t.shown), "Send → the token's message rendered (next frame)"],
      ["console's added delay", tokens.map((t) => t.shown - t.received), "shown − handed over"],
    ];
    printTable(
      ["ms", "median", "p90", "min", "note"],
      rows.map(([name, xs, note]) => {
        const st = stats(xs);
        return [name, f(st?.median), f(st?.p90), f(st?.min), note];
      }),
    );
  }
  console.log(`\n(times are DOM times read in the page; p90 of ${RUNS} samples is close to their maximum; total ${((performance.now() - began) / 1000).toFixed(0)} s)`);
} finally {
  await browser?.close();
  await sql.end();
  await dev.stop();
  await db.drop();
}
process.exit(0);

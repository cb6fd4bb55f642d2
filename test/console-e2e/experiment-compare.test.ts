/**
 * The experiment compare view in a real headless Chromium against `berth dev` (auth required,
 * fresh console build), with what a LangSmith user makes: a dataset, two experiments by the SDK's
 * evaluate() (local targets that call a traced "LLM" with known usage, a custom exact-match
 * evaluator) and a pairwise comparison of them recorded through the SDK. From the dataset page, tick both and open
 * the comparison: per example, each experiment's answer and exact score, coloured against the
 * baseline; the trace totals (tokens); the aggregates; the pairwise preference counts; a run's
 * trace link (its feedback and the evaluator's comment shown there), and from that trace the link
 * back to the example in the compare view.
 *
 * A is wrong on peru (Cusco), B on japan (Edo). exact_match: A 1/1/0, B 1/0/1 (france, japan,
 * peru); with A as baseline, B is worse on japan and better on peru. The pairwise `preferred` key
 * prefers the right answer: france a tie, japan A, peru B.
 */
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { Client, type Run } from "langsmith";
import { evaluate } from "langsmith/evaluation";
import { traceable } from "langsmith/traceable";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { browserAvailability, buildConsole, launchBrowser, newContext, pageProblems, screenshot } from "../helpers/browser.js";
import { eventually } from "../helpers/server.js";
import { scratchDir } from "../runtime/local-repo.js";

const availability = browserAvailability();
const UI_TIMEOUT = 30_000;

const REFERENCE: Record<string, string> = { france: "Paris", japan: "Tokyo", peru: "Lima" };
const ANSWERS = {
  a: { france: "Paris", japan: "Tokyo", peru: "Cusco" } as Record<string, string>,
  b: { france: "Paris", japan: "Edo", peru: "Lima" } as Record<string, string>,
};
/** The traced LLM call's usage per experiment: the trace totals the view must show. */
const USAGE = { a: { input_tokens: 10, output_tokens: 5, total_tokens: 15 }, b: { input_tokens: 20, output_tokens: 10, total_tokens: 30 } };

async function visible(locator: Locator, timeout = UI_TIMEOUT): Promise<Locator> {
  await locator.first().waitFor({ state: "visible", timeout });
  return locator.first();
}

describe.skipIf(!availability.ok)("experiment compare view in Chromium", () => {
  let dir: string;
  let dev: ControlPlaneServerHandle;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let client: Client;
  let datasetId: string;
  const exp = { a: { id: "", name: "" }, b: { id: "", name: "" } };
  const exampleOf: Record<string, string> = {};
  const go = (path: string) => page.goto(`${dev.url}${path}`, { waitUntil: "domcontentloaded" });

  beforeAll(async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined); // evaluate() prints progress
    process.env.LANGSMITH_TRACING = "true";
    const consoleDir = await buildConsole();
    dir = scratchDir("compare-e2e");
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent", authMode: "required", consoleDir }, {}), silentLogger);
    const tracingUrl = `${dev.url}/tracing`;
    client = new Client({ apiUrl: tracingUrl, apiKey: dev.adminKey });

    const datasetName = "capitals-compare";
    datasetId = (await client.createDataset(datasetName)).id;
    await client.createExamples(Object.entries(REFERENCE).map(([country, capital]) => ({ dataset_id: datasetId, inputs: { country }, outputs: { capital } })));
    for await (const x of client.listExamples({ datasetId })) exampleOf[x.inputs.country as string] = x.id;

    const exact = ({ outputs, referenceOutputs }: { outputs?: Record<string, unknown>; referenceOutputs?: Record<string, unknown> }) => ({
      key: "exact_match",
      score: outputs?.capital === referenceOutputs?.capital ? 1 : 0,
      comment: `expected ${String(referenceOutputs?.capital)}`,
    });
    const run = async (which: "a" | "b") => {
      const llm = traceable(
        async (country: string) => ({ messages: [{ role: "assistant", content: ANSWERS[which][country]! }], usage_metadata: USAGE[which] }),
        { name: "fake_llm", run_type: "llm", metadata: { ls_provider: "openai", ls_model_name: "gpt-4o-mini" } },
      );
      const target = async (inputs: Record<string, unknown>) => {
        const answer = await llm(inputs.country as string);
        return { capital: answer.messages[0]!.content };
      };
      return evaluate(target, { data: datasetName, evaluators: [exact], client, experimentPrefix: `capitals-${which}`, maxConcurrency: 2 });
    };
    const a = await run("a");
    const b = await run("b");
    await client.awaitPendingTraceBatches();
    // the pairwise comparison, recorded as evaluateComparative records it (a comparative experiment,
    // then per example one verdict group of feedback on both runs); its own evaluator tracing
    // needs the process-wide default client, which this suite does not set up
    for (const [k, r] of [["a", a], ["b", b]] as const) {
      const p = await client.readProject({ projectName: r.experimentName });
      exp[k] = { id: p.id, name: p.name! };
    }
    const comparative = await client.createComparativeExperiment({ name: "capitals-pairwise", experimentIds: [exp.a.id, exp.b.id], referenceDatasetId: datasetId });
    const rootsOf = async (projectId: string) => {
      return eventually(async () => {
        const out: Run[] = [];
        for await (const r of client.listRuns({ projectId, isRoot: true })) out.push(r);
        return out.length === 3 && out.every((r) => r.outputs) && out;
      });
    };
    const [runsA, runsB] = await Promise.all([rootsOf(exp.a.id), rootsOf(exp.b.id)]);
    for (const country of Object.keys(REFERENCE)) {
      const group = randomUUID();
      for (const r of [runsA, runsB].map((rs) => rs.find((x) => x.reference_example_id === exampleOf[country])!)) {
        const right = (r.outputs as { capital?: string }).capital === REFERENCE[country];
        await client.createFeedback(r.id, "preferred", { score: right ? 1 : 0, sourceRunId: group, comparativeExperimentId: comparative.id, sessionId: r.session_id });
      }
    }
    // every score stored before the page reads them (ingest is asynchronous)
    await eventually(async () => {
      const res = await fetch(`${tracingUrl}/datasets/${datasetId}/experiments`, { headers: { "x-api-key": dev.adminKey } });
      const body = (await res.json()) as { experiments: { stats?: { feedback_stats?: Record<string, { n: number }> } }[] };
      return body.experiments.length === 2 && body.experiments.every((e) => e.stats?.feedback_stats?.exact_match?.n === 3 && e.stats.feedback_stats.preferred?.n === 3);
    });

    browser = await launchBrowser();
    page = await (await newContext(browser)).newPage();
    problems = pageProblems(page);
    // sign in with the admin key
    await go("/");
    await page.waitForURL(/\/sign-in$/, { timeout: UI_TIMEOUT });
    await page.getByLabel(/api key/i).fill(dev.adminKey);
    await page.getByRole("button", { name: /^sign in$/i }).click();
    await page.waitForURL(/\/deployments$/, { timeout: UI_TIMEOUT });
    problems.length = 0; // what happened before signing in (a visitor's 401s) is not this suite's concern
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("opens the comparison of two experiments from the dataset page, with exact scores per example against the baseline", async () => {
    await go(`/projects/datasets/${datasetId}`);
    await (await visible(page.getByRole("checkbox", { name: `Compare ${exp.a.name}` }))).check();
    await (await visible(page.getByRole("checkbox", { name: `Compare ${exp.b.name}` }))).check();
    await (await visible(page.getByRole("link", { name: "Compare 2 experiments" }))).click();
    await page.waitForURL(new RegExp(`/projects/datasets/${datasetId}/compare\\?experiments=${exp.a.id}%2C${exp.b.id}$`), { timeout: UI_TIMEOUT });

    const table = await visible(page.getByRole("table", { name: "Examples compared" }));
    const cell = (country: string, which: "a" | "b") => table.locator(`tr[data-example="${exampleOf[country]}"] td[data-experiment="${exp[which].id}"]`);
    // every answer, and its exact score
    for (const country of Object.keys(REFERENCE))
      for (const which of ["a", "b"] as const) {
        const c = cell(country, which);
        await visible(c.locator(".run-output"));
        expect(await c.locator(".run-output").textContent()).toBe(JSON.stringify({ capital: ANSWERS[which][country] }));
        const score = c.locator('li[data-key="exact_match"] .score');
        await expect.poll(() => score.textContent(), { timeout: UI_TIMEOUT }).toBe(ANSWERS[which][country] === REFERENCE[country] ? "1" : "0");
        // the trace's tokens (the LLM child's usage), not the root's own
        expect(await c.locator(".run-figures").textContent()).toContain(`${USAGE[which].total_tokens} tokens`);
      }
    // against A (the baseline): B same on france, worse on japan, better on peru; the baseline's own cells are not coloured
    const mark = (country: string, which: "a" | "b") => cell(country, which).locator('li[data-key="exact_match"]').getAttribute("data-diff");
    expect(await mark("france", "b")).toBe("same");
    expect(await mark("japan", "b")).toBe("worse");
    expect(await mark("peru", "b")).toBe("better");
    expect(await mark("peru", "a")).toBeNull();
    expect(await cell("japan", "b").locator('li[data-key="exact_match"] .delta').textContent()).toBe(" −1");
    // the inputs and reference outputs of each example
    const peruRow = table.locator(`tr[data-example="${exampleOf.peru}"]`);
    expect(await peruRow.locator(".example-cell").textContent()).toBe(`Inputs${JSON.stringify({ country: "peru" })}Reference${JSON.stringify({ capital: "Lima" })}`);
    await screenshot(page, "compare-01-examples");

    // aggregates: both 2 of 3 right; B one better, one worse on this page
    const agg = await visible(page.getByRole("table", { name: "Aggregate scores" }));
    const aggCell = (which: "a" | "b", key: string) => agg.locator(`tr[data-experiment="${exp[which].id}"] td[data-key="${key}"]`);
    expect(await aggCell("a", "exact_match").locator(".score").textContent()).toBe("0.6667");
    expect(await aggCell("b", "exact_match").locator(".score").textContent()).toBe("0.6667");
    expect(await aggCell("b", "exact_match").getAttribute("data-diff")).toBe("same");
    await visible(aggCell("b", "exact_match").getByLabel("exact_match: 1 better, 1 worse than the baseline"));

    // the pairwise comparison: france a tie, japan A, peru B
    const pairwise = await visible(page.getByRole("table", { name: "Pairwise comparisons" }));
    expect(await pairwise.locator('tr[data-key="preferred"] td').nth(2).textContent()).toBe(`${exp.a.name} 1 · ${exp.b.name} 1 · ties 1`);

    // B as the baseline turns the colours round
    await page.getByRole("radio", { name: `Baseline: ${exp.b.name}` }).click();
    await page.waitForURL(new RegExp(`baseline=${exp.b.id}`), { timeout: UI_TIMEOUT });
    await expect.poll(() => page.getByRole("radio", { name: `Baseline: ${exp.b.name}` }).isChecked(), { timeout: UI_TIMEOUT }).toBe(true);
    await expect.poll(() => mark("japan", "a"), { timeout: UI_TIMEOUT }).toBe("better");
    expect(await mark("peru", "a")).toBe("worse");
    expect(await mark("peru", "b")).toBeNull();
    await screenshot(page, "compare-02-baseline-b");
    expect(problems).toEqual([]);
  });

  it("links each run to its trace, and the trace back to its example in the compare view", async () => {
    await go(`/projects/datasets/${datasetId}/compare?experiments=${exp.a.id},${exp.b.id}`);
    const table = await visible(page.getByRole("table", { name: "Examples compared" }));
    const peruB = table.locator(`tr[data-example="${exampleOf.peru}"] td[data-experiment="${exp.b.id}"]`);
    await (await visible(peruB.getByRole("link", { name: "Trace" }))).click();
    await page.waitForURL(/\/traces\/[0-9a-f-]+\?run=/, { timeout: UI_TIMEOUT });
    // the run's feedback is in the trace view
    const feedback = await visible(page.getByRole("region", { name: "Feedback" }));
    expect(await feedback.locator("tr", { hasText: "exact_match" }).locator("td").first().textContent()).toBe("1");
    // and why: the evaluator's comment
    const comments = await visible(page.getByRole("list", { name: "Feedback comments" }));
    expect(await comments.locator("li").allTextContents()).toEqual(["exact_match: expected Lima"]);

    const back = await visible(page.getByRole("note", { name: "Experiment" }).getByRole("link", { name: "this example in the compare view" }));
    await back.click();
    await page.waitForURL(new RegExp(`/compare\\?experiments=${exp.b.id}&example=${exampleOf.peru}$`), { timeout: UI_TIMEOUT });
    const one = await visible(page.getByRole("table", { name: "Examples compared" }));
    await visible(one.locator(`tr[data-example="${exampleOf.peru}"] .run-output`));
    expect(await one.locator("tbody tr").count()).toBe(1);
    expect(await one.locator(".run-output").textContent()).toBe(JSON.stringify({ capital: "Lima" }));
    await screenshot(page, "compare-03-one-example");
    expect(problems).toEqual([]);
  });
});

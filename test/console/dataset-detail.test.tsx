// @vitest-environment happy-dom
/**
 * The dataset page against a scripted tracing API: experiments with one column per feedback key
 * (mean score and count), each linking to its traces; examples with inputs, reference outputs and
 * splits.
 */
import { cleanup, render, screen, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterEach, expect, it, vi } from "vitest";
import { fmtScore, scoreKeys } from "../../src/console/datasets/scores";

const api = vi.hoisted(() => {
  const state = { handler: undefined as undefined | ((req: Request) => Promise<Response>) };
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    if (!state.handler) throw new Error("no API handler");
    return state.handler(req);
  }) as typeof fetch;
  return state;
});

const { default: DatasetDetail } = await import("../../src/console/pages/DatasetDetail");
afterEach(cleanup);

const DS = "d0000000-0000-4000-8000-000000000001";
const EXP = "e0000000-0000-4000-8000-000000000001";
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });

it("shows experiments with aggregate scores linking to their traces, and the examples", async () => {
  api.handler = async (req) => {
    const url = new URL(req.url, "http://localhost");
    if (url.pathname === `/tracing/datasets/${DS}`) return json({ id: DS, name: "capitals", description: "world capitals", example_count: 2, modified_at: "2026-01-02T03:04:05.000Z" });
    if (url.pathname === `/tracing/datasets/${DS}/experiments`)
      return json({
        dataset_id: DS,
        offset: 0,
        experiments: [
          {
            id: EXP,
            name: "capitals-1a2b",
            created_at: "2026-01-02T03:05:00.000Z",
            reference_dataset_id: DS,
            stats: { trace_count: 3, error_rate: 0, feedback_stats: { exact_match: { n: 3, avg: 2 / 3, values: {} }, verdict: { n: 2, avg: null, values: { good: 2 } } } },
          },
        ],
      });
    if (url.pathname === "/tracing/examples" && url.searchParams.get("dataset") === DS)
      return json([{ id: "x1", dataset_id: DS, inputs: { country: "peru" }, outputs: { capital: "Lima" }, metadata: { dataset_split: ["test", "hard"] }, modified_at: "2026-01-02T03:04:05.000Z" }]);
    return new Response(JSON.stringify({ detail: "no route" }), { status: 404 });
  };
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[`/projects/datasets/${DS}`]}>
        <Routes>
          <Route path="/projects/datasets/:datasetId" element={<DatasetDetail />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Dataset capitals");
  const exps = await screen.findByRole("table", { name: "Experiments" });
  expect(within(exps).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Compare", "Experiment", "Started", "Traces", "Error rate", "exact_match", "verdict"]);
  expect(within(exps).getByRole("link", { name: "capitals-1a2b" }).getAttribute("href")).toBe(`/projects/${EXP}`);
  expect(within(exps).getByText("0.67 (3)")).toBeTruthy();
  expect(within(exps).getByText("good×2")).toBeTruthy();
  const examples = await screen.findByRole("table", { name: "Examples" });
  expect(within(examples).getByText('{"country":"peru"}')).toBeTruthy();
  expect(within(examples).getByText('{"capital":"Lima"}')).toBeTruthy();
  expect(within(examples).getByText("test, hard")).toBeTruthy();
});

it("score cells: mean and count, values when there is no score, a dash when the key is missing", () => {
  expect(scoreKeys([{ b: { n: 1, avg: 1, values: {} } }, undefined, { a: { n: 1, avg: 0, values: {} } }])).toEqual(["a", "b"]);
  expect(fmtScore({ n: 4, avg: 0.125, values: {} })).toBe("0.13 (4)");
  expect(fmtScore({ n: 1, avg: 0, values: {} })).toBe("0 (1)");
  expect(fmtScore(undefined)).toBe("–");
});

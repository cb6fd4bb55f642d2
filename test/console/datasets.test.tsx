// @vitest-environment happy-dom
/**
 * The datasets pages against a real tracing server (in-process, PGlite) holding what the SDK's
 * evaluate() and evaluateComparative made (test/helpers/comparative.ts): the datasets list (name,
 * examples, experiments, last change; search by name; each opening its dataset), and a dataset's
 * comparative experiments (the experiments compared, linking to their traces, and how often each was
 * preferred per key).
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { Client } from "langsmith";
import { MemoryRouter, Route, Routes } from "react-router";
import { afterAll, afterEach, beforeAll, expect, it, vi } from "vitest";
import { makeComparativeFixture, type ComparativeFixture } from "../helpers/comparative";
import { startTracingTestServer, type TracingTestServer } from "../helpers/tracing";

const api = vi.hoisted(() => {
  // the SDK and the console reach the server from the page's origin: no CORS on the tracing API
  (window as unknown as { happyDOM: { settings: { fetch: { disableSameOriginPolicy: boolean } } } }).happyDOM.settings.fetch.disableSameOriginPolicy = true;
  const state = { base: "" };
  const real = globalThis.fetch;
  // openapi-fetch takes globalThis.fetch when the console's client is created (on import): the
  // console asks for /tracing/… at its own origin; this sends those to the test server
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(req.url, window.location.href);
    if (url.origin !== window.location.origin || !url.pathname.startsWith("/tracing/")) return real(input, init);
    return real(new Request(`${state.base}${url.pathname.slice("/tracing".length)}${url.search}`, req));
  }) as typeof fetch;
  return state;
});

const { default: Datasets } = await import("../../src/console/pages/Datasets");
const { default: DatasetDetail } = await import("../../src/console/pages/DatasetDetail");
const { fmtTime } = await import("../../src/console/format");

let server: TracingTestServer;
let client: Client;
let fx: ComparativeFixture;
let emptyId: string;

beforeAll(async () => {
  vi.spyOn(console, "log").mockImplementation(() => undefined); // evaluate() prints progress
  process.env.LANGSMITH_TRACING = "true";
  server = await startTracingTestServer("pglite");
  api.base = server.url;
  client = server.client();
  fx = await makeComparativeFixture(server, "capitals");
  emptyId = (await client.createDataset("other-things", { description: "nothing yet" })).id;
}, 300_000);

afterAll(() => server?.close());
afterEach(cleanup);

function renderAt(path: string) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/projects/datasets" element={<Datasets />} />
          <Route path="/projects/datasets/:datasetId" element={<DatasetDetail />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const rowsOf = (table: HTMLElement) => within(table).getAllByRole("row").slice(1).map((r) => within(r).getAllByRole("cell").map((c) => c.textContent));

it("lists the tenant's datasets with examples, experiments and last change; searches by name; opens one", async () => {
  const main = await client.readDataset({ datasetId: fx.datasetId });
  const other = await client.readDataset({ datasetId: emptyId });
  renderAt("/projects/datasets");
  const table = await screen.findByRole("table", { name: "Datasets" });
  expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Name", "Examples", "Experiments", "Last modified"]);
  // newest first
  expect(rowsOf(table)).toEqual([
    ["other-thingsnothing yet", "0", "0", fmtTime(other.modified_at)],
    [fx.datasetName, "3", "2", fmtTime(main.modified_at)],
  ]);
  expect(within(table).getByRole("link", { name: fx.datasetName }).getAttribute("href")).toBe(`/projects/datasets/${fx.datasetId}`);

  // the search form is remade for each search (it starts from the URL's name): find it each time
  const searchFor = (text: string) => {
    const search = screen.getByRole("search", { name: "Search datasets" });
    fireEvent.change(within(search).getByLabelText("Name contains"), { target: { value: text } });
    fireEvent.click(within(search).getByRole("button", { name: "Search" }));
  };
  searchFor("CAPITALS");
  await waitFor(() => expect(rowsOf(screen.getByRole("table", { name: "Datasets" })).map((r) => r[0])).toEqual([fx.datasetName]));
  searchFor("no such dataset");
  expect(await screen.findByText("No dataset matches.")).toBeTruthy();

  searchFor("capitals");
  fireEvent.click(await screen.findByRole("link", { name: fx.datasetName }));
  expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe(`Dataset ${fx.datasetName}`);
}, 120_000);

it("shows a dataset's comparative experiments: the experiments compared and the preference counts per key", async () => {
  renderAt(`/projects/datasets/${fx.datasetId}`);
  const table = await screen.findByRole("table", { name: "Comparative experiments" }, { timeout: 30_000 });
  expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Comparison", "Created", "Experiments compared", "brevity", "correct"]);
  const [a, b] = [fx.experimentA.name, fx.experimentB.name];
  expect(rowsOf(table)).toEqual([
    [`${fx.comparative.name}A against B`, fmtTime(fx.comparative.created_at), `${a} vs ${b}`, `${a} 1 · ${b} 1 · ties 1`, `${a} 2 · ${b} 0 · ties 1`],
  ]);
  expect(within(table).getByRole("link", { name: a }).getAttribute("href")).toBe(`/projects/${fx.experimentA.id}`);
  expect(within(table).getByRole("link", { name: b }).getAttribute("href")).toBe(`/projects/${fx.experimentB.id}`);
  // the experiments themselves are listed as before, pairwise feedback among their scores
  const exps = await screen.findByRole("table", { name: "Experiments" });
  expect(within(exps).getAllByRole("row")).toHaveLength(3);
}, 120_000);

it("says nothing about comparisons on a dataset without any", async () => {
  renderAt(`/projects/datasets/${emptyId}`);
  expect((await screen.findByRole("heading", { level: 1 })).textContent).toBe("Dataset other-things");
  await screen.findByText("No experiments yet: run evaluate() on this dataset.");
  expect(screen.queryByRole("table", { name: "Comparative experiments" })).toBeNull();
}, 60_000);

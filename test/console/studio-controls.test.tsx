// @vitest-environment happy-dom
/**
 * Studio controls against a real `berth serve` (a child process, reached by the real
 * @langchain/langgraph-sdk Client cross-origin, as the console reaches a deployment), each checked
 * by what the server did: the graph's xray toggle asks for and draws the subgraph's nodes; "Set as
 * latest" makes an older version the assistant's current one; a non-chat graph's form from its
 * input schema runs with the values typed, a number kept a number; and a run cancelled (interrupt)
 * ends `interrupted`, shown so, with the thread keeping what the run wrote before the cancel.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { GraphPanel } from "../../src/console/studio/GraphView";
import { RunTab } from "../../src/console/studio/RunTab";
import { Studio } from "../../src/console/studio/Studio";
import { gateGraphSource, startGate, type Gate } from "../console-e2e/gate";
import { createTestDatabase, ROOT, startChild, type ChildServer, type TestDatabase } from "../helpers/server";

let db: TestDatabase;
let server: ChildServer;
let client: Client;
let gate: Gate;
/** The suite's graphs: two fixtures and the e2e's `gate` (its source has the gate's URL in it). */
const configDir = path.join(ROOT, "test/fixtures", `.studio-controls-${process.pid}`);
/** Every URL the page's client asked for (the SDK's request hook). */
const requested: URL[] = [];

beforeAll(async () => {
  gate = await startGate();
  // inside the repo: the graphs' imports resolve from its node_modules
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, "gate.ts"), gateGraphSource(gate.url));
  writeFileSync(
    path.join(configDir, "langgraph.json"),
    JSON.stringify({ graphs: { nested: "../graphs.ts:nested", form: "../graphs.ts:form", counter: "../graphs.ts:counter", gate: "./gate.ts:graph" } }),
  );
  db = await createTestDatabase("pglite");
  server = await startChild("serve", db, { CORS_ALLOW_ORIGINS: "*" }, path.join(configDir, "langgraph.json"));
  client = new Client({
    apiUrl: server.url!,
    callerOptions: { maxRetries: 0 },
    onRequest: (url, init) => (requested.push(new URL(url)), init),
  });
});

afterAll(async () => {
  await server?.stop();
  await db?.drop();
  await gate?.close();
  rmSync(configDir, { recursive: true, force: true });
});

afterEach(() => cleanup());

const withQueries = (ui: ReactNode) => render(<QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>{ui}</QueryClientProvider>);
const assistantOf = async (graphId: string) => (await client.assistants.search({ graphId }))[0]!;
/** The drawn graph's node ids, sorted. */
const drawnNodes = () => [...screen.getByRole("img", { name: "Graph drawing" }).querySelectorAll("[data-node]")].map((n) => n.getAttribute("data-node")!).sort();

describe("the graph's xray toggle", () => {
  it("asks for the graph with xray and draws the subgraph's nodes; off, the subgraph is one node again", async () => {
    const nested = await assistantOf("nested");
    const graphRequests = () => requested.filter((u) => u.pathname === `/assistants/${nested.assistant_id}/graph`).map((u) => u.searchParams.get("xray"));
    withQueries(<GraphPanel client={client} assistantId={nested.assistant_id} />);
    await waitFor(() => expect(drawnNodes()).toEqual(["__end__", "__start__", "inner_graph"]), { timeout: 30_000 });
    expect(graphRequests()).toEqual(["false"]);

    const toggle = screen.getByRole("checkbox", { name: /Show subgraphs \(xray\)/ });
    fireEvent.click(toggle);
    // the subgraph's two nodes instead of the one that stood for it
    await waitFor(() => expect(drawnNodes().filter((n) => /first|second/.test(n))).toHaveLength(2), { timeout: 30_000 });
    expect(drawnNodes()).not.toContain("inner_graph");
    expect(graphRequests()).toEqual(["false", "true"]);
    // drawn as a cluster named after the subgraph's node
    expect(screen.getByRole("img", { name: "Graph drawing" }).querySelector("[data-cluster]")?.getAttribute("data-cluster")).toBe("inner_graph");

    fireEvent.click(toggle);
    await waitFor(() => expect(drawnNodes()).toEqual(["__end__", "__start__", "inner_graph"]));
    expect(screen.getByRole("img", { name: "Graph drawing" }).querySelector("[data-cluster]")).toBeNull();
  });
});

describe("assistant versions", () => {
  it("'Set as latest' makes the chosen older version the assistant's current one", async () => {
    const created = await client.assistants.create({ graphId: "counter", name: "versioned", config: { configurable: { mark: "one" } } });
    await client.assistants.update(created.assistant_id, { config: { configurable: { mark: "two" } } });
    expect((await client.assistants.get(created.assistant_id)).version).toBe(2);
    withQueries(<Studio client={client} tab="assistants" assistantId={created.assistant_id} onNavigate={() => {}} />);
    const versions = await screen.findByRole("table", { name: "Versions" }, { timeout: 30_000 });
    const rowOf = (v: number) => within(versions).getAllByRole("row").find((r) => r.querySelector("td")?.textContent === String(v))!;
    await waitFor(() => expect(rowOf(1)).toBeTruthy());
    expect(within(rowOf(2)).getByText("latest")).toBeTruthy();

    fireEvent.click(within(rowOf(1)).getByRole("button", { name: "Set as latest" }));
    // on the server: version 1 is the assistant now, its config with it
    await waitFor(async () => expect((await client.assistants.get(created.assistant_id)).version).toBe(1), { timeout: 30_000 });
    expect((await client.assistants.get(created.assistant_id)).config.configurable).toMatchObject({ mark: "one" });
    // and the page says so
    await waitFor(() => expect(within(rowOf(1)).queryByText("latest")).toBeTruthy(), { timeout: 30_000 });
    expect(within(rowOf(2)).getByRole("button", { name: "Set as latest" })).toBeTruthy();
    expect(screen.getByRole("heading", { level: 3 }).textContent).toContain("version 1");
  });
});

describe("a graph whose input is not messages", () => {
  it("runs with the form generated from its input schema: the stored input is what was typed, the number a number", async () => {
    const form = await assistantOf("form");
    // the field types are read from the graph's TypeScript types, in the background after start:
    // until then the schema has the fields untyped (edited as JSON)
    type Props = Record<string, { type?: string }>;
    await waitFor(async () => expect(((await client.assistants.getSchemas(form.assistant_id)).input_schema as { properties?: Props } | null)?.properties?.copies?.type).toBe("number"), { timeout: 60_000, interval: 200 });
    withQueries(<RunTab client={client} assistant={form} />);
    const input = await screen.findByRole("group", { name: "Input" }, { timeout: 30_000 });
    expect(screen.queryByRole("textbox", { name: "Message" })).toBeNull();
    fireEvent.change(within(input).getByRole("textbox", { name: /^title/ }), { target: { value: "minutes" } });
    fireEvent.change(within(input).getByRole("spinbutton", { name: /^copies/ }), { target: { value: "3" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));

    const runs = screen.getByRole("table", { name: "Runs" });
    await waitFor(() => expect(runs.querySelector("tr")?.getAttribute("data-status")).toBe("success"), { timeout: 30_000 });
    const threadId = screen.getByText(/^[0-9a-f-]{36}$/).textContent!;
    const [run] = await client.runs.list(threadId);
    // the run's input as the server stored it
    expect((run as unknown as { kwargs: { input: unknown } }).kwargs.input).toEqual({ title: "minutes", copies: 3 });
    // and as the graph saw it
    const state = await client.threads.getState<{ title: string; copies: number; seen: string }>(threadId);
    expect(state.values).toEqual({ title: "minutes", copies: 3, seen: "string:minutes number:3" });
  });
});

describe("cancelling a run (interrupt)", () => {
  it("leaves the run interrupted, shown so, and the thread with what the run wrote before the cancel", async () => {
    const gated = await assistantOf("gate");
    withQueries(<RunTab client={client} assistant={gated} />);
    const message = await screen.findByRole("textbox", { name: "Message" }, { timeout: 30_000 });
    fireEvent.change(message, { target: { value: "hold" } });
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    // the run is inside the gate node, its `note` written: held there until cancelled
    await gate.arrived("hold");
    const runs = screen.getByRole("table", { name: "Runs" });
    await waitFor(() => expect(runs.querySelector("tr")?.getAttribute("data-status")).toBe("running"), { timeout: 30_000 });
    const threadId = screen.getByText(/^[0-9a-f-]{36}$/).textContent!;

    fireEvent.click(screen.getByRole("button", { name: "Cancel" }));
    await screen.findByRole("button", { name: "Send" }, { timeout: 30_000 });
    expect(runs.querySelector("tr")?.getAttribute("data-status")).toBe("interrupted");
    expect(within(runs).getByText("interrupted")).toBeTruthy();

    // on the server: the run interrupted, the thread kept the turn up to the gate
    const [run] = await client.runs.list(threadId);
    expect(run!.status).toBe("interrupted");
    expect(run!.run_id.startsWith(runs.querySelector("tr code")!.textContent!)).toBe(true);
    const state = await client.threads.getState<{ messages: { type: string; content: string }[] }>(threadId);
    expect(state.values.messages.map((m) => `${m.type}: ${m.content}`)).toEqual(["human: hold", "ai: started: hold"]);
    expect(screen.queryByRole("alert")).toBeNull();
  });
});

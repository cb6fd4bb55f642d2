// @vitest-environment happy-dom
/**
 * The trace view against a scripted tracing API (fetch is replaced before the API client is
 * created): totals and the run tree, the first LLM call chosen by default and rendered as
 * messages, `?run=` choosing a run, arrow keys moving the selection, folding a subtree, payloads of
 * other runs as text (markup in them stays text), and a 2,500-run trace rendering only a window
 * of rows.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";

const api = vi.hoisted(() => {
  const state = { handler: undefined as undefined | ((url: URL) => { status: number; body?: unknown } | undefined), calls: [] as string[] };
  // openapi-fetch takes globalThis.fetch when the client is created (on import): replace it first
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(req.url, "http://localhost");
    state.calls.push(url.pathname + url.search);
    const r = state.handler?.(url) ?? { status: 404, body: { detail: `no route ${url.pathname}` } };
    return new Response(JSON.stringify(r.body), { status: r.status, headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return state;
});

const { default: TraceView } = await import("../../src/console/pages/TraceView");

const T0 = Date.parse("2026-01-01T12:00:00.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const TRACE = "00000000-0000-4000-8000-000000000001";
const PROJECT = "00000000-0000-4000-8000-0000000000aa";
const INJECTION = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>`;

let seq = 0;
function run(name: string, run_type: string, start: number, end: number | null, children: any[] = [], extra: Record<string, unknown> = {}): any {
  const id = `00000000-0000-4000-8000-${String(++seq).padStart(12, "0")}`;
  const node: any = {
    id,
    trace_id: TRACE,
    parent_run_id: null,
    dotted_order: null,
    project_id: PROJECT,
    session_id: PROJECT,
    name,
    run_type,
    status: end === null ? "pending" : "success",
    start_time: iso(start),
    end_time: end === null ? null : iso(end),
    latency_ms: end === null ? null : end - start,
    error: null,
    tags: [],
    metadata: {},
    thread_id: null,
    model: null,
    provider: null,
    usage: null,
    cost: null,
    cost_reason: null,
    first_token_time: null,
    ttft_ms: null,
    prompt_tokens: null,
    completion_tokens: null,
    total_tokens: null,
    prompt_cost: null,
    completion_cost: null,
    total_cost: null,
    problems: [],
    ...extra,
    children,
  };
  for (const c of children) c.parent_run_id = id;
  return node;
}

function detailOf(node: any): any {
  const { children: _children, ...rest } = node;
  return {
    ...rest,
    inputs: node.run_type === "llm" ? { messages: [{ role: "user", content: "hello" }] } : { question: INJECTION },
    outputs: { answer: `answer of ${node.name}` },
    extra: {},
    events: [],
    serialized: null,
    reference_example_id: null,
    attachments: [],
    messages:
      node.run_type === "llm"
        ? { rendered: true, format: "openai", messages: [{ role: "user", content: [{ type: "text", text: `question asked by ${node.name}` }] }], warnings: [] }
        : null,
  };
}

/** Serve a trace tree and the details of its runs. */
function serveTrace(roots: any[], totals: any = null) {
  const byId = new Map<string, any>();
  const walk = (n: any) => {
    byId.set(n.id, n);
    n.children.forEach(walk);
  };
  roots.forEach(walk);
  api.calls.length = 0;
  api.handler = (url) => {
    if (url.pathname === `/tracing/traces/${TRACE}`) return { status: 200, body: { trace_id: TRACE, project_id: PROJECT, root_run_id: roots[0].id, totals, runs: roots } };
    if (url.pathname === `/tracing/projects/${PROJECT}`) return { status: 200, body: { id: PROJECT, tenant_id: PROJECT, name: "my-project", description: null, metadata: {}, created_at: iso(0) } };
    const m = url.pathname.match(/^\/tracing\/runs\/(.+)$/);
    if (m && byId.has(m[1]!)) return { status: 200, body: detailOf(byId.get(m[1]!)) };
    return undefined;
  };
  return byId;
}

let location = "";
function LocationProbe() {
  const l = useLocation();
  location = l.pathname + l.search;
  return null;
}

function renderAt(path: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="/traces/:traceId"
            element={
              <>
                <TraceView />
                <LocationProbe />
              </>
            }
          />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const tree = () => screen.findByRole("tree", { name: /runs of this trace/i });
const items = () => screen.getAllByRole("treeitem");
const selectedName = () => screen.queryAllByRole("treeitem").find((el) => el.getAttribute("aria-selected") === "true")?.querySelector(".label")?.textContent;
const detail = () => screen.getByRole("region", { name: /selected run/i });

// happy-dom lays nothing out: give the tree's scroll box the size of a screenful and the height of
// its content, as a browser would
const treeBox: Record<string, (el: HTMLElement) => number> = {
  clientHeight: () => 720,
  clientWidth: () => 800,
  scrollHeight: (el) => parseFloat((el.firstElementChild as HTMLElement | null)?.style.height ?? "0") || 0,
};
const originals = new Map<string, PropertyDescriptor | undefined>();
beforeAll(() => {
  for (const [prop, size] of Object.entries(treeBox)) {
    const original = Object.getOwnPropertyDescriptor(HTMLElement.prototype, prop) ?? Object.getOwnPropertyDescriptor(Element.prototype, prop);
    originals.set(prop, original);
    Object.defineProperty(HTMLElement.prototype, prop, {
      configurable: true,
      get(this: HTMLElement) {
        return this.getAttribute("role") === "tree" ? size(this) : (original?.get?.call(this) ?? 0);
      },
    });
  }
});
afterAll(() => {
  for (const prop of Object.keys(treeBox)) {
    const original = originals.get(prop);
    if (original) Object.defineProperty(HTMLElement.prototype, prop, original);
    else delete (HTMLElement.prototype as unknown as Record<string, unknown>)[prop];
  }
});

afterEach(() => {
  cleanup();
  seq = 0;
});

//  agent (chain, 0–2000 ms)
//  ├─ retrieve (retriever, 10–300)
//  │  └─ parse (parser, 20–40)
//  ├─ ChatModel (llm, 300–1500)
//  └─ lookup (tool, 1500–1900)
function smallTrace() {
  const parse = run("parse", "parser", 20, 40);
  const retrieve = run("retrieve", "retriever", 10, 300, [parse]);
  const llm = run("ChatModel", "llm", 300, 1500, [], { model: "gpt-4o", total_tokens: 1500, total_cost: 0.0123, usage: { input_tokens: 1000, output_tokens: 500, total_tokens: 1500, input_token_details: {}, output_token_details: {}, estimated: false } });
  const tool = run("lookup", "tool", 1500, 1900);
  const root = run("agent", "chain", 0, 2000, [retrieve, llm, tool]);
  return { root, retrieve, parse, llm, tool };
}

describe("trace view", () => {
  it("shows the totals and the run tree, and opens the first LLM call as messages", async () => {
    const t = smallTrace();
    serveTrace([t.root], { run_count: 5, llm_count: 1, input_tokens: 1000, output_tokens: 500, total_tokens: 1500, total_cost: 0.0123, first_token_time: iso(700), ttft_ms: 700, models: ["gpt-4o"] });
    renderAt(`/traces/${TRACE}`);
    await tree();
    expect(screen.getByRole("heading", { level: 1, name: "agent" })).toBeTruthy();
    const totals = screen.getByRole("group", { name: /trace totals/i });
    expect(totals.textContent).toContain("1,500");
    expect(totals.textContent).toContain("$0.0123");
    expect(totals.textContent).toContain("700 ms");
    expect(totals.textContent).toContain("gpt-4o");
    expect(items().map((el) => el.querySelector(".label")!.textContent)).toEqual(["agent", "retrieve", "parse", "ChatModel", "lookup"]);
    expect(items().map((el) => el.getAttribute("aria-level"))).toEqual(["1", "2", "3", "2", "2"]);
    expect(selectedName()).toBe("ChatModel");
    await within(detail()).findByText("question asked by ChatModel");
    // the bar of the LLM call: from 300 ms to 1500 ms of a 2000 ms trace
    const bar = items()[3]!.querySelector<HTMLElement>(".wf-bar")!;
    expect(bar.style.left).toBe("15%");
    expect(bar.style.width).toBe("60%");
  });

  it("opens the run named by ?run= and shows another run's payloads as text", async () => {
    const t = smallTrace();
    serveTrace([t.root]);
    renderAt(`/traces/${TRACE}?run=${t.tool.id}`);
    await tree();
    expect(selectedName()).toBe("lookup");
    const inputs = await within(detail()).findByLabelText("Inputs");
    expect(inputs.tagName).toBe("PRE");
    expect(inputs.textContent).toContain(INJECTION.replace(/"/g, '\\"'));
    expect(detail().querySelector("img, script")).toBeNull();
    expect(within(detail()).getByLabelText("Outputs").textContent).toContain("answer of lookup");
    // not called with messages: no messages section
    expect(within(detail()).queryByRole("region", { name: /messages of this turn/i })).toBeNull();
  });

  it("shows the messages of a graph turn above its payloads", async () => {
    const t = smallTrace();
    serveTrace([t.root]);
    const served = api.handler!;
    const turn = [
      { role: "user", content: [{ type: "text", text: "turn question" }] },
      { role: "assistant", content: [{ type: "text", text: "turn answer" }] },
    ];
    api.handler = (url) =>
      url.pathname === `/tracing/runs/${t.root.id}` ? { status: 200, body: { ...detailOf(t.root), messages: { rendered: true, format: "langchain", messages: turn, warnings: [] } } } : served(url);
    renderAt(`/traces/${TRACE}?run=${t.root.id}`);
    await tree();
    const section = await within(detail()).findByRole("region", { name: /messages of this turn/i });
    expect(section.textContent).toContain("turn question");
    expect(section.textContent).toContain("turn answer");
    // the raw payloads stay, as text
    expect(within(detail()).getByLabelText("Inputs").tagName).toBe("PRE");
  });

  it("leads from a deployment's graph run back to its thread in that deployment's Studio", async () => {
    const THREAD = "00000000-0000-4000-8000-0000000000cc";
    const ASSISTANT = "00000000-0000-4000-8000-0000000000dd";
    const DEPLOYMENT = "00000000-0000-4000-8000-0000000000ee";
    // the agent server's metadata of a run; the deployment traces into the project named after it
    const root = run("agent", "chain", 0, 100, [], { metadata: { thread_id: THREAD, assistant_id: ASSISTANT, run_id: "r", graph_id: "chat" } });
    serveTrace([root]);
    const served = api.handler!;
    api.handler = (url) =>
      url.pathname === "/v2/deployments"
        ? { status: 200, body: { resources: [{ id: "00000000-0000-4000-8000-0000000000ef", name: "my-project-2" }, { id: DEPLOYMENT, name: "my-project" }], offset: 0 } }
        : served(url);
    renderAt(`/traces/${TRACE}`);
    const link = await screen.findByRole("link", { name: "Open thread in Studio" });
    expect(link.getAttribute("href")).toBe(`/deployments/${DEPLOYMENT}/studio/threads?assistant=${ASSISTANT}&thread=${THREAD}`);
    expect(api.calls.some((c) => c.startsWith("/v2/deployments?") && c.includes("name_contains=my-project"))).toBe(true);
    cleanup();

    // a trace that is not a thread's run: no link, and no deployments asked for
    serveTrace([run("plain", "chain", 0, 100)]);
    renderAt(`/traces/${TRACE}`);
    await tree();
    expect(screen.queryByRole("link", { name: "Open thread in Studio" })).toBeNull();
    expect(api.calls.some((c) => c.startsWith("/v2/deployments"))).toBe(false);
  });

  it("moves the selection with the arrow keys and keeps it in the URL", async () => {
    const t = smallTrace();
    serveTrace([t.root]);
    renderAt(`/traces/${TRACE}`);
    const el = await tree();
    fireEvent.keyDown(el, { key: "ArrowDown" });
    await waitFor(() => expect(selectedName()).toBe("lookup"));
    expect(location).toBe(`/traces/${TRACE}?run=${t.tool.id}`);
    fireEvent.keyDown(el, { key: "Home" });
    await waitFor(() => expect(selectedName()).toBe("agent"));
    // the detail follows once the selection settles
    await waitFor(() => expect(within(detail()).getByLabelText("Outputs").textContent).toContain("answer of agent"));
    // a run the selection only passed through was never fetched
    expect(api.calls.filter((c) => c.startsWith("/tracing/runs/"))).toEqual([`/tracing/runs/${t.llm.id}`, `/tracing/runs/${t.root.id}`]);
  });

  it("folds and unfolds a subtree, with the toggle and with the left/right keys", async () => {
    const t = smallTrace();
    serveTrace([t.root]);
    renderAt(`/traces/${TRACE}?run=${t.retrieve.id}`);
    const el = await tree();
    fireEvent.click(screen.getByRole("button", { name: "Collapse retrieve" }));
    expect(items().map((i) => i.querySelector(".label")!.textContent)).toEqual(["agent", "retrieve", "ChatModel", "lookup"]);
    expect(items()[1]!.getAttribute("aria-expanded")).toBe("false");
    fireEvent.keyDown(el, { key: "ArrowRight" });
    expect(items()).toHaveLength(5);
    fireEvent.keyDown(el, { key: "ArrowLeft" });
    expect(items()).toHaveLength(4);
    // collapsing a parent of the selected run moves the selection up to it
    fireEvent.click(screen.getByRole("button", { name: "Expand retrieve" }));
    fireEvent.keyDown(el, { key: "ArrowDown" });
    await waitFor(() => expect(selectedName()).toBe("parse"));
    fireEvent.click(screen.getByRole("button", { name: "Collapse agent" }));
    expect(items()).toHaveLength(1);
    await waitFor(() => expect(selectedName()).toBe("agent"));
  });

  it("renders a window of a 2,500-run trace, not every row, and reaches the last run with End", async () => {
    const leaves = Array.from({ length: 2_499 }, (_, i) => run(`step_${i}`, i % 10 === 0 ? "llm" : "tool", i * 10, i * 10 + 8));
    const root = run("huge", "chain", 0, 25_000, leaves);
    serveTrace([root]);
    renderAt(`/traces/${TRACE}`);
    const el = await tree();
    expect(screen.getByText(/2500 runs/)).toBeTruthy();
    const shown = items().length;
    expect(shown).toBeGreaterThan(10);
    expect(shown).toBeLessThan(100);
    // no layout here: do what a browser's scrollTo does (move, then tell the listeners)
    const scrolls: number[] = [];
    el.scrollTo = ((opts: ScrollToOptions) => {
      scrolls.push(opts.top ?? 0);
      Object.defineProperty(el, "scrollTop", { configurable: true, value: opts.top ?? 0 });
      setTimeout(() => el.dispatchEvent(new Event("scroll")), 0); // browsers fire scroll events later
    }) as typeof el.scrollTo;
    await act(async () => {
      fireEvent.keyDown(el, { key: "End" });
    });
    // the last run is selected and scrolled to (28 px rows: far below the first screenful)
    const last = leaves[leaves.length - 1];
    await waitFor(() => expect(location).toBe(`/traces/${TRACE}?run=${last.id}`));
    await waitFor(() => expect(Math.max(...scrolls)).toBeGreaterThan(2_400 * 28));
    await waitFor(() => expect(selectedName()).toBe("step_2498"));
    expect(items().length).toBeLessThan(100);
  });
});

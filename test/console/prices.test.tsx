// @vitest-environment happy-dom
/**
 * The model price page against a scripted tracing API: tenant entries before the defaults,
 * "Override" pre-fills the add form, the API's 422 shows next to the form, an inline edit PATCHes
 * only what changed, and a delete needs a confirmation.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { vi } from "vitest";

const api = vi.hoisted(() => {
  const state = { handler: undefined as undefined | ((req: Request) => Promise<Response>) };
  // openapi-fetch takes globalThis.fetch when the client is created (on import): replace it first
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    if (!state.handler) throw new Error("no API handler");
    return state.handler(req);
  }) as typeof fetch;
  return state;
});

const { default: Prices } = await import("../../src/console/pages/Prices");

afterEach(cleanup);

const TENANT = {
  id: "p0000000-0000-4000-8000-000000000001",
  model_name: "my-mini",
  match_pattern: "^gpt-4o-mini",
  provider: null,
  effective_from: null,
  input_per_million: 0.1,
  output_per_million: 0.4,
  input_details_per_million: {},
  output_details_per_million: {},
  source: "tenant",
  created_at: "2025-03-01T10:00:00.000Z",
  updated_at: "2025-03-01T10:00:00.000Z",
};
const DEFAULTS = [
  { id: "default:openai:gpt-4o", model_name: "gpt-4o", match_pattern: "^gpt-4o$", provider: "openai", effective_from: null, input_per_million: 2.5, output_per_million: 10, source: "default" },
  {
    id: "default:anthropic:claude-3-5-haiku",
    model_name: "claude-3-5-haiku",
    match_pattern: "^claude-3-5-haiku",
    provider: "anthropic",
    effective_from: null,
    input_per_million: 0.8,
    output_per_million: 4,
    input_details_per_million: { cache_read: 0.08 },
    source: "default",
  },
];

type Call = { method: string; path: string; body: unknown };

function serve(answer: (c: Call) => { status: number; body?: unknown } | undefined) {
  const calls: Call[] = [];
  api.handler = async (req) => {
    const url = new URL(req.url, "http://localhost");
    const text = req.method === "GET" || req.method === "DELETE" ? "" : await req.text();
    const call = { method: req.method, path: url.pathname, body: text ? JSON.parse(text) : undefined };
    calls.push(call);
    const r = answer(call) ?? (call.method === "GET" && call.path === "/tracing/model-prices" ? { status: 200, body: { prices: [TENANT, ...DEFAULTS] } } : { status: 404, body: { detail: "no route" } });
    return r.status === 204 ? new Response(null, { status: 204 }) : new Response(JSON.stringify(r.body), { status: r.status, headers: { "content-type": "application/json" } });
  };
  return calls;
}

function renderPage() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <Prices />
    </QueryClientProvider>,
  );
}

describe("Prices", () => {
  it("lists the tenant's entries apart from the read-only defaults and tests a model name", async () => {
    serve(() => undefined);
    renderPage();
    const own = await screen.findByRole("table", { name: "Your prices" });
    expect(within(own).getByText("my-mini")).toBeTruthy();
    expect(within(own).getByRole("button", { name: "Edit" })).toBeTruthy();
    const defaults = screen.getByRole("table", { name: "Default prices" });
    expect(within(defaults).queryByRole("button", { name: "Edit" })).toBeNull();
    expect(within(defaults).queryByRole("button", { name: "Delete" })).toBeNull();
    fireEvent.change(screen.getByLabelText("Filter prices"), { target: { value: "gpt-4o-mini-2024-07-18" } });
    expect(screen.getByText(/is priced by/).textContent).toContain("my-mini");
    // neither default prices that model: the defaults table gives way to a note
    expect(screen.queryByText("claude-3-5-haiku")).toBeNull();
    expect(screen.getByText("No default matches the filter.")).toBeTruthy();
  });

  it("overrides a default: the add form is pre-filled, and the API's 422 shows next to it", async () => {
    const calls = serve((c) =>
      c.method === "POST" ? { status: 422, body: { detail: [{ loc: ["body", "match_pattern"], msg: "must be a valid regular expression", type: "custom" }] } } : undefined,
    );
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Override claude-3-5-haiku" }));
    const form = screen.getByRole("form", { name: "New price" });
    expect((within(form).getByLabelText("Model name") as HTMLInputElement).value).toBe("claude-3-5-haiku");
    expect((within(form).getByLabelText("Input by token type") as HTMLInputElement).value).toBe("cache_read=0.08");
    fireEvent.change(within(form).getByLabelText("Input $/1M tokens"), { target: { value: "0.5" } });
    await act(async () => fireEvent.click(within(form).getByRole("button", { name: "Add price" })));
    await waitFor(() => expect(within(form).getByRole("alert").textContent).toContain("body.match_pattern: must be a valid regular expression"));
    expect(calls.find((c) => c.method === "POST")!.body).toMatchObject({ model_name: "claude-3-5-haiku", provider: "anthropic", input_per_million: 0.5, input_details_per_million: { cache_read: 0.08 } });
  });

  it("checks the form before sending", async () => {
    const calls = serve(() => undefined);
    renderPage();
    fireEvent.click(await screen.findByRole("button", { name: "Add price" }));
    const form = screen.getByRole("form", { name: "New price" });
    fireEvent.change(within(form).getByLabelText("Match pattern"), { target: { value: "(" } });
    fireEvent.click(within(form).getByRole("button", { name: "Add price" }));
    expect(within(form).getByText("not a valid regular expression")).toBeTruthy();
    expect(calls.some((c) => c.method === "POST")).toBe(false);
  });

  it("edits a tenant entry in place, sending only what changed, and deletes after confirmation", async () => {
    const calls = serve((c) => {
      if (c.method === "PATCH") return { status: 200, body: { ...TENANT, ...(c.body as object) } };
      if (c.method === "DELETE") return { status: 204 };
      return undefined;
    });
    renderPage();
    const own = await screen.findByRole("table", { name: "Your prices" });
    fireEvent.click(within(own).getByRole("button", { name: "Edit" }));
    const form = screen.getByRole("form", { name: "Edit my-mini" });
    fireEvent.change(within(form).getByLabelText("Output $/1M tokens"), { target: { value: "0.5" } });
    await act(async () => fireEvent.click(within(form).getByRole("button", { name: "Save" })));
    await screen.findByText("Saved my-mini.");
    const patch = calls.find((c) => c.method === "PATCH")!;
    expect(patch.path).toBe(`/tracing/model-prices/${TENANT.id}`);
    expect(patch.body).toEqual({ output_per_million: 0.5 });

    fireEvent.click(within(screen.getByRole("table", { name: "Your prices" })).getByRole("button", { name: "Delete" }));
    expect(calls.some((c) => c.method === "DELETE")).toBe(false);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Yes, delete" })));
    await waitFor(() => expect(calls.some((c) => c.method === "DELETE" && c.path === `/tracing/model-prices/${TENANT.id}`)).toBe(true));
  });
});

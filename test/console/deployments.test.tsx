// @vitest-environment happy-dom
/**
 * The deployment pages against a scripted control plane (fetch is replaced before the API client
 * is created): log lines are text (a `<script>` in a build log stays text), secret values are never
 * on screen, the detail page follows a revision from BUILDING to DEPLOYED and its log until the
 * revision settles, and a delete ends back on the list once the deployment is gone.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { MemoryRouter, Route, Routes, useLocation } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";

type Handler = (method: string, url: URL, body: unknown, request: Request) => { status: number; body?: unknown } | undefined;
const api = vi.hoisted(() => {
  const state = { handler: undefined as undefined | ((req: Request) => Promise<Response>), calls: [] as { method: string; path: string; search: string; body: unknown; headers: Headers }[] };
  // openapi-fetch takes globalThis.fetch when the client is created (on import): replace it first
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = input instanceof Request ? input : new Request(String(input), init);
    if (!state.handler) throw new Error("no API handler");
    return state.handler(req);
  }) as typeof fetch;
  return state;
});

function serve(handler: Handler) {
  api.calls.length = 0;
  api.handler = async (req) => {
    const url = new URL(req.url, "http://localhost");
    const text = req.method === "GET" || req.method === "DELETE" ? "" : await req.text();
    const body = text ? JSON.parse(text) : undefined;
    api.calls.push({ method: req.method, path: url.pathname, search: url.search, body, headers: req.headers });
    const r = handler(req.method, url, body, req) ?? { status: 404, body: { detail: `no route ${req.method} ${url.pathname}` } };
    return r.status === 204 ? new Response(null, { status: 204 }) : new Response(JSON.stringify(r.body), { status: r.status, headers: { "content-type": "application/json" } });
  };
}

const { LogView } = await import("../../src/console/deployments/LogView");
const { SecretsPanel } = await import("../../src/console/deployments/SecretsPanel");
const { default: DeploymentDetail } = await import("../../src/console/pages/DeploymentDetail");
const { default: Deployments } = await import("../../src/console/pages/Deployments");

afterEach(() => {
  cleanup();
  delete (window as { __pwned?: unknown }).__pwned;
});

const DEP = "d0000000-0000-4000-8000-000000000001";
const R1 = "a1111111-0000-4000-8000-000000000001";
const R2 = "b2222222-0000-4000-8000-000000000002";
const T0 = "2025-03-01T10:00:00.000Z";

function deployment(over: Record<string, unknown> = {}) {
  return {
    name: "weather",
    source: "hosted_git",
    source_config: { integration_id: "i0000000-0000-4000-8000-000000000001", repo_url: "file:///repo", custom_url: "http://127.0.0.1:40123" },
    source_revision_config: { repo_ref: "main", agent_config_path: "examples/langgraph.json", repo_commit_sha: "abcdef0123456789" },
    secrets: [{ name: "OPENAI_API_KEY", value: "MASKED-VALUE-NEVER-SHOWN" }],
    id: DEP,
    created_at: T0,
    updated_at: T0,
    status: "READY",
    latest_revision_id: R2,
    active_revision_id: R1,
    image_version: null,
    ...over,
  };
}

function revision(id: string, status: string, updated: string, over: Record<string, unknown> = {}) {
  return {
    id,
    deployment_id: DEP,
    created_at: id === R1 ? T0 : "2025-03-01T11:00:00.000Z",
    updated_at: updated,
    status,
    source: "hosted_git",
    source_revision_config: { repo_ref: "main", agent_config_path: "examples/langgraph.json", repo_commit_sha: "abcdef0123456789" },
    status_reason: null,
    is_active: false,
    superseded: false,
    ...over,
  };
}

function renderPage(path: string, listPage = false) {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  function ListStub() {
    const state = useLocation().state as { notice?: string } | null;
    return <p>deployments list {state?.notice}</p>;
  }
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/deployments" element={listPage ? <Deployments /> : <ListStub />} />
          <Route path="/deployments/:deploymentId" element={<DeploymentDetail />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("LogView", () => {
  it("shows log lines as text: markup in a message is neither parsed nor run", () => {
    const payload = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1">`;
    const { container } = render(
      <LogView
        label="build log"
        entries={[
          { id: "1", timestamp: T0, level: "INFO", message: "npm ci" },
          { id: "2", timestamp: T0, level: "ERROR", message: payload },
        ]}
      />,
    );
    const log = screen.getByRole("log", { name: "build log" });
    expect(log.textContent).toContain(payload);
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    expect((window as { __pwned?: unknown }).__pwned).toBeUndefined();
    expect(log.querySelector(".level-error")?.textContent).toContain(payload);
  });
});

describe("SecretsPanel", () => {
  it("shows names only, and sends kept values back masked and new values as typed", async () => {
    const onSave = vi.fn(async () => "Secrets saved");
    const d = deployment({ secrets: [{ name: "OPENAI_API_KEY", value: "MASKED-VALUE-NEVER-SHOWN" }, { name: "GREETING", value: "MASKED-VALUE-NEVER-SHOWN" }] });
    const { container } = render(<SecretsPanel deployment={d as never} onSave={onSave} />);
    expect(screen.getByText("OPENAI_API_KEY")).toBeTruthy();
    expect(container.textContent).not.toContain("MASKED-VALUE-NEVER-SHOWN");

    fireEvent.click(screen.getByRole("button", { name: "Edit secrets" }));
    expect(container.innerHTML).not.toContain("MASKED-VALUE-NEVER-SHOWN");
    fireEvent.click(screen.getAllByRole("button", { name: "Replace value" })[1]!);
    fireEvent.change(screen.getByLabelText("New value of GREETING"), { target: { value: "bonjour" } });
    fireEvent.click(screen.getByRole("button", { name: "Save secrets" }));
    const dialog = screen.getByRole("dialog", { name: "Confirm Save secrets" });
    expect(dialog.textContent).toContain("change GREETING");
    await act(async () => fireEvent.click(within(dialog).getByRole("button", { name: "Yes, save secrets" })));
    expect(onSave).toHaveBeenCalledWith([
      { name: "OPENAI_API_KEY", value: "MASKED-VALUE-NEVER-SHOWN" },
      { name: "GREETING", value: "bonjour" },
    ]);
    // the form closed, the result stays visible, and no value is on screen
    await screen.findByText("Secrets saved");
    expect(container.textContent).not.toContain("bonjour");
  });
});

describe("Deployments", () => {
  it("explains how to create a deployment when there is none", async () => {
    serve((method, url) => (method === "GET" && url.pathname === "/v2/deployments" ? { status: 200, body: { resources: [], offset: 0 } } : undefined));
    renderPage("/deployments", true);
    await screen.findByRole("heading", { name: "No deployments yet" });
    expect(document.querySelector("pre")!.textContent).toContain("/v2/deployments");
  });

  it("lists deployments with the newest revision's fate where it differs from the active one, page by page", async () => {
    const other = "e0000000-0000-4000-8000-000000000002";
    serve((method, url) => {
      const p = url.pathname;
      if (method === "GET" && p === "/v2/deployments") {
        const offset = Number(url.searchParams.get("offset") ?? 0);
        const page = offset === 0 ? [deployment(), deployment({ id: other, name: "calm", latest_revision_id: R1, active_revision_id: R1 }), ...Array.from({ length: 18 }, (_, i) => deployment({ id: `f0000000-0000-4000-8000-${String(i).padStart(12, "0")}`, name: `d-${i}`, latest_revision_id: R1, active_revision_id: R1 }))] : [];
        return { status: 200, body: { resources: page, offset: offset + page.length } };
      }
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions/${R2}`) return { status: 200, body: revision(R2, "BUILD_FAILED", T0, { status_reason: "npm ci failed" }) };
      return undefined;
    });
    renderPage("/deployments", true);
    const row = (await screen.findByRole("link", { name: "weather" })).closest("tr")!;
    await within(row).findByText(/BUILD_FAILED · failed: the active revision keeps serving/);
    expect(within(row).getByText("b2222222")).toBeTruthy();
    expect(within(row).getByText("a1111111")).toBeTruthy();
    expect(within(row).getByRole("link", { name: "http://127.0.0.1:40123" })).toBeTruthy();
    // only the differing row's revision was asked for
    expect(api.calls.filter((c) => c.path.includes("/revisions/")).map((c) => c.path)).toEqual([`/v2/deployments/${DEP}/revisions/${R2}`]);
    fireEvent.click(screen.getByRole("button", { name: "Next" }));
    await screen.findByText("No more deployments.");
    expect(api.calls.some((c) => c.path === "/v2/deployments" && new URLSearchParams(c.search).get("offset") === "20")).toBe(true);
  });
});

describe("DeploymentDetail", () => {
  it("follows a revision to DEPLOYED and its build log until the revision settles", async () => {
    let revisionReads = 0;
    let active = R1;
    const r2 = () =>
      revision(R2, revisionReads >= 3 ? "DEPLOYED" : "BUILDING", revisionReads >= 3 ? "2025-03-01T11:02:00.000Z" : "2025-03-01T11:00:05.000Z", { is_active: active === R2 });
    serve((method, url) => {
      const p = url.pathname;
      if (method === "GET" && p === `/v2/deployments/${DEP}`) return { status: 200, body: deployment({ active_revision_id: active }) };
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions`) {
        revisionReads++;
        if (revisionReads >= 3) active = R2;
        return { status: 200, body: { resources: [r2(), revision(R1, "DEPLOYED", "2025-03-01T10:01:00.000Z", { is_active: active === R1, superseded: active === R2 })], offset: 2 } };
      }
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions/${R2}`) return { status: 200, body: r2() };
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions/${R2}/logs`) {
        const after = url.searchParams.get("offset");
        if (url.searchParams.get("type") !== "build") return { status: 200, body: { logs: [], next_offset: null } };
        // one line per read, until the revision is deployed
        const n = after ? Number(after) + 1 : 1;
        const done = revisionReads >= 3;
        return { status: 200, body: { logs: done && n > 3 ? [] : [{ id: String(n), timestamp: T0, level: "INFO", message: `step ${n} <b>bold?</b>` }], next_offset: null } };
      }
      return undefined;
    });
    renderPage(`/deployments/${DEP}?tab=logs`);
    await screen.findByRole("heading", { name: "weather" });
    expect(screen.getByRole("link", { name: "http://127.0.0.1:40123" }).getAttribute("href")).toBe("http://127.0.0.1:40123");
    const log = await screen.findByRole("log");
    await waitFor(() => expect(log.textContent).toContain("step 1 <b>bold?</b>"));
    expect(screen.getByText("following live…")).toBeTruthy();
    // the log keeps its cursor: no line twice
    await waitFor(() => expect(screen.getByText(/lines · complete/)).toBeTruthy(), { timeout: 30_000 });
    const lines = [...log.querySelectorAll(".logline")].map((l) => l.querySelector(".logmsg")!.textContent);
    expect(lines).toEqual([...new Set(lines)]);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    const logCalls = api.calls.filter((c) => c.path.endsWith("/logs"));
    expect(logCalls.slice(1).every((c) => new URLSearchParams(c.search).has("offset"))).toBe(true);
    // the revision tab shows R2 as active now, and R1 (still DEPLOYED) as superseded by it
    fireEvent.click(screen.getByRole("tab", { name: "Revisions" }));
    await waitFor(() => {
      const row = document.querySelector(`[data-revision-id="${R2}"]`)!;
      expect(row.querySelector(".rev-pointer.active")?.textContent).toBe("active");
      expect(row.querySelector(".rev-pointer.superseded")).toBeNull();
      expect(row.textContent).toContain("DEPLOYED");
      const old = document.querySelector(`[data-revision-id="${R1}"]`)!;
      expect(old.textContent).toContain("DEPLOYED");
      expect(old.querySelector(".rev-pointer.superseded")?.textContent).toBe("superseded");
      expect(old.querySelector(".rev-pointer.active")).toBeNull();
    });
  });

  it("redeploys an older revision with an Idempotency-Key and shows the result", async () => {
    const R3 = "c3333333-0000-4000-8000-000000000003";
    let redeployed = false;
    serve((method, url) => {
      const p = url.pathname;
      if (method === "GET" && p === `/v2/deployments/${DEP}`) return { status: 200, body: deployment({ latest_revision_id: redeployed ? R3 : R2, active_revision_id: R2 }) };
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions`)
        return { status: 200, body: { resources: [...(redeployed ? [revision(R3, "QUEUED", T0)] : []), revision(R2, "DEPLOYED", T0), revision(R1, "DEPLOYED", T0)], offset: 2 } };
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions/${R3}`) return { status: 200, body: revision(R3, "QUEUED", T0) };
      if (method === "POST" && p === `/v2/deployments/${DEP}/revisions/${R1}/redeploy`) {
        redeployed = true;
        return { status: 200, body: deployment({ latest_revision_id: R3, active_revision_id: R2 }) };
      }
      return undefined;
    });
    renderPage(`/deployments/${DEP}`);
    const row = await waitFor(() => {
      const r = document.querySelector<HTMLElement>(`[data-revision-id="${R1}"]`);
      if (!r) throw new Error("no row yet");
      return r;
    });
    // only the older revision offers a redeploy
    expect(within(document.querySelector<HTMLElement>(`[data-revision-id="${R2}"]`)!).queryByRole("button", { name: "Redeploy" })).toBeNull();
    fireEvent.click(within(row).getByRole("button", { name: "Redeploy" }));
    await act(async () => fireEvent.click(within(row).getByRole("button", { name: "Yes, redeploy" })));
    await within(row).findByText("Redeployed a1111111: revision c3333333 created");
    // the page reads the deployment again: the new revision is the latest, and the result stays on screen
    await waitFor(() => expect(document.querySelector(`[data-revision-id="${R3}"]`)?.textContent).toContain("latest"));
    expect(within(row).getByText("Redeployed a1111111: revision c3333333 created")).toBeTruthy();
    const post = api.calls.find((c) => c.method === "POST")!;
    expect(post.headers.get("idempotency-key")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("creates a new revision of the same configuration and keeps the result visible once the page shows it", async () => {
    const R3 = "c3333333-0000-4000-8000-000000000003";
    let created = false;
    serve((method, url, body) => {
      const p = url.pathname;
      if (method === "GET" && p === `/v2/deployments/${DEP}`) return { status: 200, body: deployment({ latest_revision_id: created ? R3 : R1, active_revision_id: R1 }) };
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions`)
        return { status: 200, body: { resources: [...(created ? [revision(R3, "DEPLOYED", T0)] : []), revision(R1, "DEPLOYED", T0)], offset: 1 } };
      if (method === "POST" && p === `/v2/deployments/${DEP}/revisions`) {
        expect(body).toEqual({});
        created = true;
        return { status: 201, body: revision(R3, "QUEUED", T0) };
      }
      return undefined;
    });
    renderPage(`/deployments/${DEP}`);
    fireEvent.click(await screen.findByRole("button", { name: "Redeploy current configuration" }));
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Yes, redeploy current configuration" })));
    await waitFor(() => expect(document.querySelector(`[data-revision-id="${R3}"]`)?.textContent).toContain("latest"));
    expect(screen.getByText("New revision: revision c3333333 created")).toBeTruthy();
    expect(api.calls.find((c) => c.method === "POST")!.headers.get("idempotency-key")).toBeTruthy();
  });

  it("deletes after confirmation, shows AWAITING_DELETE, and returns to the list once the deployment is gone", async () => {
    let deleted = false;
    let reads = 0;
    serve((method, url) => {
      const p = url.pathname;
      if (method === "GET" && p === `/v2/deployments/${DEP}`) {
        if (!deleted) return { status: 200, body: deployment({ latest_revision_id: R1 }) };
        reads++;
        return reads < 2 ? { status: 200, body: deployment({ latest_revision_id: R1, status: "AWAITING_DELETE" }) } : { status: 404, body: { detail: `Deployment ID ${DEP} not found.` } };
      }
      if (method === "GET" && p === `/v2/deployments/${DEP}/revisions`) return { status: 200, body: { resources: [revision(R1, "DEPLOYED", T0)], offset: 1 } };
      if (method === "DELETE" && p === `/v2/deployments/${DEP}`) {
        deleted = true;
        return { status: 204 };
      }
      return undefined;
    });
    renderPage(`/deployments/${DEP}`);
    await screen.findByRole("heading", { name: "weather" });
    fireEvent.click(screen.getByRole("button", { name: "Delete deployment" }));
    expect(api.calls.some((c) => c.method === "DELETE")).toBe(false);
    await act(async () => fireEvent.click(screen.getByRole("button", { name: "Yes, delete deployment" })));
    await screen.findByText("AWAITING_DELETE");
    await screen.findByText(/deployments list The deployment was deleted\./, undefined, { timeout: 30_000 });
  });
});

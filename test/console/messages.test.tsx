// @vitest-environment happy-dom
/**
 * The message renderer over the normaliser's fixtures (test/fixtures/messages): each fixture is
 * normalised by the tracing facility's own `normalizeLlmRun` and rendered, and what is on screen
 * is checked against the normalised blocks — roles, text, reasoning, tool calls with their results,
 * server tools, media — plus the raw view of unrendered runs and the script-injection payload.
 */
import { act, cleanup, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { NativeBlock, NativeMessage, RunDetail } from "../../src/console/api/types";
import { MessageList } from "../../src/console/messages/MessageList";
import { RunMessages } from "../../src/console/messages/RunMessages";
import { normalizeLlmRun } from "../../src/tracing/messages/normalize";
import type { MessageFixture } from "../fixtures/messages/fixture";

const fixtures = Object.values(import.meta.glob<MessageFixture>("../fixtures/messages/*.json", { eager: true, import: "default" }));
const fixture = (name: string) => {
  const f = fixtures.find((x) => x.name === name);
  if (!f) throw new Error(`no fixture ${name}`);
  return f;
};
const rendered = fixtures.filter((f) => f.expect.rendered !== false);

const ROLE_HEADERS: Record<string, string> = { system: "System", user: "User", assistant: "Assistant", tool: "Tool", reasoning: "Reasoning" };
const UNRENDERED_REASON = "inputs/outputs are in a format Berth does not render; shown raw";

function normalise(f: MessageFixture) {
  const r = normalizeLlmRun(f.inputs, f.outputs);
  if (!r) throw new Error(`${f.name} is not rendered`);
  return { ...r, messages: r.messages as NativeMessage[] };
}

/** The run detail the tracing API would return for a fixture (presentRunDetail's shape). */
function runOf(f: MessageFixture, extra: Record<string, unknown> = {}): RunDetail {
  const r = normalizeLlmRun(f.inputs, f.outputs);
  return {
    id: "00000000-0000-4000-8000-000000000001",
    run_type: "llm",
    name: f.name,
    status: "success",
    model: "gpt-4o-mini",
    provider: "openai",
    usage: { input_tokens: 310, output_tokens: 14, total_tokens: 324, estimated: false, input_token_details: {}, output_token_details: {} },
    cost: { input_cost: 0.000465, output_cost: 0.00084, total_cost: 0.001305, source: "price", price_id: "p1", input_cost_details: {}, output_cost_details: {} },
    cost_reason: null,
    ttft_ms: 420,
    latency_ms: 1830,
    inputs: f.inputs,
    outputs: f.outputs,
    attachments: [],
    messages: r ? { rendered: true, format: r.format, messages: r.messages, warnings: r.warnings } : { rendered: false, reason: UNRENDERED_REASON },
    ...extra,
  } as unknown as RunDetail;
}

const articles = (c: HTMLElement) => [...c.querySelectorAll<HTMLElement>("article.msg")];
const byAttr = (c: ParentNode, attr: string, value: string) => [...c.querySelectorAll<HTMLElement>(`[${attr}]`)].filter((e) => e.getAttribute(attr) === value);
/** Words a reader sees of a text block (Markdown syntax and link targets aside). */
const words = (text: string) => text.replace(/\]\([^)]*\)/g, "] ").match(/[\p{L}\p{N}]{3,}/gu) ?? [];
const pretty = (v: unknown) => JSON.stringify(v, null, 2);

/** Tool message index → the assistant call it answers (the normaliser's rule, computed here by id). */
function answeredCalls(messages: NativeMessage[]): Map<number, string> {
  const seen = new Set<string>();
  const out = new Map<number, string>();
  messages.forEach((m, i) => {
    if (m.role === "tool" && m.tool_call_id && seen.has(m.tool_call_id)) out.set(i, m.tool_call_id);
    if (m.role === "assistant") for (const b of m.content) if ((b.type === "tool_call" || b.type === "invalid_tool_call") && b.id) seen.add(b.id);
  });
  return out;
}

/** Every attribute of every element: [element, name, value]. */
const attributes = (c: HTMLElement) => [...c.querySelectorAll("*")].flatMap((el) => [...el.attributes].map((a) => [el, a.name, a.value] as const));

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  sessionStorage.clear();
});

describe("the fixtures", () => {
  it("are loaded through Vite, the same files the normaliser test reads", () => {
    expect(rendered.length).toBeGreaterThanOrEqual(11);
    expect(fixtures.some((f) => f.expect.rendered === false)).toBe(true);
  });
});

describe.each(rendered.map((f) => [f.name, f] as const))("MessageList renders fixture %s", (_name, f) => {
  const r = normalise(f);
  const setup = () => render(<MessageList messages={r.messages} />).container;

  it("with one role header per message, in order", () => {
    const c = setup();
    const heads = articles(c).map((a) => a.querySelector(".msg-role")?.textContent);
    expect(heads).toEqual(f.expect.roles!.map((role) => ROLE_HEADERS[role]));
    expect(articles(c).map((a) => a.getAttribute("aria-label"))).toEqual(f.expect.roles!.map((role) => `${ROLE_HEADERS[role]} message`));
  });

  it("with every text block's words visible where its message is shown", () => {
    const c = setup();
    const answered = answeredCalls(r.messages);
    r.messages.forEach((m, i) => {
      const scope = answered.has(i) ? byAttr(c, "data-call-id", answered.get(i)!)[0]! : articles(c)[i]!;
      for (const b of m.content) {
        if (b.type !== "text") continue;
        for (const w of words(b.text)) expect(scope.textContent, `message ${i}: ${w}`).toContain(w);
      }
    });
  });

  it("with reasoning in <details>, collapsed", () => {
    const c = setup();
    const reasoning = r.messages.flatMap((m) => m.content.filter((b) => b.type === "reasoning"));
    const details = [...c.querySelectorAll("details.block-reasoning")];
    expect(details).toHaveLength(reasoning.length);
    details.forEach((d, k) => {
      expect(d.hasAttribute("open")).toBe(false);
      expect(d.querySelector("summary")?.textContent).toMatch(/^Reasoning/);
      for (const w of words((reasoning[k] as Extract<NativeBlock, { type: "reasoning" }>).text)) expect(d.textContent).toContain(w);
    });
  });

  it("with each tool call's name and arguments, and its paired result right under it", () => {
    const c = setup();
    const answered = answeredCalls(r.messages);
    const calls = r.messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "tool_call" || b.type === "invalid_tool_call") : []));
    for (const call of calls) {
      if (call.type !== "tool_call" && call.type !== "invalid_tool_call") continue;
      const [el, ...more] = call.id ? byAttr(c, "data-call-id", call.id) : [];
      expect(el, `call ${call.id}`).toBeDefined();
      expect(more).toHaveLength(0);
      expect(el!.querySelector(".tool-name")?.textContent).toBe(call.name);
      if (call.type === "tool_call") {
        expect(el!.querySelector('pre[aria-label="Arguments"]')?.textContent).toBe(pretty(call.args));
      } else {
        expect(el!.querySelector('pre[aria-label="Arguments as sent"]')?.textContent).toBe(call.args);
        expect(el!.querySelector(".call-error")?.textContent).toBe(call.error);
      }
      const results = [...answered].filter(([, id]) => id === call.id).map(([i]) => r.messages[i]!);
      const shown = el!.querySelectorAll(":scope > .tool-result");
      expect(shown).toHaveLength(results.length);
      results.forEach((m, k) => {
        const text = m.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(" ");
        for (const w of words(text)) expect(shown[k]!.textContent).toContain(w);
        expect(shown[k]!.classList.contains("tool-result-error")).toBe(m.status === "error");
        expect(within(shown[k] as HTMLElement).queryByText("error") !== null).toBe(m.status === "error");
      });
      if (!results.length) expect(el!.textContent).toContain("No result in this run");
    }
  });

  it("with every tool result shown exactly once: under its call, or in place when it answers none", () => {
    const c = setup();
    const answered = answeredCalls(r.messages);
    const all = articles(c);
    r.messages.forEach((m, i) => {
      if (m.role !== "tool") return;
      const article = all[i]!;
      if (answered.has(i)) {
        // the tool message only points at the call; its content is under the call
        expect(article.querySelector(".msg-paired")?.textContent).toContain("Result shown under");
        expect(article.querySelector(".msg-blocks, .msg-empty")).toBeNull();
      } else {
        expect(article.querySelector(".msg-unpaired")?.textContent).toMatch(/answers no earlier tool call|has no tool_call_id/);
        expect(article.querySelector(".msg-blocks")).not.toBeNull();
      }
    });
    expect(c.querySelectorAll(".tool-result:not(.server-tool-result)")).toHaveLength(answered.size);
  });

  it("with server tool calls and their results", () => {
    const c = setup();
    const blocks = r.messages.flatMap((m) => m.content);
    const serverCalls = blocks.filter((b) => b.type === "server_tool_call");
    const serverResults = blocks.filter((b) => b.type === "server_tool_result");
    expect(c.querySelectorAll(".server-tool-call")).toHaveLength(serverCalls.length);
    expect(c.querySelectorAll(".server-tool-result")).toHaveLength(serverResults.length);
    for (const call of serverCalls) {
      if (call.type !== "server_tool_call") continue;
      const el = byAttr(c, "data-server-call-id", call.id)[0]!;
      expect(el.querySelector(".tool-name")?.textContent).toBe(call.name);
      expect(el.querySelector('pre[aria-label="Arguments"]')?.textContent).toBe(pretty(call.args));
      const mine = serverResults.filter((b) => b.type === "server_tool_result" && b.tool_call_id === call.id);
      const shown = [...el.querySelectorAll(".server-tool-result")];
      expect(shown).toHaveLength(mine.length);
      mine.forEach((b, k) => {
        if (b.type !== "server_tool_result") return;
        expect(shown[k]!.querySelector(".badge")?.textContent).toBe(b.status);
        if (b.output !== undefined) expect(shown[k]!.querySelector('pre[aria-label="Output"]')?.textContent).toBe(typeof b.output === "string" ? b.output : pretty(b.output));
      });
    }
  });

  it("with images, files, audio and video from their URL or base64", () => {
    const c = setup();
    const media = r.messages.flatMap((m) => m.content).filter((b): b is Extract<NativeBlock, { type: "image" | "file" | "audio" | "video" }> => ["image", "file", "audio", "video"].includes(b.type));
    const srcs = (sel: string) => [...c.querySelectorAll(sel)].map((e) => e.getAttribute("src"));
    for (const b of media) {
      const safeUrl = b.url && /^https?:\/\//.test(b.url) ? b.url : undefined;
      const data = b.base64 && b.mime_type ? `data:${b.mime_type};base64,${b.base64}` : undefined;
      if (b.type === "file") {
        const name = (b.extras?.filename ?? b.extras?.title ?? "download") as string;
        if (safeUrl) expect(screen.getByRole("link", { name: `Open ${name}` }).getAttribute("href")).toBe(safeUrl);
        else if (data) expect(screen.getByRole("button", { name: `Download ${name}` })).toBeDefined();
        if (b.mime_type) expect(c.textContent).toContain(b.mime_type);
        continue;
      }
      const tag = b.type === "image" ? "img" : b.type;
      const expected = safeUrl ?? (data && /^(image\/(png|jpeg|gif|webp)|audio\/|video\/)/.test(b.mime_type!) ? data : undefined);
      if (expected) expect(srcs(tag)).toContain(expected);
    }
    for (const img of c.querySelectorAll("img")) {
      expect(img.getAttribute("alt")).toBeTruthy();
      expect(img.getAttribute("loading")).toBe("lazy");
    }
    for (const el of c.querySelectorAll("audio, video")) expect(el.hasAttribute("controls")).toBe(true);
  });

  it("with non_standard content as raw JSON", () => {
    const c = setup();
    const raw = r.messages.flatMap((m) => m.content).filter((b) => b.type === "non_standard");
    const pres = [...c.querySelectorAll('pre[aria-label="Unrecognised content"]')].map((p) => p.textContent);
    expect(pres).toEqual(raw.map((b) => (b.type === "non_standard" ? pretty(b.value) : "")));
  });

  it("and RunMessages shows the normaliser's warnings", () => {
    render(<RunMessages run={runOf(f)} />);
    const box = screen.queryByRole("note", { name: "Warnings" });
    if (!r.warnings.length) {
      expect(box).toBeNull();
      return;
    }
    expect([...box!.querySelectorAll("li")].map((li) => li.textContent)).toEqual(r.warnings);
  });
});

describe("Markdown and text details (native-all-blocks)", () => {
  const r = normalise(fixture("native-all-blocks"));

  it("renders Markdown structurally: emphasis, lists, tables, code; links open safely in a new tab", () => {
    const { container: c } = render(<MessageList messages={r.messages} />);
    expect(c.querySelector("strong")?.textContent).toBe("terse");
    expect([...c.querySelectorAll("li")].map((li) => li.textContent)).toEqual(expect.arrayContaining(["a list item", "one with inline code"]));
    expect(c.querySelector("table td")?.textContent).toBe("Oslo");
    expect(c.querySelector("pre code")?.textContent).toContain("console.log(1)");
    const met = screen.getByRole("link", { name: "MET" });
    expect(met.getAttribute("href")).toBe("https://met.no/");
    expect(met.getAttribute("target")).toBe("_blank");
    expect(met.getAttribute("rel")).toBe("noopener noreferrer nofollow");
  });

  it("lists citation annotations as links", () => {
    render(<MessageList messages={r.messages} />);
    const cites = screen.getByRole("list", { name: "Citations" });
    const link = within(cites).getByRole("link", { name: "MET Norway" });
    expect(link.getAttribute("href")).toBe("https://met.no/oslo");
    expect(link.getAttribute("rel")).toBe("noopener noreferrer nofollow");
  });

  it("opens reasoning on click", () => {
    const { container: c } = render(<MessageList messages={r.messages} />);
    const details = c.querySelector("details")!;
    fireEvent.click(details.querySelector("summary")!);
    expect(details.open).toBe(true);
  });

  it("shows the usage of a message", () => {
    const { container: c } = render(<MessageList messages={r.messages} />);
    expect(articles(c).at(-1)!.querySelector(".msg-usage")?.textContent).toBe("120 in · 9 out · 129 total");
  });

  it("scrolls to the call from a paired tool message", () => {
    const { container: c } = render(<MessageList messages={r.messages} />);
    const call = byAttr(c, "data-call-id", "call_weather")[0]!;
    const scrolled = vi.fn();
    call.scrollIntoView = scrolled;
    fireEvent.click(within(articles(c)[3]!).getByRole("button", { name: "tool call weather" }));
    expect(scrolled).toHaveBeenCalled();
    expect(document.activeElement).toBe(call);
  });
});

describe("RunMessages", () => {
  it("shows the call's model, tokens, cost with its source, TTFT and latency", () => {
    render(<RunMessages run={runOf(fixture("openai-chat-tools"))} />);
    const summary = screen.getByLabelText("Call summary");
    const text = summary.textContent ?? "";
    expect(text).toContain("gpt-4o-mini");
    expect(text).toContain("(openai)");
    expect(text).toContain("310 in · 14 out · 324 total");
    expect(text).toContain("$0.001305");
    expect(text).toContain("from the price table");
    expect(text).toContain("420 ms");
    expect(text).toContain("1.83 s");
    expect(text).not.toContain("estimated");
  });

  it("marks estimated tokens and says why a call has no cost", () => {
    const run = runOf(fixture("openai-chat-tools"), {
      usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7, estimated: true, input_token_details: {}, output_token_details: {} },
      cost: null,
      cost_reason: "no price for model gpt-4o-mini",
    });
    render(<RunMessages run={run} />);
    const summary = screen.getByLabelText("Call summary");
    expect(within(summary).getByText("estimated")).toBeDefined();
    expect(summary.textContent).toContain("no price for model gpt-4o-mini");
  });

  it("toggles the raw JSON of the inputs and outputs", () => {
    const f = fixture("openai-chat-tools");
    const { container: c } = render(<RunMessages run={runOf(f)} />);
    expect(c.querySelector("article.msg")).not.toBeNull();
    const toggle = screen.getByRole("button", { name: "Raw JSON" });
    expect(toggle.getAttribute("aria-pressed")).toBe("false");
    fireEvent.click(toggle);
    expect(toggle.getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByLabelText("Inputs").textContent).toBe(pretty(f.inputs));
    expect(screen.getByLabelText("Outputs").textContent).toBe(pretty(f.outputs));
    expect(c.querySelector("article.msg")).toBeNull();
    fireEvent.click(toggle);
    expect(c.querySelector("article.msg")).not.toBeNull();
  });

  it("caps a large payload, with a button to show all of it", () => {
    const big = { messages: [{ role: "user", content: "x".repeat(60_000) }] };
    render(<RunMessages run={runOf({ ...fixture("openai-chat-invalid-args"), inputs: big })} />);
    fireEvent.click(screen.getByRole("button", { name: "Raw JSON" }));
    const pre = screen.getByLabelText("Inputs");
    expect(pre.textContent).toHaveLength(20_000);
    fireEvent.click(screen.getByRole("button", { name: /^Show all/ }));
    expect(screen.getByLabelText("Inputs").textContent).toBe(pretty(big));
  });

  it.each(fixtures.filter((f) => f.expect.rendered === false).map((f) => [f.name, f] as const))("shows unrendered fixture %s raw, with the note", (_n, f) => {
    expect(normalizeLlmRun(f.inputs, f.outputs)).toBeUndefined();
    const { container: c } = render(<RunMessages run={runOf(f)} />);
    expect(screen.getByRole("note").textContent).toBe(UNRENDERED_REASON);
    expect(screen.getByLabelText("Inputs").textContent).toBe(pretty(f.inputs));
    expect(screen.getByLabelText("Outputs").textContent).toBe(pretty(f.outputs ?? null));
    expect(c.querySelector("article.msg")).toBeNull();
    expect(screen.queryByRole("button", { name: "Raw JSON" })).toBeNull();
  });

  it("shows an LLM run without messages raw, with a note", () => {
    render(<RunMessages run={runOf(fixture("openai-chat-tools"), { messages: null })} />);
    expect(screen.getByRole("note").textContent).toMatch(/no rendered messages/);
    expect(screen.getByLabelText("Inputs")).toBeDefined();
  });
});

describe("attachments moved out of the payload", () => {
  beforeEach(() => {
    sessionStorage.setItem("berth.session", JSON.stringify({ apiKey: "key-123", tenantId: "t-1" }));
  });

  it("are fetched with the session's key and shown from a blob: URL", async () => {
    const fetchMock = vi.fn(async () => new Response(new Blob([new Uint8Array([137, 80, 78, 71])], { type: "image/png" })));
    vi.stubGlobal("fetch", fetchMock);
    const created = vi.spyOn(URL, "createObjectURL").mockReturnValue("blob:http://localhost/abc");
    vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const messages: NativeMessage[] = [{ role: "user", content: [{ type: "image", url: "/tracing/runs/r1/attachments/image_0.png", id: "image_0.png", mime_type: "image/png" }] }];
    const { container: c } = render(<MessageList messages={messages} />);
    await waitFor(() => expect(c.querySelector("img")?.getAttribute("src")).toBe("blob:http://localhost/abc"));
    expect(created).toHaveBeenCalled();
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/tracing/runs/r1/attachments/image_0.png");
    expect((init.headers as Record<string, string>)["X-Api-Key"]).toBe("key-123");
    expect((init.headers as Record<string, string>)["X-Tenant-Id"]).toBe("t-1");
  });

  it("say so when they cannot be loaded", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response("no", { status: 404 })));
    const messages: NativeMessage[] = [{ role: "user", content: [{ type: "audio", url: "/tracing/runs/r1/attachments/a.wav", mime_type: "audio/wav" }] }];
    const { container: c } = render(<MessageList messages={messages} />);
    await waitFor(() => expect(c.textContent).toContain("could not be loaded (HTTP 404)"));
    expect(c.querySelector("audio")).toBeNull();
  });

  it("are not loaded from any other relative URL", () => {
    const fetchMock = vi.fn();
    vi.stubGlobal("fetch", fetchMock);
    const messages: NativeMessage[] = [{ role: "user", content: [{ type: "image", url: "/v2/keys" }] }];
    const { container: c } = render(<MessageList messages={messages} />);
    expect(c.querySelector("img")).toBeNull();
    expect(c.textContent).toContain("not shown");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("files download on demand", async () => {
    const fetchMock = vi.fn(async () => new Response(new Blob(["%PDF"], { type: "application/pdf" })));
    vi.stubGlobal("fetch", fetchMock);
    vi.spyOn(URL, "createObjectURL").mockReturnValue("blob:http://localhost/pdf");
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    const messages: NativeMessage[] = [{ role: "user", content: [{ type: "file", url: "/tracing/runs/r1/attachments/report.pdf", id: "report.pdf", mime_type: "application/pdf" }] }];
    render(<MessageList messages={messages} />);
    expect(fetchMock).not.toHaveBeenCalled();
    await act(async () => {
      fireEvent.click(screen.getByRole("button", { name: "Download report.pdf" }));
    });
    await waitFor(() => expect(clicked).toHaveBeenCalled());
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe("the script-injection fixture renders as text", () => {
  const f = fixture("script-injection");

  function assertInert(c: HTMLElement) {
    expect(c.querySelectorAll("script, iframe, object, embed, svg, style, link, meta, form, base")).toHaveLength(0);
    for (const [el, name, value] of attributes(c)) {
      expect(name.startsWith("on"), `<${el.tagName.toLowerCase()} ${name}>`).toBe(false);
      expect(/^\s*(javascript|vbscript|data:text)/i.test(value), `<${el.tagName.toLowerCase()} ${name}="${value}">`).toBe(false);
      if (name === "href" || name === "src") expect(value, `<${el.tagName.toLowerCase()} ${name}>`).toMatch(/^(https?:|data:(image|audio|video)\/|blob:)/);
    }
  }

  it("in the message view: no script, no handlers, no javascript: URLs, and the payload is visible", () => {
    const { container: c } = render(<RunMessages run={runOf(f)} />);
    assertInert(c);
    const text = c.textContent ?? "";
    for (const payload of [
      "<script>alert('xss-script')</script>",
      "<img src=x onerror=alert('xss-img')>",
      "click me",
      "<a href=\"javascript:alert(1)\">",
      "raw link",
      "<iframe src=\"javascript:alert('xss-iframe')\"></iframe>",
      "<svg onload=alert('xss-tool-result')>",
      "<img src=x onerror=alert('xss-toolname')>",
      "Done. <script>alert('xss-output')</script>",
      "javascript:alert('xss-image-url')",
      "javascript:alert('xss-file')",
      "javascript:alert('xss-cite')",
      "<b onmouseover=alert(1)>cite</b>",
    ])
      expect(text).toContain(payload);
    // the tool's arguments are shown as JSON text
    expect(byAttr(c, "data-call-id", "call_x")[0]!.querySelector('pre[aria-label="Arguments"]')?.textContent).toBe(pretty({ html: "<script>alert('xss-args')</script>" }));
    // the link whose target was refused keeps its text, without an href
    const dropped = [...c.querySelectorAll(".md-dropped")].map((e) => e.textContent);
    expect(dropped).toEqual(expect.arrayContaining(["click me", "[image: pic]"]));
    // the image with a script URL and the one with an HTML media type are not loaded
    expect(c.querySelectorAll("img")).toHaveLength(0);
    expect(c.querySelectorAll("video")).toHaveLength(0);
  });

  it("in the raw JSON view too", () => {
    const { container: c } = render(<RunMessages run={runOf(f)} />);
    fireEvent.click(screen.getByRole("button", { name: "Raw JSON" }));
    assertInert(c);
    expect(screen.getByLabelText("Inputs").textContent).toContain("<script>alert('xss-script')</script>");
  });

  it("with the reasoning and call views opened as well", () => {
    const { container: c } = render(<MessageList messages={normalise(f).messages} />);
    for (const d of c.querySelectorAll("details")) fireEvent.click(d.querySelector("summary")!);
    assertInert(c);
  });
});

/**
 * Generative UI (langgraph.json `ui`, `ui_config`) as on LangGraph Platform, with the fixture
 * project test/fixtures/generative-ui:
 * - a graph's `typedUi(config).push/delete` reach the SDK's `custom` stream and the `ui` state key
 *   (through `uiMessageReducer`), as `useStream` reads them;
 * - `POST /ui/{graph}` answers the `<link>`/`<script>` snippet `LoadExternalComponent` inserts;
 *   every file it names is served (content type, ETag, immutable), and the script is a classic
 *   browser script whose `__LGUI_<graph>.render` hands the component, built against the page's
 *   React and `ui_config.shared` packages, to the client's component store;
 * - unknown graphs and files, traversal and hostile names; a module that does not build (logged
 *   with file and esbuild's message, answered as such) leaves the other UIs and the API working;
 * - auth (the files are public, the snippet is not), `http.mount_prefix`, `http.disable_ui`, and
 *   the build cache under the data directory (reused while the sources are unchanged).
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import vm from "node:vm";
import { Client } from "@langchain/langgraph-sdk";
import pino from "pino";
import * as React from "react";
import * as JsxRuntime from "react/jsx-runtime";
import { renderToStaticMarkup } from "react-dom/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentServer, type AgentServerHandle } from "../../src/agent-server/server.js";
import type { Logger } from "../../src/shared/logging.js";
import { createTestDatabase, describeBackends, ROOT, testSettings, type Backend, type TestDatabase } from "../helpers/server.js";
import { tempProject } from "../helpers/projects.js";

const FIXTURE = path.join(ROOT, "test/fixtures/generative-ui");

interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

function capturingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino({ level: "info" }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  return { logger, lines };
}

interface Running {
  url: string;
  handle: AgentServerHandle;
  db: TestDatabase;
  lines: LogLine[];
}

function serverOn(backend: Backend, config: string, db?: () => TestDatabase) {
  const s = {} as Running;
  beforeAll(async () => {
    s.db = db?.() ?? (await createTestDatabase(backend));
    const { logger, lines } = capturingLogger();
    s.lines = lines;
    s.handle = await startAgentServer(testSettings(s.db, { configPath: path.join(FIXTURE, config) }), logger);
    s.url = s.handle.url!;
  });
  afterAll(async () => {
    await s.handle?.close(0);
    if (!db) await s.db?.drop();
  });
  return s;
}

const postComponent = (base: string, graph: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/ui/${graph}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

/** The URLs the snippet's `<link href>` and `<script src>` name. */
function referencedUrls(html: string): { css: string[]; js: string[] } {
  return {
    css: [...html.matchAll(/<link rel="stylesheet" href="([^"]+)" \/>/g)].map((m) => m[1]!),
    js: [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!),
  };
}

/**
 * Run a bundle as a browser would run a classic `<script>` (an ES module would not parse), with a
 * page that provides React and the shared package through the SDK's `LGUI_REQUIRE` and stores the
 * rendered component as `LoadExternalComponent`'s store does; then call its onload.
 */
function loadInPage(js: string, onload: string) {
  const requested: string[] = [];
  const responded: { shadowRootId: string; component: React.FunctionComponent<Record<string, unknown>> }[] = [];
  const appended: unknown[] = [];
  const page: Record<PropertyKey, unknown> = {
    document: {
      getElementById: (id: string) => (id === "child-shadow-1" ? { shadowRoot: { appendChild: (el: unknown) => appended.push(el) } } : null),
      createElement: (tag: string) => ({ tag }),
    },
    [Symbol.for("LGUI_REQUIRE")]: (name: string) => {
      requested.push(name);
      if (name === "react") return React;
      if (name === "react/jsx-runtime") return JsxRuntime;
      if (name === "@fixture/shared-widgets") return { badge: (text: string) => React.createElement("em", { className: "badge" }, text) };
      throw new Error(`Unknown module...: ${name}`);
    },
    [Symbol.for("LGUI_EXT_STORE")]: { respond: (shadowRootId: string, component: React.FunctionComponent<Record<string, unknown>>) => responded.push({ shadowRootId, component }) },
  };
  page.window = page;
  const context = vm.createContext(page);
  new vm.Script(js, { filename: "entrypoint.js" }).runInContext(context);
  vm.runInContext(onload.replace("{{shadowRootId}}", "child-shadow-1"), context);
  return { requested, responded, appended };
}

describeBackends("generative UI", (backend) => {
  const s = serverOn(backend, "langgraph.json");

  it("typedUi's messages reach the custom stream and the ui state key, reduced as useStream expects", async () => {
    const client = new Client({ apiUrl: s.url, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const chunks: { event: string; data: any }[] = [];
    for await (const c of client.runs.stream(thread.thread_id, "ui-agent", { input: { city: "Paris" }, streamMode: ["custom", "values"] })) chunks.push(c);
    const runId = chunks.find((c) => c.event === "metadata")!.data.run_id as string;
    const custom = chunks.filter((c) => c.event === "custom").map((c) => c.data);
    expect(custom.map((m) => [m.type, m.name ?? null])).toEqual([
      ["ui", "spinner"],
      ["ui", "weather"],
      ["ui", "weather"],
      ["remove-ui", null],
    ]);
    const [spinner, card, update, removal] = custom;
    expect(card).toMatchObject({ type: "ui", name: "weather", props: { city: "Paris", degrees: 20 }, metadata: { run_id: runId, id: "reply-Paris" } });
    expect(update).toMatchObject({ id: card.id, props: { degrees: 21 }, metadata: { merge: true, run_id: runId } });
    expect(removal).toEqual({ type: "remove-ui", id: spinner.id });

    // the reducer merged the update into the card and dropped the spinner
    const expected = [{ type: "ui", id: card.id, name: "weather", props: { city: "Paris", degrees: 21 }, metadata: expect.objectContaining({ merge: true, run_id: runId, id: "reply-Paris" }) }];
    const state = await client.threads.getState<{ ui: unknown[]; messages: { id: string }[] }>(thread.thread_id);
    expect(state.values.ui).toEqual(expected);
    expect(state.values.messages.map((m) => m.id)).toEqual(expect.arrayContaining(["reply-Paris"]));
    expect(chunks.filter((c) => c.event === "values").at(-1)!.data.ui).toEqual(expected);
  });

  it("POST /ui/{graph} answers the snippet LoadExternalComponent inserts; each file it names is served and renders the component", async () => {
    const resp = await postComponent(s.url, "ui-agent", { name: "weather", props: { city: "Oslo" } });
    expect(resp.status).toBe(200);
    expect(resp.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await resp.text();
    const { css, js } = referencedUrls(html);
    expect(css).toHaveLength(1);
    expect(js).toHaveLength(1);
    const host = new URL(s.url).host;
    expect(js[0]).toMatch(new RegExp(`^http://${host.replace(/[.]/g, "\\.")}/ui/ui-agent/entrypoint\\.[0-9a-f]{16}\\.js$`));
    const onload = /onload='([^']*)'/.exec(html)![1]!.replace(/&#34;/g, '"');
    expect(onload).toBe('__LGUI_ui_agent.render("weather", "{{shadowRootId}}")');

    const cssResp = await fetch(css[0]!);
    expect(cssResp.status).toBe(200);
    expect(cssResp.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(cssResp.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(await cssResp.text()).toContain("rgb(12, 34, 56)");

    const jsResp = await fetch(js[0]!);
    expect(jsResp.status).toBe(200);
    expect(jsResp.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(jsResp.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(jsResp.headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
    const source = await jsResp.text();
    expect(source).toContain("fixture-marker-7f3a");
    // React is the page's, not a second copy in the bundle
    expect(source).not.toMatch(/react\.production|__CLIENT_INTERNALS|ReactSharedInternals/);

    const page = loadInPage(source, onload);
    expect(page.requested).toEqual(expect.arrayContaining(["react", "react/jsx-runtime", "@fixture/shared-widgets"]));
    expect(page.responded).toHaveLength(1);
    expect(page.responded[0]!.shadowRootId).toBe("child-shadow-1");
    expect(page.appended).toEqual([{ tag: "div" }]);
    const markup = renderToStaticMarkup(React.createElement(page.responded[0]!.component, { city: "Oslo", degrees: 3 }));
    expect(markup).toBe('<div class="weather-card"><h3>Weather in Oslo</h3><p>3°C <em class="badge">fixture-marker-7f3a</em></p></div>');
  });

  it("revalidates with ETags: 304 for a current tag; the stable platform name is served too, with no-cache", async () => {
    const { js } = referencedUrls(await (await postComponent(s.url, "ui-agent", { name: "spinner" })).text());
    const first = await fetch(js[0]!);
    const etag = first.headers.get("etag")!;
    const again = await fetch(js[0]!, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    const stable = await fetch(`${s.url}/ui/ui-agent/entrypoint.js`);
    expect(stable.status).toBe(200);
    expect(stable.headers.get("cache-control")).toBe("no-cache");
    expect(stable.headers.get("etag")).toBe(etag);
    expect(await stable.text()).toBe(await first.text());
    expect((await fetch(`${s.url}/ui/ui-agent/entrypoint.js`, { headers: { "if-none-match": `W/${etag}` } })).status).toBe(304);
  });

  it("404 in the error shape for unknown graphs and files; traversal finds nothing; a bad body is a 422", async () => {
    const noGraph = await postComponent(s.url, "nope", { name: "weather" });
    expect(noGraph.status).toBe(404);
    expect(((await noGraph.json()) as { detail: string }).detail).toMatch(/graph "nope" has no generative UI/);
    const noFile = await fetch(`${s.url}/ui/ui-agent/other.js`);
    expect(noFile.status).toBe(404);
    expect(await noFile.json()).toEqual({ detail: 'the generative UI of graph "ui-agent" has no file "other.js"' });
    for (const p of ["/ui/ui-agent/..%2F..%2Fgraph.ts", "/ui/ui-agent/..%2Fui.tsx", "/ui/..%2Fui-agent/entrypoint.js", "/ui/ui-agent/%2E%2E", "/ui/ui-agent/../../package.json"]) {
      const r = await fetch(`${s.url}${p}`);
      expect(r.status, p).toBe(404);
      const text = await r.text();
      expect(text, p).not.toMatch(/defineProperty|"name": "berth"|typedUi/);
      expect(JSON.parse(text), p).toHaveProperty("detail");
    }
    const missingName = await postComponent(s.url, "ui-agent", { props: {} });
    expect(missingName.status).toBe(422);
    expect(((await missingName.json()) as { detail: unknown[] }).detail[0]).toMatchObject({ loc: ["body", "name"], type: "missing" });
  });

  it("the routes are in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags: string[] }>> };
    expect(doc.paths["/ui/{graph_id}"]?.post?.tags).toEqual(["UI"]);
    expect(doc.paths["/ui/{graph_id}/{file}"]?.get?.tags).toEqual(["UI"]);
  });

  it("a hostile component name stays inside the onload string (no markup, no early {{shadowRootId}})", async () => {
    const name = `x'><img src=y onerror=alert(1)>{{shadowRootId}}</script>"`;
    const html = await (await postComponent(s.url, "ui-agent", { name })).text();
    expect(html.match(/</g)).toHaveLength(3); // <link>, <script>, </script>: nothing from the name
    expect(html.indexOf("{{shadowRootId}}")).toBe(html.lastIndexOf("{{shadowRootId}}"));
    const onload = /onload='([^']*)'/.exec(html)![1]!.replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c)));
    const called = new Function("__LGUI_ui_agent", onload) as (g: { render: (n: string, id: string) => void }) => void;
    let got: string | undefined;
    called({ render: (n) => (got = n) });
    expect(got).toBe(name);
  });

  it("a module that does not build: logged with its file and esbuild's message, answered as such; the rest keeps working", async () => {
    const resp = await postComponent(s.url, "broken-ui", { name: "card" });
    expect(resp.status).toBe(500);
    const { detail } = (await resp.json()) as { detail: string };
    expect(detail).toContain("./broken-ui.tsx");
    expect(detail).toContain('broken-ui.tsx:2:45: Unexpected closing "span" tag does not match opening "div" tag');
    const logged = s.lines.find((l) => l.level >= 50 && l.graph === "broken-ui");
    expect(logged?.file).toBe(path.join(FIXTURE, "broken-ui.tsx"));
    expect(logged?.msg).toContain('Unexpected closing "span" tag');
    const file = await fetch(`${s.url}/ui/broken-ui/entrypoint.js`);
    expect(file.status).toBe(404);
    expect(((await file.json()) as { detail: string }).detail).toMatch(/did not build/);
    // the other graph's UI and the API are unaffected
    expect((await postComponent(s.url, "ui-agent", { name: "weather" })).status).toBe(200);
    expect((await fetch(`${s.url}/ok`)).status).toBe(200);
  });
});

describe("Tailwind in UI stylesheets [pglite]", () => {
  const s = serverOn("pglite", "langgraph.tailwind.json");

  async function builtCss(graph: string): Promise<string> {
    const resp = await postComponent(s.url, graph, { name: "alert" });
    expect(resp.status).toBe(200);
    const { css } = referencedUrls(await resp.text());
    expect(css).toHaveLength(1);
    const file = await fetch(css[0]!);
    expect(file.status).toBe(200);
    return file.text();
  }

  it("a stylesheet importing tailwindcss gets the utilities the components' class names use", async () => {
    const css = await builtCss("tailwind-ui");
    // the utilities of className="text-red-500 p-4", as rules (not just the @import passed through)
    expect(css).not.toContain('@import "tailwindcss"');
    expect(css).toMatch(/\.text-red-500\s*\{[^}]*color:\s*var\(--color-red-500\)/);
    expect(css).toMatch(/\.p-4\s*\{[^}]*padding:\s*calc\(var\(--spacing\)\s*\*\s*4\)/);
    expect(css).toMatch(/--color-red-500:/);
    // the project's own rules stay; utilities no component uses are not emitted
    expect(css).toContain("rgb(65, 43, 21)");
    expect(css).not.toMatch(/\.text-blue-900\s*\{/);
  });

  it("a stylesheet without Tailwind is bundled as before", async () => {
    const css = await builtCss("ui-agent");
    expect(css).toContain("rgb(12, 34, 56)");
    expect(css).not.toMatch(/--tw-|tailwindcss|\.p-4/);
  });

  it("a Tailwind error is reported as a build error, with its file", async () => {
    const resp = await postComponent(s.url, "broken-tailwind", { name: "card" });
    expect(resp.status).toBe(500);
    const { detail } = (await resp.json()) as { detail: string };
    expect(detail).toContain("broken-tailwind.css");
    expect(detail).toContain("no-such-utility-x9");
    expect(s.lines.some((l) => l.level >= 50 && l.graph === "broken-tailwind")).toBe(true);
    expect((await postComponent(s.url, "tailwind-ui", { name: "alert" })).status).toBe(200);
  });
});

describe("generative UI with custom auth under http.mount_prefix [pglite]", () => {
  const s = serverOn("pglite", "langgraph.auth.json");

  it("the snippet needs credentials; the files it names (under the prefix) are public", async () => {
    const anonymous = await postComponent(`${s.url}/api`, "ui-agent", { name: "weather" });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ detail: "Missing bearer token" });
    const resp = await postComponent(`${s.url}/api`, "ui-agent", { name: "weather" }, { authorization: "Bearer token-alice" });
    expect(resp.status).toBe(200);
    const { css, js } = referencedUrls(await resp.text());
    for (const url of [...css, ...js]) {
      expect(new URL(url).pathname).toMatch(/^\/api\/ui\/ui-agent\/entrypoint\.[0-9a-f]{16}\.(js|css)$/);
      const file = await fetch(url);
      expect(file.status).toBe(200);
      expect((await file.text()).length).toBeGreaterThan(0);
    }
    // public means the bundle's files only: other paths under /ui still ask for credentials
    expect((await fetch(`${s.url}/api/ui/nope/entrypoint.js`)).status).toBe(401);
    expect((await fetch(`${s.url}/ui/ui-agent/entrypoint.js`)).status).toBe(404);
  });
});

describe("http.disable_ui [pglite]", () => {
  const s = serverOn("pglite", "langgraph.disabled.json");

  it("serves no UI routes and builds nothing", async () => {
    expect((await postComponent(s.url, "ui-agent", { name: "weather" })).status).toBe(404);
    expect((await fetch(`${s.url}/ui/ui-agent/entrypoint.js`)).status).toBe(404);
    expect(existsSync(path.join(s.db.dataDir, "ui-cache"))).toBe(false);
    expect(s.lines.some((l) => /generative UI/.test(l.msg))).toBe(false);
  });
});

describe("the build cache [pglite]", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("pglite");
  });
  afterAll(() => db?.drop());

  async function bundleOnce(config: string): Promise<{ url: string; source: string; lines: LogLine[] }> {
    const { logger, lines } = capturingLogger();
    const handle = await startAgentServer(testSettings(db, { configPath: config }), logger);
    try {
      const { js } = referencedUrls(await (await postComponent(handle.url!, "ui-agent", { name: "card" })).text());
      return { url: new URL(js[0]!).pathname, source: await (await fetch(js[0]!)).text(), lines };
    } finally {
      await handle.close(0);
    }
  }

  it("reuses a build while the module and what it imports are unchanged, and rebuilds when one changes", async () => {
    const project = await tempProject({ "ui.tsx": `import { label } from "./label";\nexport default { card: () => <b>{label}</b> };\n`, "label.ts": `export const label = "first-label";\n` }, {
      "ui-agent": path.join(FIXTURE, "graph.ts:graph"),
    });
    try {
      const config = JSON.parse(await readFile(project.config, "utf8")) as Record<string, unknown>;
      await writeFile(project.config, JSON.stringify({ ...config, ui: { "ui-agent": "./ui.tsx" } }));
      const built = await bundleOnce(project.config);
      expect(built.source).toContain("first-label");
      expect(built.lines.some((l) => l.msg === "generative UI bundle built")).toBe(true);

      const reused = await bundleOnce(project.config);
      expect(reused.url).toBe(built.url);
      expect(reused.source).toBe(built.source);
      expect(reused.lines.some((l) => l.msg === "generative UI bundle ready (from the build cache)")).toBe(true);
      expect(reused.lines.some((l) => l.msg === "generative UI bundle built")).toBe(false);

      // an imported file changes: the cached bundle no longer counts
      await writeFile(path.join(project.dir, "label.ts"), `export const label = "second-label";\n`);
      const rebuilt = await bundleOnce(project.config);
      expect(rebuilt.source).toContain("second-label");
      expect(rebuilt.url).not.toBe(built.url);
      expect(rebuilt.lines.some((l) => l.msg === "generative UI bundle built")).toBe(true);
    } finally {
      await project.remove();
    }
  });
});

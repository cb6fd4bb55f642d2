/**
 * The generative-UI routes of LangGraph Platform:
 * - `POST /ui/{graph_id}` `{name, props?}` → the HTML the SDK's `LoadExternalComponent` inserts
 *   into a shadow root: a `<link>` per stylesheet and the `<script>` whose onload renders the
 *   named component (`{{shadowRootId}}` is left for the client to fill in);
 * - `GET /ui/{graph_id}/{file}` → a bundle file. Public, as on the platform (a `<script src>` sends
 *   no credentials); files are looked up by name in memory, never on disk.
 */
import type { Request, Response } from "express";
import { z } from "zod";
import { ApiError, NotFoundError } from "../../shared/errors.js";
import { SENT, type ApiRouter } from "../../shared/http.js";
import { isLocalHostname } from "../../shared/local-access.js";
import { globalNameOf, type UiAsset } from "./bundle.js";
import type { UiBundles } from "./bundles.js";

const IMMUTABLE = "public, max-age=31536000, immutable";

const CONTENT_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".woff2": "font/woff2",
};

const extOf = (name: string) => name.slice(name.lastIndexOf(".")).toLowerCase();

/** `&`, quotes and angle brackets as entities: safe inside a quoted attribute. */
const attr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A host header that is a host name or address with an optional port, nothing else. */
const HOST_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Where the browser fetches the files: this server as the request named it (the page that inserts
 * the snippet is on another origin), under the mount prefix. Like the platform: `http:` for a
 * local host, else protocol-relative (the page's scheme, https behind a TLS proxy).
 */
function assetBase(req: Request, graphId: string): string {
  const host = req.headers.host ?? "";
  if (!HOST_RE.test(host)) throw new ApiError(400, `the Host header ${JSON.stringify(host)} is not a host name: the UI's file URLs are built from it`);
  const hostname = host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : host.split(":")[0]!;
  const scheme = isLocalHostname(hostname) ? "http:" : "";
  return `${scheme}//${host}${req.baseUrl}/ui/${encodeURIComponent(graphId)}/`;
}

/** The snippet `LoadExternalComponent` expects. Braces in the name are escaped so the client's `{{shadowRootId}}` replacement hits the placeholder only. */
export function componentHtml(base: string, graphId: string, name: string, assets: UiAsset[]): string {
  const lines: string[] = [];
  for (const a of assets.filter((x) => extOf(x.name) === ".css")) lines.push(`<link rel="stylesheet" href="${attr(base + a.hashedName)}" />`);
  const js = assets.find((x) => extOf(x.name) === ".js");
  if (js) {
    const nameLiteral = JSON.stringify(name).replace(/[{}]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
    const onload = `${globalNameOf(graphId)}.render(${nameLiteral}, "{{shadowRootId}}")`;
    lines.push(`<script src="${attr(base + js.hashedName)}" onload='${attr(onload)}'></script>`);
  }
  return lines.join("\n");
}

const componentBody = z
  .object({
    name: z.string().min(1).describe("The component's name: a key of the UI module's default export"),
    props: z.record(z.string(), z.unknown()).optional().describe("The component's props (the client renders them; unused here)"),
  })
  .loose();

export function uiRoutes(router: ApiRouter, bundles: UiBundles): void {
  const tag = "UI";
  const noUi = (graphId: string) => new NotFoundError(`graph "${graphId}" has no generative UI (langgraph.json "ui" names: ${bundles.graphIds().map((g) => JSON.stringify(g)).join(", ") || "none"})`);

  router.add(
    {
      method: "post",
      path: "/ui/:graph_id",
      tag,
      summary: "The HTML that loads a generative UI component",
      body: componentBody,
      produces: "text/html",
      responses: { "200": "`<link>` and `<script>` tags for LoadExternalComponent", "404": "The graph has no UI", "500": "The graph's UI bundle does not build" },
    },
    async ({ params, body, req, res }) => {
      const graphId = params.graph_id!;
      const state = await bundles.get(graphId);
      if (!state) throw noUi(graphId);
      if (!state.ok) throw new ApiError(500, state.error.message);
      res.status(200).set({ "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" }).send(componentHtml(assetBase(req, graphId), graphId, body.name, state.assets));
      return SENT;
    },
  );

  router.add(
    {
      method: "get",
      path: "/ui/:graph_id/:file",
      tag,
      summary: "A file of a graph's generative UI bundle (public)",
      produces: "text/javascript",
      responses: { "200": "The file (content-addressed names are immutable)", "304": "Not modified", "404": "No such file" },
    },
    async ({ params, req, res }) => {
      const graphId = params.graph_id!;
      const file = params.file!;
      const state = await bundles.get(graphId);
      if (!state) throw noUi(graphId);
      if (!state.ok) throw new NotFoundError(`the generative UI of graph "${graphId}" did not build (see the server log): no file ${JSON.stringify(file)}`);
      const asset = state.assets.find((a) => a.hashedName === file || a.name === file);
      if (!asset) throw new NotFoundError(`the generative UI of graph "${graphId}" has no file ${JSON.stringify(file)}`);
      sendAsset(req, res, asset, asset.hashedName === file);
      return SENT;
    },
  );
}

function sendAsset(req: Request, res: Response, asset: UiAsset, immutable: boolean): void {
  const etag = `"${asset.sha256}"`;
  res.set({
    ETag: etag,
    // the stable name's content changes with the sources: revalidate it (a 304 while unchanged)
    "Cache-Control": immutable ? IMMUTABLE : "no-cache",
    "X-Content-Type-Options": "nosniff",
    // pages with Cross-Origin-Embedder-Policy may still load the files
    "Cross-Origin-Resource-Policy": "cross-origin",
  });
  const inm = req.headers["if-none-match"];
  if (inm && inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag || t.trim() === "*")) {
    res.status(304).end();
    return;
  }
  res.status(200).set("Content-Type", CONTENT_TYPES[extOf(asset.name)] ?? "application/octet-stream").end(asset.contents);
}

/**
 * Whether a request is for a UI bundle file (`GET /ui/{graph}/{file}` of a graph with a UI): such
 * requests skip authentication, as on the platform, since browsers fetch them from `<script src>`.
 */
export function isUiFileRequest(bundles: UiBundles, method: string, path: string): boolean {
  if (method !== "GET" && method !== "HEAD") return false;
  const m = /^\/ui\/([^/]+)\/[^/]+$/.exec(path);
  if (!m) return false;
  try {
    return bundles.has(decodeURIComponent(m[1]!));
  } catch {
    return false;
  }
}

/**
 * `/openapi.json` (generated from the route declarations) and `/docs` (Swagger UI, served from
 * the installed package, so it works offline). Paths are relative to wherever the router is
 * mounted, so an API under a prefix (e.g. `/tracing`) documents itself at `/tracing/docs`.
 */
import { createRequire } from "node:module";
import path from "node:path";
import express from "express";
import type { ApiRouter } from "./http.js";

const require = createRequire(import.meta.url);

export function mountDocs(app: express.Router, router: ApiRouter, info: { title: string; version: string; description?: string }): void {
  let built: Record<string, unknown> | undefined; // routes are fixed once mounted: build the document once
  app.get("/openapi.json", (req, res) => {
    const doc = (built ??= router.openapi(info));
    res.json(req.baseUrl ? { ...doc, servers: [{ url: req.baseUrl }] } : doc);
  });
  const uiDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
  app.use("/docs/assets", express.static(uiDir, { index: false }));
  app.get("/docs", (req, res) => {
    const base = req.baseUrl;
    res.type("html").send(`<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeHtml(info.title)} — API docs</title>
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: ${JSON.stringify(`${base}/openapi.json`)}, dom_id: "#ui" });</script>
</body></html>`);
  });
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

import { createRequire } from "node:module";
import path from "node:path";
import express from "express";
import { ApiRouter } from "../../../shared/http.js";
import type { AgentServerContext } from "../../context.js";
import { BERTH_VERSION, LANGGRAPH_VERSION } from "../../version.js";

const require = createRequire(import.meta.url);

export function metaRoutes(router: ApiRouter, ctx: AgentServerContext): void {
  const tag = "System";
  router.add({ method: "get", path: "/ok", tag, summary: "Liveness and database check" }, async () => {
    await ctx.pool.query("SELECT 1");
    return { ok: true };
  });
  router.add({ method: "get", path: "/info", tag, summary: "Server version and features" }, () => ({
    version: BERTH_VERSION,
    langgraph_js_version: LANGGRAPH_VERSION,
    context: "js",
    host: { kind: "berth", database: ctx.embedded ? "pglite" : "postgres", bus: ctx.bus.kind },
    flags: { assistants: true, crons: true, langsmith: false, langsmith_tracing_replicas: false, a2a: !ctx.config.disableA2a },
  }));
}

/** `/openapi.json` (generated from the route declarations) and `/docs` (Swagger UI, served locally). */
export function mountDocs(app: express.Express, router: ApiRouter, title: string): void {
  const doc = () => router.openapi({ title, version: BERTH_VERSION, description: "Berth agent server: LangGraph Platform compatible API" });
  app.get("/openapi.json", (_req, res) => {
    res.json(doc());
  });
  const uiDir = path.dirname(require.resolve("swagger-ui-dist/package.json"));
  app.use("/docs/assets", express.static(uiDir, { index: false }));
  app.get("/docs", (_req, res) => {
    res.type("html").send(`<!doctype html>
<html><head><meta charset="utf-8"><title>${title} — API docs</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>SwaggerUIBundle({ url: "/openapi.json", dom_id: "#ui" });</script>
</body></html>`);
  });
}

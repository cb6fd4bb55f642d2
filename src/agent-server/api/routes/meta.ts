import { ApiRouter } from "../../../shared/http.js";
import type { AgentServerContext } from "../../context.js";
import { BERTH_VERSION, LANGGRAPH_VERSION } from "../../version.js";

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
    auth: ctx.auth.describe(),
    flags: { assistants: true, crons: true, langsmith: false, langsmith_tracing_replicas: false, a2a: !ctx.config.disableA2a, mcp: !ctx.config.raw.http?.disable_mcp },
  }));
}

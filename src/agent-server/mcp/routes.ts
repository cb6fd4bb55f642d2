/**
 * `POST /mcp`: the MCP streamable HTTP transport of the official SDK, stateless as on the
 * LangGraph platform — no `Mcp-Session-Id`; each POST gets its own server and transport (a
 * stateless transport cannot be shared between clients: their JSON-RPC ids would collide), so any
 * process of the deployment answers any request. GET (a standalone event stream) and DELETE
 * (ending a session) have no meaning without sessions: 405, which MCP clients expect then.
 *
 * The SDK reads the body itself (bounded by the server's body limit), checks `Accept` and
 * `Content-Type`, and answers JSON-RPC errors for malformed messages. Answers are SSE with
 * keep-alive comments, so a long run does not look like an idle connection to a proxy.
 *
 * The SDK (with zod schemas and ajv of its own) is loaded on the first POST, not at startup: most
 * deployments never serve MCP, and loading it costs every process ~9 MB of resident memory
 * (issue 16: PGlite idle RSS). The first call waits for the import once (tens of ms).
 */
import type express from "express";
import type { AgentServerContext } from "../context.js";
import type { RunService } from "../runs/service.js";
import { jsonRpcError } from "./json-rpc-error.js";

type Handler = typeof import("./handler.js");

export function mountMcp(app: express.Express, ctx: AgentServerContext, runs: RunService): void {
  let loading: Promise<express.RequestHandler> | undefined;
  const handler = () => (loading ??= import("./handler.js").then((m: Handler) => m.mcpPostHandler(ctx, runs)));
  app.post("/mcp", async (req, res, next) => {
    let handle: express.RequestHandler;
    try {
      handle = await handler();
    } catch (err) {
      loading = undefined; // a failed import (say, a file missing mid-deploy) is tried again next time
      ctx.logger.error({ err }, "MCP request failed: the MCP SDK could not be loaded");
      res.status(500).json(jsonRpcError(-32603, "Internal error"));
      return;
    }
    return handle(req, res, next);
  });
  const notAllowed: express.RequestHandler = (_req, res) => {
    res.status(405).set("Allow", "POST").json(jsonRpcError(-32000, "Method not allowed: this MCP endpoint is stateless (no sessions); send requests with POST"));
  };
  app.all("/mcp", notAllowed);
}

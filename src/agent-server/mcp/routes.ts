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
 */
import type express from "express";
import { z } from "zod";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { authzOf } from "../auth/access.js";
import type { AgentServerContext } from "../context.js";
import type { RunService } from "../runs/service.js";
import { BERTH_VERSION } from "../version.js";
import { callTool } from "./call.js";
import { ToolCatalog } from "./catalog.js";

const anyToolCall = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: "2.0", error: { code, message }, id: null });

export function mountMcp(app: express.Express, ctx: AgentServerContext, runs: RunService, catalog = new ToolCatalog(ctx)): void {
  /** A failure of ours (the database, say) is logged here and answered -32603 without its internals. */
  const logged = async <T>(method: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof McpError) throw err;
      ctx.logger.error({ err, method }, "MCP request failed");
      throw new McpError(ErrorCode.InternalError, "internal error; see the server's log");
    }
  };
  app.post("/mcp", async (req, res) => {
    const authz = authzOf(ctx, res);
    const server = new Server({ name: "berth-agent-server", version: BERTH_VERSION }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => logged("tools/list", async () => ({ tools: await catalog.list(authz) })));
    // registered under a loose schema, so that the SDK's own check of the call answers malformed
    // params with -32602 (its generic parse would make them an internal error, -32603)
    server.setRequestHandler(anyToolCall, (request, extra) => {
      const { params } = CallToolRequestSchema.parse(request);
      return logged("tools/call", () => callTool(ctx, runs, catalog, { name: params.name, arguments: params.arguments, headers: req.headers, authz, signal: extra.signal }));
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      maxRequestBodySize: ctx.settings.maxBodyBytes,
      keepAliveMs: ctx.settings.heartbeatSeconds * 1000,
    });
    // closing the server aborts its handlers' signals: a tool call whose client left stops waiting
    res.on("close", () => void server.close().catch(() => undefined));
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch (err) {
      ctx.logger.error({ err }, "MCP request failed");
      if (!res.headersSent) res.status(500).json(jsonRpcError(ErrorCode.InternalError, "Internal error"));
      else res.end();
    }
  });
  const notAllowed: express.RequestHandler = (_req, res) => {
    res.status(405).set("Allow", "POST").json(jsonRpcError(-32000, "Method not allowed: this MCP endpoint is stateless (no sessions); send requests with POST"));
  };
  app.all("/mcp", notAllowed);
}

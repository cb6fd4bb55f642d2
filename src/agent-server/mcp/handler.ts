/**
 * The `POST /mcp` handler (see routes.ts, which loads this module on the first request): a server
 * and a stateless transport of the MCP SDK per request.
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
import { jsonRpcError } from "./json-rpc-error.js";

const anyToolCall = z.object({ method: z.literal("tools/call"), params: z.unknown().optional() });

export function mcpPostHandler(ctx: AgentServerContext, runs: RunService, catalog = new ToolCatalog(ctx)): express.RequestHandler {
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
  return async (req, res) => {
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
  };
}

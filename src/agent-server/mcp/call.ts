/**
 * A tool call: the assistant's graph runs once with the arguments as its input, and the call
 * answers what `/runs/wait` would. Without a thread the run is stateless (a temporary thread,
 * deleted afterwards), as on the LangGraph platform; with `X-Thread-Id` it runs on that thread
 * (created on first use), so a client that sends the header on every request holds a conversation.
 */
import type { IncomingHttpHeaders } from "node:http";
import { ErrorCode, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { ApiError } from "../../shared/errors.js";
import { isUuid } from "../../shared/http.js";
import { findUnstorable, MAX_REQUEST_DEPTH } from "../../shared/text.js";
import type { Authz } from "../auth/access.js";
import type { AgentServerContext } from "../context.js";
import type { RunService } from "../runs/service.js";
import type { ToolCatalog } from "./catalog.js";
import { invalidArgumentsText, toolErrorOf, toolResultOf } from "./tools.js";

/** The request header naming the thread tool calls run on. */
export const THREAD_HEADER = "x-thread-id";

export interface ToolCallRequest {
  name: string;
  arguments: Record<string, unknown> | undefined;
  headers: IncomingHttpHeaders;
  /** The caller's authorisation: which assistants it sees, `threads:create_run`, the user graphs see. */
  authz: Authz;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
}

/** The thread a request names, undefined for none; a malformed one is the client's error. */
export function threadOf(headers: IncomingHttpHeaders): string | undefined {
  const raw = headers[THREAD_HEADER];
  if (raw === undefined || raw === "") return undefined;
  if (typeof raw !== "string" || !isUuid(raw)) {
    throw new McpError(ErrorCode.InvalidParams, `the ${THREAD_HEADER} header must be a thread id (a UUID), got ${JSON.stringify(raw)}`);
  }
  return raw.toLowerCase();
}

export async function callTool(ctx: AgentServerContext, runs: RunService, catalog: ToolCatalog, req: ToolCallRequest): Promise<CallToolResult> {
  // an unknown tool is a protocol error (the MCP spec's example: -32602), unlike a failing one
  const assistant = await catalog.find(req.authz, req.name);
  if (!assistant) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.name}`);
  const threadId = threadOf(req.headers);
  const args = req.arguments ?? {};

  // bad arguments are a tool error the model can read and correct (MCP 2025-11-25), and start no run
  const unstorable = findUnstorable(args, MAX_REQUEST_DEPTH);
  if (unstorable) return toolErrorOf(invalidArgumentsText(req.name, `${["arguments", ...unstorable.path].join(".")} ${unstorable.msg}`));
  const invalid = (await catalog.check(assistant.graph_id))(args);
  if (invalid) return toolErrorOf(invalidArgumentsText(req.name, invalid));

  let run;
  try {
    run = await runs.create(
      threadId ?? null,
      {
        assistant_id: assistant.assistant_id,
        input: args,
        ...(threadId ? { if_not_exists: "create" as const } : {}),
      },
      req.headers,
      undefined,
      assistant,
      req.authz,
    );
  } catch (err) {
    // refused by the run rules (a busy thread under `reject`, say): the caller's to handle
    if (err instanceof ApiError && err.status < 500) return toolErrorOf(err.message);
    throw err;
  }
  const done = await runs.waitForDone(run.run_id, req.signal);
  if (req.signal.aborted) {
    // nobody can read a stateless run's result once its caller is gone; a thread's run goes on
    if (!threadId) await runs.cancel(null, run.run_id, "interrupt", false).catch(() => undefined);
    throw new McpError(ErrorCode.ConnectionClosed, "the client went away before the run ended");
  }
  return toolResultOf((await runs.result(run, done)).body);
}

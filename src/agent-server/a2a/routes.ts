/**
 * The A2A routes of the agent server: the JSON-RPC endpoint `POST /a2a/{assistant_id}` and the
 * agent cards. JSON-RPC errors are always HTTP 200 with the request's id; the body is read as text
 * here (not by the API's JSON parser) so that even unparseable JSON gets a JSON-RPC answer.
 *
 * Implemented so far, in the v0.3 dialect: message/send (blocking and not), message/stream,
 * tasks/get, tasks/cancel, tasks/resubscribe and the push notification configs (tasks are POSTed
 * to their configs when their run ends); the v1.0 method names for send, stream, get, cancel and
 * subscribe, the push-config methods and ListTasks, answered in v1 shapes. Cards come in the
 * shape `A2A-Version` asks for and describe the server's authentication; the extended card is
 * answered to authenticated callers only.
 */
import express, { type Request, type Response } from "express";
import type { AgentServerContext } from "../context.js";
import type { RunService } from "../runs/service.js";
import { BERTH_VERSION } from "../version.js";
import { ApiError } from "../../shared/errors.js";
import { authOf } from "../auth/index.js";
import { agentCardFor, cardDialectOf, publicBaseUrl, type CardDialect } from "./card.js";
import { A2AError, errorResponse, parseRequest, resultResponse, type Dialect, type Operation } from "./jsonrpc.js";
import { A2AService, inputModesOf } from "./service.js";
import { authzOf } from "../auth/access.js";
import { listQueryFromV1, normalizeV1Params, paramsFromV1, resultToV1, streamEventToV1 } from "./v1.js";

export function mountA2A(app: express.Express, ctx: AgentServerContext, runs: RunService, baseService = new A2AService(ctx, runs)): void {

  const card = async (req: Request, assistantIdOrGraph: string, dialect: CardDialect) => {
    const assistant = await ctx.assistants.get(assistantIdOrGraph);
    return agentCardFor({
      assistantId: assistant.assistant_id,
      name: assistant.name,
      description: assistant.description,
      graphId: assistant.graph_id,
      graphDescription: ctx.registry.specs.get(assistant.graph_id)?.description,
      baseUrl: publicBaseUrl(process.env.BERTH_PUBLIC_URL, {
        protocol: req.protocol,
        host: req.get("host"),
        forwardedProto: req.get("x-forwarded-proto"),
        forwardedHost: req.get("x-forwarded-host"),
      }),
      version: BERTH_VERSION,
      streaming: true,
      pushNotifications: true,
      inputModes: inputModesOf(assistant.metadata),
      auth: ctx.auth.describe(),
    }, dialect);
  };
  /** The card in the shape the client asks for with `A2A-Version` (caches keep one per version). */
  const sendCard = async (req: Request, res: Response, assistantIdOrGraph: string) => {
    const body = await card(req, assistantIdOrGraph, cardDialectOf(req.get("a2a-version")));
    res.vary("A2A-Version").json(body);
  };
  /**
   * The authenticated extended card: the card, for a caller the server's authenticator accepted.
   * Without authentication there is none: v0.3 answers AuthenticatedExtendedCardNotConfigured
   * (-32007); v1.0 requires UnsupportedOperation (-32004) when the card does not declare
   * `capabilities.extendedAgentCard` (spec §3.3.4), which it does not then.
   */
  const extendedCard = async (req: Request, res: Response, assistantId: string, dialect: Dialect) => {
    const auth = authOf(res);
    if (auth.mode === "none") {
      const why = "this server has no authentication configured, so it has no authenticated extended card";
      throw dialect === "v1" ? new A2AError("unsupportedOperation", why) : new A2AError("extendedCardNotConfigured", why);
    }
    // the authenticator let the request through; a user it marks unauthenticated does not get it
    if (!auth.user?.is_authenticated) throw new ApiError(401, "the authenticated extended card needs an authenticated caller");
    return card(req, assistantId, dialect === "v1" ? "v1" : "v0.3");
  };
  // The bare well-known card is the default assistant's: the one named, else the first graph's.
  const defaultAssistant = () => process.env.BERTH_A2A_DEFAULT_ASSISTANT ?? ctx.registry.graphIds()[0]!;

  app.get("/.well-known/agent-card.json", async (req, res) => {
    const id = typeof req.query.assistant_id === "string" && req.query.assistant_id ? req.query.assistant_id : defaultAssistant();
    await sendCard(req, res, id);
  });
  app.get("/a2a/:assistant_id", async (req, res) => {
    await sendCard(req, res, req.params.assistant_id!);
  });
  app.get("/a2a/:assistant_id/.well-known/agent-card.json", async (req, res) => {
    await sendCard(req, res, req.params.assistant_id!);
  });

  // A body the parser refuses (too large, bad charset) is still answered in JSON-RPC, not `{detail}`.
  const text = express.text({ type: () => true, limit: ctx.settings.maxBodyBytes });
  const readText = (req: Request, res: Response, next: () => void) =>
    text(req, res, (err?: unknown) => {
      if (!err) return next();
      const e = err as { type?: string; limit?: number; message?: string };
      const detail = e.type === "entity.too.large" ? `the request body is larger than the limit of ${e.limit} bytes` : `the request body could not be read: ${e.message}`;
      // the unread rest of the body cannot be skipped on this connection
      res.status(200).set("Connection", "close").json(errorResponse(null, new A2AError("invalidRequest", detail)));
    });

  app.post("/a2a/:assistant_id", readText, async (req, res) => {
    // tasks live on threads: custom auth decides whose they are (see A2AService.forRequest)
    const service = baseService.forRequest(authzOf(ctx, res));
    let body: unknown;
    let parseFailed = false;
    try {
      body = JSON.parse(typeof req.body === "string" ? req.body : "");
    } catch {
      parseFailed = true;
    }
    const request = parseRequest(body, parseFailed);
    if (!request.ok) {
      res.status(200).json(errorResponse(request.id, request.error));
      return;
    }
    try {
      const v1 = request.dialect === "v1";
      // v1: proto field names (`task_id`) and JSON names (`taskId`) alike, for every method
      const raw = v1 ? normalizeV1Params(request.params) : request.params;
      const params = v1 ? paramsFromV1(request.operation, raw) : raw;
      const assistantId = String(req.params.assistant_id);
      if (request.operation === "stream" || request.operation === "resubscribe") {
        const gone = new AbortController();
        res.on("close", () => gone.abort());
        const events =
          request.operation === "stream" ? service.stream(assistantId, params, gone.signal, request.dialect) : service.resubscribe(params, gone.signal);
        await streamJsonRpc(res, request.id, v1 ? mapStream(events, streamEventToV1) : events, ctx.settings.heartbeatSeconds);
        return;
      }
      const unary: Record<Exclude<Operation, "stream" | "resubscribe">, () => Promise<unknown>> = {
        send: () => service.send(assistantId, params, request.dialect),
        get: () => service.get(params),
        cancel: () => service.cancel(params),
        "push-set": () => service.setPush(params, request.dialect),
        "push-get": () => service.getPush(params),
        "push-list": () => service.listPush(params),
        "push-delete": () => service.deletePush(params),
        list: () => service.list(listQueryFromV1(raw)),
        "extended-card": () => extendedCard(req, res, assistantId, request.dialect),
      };
      const result = await unary[request.operation]();
      if (request.notification) {
        res.status(204).end();
        return;
      }
      res.status(200).json(resultResponse(request.id, v1 ? resultToV1(request.operation, result) : result));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw err; // answered like any unauthenticated request
      if (!(err instanceof A2AError)) ctx.logger.error({ err, method: request.method }, "A2A method failed");
      res.status(200).json(errorResponse(request.id, err));
    }
  });
}

async function* mapStream(events: AsyncGenerator<unknown>, f: (e: any) => unknown): AsyncGenerator<unknown> {
  for await (const e of events) yield f(e);
}

/**
 * Stream JSON-RPC responses as Server-Sent Events: one `data:` line of JSON per event (clients keep
 * only the last data line of an event), heartbeat comments while idle, and an error raised before
 * or during the stream sent as a final JSON-RPC error event.
 */
async function streamJsonRpc(res: Response, id: string | number | null, events: AsyncGenerator<unknown>, heartbeatSeconds: number): Promise<void> {
  const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    res.status(200).set({ "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", Connection: "keep-alive", "X-Accel-Buffering": "no" });
    res.flushHeaders();
  };
  const heartbeat = setInterval(() => started && res.write(": heartbeat\n\n"), heartbeatSeconds * 1000);
  try {
    for await (const result of events) {
      start();
      send(resultResponse(id, result));
    }
  } catch (err) {
    start();
    send(errorResponse(id, err));
  } finally {
    clearInterval(heartbeat);
    start();
    res.end();
  }
}

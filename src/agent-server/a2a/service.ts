/**
 * A2A methods on top of runs (v0.3 dialect): a task is one turn of a conversation, the context is
 * the thread, and each task is backed by a run created with the `enqueue` strategy — a message on a
 * busy context waits its turn. The state `tasks/get` returns is read from the run and the thread,
 * so it always matches what the run did.
 */
import { randomUUID } from "node:crypto";
import { v5 as uuidv5 } from "uuid";
import { z } from "zod";
import { isUuid } from "../../shared/http.js";
import type { AgentServerContext } from "../context.js";
import { hasMessagesKey } from "../graphs/schemas.js";
import type { RunService } from "../runs/service.js";
import { runEvents } from "../runs/stream.js";
import { deliverWebhook, webhookPolicy } from "../runs/webhooks.js";
import { outboundUrlProblem } from "../../shared/outbound.js";
import { A2AError, type Dialect } from "./jsonrpc.js";
import { taskToV1, type ListQuery } from "./v1.js";
import { ApiError } from "../../shared/errors.js";
import { authorizeThread, OPEN_AUTHZ, type Authz } from "../auth/access.js";
import { SqlBuilder } from "../storage/sql.js";
import type { Assistant } from "../storage/assistants.js";
import type { DoneMessage } from "../runs/channels.js";
import { isTerminal } from "../runs/rules.js";
import { TERMINAL_TASK_STATES, buildTask, contentText, taskStateOf, type A2AMessage, type TaskState } from "./tasks.js";

/** Namespace for thread ids of client-chosen contextIds that are not UUIDs. */
const CONTEXT_NAMESPACE = "3b3f8a2e-7c1d-5e8f-9a4b-2c6d0e1f3a5b";

export function threadIdForContext(contextId: string): string {
  return isUuid(contextId) ? contextId.toLowerCase() : uuidv5(contextId, CONTEXT_NAMESPACE);
}

/**
 * What A2A runs record: values for the final state, plus token chunks when the client streams
 * (working updates). A blocking message/send skips the per-token events it would never show.
 */
const STREAMED_MODES: ("values" | "messages-tuple")[] = ["values", "messages-tuple"];
const BLOCKING_MODES: "values"[] = ["values"];

const pushConfigSchema = z
  .object({
    url: z.url({ error: "must be an absolute URL" }),
    id: z.string().min(1).optional(),
    token: z.string().optional(),
    authentication: z.object({ schemes: z.array(z.string()), credentials: z.string().optional() }).loose().optional(),
  })
  .loose();
const partSchema = z.object({ kind: z.string() }).loose();
const messageSchema = z
  .object({
    kind: z.literal("message").optional(),
    messageId: z.string().min(1),
    role: z.enum(["user", "agent"]),
    parts: z.array(partSchema).min(1),
    contextId: z.string().min(1).optional(),
    taskId: z.string().min(1).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
const sendParamsSchema = z
  .object({
    message: messageSchema,
    configuration: z
      .object({
        blocking: z.boolean().optional(),
        historyLength: z.number().int().min(0).optional(),
        pushNotificationConfig: pushConfigSchema.optional(),
      })
      .loose()
      .optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .loose();
const taskQuerySchema = z.object({ id: z.string().min(1), historyLength: z.number().int().min(0).optional() }).loose();
const taskIdSchema = z.object({ id: z.string().min(1) }).loose();
const pushSetSchema = z.object({ taskId: z.string().min(1), pushNotificationConfig: pushConfigSchema }).loose();
const pushGetSchema = z.object({ id: z.string().min(1), pushNotificationConfigId: z.string().min(1).optional() }).loose();
const pushDeleteSchema = z.object({ id: z.string().min(1), pushNotificationConfigId: z.string().min(1) }).loose();

interface PushConfigRow {
  config_id: string;
  url: string;
  token: string | null;
  authentication: { schemes?: string[]; credentials?: string } | null;
  /** The dialect of the method that made it: what its notifications look like. */
  dialect: Dialect;
}

function parse<T>(schema: z.ZodType<T>, params: unknown): T {
  const r = schema.safeParse(params);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    throw new A2AError("invalidParams", `${issue.path.join(".") || "params"}: ${issue.message}`);
  }
  return r.data;
}

/** Media types an assistant takes unless its metadata says otherwise (`metadata.a2a.input_modes`). */
export const DEFAULT_INPUT_MODES = ["text/plain", "application/json"];

export function inputModesOf(metadata: Record<string, unknown>): string[] {
  const modes = (metadata.a2a as { input_modes?: unknown } | undefined)?.input_modes;
  return Array.isArray(modes) && modes.every((m) => typeof m === "string") ? (modes as string[]) : DEFAULT_INPUT_MODES;
}

function accepts(modes: string[], mimeType: string): boolean {
  const [type] = mimeType.split("/");
  return modes.some((m) => m === mimeType || m === "*/*" || m === `${type}/*`);
}

/**
 * The user's message as LangChain content: a plain string when it is all text, else content
 * blocks — text, data parts as JSON text, files as image/file blocks (by URL or base64). Parts
 * whose media type the assistant does not take are refused with -32005.
 */
export function userContent(parts: { kind: string; [k: string]: unknown }[], modes: string[]): string | Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  for (const part of parts) {
    if (part.kind === "text") {
      if (typeof part.text !== "string") throw new A2AError("invalidParams", "a text part needs a string `text`");
      blocks.push({ type: "text", text: part.text });
    } else if (part.kind === "data") {
      if (!accepts(modes, "application/json")) throw new A2AError("contentTypeNotSupported", "this agent does not take application/json (data) parts");
      if (typeof part.data !== "object" || part.data === null) throw new A2AError("invalidParams", "a data part needs an object `data`");
      blocks.push({ type: "text", text: JSON.stringify(part.data) });
    } else if (part.kind === "file") {
      const file = part.file as { uri?: string; bytes?: string; mimeType?: string; name?: string } | undefined;
      if (!file || (typeof file.uri !== "string" && typeof file.bytes !== "string")) {
        throw new A2AError("invalidParams", "a file part needs file.uri or file.bytes");
      }
      const mimeType = file.mimeType ?? "application/octet-stream";
      if (!accepts(modes, mimeType)) {
        throw new A2AError("contentTypeNotSupported", `this agent does not take ${mimeType} files (it takes ${modes.join(", ")})`);
      }
      blocks.push({
        type: mimeType.startsWith("image/") ? "image" : "file",
        ...(file.uri ? { url: file.uri } : { data: file.bytes }),
        mimeType,
        ...(file.name ? { metadata: { filename: file.name } } : {}),
      });
    } else {
      throw new A2AError("invalidParams", `unknown part kind "${part.kind}"`);
    }
  }
  return blocks.every((b) => b.type === "text") ? blocks.map((b) => b.text as string).join("\n") : blocks;
}

/**
 * Headers of a push notification: the config's token, and its credentials as `Authorization:
 * {scheme} {credentials}` (v1.0 §4.3.3; the v0.3 `authentication` means the same).
 */
export function pushHeaders(c: Pick<PushConfigRow, "token" | "authentication">): Record<string, string> {
  const scheme = c.authentication?.schemes?.[0];
  const credentials = c.authentication?.credentials;
  return {
    ...(c.token ? { "X-A2A-Notification-Token": c.token } : {}),
    ...(scheme && credentials ? { Authorization: `${scheme} ${credentials}` } : {}),
  };
}

interface TaskRow {
  task_id: string;
  context_id: string;
  thread_id: string;
  assistant_id: string;
  run_id: string;
  message: A2AMessage;
  canceled: boolean;
  created_at: Date;
  /** When the task row last changed (its cancel, or a resume's new run). */
  updated_at: Date;
}

export class A2AService {
  /** The caller's authorisation (custom auth): tasks live on threads, and threads are the user's. */
  private authz: Authz = OPEN_AUTHZ;

  constructor(
    private readonly ctx: AgentServerContext,
    private readonly runs: RunService,
  ) {}

  /** This service acting for one request's user: another user's tasks and contexts do not exist. */
  forRequest(authz: Authz): A2AService {
    if (!authz.active) return this;
    const scoped = Object.create(this) as A2AService;
    scoped.authz = authz;
    return scoped;
  }

  /** Custom auth's answer for the task's thread, as A2A errors (another user's task is "not found"). */
  private async authorizeTask(task: TaskRow, action: string): Promise<void> {
    try {
      await authorizeThread(this.ctx, this.authz, task.thread_id, action);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw new A2AError("taskNotFound", `no task ${task.task_id}`);
      throw err;
    }
  }

  private async findTask(taskId: string, action = "read"): Promise<TaskRow> {
    if (!isUuid(taskId)) throw new A2AError("taskNotFound", `no task ${taskId}`);
    const { rows } = await this.ctx.pool.query<TaskRow>("SELECT * FROM a2a_tasks WHERE task_id = $1", [taskId]);
    if (!rows[0]) throw new A2AError("taskNotFound", `no task ${taskId}`);
    await this.authorizeTask(rows[0], action);
    return rows[0];
  }

  /** Create a run for the caller; custom auth refusing the context is an A2A error, not a 500. */
  private async createRun(threadId: string, body: Parameters<RunService["create"]>[1], assistant: Assistant) {
    try {
      return await this.runs.create(threadId, body, {}, undefined, assistant, this.authz);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 403)) {
        throw new A2AError("invalidParams", `Failed to create run: ${err.status === 404 ? "context not found" : "forbidden"}`);
      }
      throw err;
    }
  }

  /** `message/send`: start a task (or resume one waiting for input) and, unless non-blocking, wait for it. */
  async send(assistantIdOrGraph: string, rawParams: unknown, dialect: Dialect = "v0.3") {
    const params = parse(sendParamsSchema, rawParams);
    await this.checkPushUrl(params.configuration?.pushNotificationConfig?.url);
    // a non-blocking sender may resubscribe later and would want the token updates
    const { task, stored } = await this.start(assistantIdOrGraph, params, dialect, params.configuration?.blocking === false);
    if (params.configuration?.blocking === false) {
      await stored;
      return this.view(task, params.configuration?.historyLength);
    }
    const [done] = await Promise.all([this.runs.waitForDone(task.run_id), stored]);
    return this.viewAfter(task, done, params.configuration?.historyLength);
  }

  /**
   * `message/stream`: the Task first, then status updates carrying the agent's text as it is
   * produced, then (on completion) the answer as an artifact, and a final status update. The final
   * state is read back like `tasks/get` reads it, so both always agree.
   */
  async *stream(assistantIdOrGraph: string, rawParams: unknown, signal: AbortSignal, dialect: Dialect = "v0.3"): AsyncGenerator<unknown> {
    const params = parse(sendParamsSchema, rawParams);
    await this.checkPushUrl(params.configuration?.pushNotificationConfig?.url);
    const { task, stored } = await this.start(assistantIdOrGraph, params, dialect, true);
    await stored;
    yield await this.view(task, params.configuration?.historyLength);
    yield* this.follow(task, -1, signal);
  }

  /** `tasks/resubscribe`: the task as it stands, then the rest of its updates. */
  async *resubscribe(rawParams: unknown, signal: AbortSignal): AsyncGenerator<unknown> {
    const params = parse(taskIdSchema, rawParams);
    const task = await this.findTask(params.id);
    yield await this.view(task);
    yield* this.follow(task, undefined, signal);
  }

  private async *follow(task: TaskRow, after: number | undefined, signal: AbortSignal): AsyncGenerator<unknown> {
    const ids = { taskId: task.task_id, contextId: task.context_id };
    const status = (state: TaskState, message?: A2AMessage, final = false) => ({
      kind: "status-update" as const,
      ...ids,
      status: { state, timestamp: new Date().toISOString(), ...(message ? { message } : {}) },
      final,
    });
    const { state: now } = await this.snapshot(task);
    // The stream that started the task (`after` -1) carries the run's events even when the run has
    // already ended (a fast agent can finish before the Task is sent): its reply token by token.
    if (after === -1 || (!TERMINAL_TASK_STATES.includes(now) && now !== "input-required")) {
      let working = now === "working";
      for await (const e of runEvents(this.ctx, task.run_id, { after, signal })) {
        if (e.event === "metadata" && !working) {
          working = true;
          yield status("working");
        } else if (e.event === "messages") {
          // messages-tuple: [chunk, metadata]; agent tokens become working updates with their text
          const [chunk] = JSON.parse(e.data) as [{ type?: string; content?: unknown; id?: string }];
          const text = contentText(chunk?.content);
          if (text && (chunk.type === "AIMessageChunk" || chunk.type === "ai")) {
            yield status("working", {
              kind: "message",
              messageId: chunk.id ?? randomUUID(),
              role: "agent",
              parts: [{ kind: "text", text }],
              ...ids,
            });
          }
        }
      }
      if (signal.aborted) return;
    }
    const final = await this.view(task);
    for (const artifact of final.artifacts ?? []) yield { kind: "artifact-update" as const, ...ids, artifact, lastChunk: true };
    yield { kind: "status-update" as const, ...ids, status: final.status, final: true };
  }

  /**
   * Create (or resume) the task and its run. The new task's row is written while the run starts:
   * `stored` settles when it is, and must be awaited before the task is looked up by id.
   */
  private async start(
    assistantIdOrGraph: string,
    params: z.infer<typeof sendParamsSchema>,
    dialect: Dialect,
    streamed = false,
  ): Promise<{ task: TaskRow; stored: Promise<void> }> {
    const streamMode = streamed ? STREAMED_MODES : BLOCKING_MODES;
    const { message } = params;
    const assistant = await this.ctx.assistants.get(assistantIdOrGraph).catch(() => {
      throw new A2AError("invalidParams", `unknown assistant "${assistantIdOrGraph}"`);
    });
    const graph = await this.ctx.registry.get(assistant.graph_id);
    if (!hasMessagesKey(graph)) {
      throw new A2AError("invalidParams", `graph "${assistant.graph_id}" has no \`messages\` in its state, so it cannot take A2A text messages`);
    }
    const content = userContent(message.parts, inputModesOf(assistant.metadata));

    let task: TaskRow;
    let stored: Promise<void> = Promise.resolve();
    if (message.taskId) {
      task = await this.findTask(message.taskId);
      if (message.contextId && message.contextId !== task.context_id) {
        throw new A2AError("invalidParams", `task ${task.task_id} belongs to context ${task.context_id}, not ${message.contextId}`);
      }
      const state = await this.stateOf(task);
      if (TERMINAL_TASK_STATES.includes(state)) {
        throw new A2AError("unsupportedOperation", `task ${task.task_id} is ${state}; send a new message without taskId to start another task`);
      }
      if (state !== "input-required") {
        throw new A2AError("unsupportedOperation", `task ${task.task_id} is ${state}; wait for it, or send a new message without taskId`);
      }
      // The reply resumes the graph where it stopped at interrupt().
      const run = await this.createRun(task.thread_id, {
        assistant_id: assistant.assistant_id,
        // a resume value is what interrupt() returns: the reply's text (or its blocks)
        command: { resume: content },
        multitask_strategy: "enqueue",
        stream_mode: streamMode,
        metadata: { a2a_task_id: task.task_id, a2a_context_id: task.context_id, thread_id: task.context_id },
      }, assistant);
      await this.ctx.pool.query("UPDATE a2a_tasks SET run_id = $2, updated_at = now() WHERE task_id = $1", [task.task_id, run.run_id]);
      task = { ...task, run_id: run.run_id };
    } else {
      const contextId = message.contextId ?? randomUUID();
      const threadId = threadIdForContext(contextId);
      const taskId = randomUUID();
      const run = await this.createRun(threadId, {
        assistant_id: assistant.assistant_id,
        input: { messages: [{ role: "user", content, id: message.messageId }] },
        multitask_strategy: "enqueue",
        stream_mode: streamMode,
        if_not_exists: "create",
        // the A2A context groups the conversation's runs in tracing, as the thread does
        metadata: { a2a_task_id: taskId, a2a_context_id: contextId, thread_id: contextId },
      }, assistant);
      const opening: A2AMessage = { ...(message as A2AMessage), kind: "message", contextId, taskId };
      const now = new Date();
      task = { task_id: taskId, context_id: contextId, thread_id: threadId, assistant_id: assistant.assistant_id, run_id: run.run_id, message: opening, canceled: false, created_at: now, updated_at: now };
      stored = this.ctx.pool
        .query(
          `INSERT INTO a2a_tasks (task_id, context_id, thread_id, assistant_id, run_id, message) VALUES ($1, $2, $3, $4, $5, $6)`,
          [taskId, contextId, threadId, assistant.assistant_id, run.run_id, JSON.stringify(opening)],
        )
        .then(() => undefined);
    }
    const push = params.configuration?.pushNotificationConfig;
    if (push) {
      await stored;
      await this.savePushConfig(task.task_id, push, dialect);
      // A run that ended before its config was saved was not announced: announce it now
      // (deliveries are at least once; a receiver may see a state twice).
      const ended = await this.ctx.runs.endState(task.run_id);
      if (ended && isTerminal(ended.status)) void this.notify(task.task_id);
    }
    return { task, stored };
  }

  async get(rawParams: unknown) {
    const params = parse(taskQuerySchema, rawParams);
    return this.view(await this.findTask(params.id), params.historyLength);
  }

  /**
   * `ListTasks` (v1): the tasks of the deployment, newest first, optionally of one context and in
   * one state; `pageToken` is the offset of the page.
   */
  async list(q: ListQuery) {
    const pageSize = q.pageSize ?? 50;
    const offset = q.pageToken ? Number.parseInt(q.pageToken, 10) : 0;
    if (!/^\d+$/.test(q.pageToken ?? "0") || !Number.isSafeInteger(offset)) throw new A2AError("invalidParams", "pageToken: not a token this server issued");
    // only tasks on threads the caller may see (custom auth's threads:search filters)
    const b = new SqlBuilder();
    b.and(`(${b.p(q.contextId ?? null)}::text IS NULL OR k.context_id = ${b.p(q.contextId ?? null)})`);
    if (this.authz.active) b.andAuth(await this.authz.check("threads", "search", { metadata: {} }), "t.metadata");
    const { rows } = await this.ctx.pool.query<TaskRow>(
      `SELECT k.* FROM a2a_tasks k JOIN threads t ON t.thread_id = k.thread_id ${b.whereSql()} ORDER BY k.created_at DESC, k.task_id`,
      b.params,
    );
    const views = [];
    for (const row of rows) {
      const v = await this.view(row, q.historyLength);
      if (q.state && v.status.state !== q.state) continue;
      if (q.statusTimestampAfter !== undefined && Date.parse(v.status.timestamp) < q.statusTimestampAfter) continue;
      if (!q.includeArtifacts) delete (v as { artifacts?: unknown }).artifacts;
      views.push(v);
    }
    const page = views.slice(offset, offset + pageSize);
    return {
      tasks: page,
      nextPageToken: offset + pageSize < views.length ? String(offset + pageSize) : "",
      pageSize,
      totalSize: views.length,
    };
  }

  /** `tasks/cancel`: stop the task's run (interrupt: progress is kept), or close a task waiting for input. */
  async cancel(rawParams: unknown) {
    const params = parse(taskIdSchema, rawParams);
    const task = await this.findTask(params.id);
    await this.authorizeTask(task, "update");
    const state = await this.stateOf(task);
    if (TERMINAL_TASK_STATES.includes(state)) throw new A2AError("taskNotCancelable", `task ${task.task_id} is already ${state}`);
    if (state === "submitted" || state === "working") await this.runs.cancel(task.thread_id, task.run_id, "interrupt", true);
    await this.ctx.pool.query("UPDATE a2a_tasks SET canceled = true, updated_at = now() WHERE task_id = $1", [task.task_id]);
    void this.notify(task.task_id);
    return this.view({ ...task, canceled: true, updated_at: new Date() });
  }

  // ---- push notifications ----------------------------------------------------------------------

  /** Refuse a push URL the outbound policy refuses now (checked again on delivery: DNS may change). */
  private async checkPushUrl(url: string | undefined): Promise<void> {
    if (!url) return;
    const problem = await outboundUrlProblem(url, webhookPolicy(this.ctx.settings));
    if (problem) throw new A2AError("invalidParams", `pushNotificationConfig.url not allowed: ${problem}`);
  }

  private async savePushConfig(taskId: string, cfg: z.infer<typeof pushConfigSchema>, dialect: Dialect) {
    // checked again on delivery: DNS may change in between
    await this.checkPushUrl(cfg.url);
    const id = cfg.id ?? randomUUID();
    await this.ctx.pool.query(
      `INSERT INTO a2a_push_configs (task_id, config_id, url, token, authentication, dialect) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (task_id, config_id) DO UPDATE SET url = excluded.url, token = excluded.token, authentication = excluded.authentication, dialect = excluded.dialect`,
      [taskId, id, cfg.url, cfg.token ?? null, cfg.authentication ? JSON.stringify(cfg.authentication) : null, dialect],
    );
    return { taskId, pushNotificationConfig: { ...cfg, id } };
  }

  private toConfig(taskId: string, row: PushConfigRow) {
    return {
      taskId,
      pushNotificationConfig: {
        id: row.config_id,
        url: row.url,
        ...(row.token ? { token: row.token } : {}),
        ...(row.authentication ? { authentication: row.authentication } : {}),
      },
    };
  }

  private async pushConfigs(taskId: string): Promise<PushConfigRow[]> {
    const { rows } = await this.ctx.pool.query<PushConfigRow>(
      "SELECT config_id, url, token, authentication, dialect FROM a2a_push_configs WHERE task_id = $1 ORDER BY created_at, config_id",
      [taskId],
    );
    return rows;
  }

  async setPush(rawParams: unknown, dialect: Dialect = "v0.3") {
    const params = parse(pushSetSchema, rawParams);
    const task = await this.findTask(params.taskId);
    return this.savePushConfig(task.task_id, params.pushNotificationConfig, dialect);
  }

  async getPush(rawParams: unknown) {
    const params = parse(pushGetSchema, rawParams);
    const task = await this.findTask(params.id);
    const rows = await this.pushConfigs(task.task_id);
    const row = params.pushNotificationConfigId ? rows.find((r) => r.config_id === params.pushNotificationConfigId) : rows[0];
    if (!row) throw new A2AError("invalidParams", `task ${task.task_id} has no push notification config${params.pushNotificationConfigId ? ` ${params.pushNotificationConfigId}` : ""}`);
    return this.toConfig(task.task_id, row);
  }

  async listPush(rawParams: unknown) {
    const params = parse(taskIdSchema, rawParams);
    const task = await this.findTask(params.id);
    return (await this.pushConfigs(task.task_id)).map((r) => this.toConfig(task.task_id, r));
  }

  async deletePush(rawParams: unknown) {
    const params = parse(pushDeleteSchema, rawParams);
    const task = await this.findTask(params.id);
    await this.ctx.pool.query("DELETE FROM a2a_push_configs WHERE task_id = $1 AND config_id = $2", [task.task_id, params.pushNotificationConfigId]);
    return null;
  }

  /**
   * POST the task, as it stands, to every push config of the task (with its token in
   * X-A2A-Notification-Token), retrying failed deliveries. Called when the task's run ends.
   */
  async notify(taskId: string): Promise<void> {
    try {
      const configs = await this.pushConfigs(taskId);
      if (configs.length === 0) return;
      const task = await this.findTask(taskId);
      const body = await this.view(task);
      await Promise.all(
        configs.map((c) =>
          deliverWebhook(c.url, c.dialect === "v1" ? { task: taskToV1(body) } : body, this.ctx.logger, {
            // v1.0 §4.3.3: the payload is a StreamResponse sent as application/a2a+json
            headers: { ...(c.dialect === "v1" ? { "content-type": "application/a2a+json" } : {}), ...pushHeaders(c) },
            policy: webhookPolicy(this.ctx.settings),
          }),
        ),
      );
    } catch (err) {
      this.ctx.logger.warn({ err, task_id: taskId }, "A2A push notification failed");
    }
  }

  private async runAndThread(task: TaskRow) {
    const { rows } = await this.ctx.pool.query<{
      run_status: string | null;
      run_error: { message?: string } | null;
      latest_run: string | null;
      thread_status: string;
      values: { messages?: { type?: string; content?: unknown; id?: string }[] } | null;
      interrupts: Record<string, { value?: unknown }[]>;
      run_changed_at: Date | null;
    }>(
      `SELECT r.status AS run_status, r.error AS run_error, t.status AS thread_status, t."values", t.interrupts,
         COALESCE(r.ended_at, r.started_at, r.created_at) AS run_changed_at,
         (SELECT run_id FROM runs l WHERE l.thread_id = t.thread_id ORDER BY seq DESC LIMIT 1) AS latest_run
       FROM threads t LEFT JOIN runs r ON r.run_id = $2 WHERE t.thread_id = $1`,
      [task.thread_id, task.run_id],
    );
    return rows[0];
  }

  private async stateOf(task: TaskRow): Promise<TaskState> {
    return (await this.snapshot(task)).state;
  }

  private async snapshot(task: TaskRow) {
    const row = await this.runAndThread(task);
    if (!row) throw new A2AError("taskNotFound", `the conversation of task ${task.task_id} was deleted`);
    let state: TaskState;
    // the status timestamp: when the state last changed (the cancel, or the run's last transition)
    const timestamp = task.canceled || !row.run_changed_at ? task.updated_at : row.run_changed_at;
    if (task.canceled) state = "canceled";
    else if (!row.run_status) state = "canceled"; // the run was rolled back
    else {
      const waiting = row.thread_status === "interrupted" && row.latest_run === task.run_id;
      state = taskStateOf(row.run_status as never, waiting);
    }
    return { state, row, timestamp: new Date(timestamp).toISOString() };
  }

  private async view(task: TaskRow, historyLength?: number) {
    const { state, row, timestamp } = await this.snapshot(task);
    const interrupts = Object.values(row?.interrupts ?? {}).flat().map((i) => i?.value);
    return this.render(task, state, row?.values?.messages ?? [], interrupts, row?.run_error?.message, timestamp, historyLength);
  }

  /**
   * The task right after its run ended, from the run's done message (final values, interrupts,
   * error) without reading the database again; falls back to `view` when the message lacks them.
   */
  private async viewAfter(task: TaskRow, done: DoneMessage, historyLength?: number) {
    const ended = ["success", "error", "timeout", "interrupted"].includes(done.status);
    if (!ended || done.output === undefined || task.canceled) return this.view(task, historyLength);
    const values = JSON.parse(done.output) as { messages?: { type?: string; content?: unknown; id?: string }[]; __interrupt__?: { value?: unknown }[] };
    const interrupts = (values.__interrupt__ ?? []).map((i) => i?.value);
    const state = taskStateOf(done.status as never, interrupts.length > 0);
    // the run has just ended: now is (within the write) its status timestamp
    return this.render(task, state, values.messages ?? [], interrupts, done.error?.message, new Date().toISOString(), historyLength);
  }

  private render(
    task: TaskRow,
    state: TaskState,
    messages: { type?: string; content?: unknown; id?: string }[],
    interruptValues: unknown[],
    errorMessage: string | undefined,
    timestamp: string,
    historyLength?: number,
  ) {
    // This task's turn: from its user message to the next message another task's user sent.
    const start = messages.findIndex((m) => m.id === task.message.messageId);
    let turn: { type?: string; content?: unknown; id?: string }[];
    if (start < 0) {
      turn = [{ type: "human", content: contentText(task.message.parts.map((p) => (p.kind === "text" ? { type: "text", text: p.text } : ""))), id: task.message.messageId }];
    } else {
      const next = messages.findIndex((m, i) => i > start && m.type === "human");
      turn = messages.slice(start, next < 0 ? undefined : next);
    }
    let statusText: string | undefined;
    if (state === "input-required") {
      statusText = interruptValues.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join("\n") || "input required";
    } else if (state === "failed") {
      statusText = errorMessage ?? "the run failed";
    }
    return buildTask({
      taskId: task.task_id,
      contextId: task.context_id,
      state,
      turn,
      statusText,
      timestamp,
      historyLength,
    });
  }

}

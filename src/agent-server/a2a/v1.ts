/**
 * The v1.0 dialect as translations (pure): v1 requests into the v0.3 shapes the service speaks,
 * and v0.3 results into v1 JSON (proto field names, `TASK_STATE_*` / `ROLE_*` enums, parts without
 * `kind`, streamed events wrapped as `{task}` / `{statusUpdate}` / `{artifactUpdate}` without
 * `final`, and `SendMessage` answering `{task}`).
 */
import { A2AError, type Operation } from "./jsonrpc.js";

type Json = Record<string, any>;

const STATE_V1: Record<string, string> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
  unknown: "TASK_STATE_UNSPECIFIED",
};

function partFromV1(part: Json): Json {
  if (typeof part?.text === "string") return { kind: "text", text: part.text, ...(part.metadata ? { metadata: part.metadata } : {}) };
  if (part?.data !== undefined) return { kind: "data", data: part.data };
  if (part?.url !== undefined || part?.raw !== undefined) return { kind: "file", file: { uri: part.url, bytes: part.raw, mimeType: part.mediaType, name: part.filename } };
  throw new A2AError("invalidParams", "a part needs text, data, url or raw");
}

function messageFromV1(m: Json): Json {
  if (!m || typeof m !== "object") throw new A2AError("invalidParams", "message: required");
  const role = m.role === "ROLE_AGENT" || m.role === 2 ? "agent" : "user";
  if (!Array.isArray(m.parts)) throw new A2AError("invalidParams", "message.parts: must be an array");
  return {
    kind: "message",
    messageId: m.messageId,
    role,
    parts: m.parts.map(partFromV1),
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
  };
}

/** v1 params of an operation → the v0.3 params the service reads. */
export function paramsFromV1(operation: Operation, params: Json): Json {
  // push configs: v1 is flat ({taskId, id, url, token}); v0.3 nests the config under the task id
  if (operation === "push-set") {
    const { taskId, tenant: _t, ...config } = params;
    return { taskId, pushNotificationConfig: config };
  }
  if (operation === "push-get" || operation === "push-delete") {
    return { id: params.taskId, ...(params.id ? { pushNotificationConfigId: params.id } : {}) };
  }
  if (operation === "push-list") return { id: params.taskId };
  if (operation === "send" || operation === "stream") {
    const c = params.configuration ?? {};
    return {
      message: messageFromV1(params.message),
      configuration: {
        // v1 replaced `blocking` with `returnImmediately` (default false = wait)
        ...(c.returnImmediately !== undefined ? { blocking: !c.returnImmediately } : {}),
        ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
      },
      ...(params.metadata ? { metadata: params.metadata } : {}),
    };
  }
  return params;
}

function partToV1(part: Json): Json {
  if (part.kind === "text") return { text: part.text };
  if (part.kind === "data") return { data: part.data };
  return { url: part.file?.uri, mediaType: part.file?.mimeType };
}

function messageToV1(m: Json | undefined): Json | undefined {
  if (!m) return undefined;
  return {
    messageId: m.messageId,
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    role: m.role === "agent" ? "ROLE_AGENT" : "ROLE_USER",
    parts: (m.parts ?? []).map(partToV1),
  };
}

function statusToV1(status: Json): Json {
  return { state: STATE_V1[status.state] ?? "TASK_STATE_UNSPECIFIED", ...(status.message ? { message: messageToV1(status.message) } : {}), ...(status.timestamp ? { timestamp: status.timestamp } : {}) };
}

function artifactToV1(a: Json): Json {
  return { artifactId: a.artifactId, ...(a.name ? { name: a.name } : {}), parts: a.parts.map(partToV1) };
}

export function taskToV1(task: Json): Json {
  return {
    id: task.id,
    contextId: task.contextId,
    status: statusToV1(task.status),
    ...(task.artifacts ? { artifacts: task.artifacts.map(artifactToV1) } : {}),
    ...(task.history ? { history: task.history.map(messageToV1) } : {}),
  };
}

/** One streamed v0.3 event as a v1 stream response. */
export function streamEventToV1(event: Json): Json {
  if (event.kind === "task") return { task: taskToV1(event) };
  if (event.kind === "status-update") return { statusUpdate: { taskId: event.taskId, contextId: event.contextId, status: statusToV1(event.status) } };
  if (event.kind === "artifact-update") {
    return { artifactUpdate: { taskId: event.taskId, contextId: event.contextId, artifact: artifactToV1(event.artifact), ...(event.lastChunk ? { lastChunk: true } : {}) } };
  }
  return event;
}

function pushConfigToV1(c: Json): Json {
  return { taskId: c.taskId, ...c.pushNotificationConfig };
}

const STATE_V03: Record<string, string> = Object.fromEntries(Object.entries(STATE_V1).map(([k, v]) => [v, k]));

/** A v1 `TASK_STATE_*` name (or its proto number) as a v0.3 state; undefined when absent. */
export function stateFromV1(state: unknown): string | undefined {
  if (state === undefined || state === null || state === "" || state === 0 || state === "TASK_STATE_UNSPECIFIED") return undefined;
  if (typeof state === "string") return STATE_V03[state];
  const byNumber = ["", "submitted", "working", "completed", "failed", "canceled", "input-required", "rejected", "auth-required"];
  return typeof state === "number" ? byNumber[state] || undefined : undefined;
}

/** A v0.3 result of an operation as its v1 result. */
export function resultToV1(operation: Operation, result: unknown): unknown {
  if (operation === "push-delete") return {};
  if (operation === "push-list") return { configs: (result as Json[]).map(pushConfigToV1), nextPageToken: "" };
  if (operation === "push-set" || operation === "push-get") return pushConfigToV1(result as Json);
  if (operation === "list") {
    const r = result as Json;
    return { ...r, tasks: (r.tasks as Json[]).map(taskToV1) };
  }
  if (result === null || typeof result !== "object") return result;
  if (operation === "send") return { task: taskToV1(result as Json) };
  if (operation === "get" || operation === "cancel") return taskToV1(result as Json);
  return result;
}

/** `ListTasks` params as the service's query (fields of the wrong type are ignored). */
export function listQueryFromV1(params: Json): { contextId?: string; state?: any; pageSize?: number; pageToken?: string; historyLength?: number } {
  const invalid = (field: string, why: string) => new A2AError("invalidParams", `${field}: ${why}`);
  const str = (field: string) => {
    const v = params[field];
    if (v === undefined || v === null || v === "") return undefined;
    if (typeof v !== "string") throw invalid(field, "must be a string");
    return v;
  };
  /** Integers in [min, max]; absent (or proto3's 0 default for pageSize) means the server default. */
  const int = (field: string, min: number, max: number) => {
    const v = params[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw invalid(field, `must be an integer from ${min} to ${max}`);
    return v;
  };
  const status = params.status;
  const state = stateFromV1(status);
  if (state === undefined && !(status === undefined || status === null || status === "" || status === 0 || status === "TASK_STATE_UNSPECIFIED")) {
    throw invalid("status", `unknown task state ${JSON.stringify(status)}`);
  }
  const pageSize = params.pageSize === 0 ? undefined : int("pageSize", 1, MAX_LIST_PAGE_SIZE);
  return { contextId: str("contextId"), state, pageSize, pageToken: str("pageToken"), historyLength: int("historyLength", 0, Number.MAX_SAFE_INTEGER) };
}

/** The largest ListTasks page (v1.0: "pageSize … must be between 1 and 100"). */
export const MAX_LIST_PAGE_SIZE = 100;

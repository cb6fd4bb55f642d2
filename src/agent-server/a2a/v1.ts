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

/** `Role` by its proto enum name or number; ROLE_UNSPECIFIED, a missing or any other value is refused. */
const ROLES: Record<string, "user" | "agent"> = { ROLE_USER: "user", "1": "user", ROLE_AGENT: "agent", "2": "agent" };

function messageFromV1(m: Json): Json {
  if (!m || typeof m !== "object") throw new A2AError("invalidParams", "message: required");
  const role = (typeof m.role === "string" || typeof m.role === "number") && Object.hasOwn(ROLES, String(m.role)) ? ROLES[String(m.role)] : undefined;
  if (!role) throw new A2AError("invalidParams", `message.role: must be ROLE_USER or ROLE_AGENT, got ${JSON.stringify(m.role ?? null)}`);
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

/**
 * A v1 `TaskPushNotificationConfig` (flat: `{taskId, id, url, token, authentication: {scheme,
 * credentials}}`) as a v0.3 `PushNotificationConfig` (`authentication: {schemes[], credentials}`).
 */
function pushConfigFromV1(c: unknown, field: string): Json {
  if (!c || typeof c !== "object" || Array.isArray(c)) throw new A2AError("invalidParams", `${field}: must be an object`);
  const { taskId: _task, tenant: _tenant, authentication, ...config } = c as Json;
  if (authentication === undefined || authentication === null) return config;
  if (typeof authentication !== "object" || typeof authentication.scheme !== "string" || authentication.scheme === "") {
    throw new A2AError("invalidParams", `${field}.authentication.scheme: must be a non-empty string`);
  }
  const { scheme, ...rest } = authentication as Json;
  return { ...config, authentication: { ...rest, schemes: [scheme] } };
}

/**
 * Fields whose values are free-form JSON (`google.protobuf.Struct` / `Value`): their keys are the
 * client's own and are never renamed.
 */
const FREE_FORM_FIELDS = new Set(["metadata", "data", "params", "header"]);

const lowerCamel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * v1 request params with every field under its lowerCamel JSON name. The protobuf JSON mapping
 * obliges a parser to accept the proto field name (`task_id`) as well as its JSON name (`taskId`)
 * for every field of every message; the JSON name is the proto name in lowerCamel, so one renaming
 * of keys (outside free-form `Struct` fields) covers every method. Both spellings of one field → -32602.
 */
export function normalizeV1Params(value: unknown, path = "params"): any {
  if (Array.isArray(value)) return value.map((v, i) => normalizeV1Params(v, `${path}[${i}]`));
  if (!value || typeof value !== "object") return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    const name = lowerCamel(key);
    if (Object.hasOwn(out, name)) throw new A2AError("invalidParams", `${path}.${name}: given twice (as ${name} and as its proto name)`);
    // defined, not assigned: a client's "__proto__"-like key stays a plain field
    Object.defineProperty(out, name, { value: FREE_FORM_FIELDS.has(name) ? v : normalizeV1Params(v, `${path}.${name}`), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** v1 params of an operation → the v0.3 params the service reads. */
export function paramsFromV1(operation: Operation, params: Json): Json {
  // push configs: v1 is flat ({taskId, id, url, token}); v0.3 nests the config under the task id
  if (operation === "push-set") return { taskId: params.taskId, pushNotificationConfig: pushConfigFromV1(params, "params") };
  if (operation === "push-get" || operation === "push-delete") {
    return { id: params.taskId, ...(params.id ? { pushNotificationConfigId: params.id } : {}) };
  }
  if (operation === "push-list") return { id: params.taskId };
  if (operation === "send" || operation === "stream") {
    const c = params.configuration ?? {};
    if (typeof c !== "object" || Array.isArray(c)) throw new A2AError("invalidParams", "configuration: must be an object");
    return {
      message: messageFromV1(params.message),
      configuration: {
        // v1 replaced `blocking` with `returnImmediately` (default false = wait)
        ...(c.returnImmediately !== undefined ? { blocking: !c.returnImmediately } : {}),
        ...(c.historyLength !== undefined ? { historyLength: c.historyLength } : {}),
        ...(c.acceptedOutputModes !== undefined ? { acceptedOutputModes: c.acceptedOutputModes } : {}),
        // the config is for the task this message creates (or continues): its taskId is not read
        ...(c.taskPushNotificationConfig != null
          ? { pushNotificationConfig: pushConfigFromV1(c.taskPushNotificationConfig, "configuration.taskPushNotificationConfig") }
          : {}),
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
  const { authentication, ...config } = c.pushNotificationConfig as Json;
  const auth = authentication as { schemes?: string[]; credentials?: string } | undefined;
  return {
    taskId: c.taskId,
    ...config,
    ...(auth ? { authentication: { scheme: auth.schemes?.[0] ?? "", ...(auth.credentials ? { credentials: auth.credentials } : {}) } } : {}),
  };
}

const STATE_V03: Record<string, string> = Object.fromEntries(Object.entries(STATE_V1).map(([k, v]) => [v, k]));

/** A v1 `TASK_STATE_*` name (or its proto number) as a v0.3 state; undefined when absent. */
export function stateFromV1(state: unknown): string | undefined {
  if (state === undefined || state === null || state === "" || state === 0 || state === "TASK_STATE_UNSPECIFIED") return undefined;
  if (typeof state === "string") return Object.hasOwn(STATE_V03, state) ? STATE_V03[state] : undefined;
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

export interface ListQuery {
  contextId?: string;
  state?: any;
  pageSize?: number;
  pageToken?: string;
  historyLength?: number;
  /** Only tasks whose status timestamp is at or after this instant (ms since the epoch). */
  statusTimestampAfter?: number;
  includeArtifacts: boolean;
}

/** RFC 3339 as protobuf JSON writes a `google.protobuf.Timestamp` ("Z" or an offset, optional fraction). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

/** `ListTasks` params (normalised) as the service's query; every invalid value is -32602. */
export function listQueryFromV1(params: Json): ListQuery {
  const invalid = (field: string, why: string) => new A2AError("invalidParams", `${field}: ${why}`);
  const str = (field: string) => {
    const v = params[field];
    if (v === undefined || v === null || v === "") return undefined;
    if (typeof v !== "string") throw invalid(field, "must be a string");
    return v;
  };
  /** Integers in [min, max]; absent means the server default (the fields are proto3 `optional`, so 0 is a value). */
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
  let after: number | undefined;
  const ts = params.statusTimestampAfter;
  if (ts !== undefined && ts !== null) {
    after = typeof ts === "string" && RFC3339.test(ts) ? Date.parse(ts) : Number.NaN;
    if (Number.isNaN(after)) throw invalid("statusTimestampAfter", 'must be an RFC 3339 timestamp such as "2025-10-27T10:00:00Z"');
  }
  const include = params.includeArtifacts;
  if (include !== undefined && include !== null && typeof include !== "boolean") throw invalid("includeArtifacts", "must be a boolean");
  return {
    contextId: str("contextId"),
    state,
    pageSize: int("pageSize", 1, MAX_LIST_PAGE_SIZE),
    pageToken: str("pageToken"),
    historyLength: int("historyLength", 0, Number.MAX_SAFE_INTEGER),
    statusTimestampAfter: after,
    // v1.0: "Defaults to false to reduce payload size"
    includeArtifacts: include === true,
  };
}

/** The largest ListTasks page (v1.0: "pageSize … must be between 1 and 100"). */
export const MAX_LIST_PAGE_SIZE = 100;

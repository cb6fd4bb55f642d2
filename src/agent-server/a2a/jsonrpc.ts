/**
 * The JSON-RPC 2.0 layer of the A2A endpoint, as pure functions: reading a request envelope,
 * choosing the protocol dialect, and shaping results and errors. No I/O here.
 *
 * Two dialects share one URL. v0.3 (slash method names, lowercase states, `kind` fields) is the
 * default; v1.0 (PascalCase method names) is chosen by the method family, as LangGraph's server
 * does. Errors always travel as a JSON-RPC error object with HTTP 200 and the request's `id`
 * echoed (`null` when it could not be read), with the spec's default messages word for word —
 * conformance suites match on them.
 */

import { findUnstorable, MAX_REQUEST_DEPTH } from "../../shared/text.js";

export type Dialect = "v0.3" | "v1";

/** What a method asks for, whichever dialect named it. */
export type Operation =
  | "send"
  | "stream"
  | "get"
  | "cancel"
  | "resubscribe"
  | "push-set"
  | "push-get"
  | "push-list"
  | "push-delete"
  | "extended-card"
  | "list";

const V03_METHODS: Record<string, Operation> = {
  "message/send": "send",
  "message/stream": "stream",
  "tasks/get": "get",
  "tasks/cancel": "cancel",
  "tasks/resubscribe": "resubscribe",
  "tasks/pushNotificationConfig/set": "push-set",
  "tasks/pushNotificationConfig/get": "push-get",
  "tasks/pushNotificationConfig/list": "push-list",
  "tasks/pushNotificationConfig/delete": "push-delete",
  "agent/getAuthenticatedExtendedCard": "extended-card",
};

const V1_METHODS: Record<string, Operation> = {
  SendMessage: "send",
  SendStreamingMessage: "stream",
  GetTask: "get",
  CancelTask: "cancel",
  SubscribeToTask: "resubscribe",
  CreateTaskPushNotificationConfig: "push-set",
  GetTaskPushNotificationConfig: "push-get",
  ListTaskPushNotificationConfigs: "push-list",
  DeleteTaskPushNotificationConfig: "push-delete",
  GetExtendedAgentCard: "extended-card",
  ListTasks: "list",
};

/** The A2A error codes with the spec's default messages (v0.3 `types.ts`). */
export const A2A_ERRORS = {
  parse: { code: -32700, message: "Invalid JSON payload" },
  invalidRequest: { code: -32600, message: "Request payload validation error" },
  methodNotFound: { code: -32601, message: "Method not found" },
  invalidParams: { code: -32602, message: "Invalid parameters" },
  internal: { code: -32603, message: "Internal error" },
  taskNotFound: { code: -32001, message: "Task not found" },
  taskNotCancelable: { code: -32002, message: "Task cannot be canceled" },
  pushNotSupported: { code: -32003, message: "Push Notification is not supported" },
  unsupportedOperation: { code: -32004, message: "This operation is not supported" },
  contentTypeNotSupported: { code: -32005, message: "Incompatible content types" },
  invalidAgentResponse: { code: -32006, message: "Invalid agent response" },
  extendedCardNotConfigured: { code: -32007, message: "Authenticated Extended Card not configured" },
} as const;

export type A2AErrorKind = keyof typeof A2A_ERRORS;

/**
 * An A2A error. `detail` says what exactly was wrong; it travels in `error.data.detail`, so the
 * `message` stays the spec's default.
 */
export class A2AError extends Error {
  readonly code: number;
  readonly detail?: string;

  constructor(kind: A2AErrorKind, detail?: string) {
    super(detail ? `${A2A_ERRORS[kind].message}: ${detail}` : A2A_ERRORS[kind].message);
    this.name = "A2AError";
    this.code = A2A_ERRORS[kind].code;
    this.detail = detail;
  }

  toJson(): JsonRpcErrorObject {
    const base = Object.values(A2A_ERRORS).find((e) => e.code === this.code)!;
    return { code: this.code, message: base.message, ...(this.detail ? { data: { detail: this.detail } } : {}) };
  }
}

export type JsonRpcId = string | number | null;

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface ParsedRequest {
  ok: true;
  id: JsonRpcId;
  /** A request without an `id` member: the client wants no answer. */
  notification: boolean;
  method: string;
  operation: Operation;
  dialect: Dialect;
  params: Record<string, unknown>;
}

export interface RejectedRequest {
  ok: false;
  id: JsonRpcId;
  error: A2AError;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A usable id, or undefined when the member is absent; `false` when it has a type JSON-RPC forbids. */
function readId(body: Record<string, unknown>): JsonRpcId | undefined | false {
  if (!("id" in body)) return undefined;
  const id = body.id;
  if (id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) return id;
  return false;
}

/**
 * Read a JSON-RPC request. `body` is the parsed JSON, or `parseFailed` when the text was not JSON.
 * The dialect follows the method's family (slash names → v0.3, PascalCase → v1).
 */
export function parseRequest(body: unknown, parseFailed = false): ParsedRequest | RejectedRequest {
  if (parseFailed) return { ok: false, id: null, error: new A2AError("parse") };
  if (!isObject(body)) {
    return { ok: false, id: null, error: new A2AError("invalidRequest", "the request must be a JSON object (batches are not supported)") };
  }
  const id = readId(body);
  if (id === false) return { ok: false, id: null, error: new A2AError("invalidRequest", "id must be a string, a number or null") };
  const echo = id ?? null;
  if (body.jsonrpc !== "2.0") return { ok: false, id: echo, error: new A2AError("invalidRequest", 'jsonrpc must be "2.0"') };
  if (typeof body.method !== "string" || body.method === "") {
    return { ok: false, id: echo, error: new A2AError("invalidRequest", "method must be a non-empty string") };
  }
  const method = body.method;
  // own properties only: "constructor" or "__proto__" are not methods
  const v03 = Object.hasOwn(V03_METHODS, method) ? V03_METHODS[method] : undefined;
  const v1 = Object.hasOwn(V1_METHODS, method) ? V1_METHODS[method] : undefined;
  if (!v03 && !v1) return { ok: false, id: echo, error: new A2AError("methodNotFound", `unknown method "${method}"`) };
  if (body.params !== undefined && !isObject(body.params)) {
    return { ok: false, id: echo, error: new A2AError("invalidParams", "params must be an object") };
  }
  const unstorable = findUnstorable(body.params, MAX_REQUEST_DEPTH);
  if (unstorable) {
    const field = ["params", ...unstorable.path].map((p) => (typeof p === "number" ? `[${p}]` : `.${p}`)).join("").slice(1);
    return { ok: false, id: echo, error: new A2AError("invalidParams", `${field}: ${unstorable.msg}`) };
  }
  return {
    ok: true,
    id: echo,
    notification: id === undefined,
    method,
    operation: (v03 ?? v1)!,
    dialect: v03 ? "v0.3" : "v1",
    params: (body.params as Record<string, unknown> | undefined) ?? {},
  };
}

export function resultResponse(id: JsonRpcId, result: unknown) {
  return { jsonrpc: "2.0" as const, id, result };
}

export function errorResponse(id: JsonRpcId, error: A2AError | unknown) {
  const e = error instanceof A2AError ? error : new A2AError("internal");
  return { jsonrpc: "2.0" as const, id, error: e.toJson() };
}

/** The v1.0 method name of an operation (for answers in the v1 dialect and for docs). */
export function v1MethodOf(operation: Operation): string | undefined {
  return Object.entries(V1_METHODS).find(([, op]) => op === operation)?.[0];
}

/** The v0.3 method name of an operation; `list` has none (v1 only). */
export function v03MethodOf(operation: Operation): string | undefined {
  return Object.entries(V03_METHODS).find(([, op]) => op === operation)?.[0];
}

/**
 * Typed clients of the two APIs the console reads: the control plane (at the origin) and the
 * tracing facility (at /tracing). Types are generated from each API's OpenAPI document
 * (`npm run gen:api`), so a field renamed on the server fails the console's type check.
 * Every request carries the session's API key and tenant; a 401 ends the session.
 */
import createClient, { type Middleware } from "openapi-fetch";
import type { paths as ControlPlanePaths } from "./control-plane.gen";
import type { paths as TracingPaths } from "./tracing.gen";
import { readSession, endSession } from "./session-store";

/** An API answer that is not 2xx, in the APIs' documented `{detail}` shape. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
  ) {
    super(describeDetail(status, detail));
    this.name = "ApiError";
  }
}

function describeDetail(status: number, detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail))
    return detail
      .map((d) => (d && typeof d === "object" && "msg" in d ? `${Array.isArray((d as { loc?: unknown }).loc) ? `${((d as { loc: unknown[] }).loc).join(".")}: ` : ""}${String((d as { msg: unknown }).msg)}` : JSON.stringify(d)))
      .join("; ");
  return `request failed with status ${status}`;
}

const auth: Middleware = {
  onRequest({ request }) {
    const s = readSession();
    if (s?.apiKey) request.headers.set("X-Api-Key", s.apiKey);
    if (s?.tenantId) request.headers.set("X-Tenant-Id", s.tenantId);
    return request;
  },
  async onResponse({ response }) {
    if (response.ok) return response;
    const body = await response
      .clone()
      .json()
      .catch(() => undefined);
    if (response.status === 401 && readSession()) endSession("Your API key was not accepted. Sign in again.");
    throw new ApiError(response.status, body && typeof body === "object" && "detail" in body ? (body as { detail: unknown }).detail : undefined);
  },
};

export const controlPlane = createClient<ControlPlanePaths>({ baseUrl: "" });
controlPlane.use(auth);

export const tracing = createClient<TracingPaths>({ baseUrl: "/tracing" });
tracing.use(auth);

/** The data of an openapi-fetch answer (errors were thrown by the middleware). */
export function data<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined && result.response.status !== 204) throw new ApiError(result.response.status, result.error);
  return result.data as T;
}

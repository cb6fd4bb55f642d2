/**
 * One error model for every Berth component.
 *
 * Every error a client sees has the body `{"detail": ...}`: a string for most errors, and for schema
 * failures (HTTP 422) an array of `{loc, msg, type}` items, the shape of spec §2.8. Code throws an
 * `ApiError` (or a subclass); the HTTP layer renders it. Anything else that escapes is a bug and is
 * rendered as a 500 with a generic message (and logged with its stack).
 */
import type { z } from "zod";

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly detail: string | ValidationIssue[];
  /** Extra response headers, e.g. Retry-After. */
  readonly headers: Record<string, string>;

  constructor(status: number, detail: string | ValidationIssue[], headers: Record<string, string> = {}) {
    super(typeof detail === "string" ? detail : detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; "));
    this.name = "ApiError";
    this.status = status;
    this.detail = detail;
    this.headers = headers;
  }

  toBody(): { detail: string | ValidationIssue[] } {
    return { detail: this.detail };
  }
}

export class NotFoundError extends ApiError {
  constructor(detail: string) {
    super(404, detail);
    this.name = "NotFoundError";
  }
}

export class ConflictError extends ApiError {
  constructor(detail: string) {
    super(409, detail);
    this.name = "ConflictError";
  }
}

export class BadRequestError extends ApiError {
  constructor(detail: string) {
    super(400, detail);
    this.name = "BadRequestError";
  }
}

export class ValidationError extends ApiError {
  constructor(issues: ValidationIssue[]) {
    super(422, issues);
    this.name = "ValidationError";
  }

  /** A single-field validation error, for rules checked outside a zod schema. */
  static field(loc: (string | number)[], msg: string, type = "value_error"): ValidationError {
    return new ValidationError([{ loc, msg, type }]);
  }
}

/** Map zod issues to the `{loc, msg, type}` items of the 422 body. `where` is "body", "query" or "path". */
export function zodIssuesToValidation(where: string, error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => {
    const loc = [where, ...issue.path.map((p) => (typeof p === "symbol" ? String(p) : p))];
    // A required field that is absent reads as FastAPI/pydantic word it, which the reference API's
    // clients match on: {"type": "missing", "msg": "Field required"}.
    if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) return { loc, msg: "Field required", type: "missing" };
    return { loc, msg: issue.message, type: issue.code };
  });
}

/** True for errors raised by Postgres for a unique-constraint violation. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: string }).code === "23505";
}

/**
 * metav1.Status error bodies, the way kube-apiserver writes them.
 *
 * Every failure the fake answers is an `ApiError` carrying the HTTP code and a Status object
 * (`{kind:"Status",apiVersion:"v1",metadata:{},status:"Failure",message,reason,code,details}`).
 * Approximation: messages follow the apiserver's wording for the common cases (NotFound,
 * AlreadyExists, Conflict, Invalid) but are not byte-for-byte identical for every path.
 */

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: { type?: string; message?: string; field?: string }[];
}

/** The reason kube-apiserver puts next to each HTTP code. */
const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

export function reasonFor(code: number): string {
  return REASONS[code] ?? (code >= 500 ? "InternalError" : "Unknown");
}

export function statusBody(code: number, message: string, reason = reasonFor(code), details?: StatusDetails) {
  const body: Record<string, unknown> = {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    code,
  };
  if (details) body.details = details;
  return body;
}

export class ApiError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly reason = reasonFor(code),
    readonly details?: StatusDetails,
  ) {
    super(message);
  }

  get body() {
    return statusBody(this.code, this.message, this.reason, this.details);
  }
}

/** `deployments.apps` / `secrets`: how the apiserver names a resource in messages. */
export function qualified(plural: string, group: string): string {
  return group ? `${plural}.${group}` : plural;
}

export const notFound = (plural: string, group: string, name: string) =>
  new ApiError(404, `${qualified(plural, group)} "${name}" not found`, "NotFound", { name, group, kind: plural });

export const alreadyExists = (plural: string, group: string, name: string) =>
  new ApiError(409, `${qualified(plural, group)} "${name}" already exists`, "AlreadyExists", { name, group, kind: plural });

export const conflict = (plural: string, group: string, name: string) =>
  new ApiError(
    409,
    `Operation cannot be fulfilled on ${qualified(plural, group)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    "Conflict",
    { name, group, kind: plural },
  );

export const badRequest = (message: string) => new ApiError(400, message, "BadRequest");

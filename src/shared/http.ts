/**
 * A thin layer over express 5 that every Berth HTTP API uses: routes declared with zod schemas
 * (validated → 422 `{detail:[{loc,msg,type}]}`), an OpenAPI document generated from the same
 * declarations (requests and responses), JSON body parsing with clear 4xx errors, and the one error
 * renderer. While tests run (vitest sets VITEST) every JSON answer is checked against its declared
 * response schema, so each API test is also a contract test of the document.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import type { Logger } from "./logging.js";
import { ApiError, ValidationError, zodIssuesToValidation } from "./errors.js";
import { findUnstorable, MAX_REQUEST_DEPTH } from "./text.js";
import { JsonText } from "./json-text.js";

/**
 * 422 naming the first string in a request part that Postgres cannot store (NUL, a lone surrogate):
 * one rule for every route of every API, before the schema, so no field can miss it.
 */
export function refuseUnstorable(where: "body" | "query" | "path", value: unknown): void {
  const found = findUnstorable(value, MAX_REQUEST_DEPTH);
  if (found) throw ValidationError.field([where, ...found.path], found.msg, "string_unstorable");
}
import { isDatabaseUnavailable } from "./db/unavailable.js";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface RouteSpec<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  method: Method;
  /** express-style path, e.g. `/threads/:thread_id`. */
  path: string;
  summary: string;
  tag: string;
  body?: B;
  query?: Q;
  /** Path parameters that must be UUIDs (checked before the handler: 422 naming the parameter). */
  uuidParams?: string[];
  /** Whether the body may be absent (treated as `{}`). */
  optionalBody?: boolean;
  /** Response description for the OpenAPI document. */
  responses?: Record<string, string>;
  /** Content type of the success response, for the OpenAPI document. */
  produces?: string;
  /**
   * The 2xx JSON body. Documented in the OpenAPI document (schemas with `.meta({ id })` become
   * named components) and, while tests run, checked against every answer of the handler.
   */
  response?: z.ZodType;
}

export interface HandlerContext<B, Q> {
  body: B;
  query: Q;
  params: Record<string, string>;
  req: Request;
  res: Response;
}

/** What a handler may return besides plain JSON: a status, headers, or "already sent". */
export class Reply {
  constructor(
    readonly status: number,
    readonly body?: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
  static noContent(): Reply {
    return new Reply(204);
  }
}
export const SENT = Symbol("sent");
/** A handler may answer a run's output, serialised once when it ended, as `JsonText` (json-text.ts). */
export { JsonText };

type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;
type Handler<B, Q> = (ctx: HandlerContext<B, Q>) => Promise<unknown> | unknown;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

interface Registered {
  spec: RouteSpec<z.ZodType | undefined, z.ZodType | undefined>;
  handler: Handler<any, any>;
}

export class ApiRouter {
  readonly routes: Registered[] = [];

  add<B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
    spec: RouteSpec<B, Q>,
    handler: Handler<Infer<B>, Infer<Q>>,
  ): void {
    this.routes.push({ spec: spec as RouteSpec<z.ZodType | undefined, z.ZodType | undefined>, handler });
  }

  mount(app: express.Router): void {
    for (const { spec, handler } of this.routes) {
      app[spec.method](spec.path, async (req: Request, res: Response) => {
        const params = req.params as Record<string, string>;
        refuseUnstorable("path", params);
        refuseUnstorable("query", req.query);
        if (req.body !== undefined) refuseUnstorable("body", req.body);
        for (const name of spec.uuidParams ?? []) {
          if (!isUuid(params[name] ?? "")) {
            throw ValidationError.field(["path", name], `must be a UUID, got ${JSON.stringify(params[name])}`, "uuid_parsing");
          }
        }
        let body: unknown = undefined;
        if (spec.body) {
          const raw = req.body === undefined && spec.optionalBody ? {} : req.body;
          if (raw === undefined) {
            throw ValidationError.field(["body"], "a JSON body is required", "missing");
          }
          const parsed = spec.body.safeParse(raw);
          if (!parsed.success) throw new ValidationError(zodIssuesToValidation("body", parsed.error));
          body = parsed.data;
        }
        let query: unknown = undefined;
        if (spec.query) {
          const parsed = spec.query.safeParse(req.query);
          if (!parsed.success) throw new ValidationError(zodIssuesToValidation("query", parsed.error));
          query = parsed.data;
        }
        const result = await handler({ body, query, params, req, res });
        if (result === SENT || res.headersSent) return;
        if (result instanceof JsonText) {
          if (process.env.VITEST) checkResponse(spec, JSON.parse(result.text));
          // as res.json would answer the same value, without a second pass over it
          res.status(200).set("Content-Type", "application/json; charset=utf-8").send(result.text);
          return;
        }
        if (result instanceof Reply) {
          if (result.body !== undefined && result.status < 300) checkResponse(spec, result.body);
          res.status(result.status).set(result.headers);
          if (result.body === undefined) res.end();
          else res.json(result.body);
          return;
        }
        checkResponse(spec, result ?? null);
        res.json(result ?? null);
      });
    }
  }

  /** OpenAPI 3.1 document generated from the declared zod schemas. */
  openapi(info: { title: string; version: string; description?: string }): Record<string, unknown> {
    const components = new SchemaComponents();
    const paths: Record<string, Record<string, unknown>> = {};
    for (const { spec } of this.routes) {
      const oaPath = spec.path.replace(/:([A-Za-z_]+)/g, "{$1}");
      const pathParams = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: spec.uuidParams?.includes(m[1]!) ? { type: "string", format: "uuid" } : { type: "string" },
      }));
      const queryParams = spec.query ? queryParameters(spec.query) : [];
      const declared = spec.responses ?? { "200": "Success" };
      // the response schema documents the first success code (201 for a create, 200 otherwise)
      const successCode = Object.keys(declared).find((c) => c.startsWith("2"));
      const op: Record<string, unknown> = {
        summary: spec.summary,
        tags: [spec.tag],
        operationId: `${spec.method}${oaPath.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
        parameters: [...pathParams, ...queryParams],
        responses: {
          ...Object.fromEntries(
            Object.entries(declared).map(([code, description]) => {
              if (code === successCode && spec.response) return [code, { description, content: { "application/json": { schema: components.schema(spec.response, "output") } } }];
              if (code.startsWith("2")) return [code, spec.produces ? { description, content: { [spec.produces]: {} } } : { description }];
              const error = code === "422" ? "HTTPValidationError" : "ErrorDetail";
              return [code, { description, content: { "application/json": { schema: { $ref: `#/components/schemas/${error}` } } } }];
            }),
          ),
          ...(spec.body || spec.query || spec.uuidParams?.length
            ? { "422": { description: "Validation error", content: { "application/json": { schema: { $ref: "#/components/schemas/HTTPValidationError" } } } } }
            : {}),
        },
      };
      if (spec.body) {
        op.requestBody = {
          required: !spec.optionalBody,
          content: { "application/json": { schema: components.schema(spec.body, "input") } },
        };
      }
      (paths[oaPath] ??= {})[spec.method] = op;
    }
    return {
      openapi: "3.1.0",
      info,
      paths,
      components: { schemas: components.all() },
    };
  }
}

/** The error bodies every API shares, named in every document. */
const ERROR_SCHEMAS: Record<string, Record<string, unknown>> = {
  HTTPValidationError: {
    type: "object",
    required: ["detail"],
    properties: {
      detail: {
        type: "array",
        items: {
          type: "object",
          required: ["loc", "msg", "type"],
          properties: {
            loc: { type: "array", items: { anyOf: [{ type: "string" }, { type: "integer" }] } },
            msg: { type: "string" },
            type: { type: "string" },
          },
        },
      },
    },
  },
  ErrorDetail: { type: "object", required: ["detail"], properties: { detail: { type: "string" } } },
};

/**
 * The named schemas of one OpenAPI document. zod extracts every schema with an `id` into `$defs`;
 * those become `components.schemas` and their references point there. A name must mean one JSON
 * Schema in a document: a schema used both as a request (input) and a response (output) that
 * converts differently needs two ids.
 */
class SchemaComponents {
  private readonly named = new Map<string, { json: string; schema: Record<string, unknown> }>();

  constructor() {
    for (const [name, schema] of Object.entries(ERROR_SCHEMAS)) this.named.set(name, { json: JSON.stringify(schema), schema });
  }

  /** The JSON Schema of `schema` for this document: named parts as `$ref`s to the components. */
  schema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
    const { $defs, ...root } = toJsonSchema(schema, io) as { $defs?: Record<string, Record<string, unknown>> };
    for (const [name, def] of Object.entries($defs ?? {})) {
      // zod names an unnamed recursive schema `__schema0`…: those names would collide across schemas
      if (name.startsWith("__schema")) throw new Error(`a recursive schema needs a name: give it .meta({ id: "…" }) (in ${JSON.stringify(def).slice(0, 120)}…)`);
      const resolved = toComponentRefs(def) as Record<string, unknown>;
      const json = JSON.stringify(resolved);
      const seen = this.named.get(name);
      if (seen && seen.json !== json) {
        throw new Error(`schema "${name}" has two different JSON Schemas in one document (a request and a response, or two schemas with one id): give them different ids`);
      }
      this.named.set(name, { json, schema: resolved });
    }
    const out = toComponentRefs(root) as Record<string, unknown>;
    if (JSON.stringify(out).includes('"$ref":"#"')) throw new Error("a recursive schema needs a name: give it .meta({ id: \"…\" })");
    return out;
  }

  /** Every named schema, sorted by name (a stable document for generated types). */
  all(): Record<string, Record<string, unknown>> {
    return Object.fromEntries([...this.named.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, { schema }]) => [name, schema]));
  }
}

function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? `#/components/schemas/${v.slice("#/$defs/".length)}` : toComponentRefs(v)]),
  );
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  // OpenAPI 3.1 schema objects are JSON Schema 2020-12 (`type: [.., "null"]`, numeric exclusiveMinimum),
  // not the 3.0 dialect (`nullable`, boolean exclusiveMinimum).
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/**
 * Tests only (vitest sets VITEST): a handler's answer must match the route's declared response
 * schema, or the request fails with a 500 naming the mismatch. The answer is checked as the client
 * receives it (after JSON serialisation), and keys the schema does not declare count as mismatches
 * (a strip-mode zod object would silently drop them, but the document says they are not there).
 */
function checkResponse(spec: RouteSpec<z.ZodType | undefined, z.ZodType | undefined>, body: unknown): void {
  if (!spec.response || !process.env.VITEST) return;
  const problems = responseProblems(spec.response, body);
  if (!problems.length) return;
  console.error(`${spec.method.toUpperCase()} ${spec.path}: the response does not match its documented schema:\n  ${problems.join("\n  ")}`);
  throw new ApiError(500, `response does not match its documented schema: ${problems.slice(0, 5).join("; ")}${problems.length > 5 ? `; … (${problems.length} problems)` : ""}`);
}

/** Where `body` (as sent on the wire) departs from `schema`: zod's issues and undeclared keys. */
export function responseProblems(schema: z.ZodType, body: unknown): string[] {
  const wire: unknown = body === undefined ? undefined : JSON.parse(JSON.stringify(body));
  const parsed = schema.safeParse(wire);
  const at = (path: PropertyKey[]) => (path.length ? path.map(String).join(".") : "(body)");
  if (!parsed.success) return parsed.error.issues.map((i) => `${at(i.path)}: ${i.message}`);
  const extra: string[] = [];
  const walk = (sent: unknown, kept: unknown, path: PropertyKey[]) => {
    if (Array.isArray(sent) && Array.isArray(kept)) sent.forEach((v, i) => walk(v, kept[i], [...path, i]));
    else if (sent && kept && typeof sent === "object" && typeof kept === "object") {
      for (const [k, v] of Object.entries(sent)) {
        // zod's parsed records never carry a "__proto__" key, though JSON (and so the answer) may
        if (k === "__proto__") continue;
        if (Object.hasOwn(kept, k)) walk(v, (kept as Record<string, unknown>)[k], [...path, k]);
        else extra.push(`${at([...path, k])}: not in the documented schema`);
      }
    }
  };
  walk(wire, parsed.data, []);
  return extra;
}

function queryParameters(schema: z.ZodType): Record<string, unknown>[] {
  const js = toJsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: "query",
    required: js.required?.includes(name) ?? false,
    schema: s,
  }));
}

/**
 * Body parsing: JSON, for `application/json` and `application/*+json` bodies; other content types
 * on a request with a body get 415. `text/plain` is read as JSON only where `textPlainAsJson` is
 * set (an agent server reachable from outside this machine, for browser tools that send it to
 * skip the CORS preflight): a plain-text POST is what any web page can send to a local server
 * without asking, so keyless local servers never take one.
 */
export function jsonBody(maxBytes: number, options: { textPlainAsJson?: boolean } = {}): express.RequestHandler[] {
  const types = ["application/json", "application/*+json", ...(options.textPlainAsJson ? ["text/plain"] : [])];
  return [jsonContentTypeOnly(options), express.json({ limit: maxBytes, type: types, strict: false })];
}

/** 415 for a request whose body is not JSON (see `jsonBody`). */
export function jsonContentTypeOnly(options: { textPlainAsJson?: boolean } = {}): express.RequestHandler {
  const accepted = options.textPlainAsJson ? /^(application\/([^;\s]+\+)?json|text\/plain)\s*(;|$)/i : /^application\/([^;\s]+\+)?json\s*(;|$)/i;
  return (req, _res, next) => {
    const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    const type = req.headers["content-type"];
    if (hasBody && !(type && accepted.test(type))) {
      next(new ApiError(415, type ? `unsupported content type "${type}": send application/json` : "the request has a body but no Content-Type: send application/json"));
      return;
    }
    next();
  };
}

/** Render every error in the one `{detail}` shape. Must be mounted last. */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      logger.warn({ err, path: req.path }, "error after the response started");
      res.end();
      return;
    }
    if (err instanceof ApiError) {
      res.status(err.status).set(err.headers).json(err.toBody());
      return;
    }
    const e = err as { type?: string; status?: number; message?: string; limit?: number };
    if (e?.type === "entity.parse.failed") {
      res.status(400).json({ detail: `the request body is not valid JSON: ${e.message}` });
      return;
    }
    if (e?.type === "entity.too.large") {
      res.status(413).json({ detail: `the request body is larger than the limit of ${e.limit} bytes` });
      return;
    }
    if (typeof e?.status === "number" && e.status >= 400 && e.status < 500) {
      res.status(e.status).json({ detail: e.message ?? "bad request" });
      return;
    }
    if (isDatabaseUnavailable(err)) {
      // Not a bug: the database is restarting or unreachable, and the pool reconnects by itself.
      logger.warn({ err: { message: e.message }, method: req.method, path: req.path }, "database unavailable");
      res.status(503).set("Retry-After", "1").json({ detail: "the database is unavailable right now; retry shortly" });
      return;
    }
    logger.error({ err, method: req.method, path: req.path }, "unhandled error");
    res.status(500).json({ detail: "internal server error" });
  };
}

export function notFoundHandler(req: Request, res: Response): void {
  res.status(404).json({ detail: `no route for ${req.method} ${req.path}` });
}

/** Where the app is mounted (`http.mount_prefix`, set by the server in front of it), for URLs a route names; "" at the root. */
export function mountPrefixOf(res: Response): string {
  const p = (res.locals as { mountPrefix?: unknown }).mountPrefix;
  return typeof p === "string" ? p : "";
}

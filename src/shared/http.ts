/**
 * A thin layer over express 5 that every Berth HTTP API uses: routes declared with zod schemas
 * (validated → 422 `{detail:[{loc,msg,type}]}`), an OpenAPI document generated from the same
 * declarations, JSON body parsing with clear 4xx errors, and the one error renderer.
 */
import express, { type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import type { Logger } from "./logging.js";
import { ApiError, ValidationError, zodIssuesToValidation } from "./errors.js";

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
        if (result instanceof Reply) {
          res.status(result.status).set(result.headers);
          if (result.body === undefined) res.end();
          else res.json(result.body);
          return;
        }
        res.json(result ?? null);
      });
    }
  }

  /** OpenAPI 3.1 document generated from the declared zod schemas. */
  openapi(info: { title: string; version: string; description?: string }): Record<string, unknown> {
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
      const op: Record<string, unknown> = {
        summary: spec.summary,
        tags: [spec.tag],
        operationId: `${spec.method}${oaPath.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
        parameters: [...pathParams, ...queryParams],
        responses: {
          ...Object.fromEntries(
            Object.entries(spec.responses ?? { "200": "Success" }).map(([code, description]) => [
              code,
              code.startsWith("2") && spec.produces
                ? { description, content: { [spec.produces]: {} } }
                : { description },
            ]),
          ),
          ...(spec.body || spec.query || spec.uuidParams?.length
            ? { "422": { description: "Validation error", content: { "application/json": { schema: { $ref: "#/components/schemas/HTTPValidationError" } } } } }
            : {}),
        },
      };
      if (spec.body) {
        op.requestBody = {
          required: !spec.optionalBody,
          content: { "application/json": { schema: toJsonSchema(spec.body, "input") } },
        };
      }
      (paths[oaPath] ??= {})[spec.method] = op;
    }
    return {
      openapi: "3.1.0",
      info,
      paths,
      components: {
        schemas: {
          HTTPValidationError: {
            type: "object",
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
          ErrorDetail: { type: "object", properties: { detail: { type: "string" } } },
        },
      },
    };
  }
}

function toJsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  // OpenAPI 3.1 schema objects are JSON Schema 2020-12 (`type: [.., "null"]`, numeric exclusiveMinimum),
  // not the 3.0 dialect (`nullable`, boolean exclusiveMinimum).
  const out = z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" }) as Record<string, unknown>;
  delete out.$schema;
  return out;
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
 * Body parsing: JSON (also when sent as text/plain, as LangGraph Studio does). Other content types
 * on a request with a body get 415. Limits come from settings.
 */
export function jsonBody(maxBytes: number): express.RequestHandler[] {
  const parse = express.json({ limit: maxBytes, type: ["application/json", "application/*+json", "text/plain"], strict: false });
  return [
    (req, _res, next) => {
      const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
      const type = req.headers["content-type"];
      if (hasBody && type && !/^(application\/(.+\+)?json|text\/plain)\b/i.test(type)) {
        next(new ApiError(415, `unsupported content type "${type}": send application/json`));
        return;
      }
      next();
    },
    parse,
  ];
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
    logger.error({ err, method: req.method, path: req.path }, "unhandled error");
    res.status(500).json({ detail: "internal server error" });
  };
}

export function notFoundHandler(req: Request, res: Response): void {
  res.status(404).json({ detail: `no route for ${req.method} ${req.path}` });
}

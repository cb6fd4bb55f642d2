/**
 * `http.app` of langgraph.json: the user's own web app (a Hono app, or any object or function
 * answering web `Request`s with `Response`s), mounted in front of Berth's routes as LangGraph
 * Platform mounts it: its routes add to the API (and may override built-in ones), its middleware
 * runs before Berth's routes.
 *
 * A request the user's app does not handle continues to Berth: for a Hono app, we set its
 * not-found handler to a marker response, so middleware that calls `next()` falls through (the
 * headers it set are kept on Berth's answer); for a plain fetch handler, a 404 falls through.
 * The request body is only read if the user's app reads it, so Berth's routes still get it.
 */
import path from "node:path";
import { Readable } from "node:stream";
import type express from "express";
import { importUserModule } from "../graphs/user-module.js";
import { splitModuleSpec } from "../config/module-spec.js";

type FetchHandler = (request: Request) => Response | Promise<Response>;

const FALLTHROUGH = "x-berth-fallthrough";

export class CustomAppError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CustomAppError";
  }
}

export interface CustomApp {
  fetch: FetchHandler;
  /** A Hono app (unmatched requests are marked), rather than a plain fetch handler. */
  hono: boolean;
}

/** Import `http.app` ("./path/file.ts:export", relative to the config's directory) and get its fetch handler. */
export async function loadCustomApp(spec: string, configDir: string): Promise<CustomApp> {
  const parts = splitModuleSpec(spec);
  const file = path.resolve(configDir, parts.file);
  const exportName = parts.exportName;
  const what = `http.app "${spec}"`;
  // through the graphs' own tsx loader: one registration, the same module instances
  const mod = await importUserModule(file, (f) =>
    new CustomAppError(f.kind === "not-found" ? `${what}: file not found: ${file}` : `${what}: cannot import it: ${f.kind === "unresolved" ? f.detail : (f.error.stack ?? f.error.message)}`),
  );
  const app = mod[exportName] as { fetch?: unknown; notFound?: unknown } | FetchHandler | undefined;
  if (app && typeof app === "object" && typeof app.fetch === "function") {
    // Hono: unmatched requests reach our marker instead of Hono's own 404.
    const hono = typeof app.notFound === "function";
    if (hono) (app.notFound as (h: () => Response) => void)(() => new Response(null, { status: 404, headers: { [FALLTHROUGH]: "1" } }));
    const fetch = app.fetch as FetchHandler;
    return { fetch: (request) => fetch.call(app, request), hono };
  }
  if (typeof app === "function") return { fetch: app, hono: false };
  const exports = Object.keys(mod).join(", ") || "none";
  throw new CustomAppError(`${what}: the export "${exportName}" is not a Hono app or a fetch handler (request => Response); exports: ${exports}`);
}

/** The request body as a web stream that reads the Node request only when pulled. */
function lazyBody(req: express.Request): ReadableStream<Uint8Array> {
  let it: AsyncIterator<Buffer> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        it ??= (req as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
        const { value, done } = await it.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value));
      },
      async cancel() {
        await it?.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}

function toRequest(req: express.Request): Request {
  // `req.url` is relative to where Berth is mounted (`http.mount_prefix`), as the app's routes are.
  const url = `${req.protocol}://${req.headers.host ?? "localhost"}${req.url}`;
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (Array.isArray(v)) for (const x of v) headers.append(k, x);
    else if (v !== undefined) headers.set(k, v);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, { method: req.method, headers, ...(hasBody ? { body: lazyBody(req), duplex: "half" } : {}) } as RequestInit);
}

/** Whether the user's app left this request to Berth: Hono's marker, or a plain handler's 404. */
export function fallsThrough(response: Response, isHono: boolean): boolean {
  return isHono ? response.headers.get(FALLTHROUGH) === "1" : response.status === 404;
}

/** Express middleware running the user's app before Berth's routes. */
export function customAppMiddleware(app: CustomApp): express.RequestHandler {
  return (req, res, next) => {
    void (async () => {
      const response = await app.fetch(toRequest(req));
      if (fallsThrough(response, app.hono)) {
        // headers the user's middleware added (CORS, tracing ids…) stay on Berth's answer
        response.headers.forEach((v, k) => {
          if (k !== FALLTHROUGH && k !== "content-length" && k !== "content-type" && k !== "set-cookie") res.setHeader(k, v);
        });
        const cookies = response.headers.getSetCookie();
        if (cookies.length) res.setHeader("set-cookie", cookies);
        next();
        return;
      }
      res.status(response.status);
      response.headers.forEach((v, k) => {
        if (k !== "set-cookie") res.setHeader(k, v);
      });
      const cookies = response.headers.getSetCookie();
      if (cookies.length) res.setHeader("set-cookie", cookies);
      if (!response.body) {
        res.end();
        return;
      }
      Readable.fromWeb(response.body as import("node:stream/web").ReadableStream).pipe(res);
    })().catch(next);
  };
}

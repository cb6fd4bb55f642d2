/**
 * Custom auth from `langgraph.json` `auth.path` ("./src/auth.ts:auth"): the project's LangGraph
 * `Auth` object authenticates every request and its `on` handlers authorise every operation.
 * It replaces platform auth for the deployment.
 *
 * Studio bypass: the LangGraph platform lets any request carrying `x-auth-scheme: langsmith` in as
 * a "StudioUser" unless `auth.disable_studio_auth` is set, trusting LangSmith to have checked the
 * caller first. Berth has no LangSmith in front of it, so that header proves nothing here: we
 * never honour it. Every request goes through the project's `authenticate`, whatever
 * `disable_studio_auth` says (it is accepted, and reported in /info as always in effect).
 */
import path from "node:path";
import type { Request as ExpressRequest } from "express";
import type { Logger } from "../../shared/logging.js";
import { ApiError } from "../../shared/errors.js";
import type { ResolvedConfig } from "../config/langgraph-config.js";
import { importUserModule } from "../graphs/user-module.js";
import { splitModuleSpec } from "../config/module-spec.js";
import { normaliseUser, runAuthHandler, toApiError, type AuthHandlerCache, type AuthResource } from "./handlers.js";
import type { AuthUser, RequestAuthenticator } from "./types.js";

export class AuthLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthLoadError";
  }
}

/** "./src/auth.ts:auth" → absolute file and export name (`default` when none is named). */
export function parseAuthPath(spec: string, configDir: string): { file: string; exportName: string } {
  const { file, exportName } = splitModuleSpec(spec);
  if (!file || !exportName) throw new AuthLoadError(`auth.path "${spec}": expected "<file>:<export>"`);
  return { file: path.resolve(configDir, file), exportName };
}

/** Import the project's module and find its Auth object's handlers. */
export async function loadAuthHandlers(spec: string, configDir: string): Promise<AuthHandlerCache> {
  const { file, exportName } = parseAuthPath(spec, configDir);
  const mod = await importUserModule(file, (f) =>
    new AuthLoadError(`auth.path "${spec}": failed to import ${file}: ${f.kind === "not-found" ? "file not found" : f.kind === "unresolved" ? f.detail : f.error.message}`),
  );
  const exported = mod[exportName] as { "~handlerCache"?: AuthHandlerCache } | undefined;
  if (!exported) throw new AuthLoadError(`auth.path "${spec}": the module has no export "${exportName}"`);
  const cache = exported["~handlerCache"];
  if (typeof cache !== "object" || cache === null) {
    throw new AuthLoadError(`auth.path "${spec}": the export "${exportName}" is not an Auth object of @langchain/langgraph-sdk/auth`);
  }
  // The platform lets every request through when no authenticate handler is registered; a server
  // that was configured for auth and checks nobody is worse than one that refuses to start.
  if (typeof cache.authenticate !== "function") {
    throw new AuthLoadError(`auth.path "${spec}": the Auth object has no authenticate handler (call auth.authenticate(...))`);
  }
  return cache;
}

/** The web-standard Request an `authenticate` handler receives: method, URL and headers (no body). */
export function toFetchRequest(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.append(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  let url: URL;
  try {
    url = new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`);
  } catch {
    url = new URL(req.originalUrl, "http://localhost");
  }
  return new Request(url, { method: req.method, headers });
}

export class CustomAuthenticator implements RequestAuthenticator {
  readonly mode = "custom" as const;

  constructor(
    private readonly cache: AuthHandlerCache,
    private readonly spec: string,
    private readonly logger: Logger,
  ) {}

  describe(): Record<string, unknown> {
    return { mode: "custom", path: this.spec, studio_auth: "disabled" };
  }

  async authenticate(req: ExpressRequest): Promise<AuthUser> {
    let response: unknown;
    try {
      response = await this.cache.authenticate!(toFetchRequest(req));
    } catch (err) {
      const mapped = toApiError(err, "Unauthorized");
      if (mapped instanceof ApiError) throw mapped;
      // A bug in the handler (not a refusal): logged with its stack, answered without details.
      this.logger.error({ err, path: req.path }, "the custom auth handler failed");
      throw new ApiError(500, "the authentication handler failed");
    }
    return normaliseUser(response);
  }

  authorize(user: AuthUser, resource: AuthResource, action: string, value: unknown) {
    return runAuthHandler(this.cache, user, resource, action, value);
  }
}

export async function createCustomAuthenticator(config: ResolvedConfig, logger: Logger): Promise<CustomAuthenticator> {
  const spec = config.raw.auth!.path!;
  const cache = await loadAuthHandlers(spec, config.configDir);
  if (config.raw.auth?.disable_studio_auth === false) {
    logger.warn("langgraph.json auth.disable_studio_auth=false: Berth never lets x-auth-scheme: langsmith requests skip your auth handler");
  }
  return new CustomAuthenticator(cache, spec, logger);
}

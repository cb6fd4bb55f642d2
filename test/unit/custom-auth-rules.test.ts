/**
 * The pure rules of custom auth (src/agent-server/auth/handlers.ts, filters.ts), with the real
 * `Auth` and `HTTPException` of @langchain/langgraph-sdk/auth: which handler answers an event,
 * what its answer means, how users and filters are read.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Auth, HTTPException } from "@langchain/langgraph-sdk/auth";
import { AuthLoadError, loadAuthHandlers } from "../../src/agent-server/auth/custom.js";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/shared/errors.js";
import { matchesAuthFilters } from "../../src/agent-server/auth/filters.js";
import { handlerKeyFor, normaliseUser, runAuthHandler, toApiError, type AuthHandlerCache } from "../../src/agent-server/auth/handlers.js";

const user = normaliseUser({ identity: "alice", permissions: ["p"] });
const cacheOf = (auth: Auth) => (auth as unknown as { "~handlerCache": AuthHandlerCache })["~handlerCache"];

describe("custom auth rules", () => {
  it("picks the most specific handler: resource:action, resource, *:action, *", async () => {
    const calls: string[] = [];
    const auth = new Auth()
      .on("threads:create", () => void calls.push("threads:create"))
      .on("threads", () => void calls.push("threads"))
      .on("*:read", () => void calls.push("*:read"))
      .on("*", () => void calls.push("*"));
    const cache = cacheOf(auth);
    expect(handlerKeyFor(cache.callbacks, "threads", "create")).toBe("threads:create");
    expect(handlerKeyFor(cache.callbacks, "threads", "read")).toBe("threads");
    expect(handlerKeyFor(cache.callbacks, "crons", "read")).toBe("*:read");
    expect(handlerKeyFor(cache.callbacks, "store", "put")).toBe("*");
    expect(handlerKeyFor(undefined, "store", "put")).toBeUndefined();
    await runAuthHandler(cache, user, "crons", "read", {});
    expect(calls).toEqual(["*:read"]);
  });

  it("reads a handler's answer: allow, 403, filters, HTTPException, nonsense", async () => {
    const answer = (a: unknown) => runAuthHandler(cacheOf(new Auth().on("*", (() => a) as never)), user, "threads", "read", {});
    await expect(answer(undefined)).resolves.toBeUndefined();
    await expect(answer(true)).resolves.toBeUndefined();
    await expect(answer(false)).rejects.toMatchObject({ status: 403 });
    await expect(answer({ owner: "alice" })).resolves.toEqual({ owner: "alice" });
    await expect(answer("yes")).rejects.toMatchObject({ status: 500 });
    await expect(answer({ owner: { $regex: ".*" } })).rejects.toMatchObject({ status: 500 });
    const thrower = new Auth().on("*", () => {
      throw new HTTPException(418, { message: "teapot", headers: { "x-why": "tea" } });
    });
    await expect(runAuthHandler(cacheOf(thrower), user, "store", "get", {})).rejects.toMatchObject({ status: 418, detail: "teapot", headers: { "x-why": "tea" } });
  });

  it("lets a handler stamp the value it is given", async () => {
    const value = { metadata: {} as Record<string, unknown> };
    await runAuthHandler(cacheOf(new Auth().on("threads:create", ({ value: v, user: u }) => void ((v.metadata ??= {}).owner = u.identity))), user, "threads", "create", value);
    expect(value.metadata.owner).toBe("alice");
  });

  it("matches metadata filters as the platform does: equality, $eq, $contains (one or all)", () => {
    const md = { owner: "alice", tags: ["a", "b"], n: 1 };
    expect(matchesAuthFilters(md, undefined)).toBe(true);
    expect(matchesAuthFilters(md, { owner: "alice" })).toBe(true);
    expect(matchesAuthFilters(md, { owner: "bob" })).toBe(false);
    expect(matchesAuthFilters(md, { owner: { $eq: "alice" }, n: 1 })).toBe(true);
    expect(matchesAuthFilters(md, { missing: "x" })).toBe(false);
    expect(matchesAuthFilters(md, { tags: { $contains: "a" } })).toBe(true);
    expect(matchesAuthFilters(md, { tags: { $contains: ["a", "b"] } })).toBe(true);
    expect(matchesAuthFilters(md, { tags: { $contains: ["a", "c"] } })).toBe(false);
    expect(matchesAuthFilters(md, { owner: { $contains: "a" } })).toBe(false);
    expect(matchesAuthFilters(null, { owner: "alice" })).toBe(false);
  });

  it("normalises users and HTTPExceptions", () => {
    expect(normaliseUser("carol")).toEqual({ identity: "carol", display_name: "carol", permissions: [], is_authenticated: true });
    expect(normaliseUser({ identity: "a", org: "x", is_authenticated: false })).toMatchObject({ identity: "a", display_name: "a", org: "x", permissions: [], is_authenticated: false });
    expect(() => normaliseUser({ sub: "a" })).toThrow(ApiError);
    expect(() => normaliseUser("")).toThrow(ApiError);
    const mapped = toApiError(new HTTPException(401), "Unauthorized") as ApiError;
    expect(mapped).toBeInstanceOf(ApiError);
    expect([mapped.status, mapped.detail]).toEqual([401, "Unauthorized"]);
    const plain = new Error("boom");
    expect(toApiError(plain, "x")).toBe(plain);
  });

  it("refuses to start on an auth.path that checks nobody or is not an Auth object", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "berth-auth-"));
    try {
      await writeFile(
        path.join(dir, "auth.mjs"),
        [
          'export const onlyOn = { "~handlerCache": { callbacks: { "*": () => true } } };',
          'export const notAuth = 42;',
          'export const ok = { "~handlerCache": { authenticate: () => "x" } };',
        ].join("\n"),
      );
      await expect(loadAuthHandlers("./auth.mjs:onlyOn", dir)).rejects.toThrow(/no authenticate handler/);
      await expect(loadAuthHandlers("./auth.mjs:notAuth", dir)).rejects.toThrow(AuthLoadError);
      await expect(loadAuthHandlers("./auth.mjs:missing", dir)).rejects.toThrow(/no export "missing"/);
      await expect(loadAuthHandlers("./nope.mjs:auth", dir)).rejects.toThrow(/failed to import/);
      expect(typeof (await loadAuthHandlers("./auth.mjs:ok", dir)).authenticate).toBe("function");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

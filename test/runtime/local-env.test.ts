import { describe, expect, it } from "vitest";
import { deploymentEnv, inheritedEnv, usesDatabaseServer } from "../../src/runtime/local/env.js";

describe("deployment environment", () => {
  it("inherits only an allowlist of the control plane's environment", () => {
    const env = inheritedEnv({
      PATH: "/bin",
      HOME: "/home/u",
      LC_ALL: "C",
      HTTPS_PROXY: "http://proxy:3128",
      BERTH_FROM_SOURCE: "1",
      DATABASE_URI: "postgres://control-plane",
      OPENAI_API_KEY: "sk-control-plane",
      BERTH_SECRET_KEY: "k",
      LANGSMITH_API_KEY: "ls",
      NODE_OPTIONS: "--inspect",
    });
    expect(env).toEqual({ PATH: "/bin", HOME: "/home/u", LC_ALL: "C", HTTPS_PROXY: "http://proxy:3128", BERTH_FROM_SOURCE: "1" });
  });

  it("layers the control plane's env, then the secrets, then defaults for tracing and Redis", () => {
    const env = deploymentEnv({
      deploymentId: "d1",
      deploymentName: "my-agent",
      env: { LANGSMITH_ENDPOINT: "http://127.0.0.1:1984", LANGSMITH_API_KEY: "platform", REDIS_URI: "redis://r" },
      secrets: [
        { name: "LANGSMITH_API_KEY", value: "user" },
        { name: "GREETING", value: "hi" },
      ],
    });
    expect(env).toEqual({
      LANGSMITH_ENDPOINT: "http://127.0.0.1:1984",
      LANGSMITH_API_KEY: "user",
      LANGSMITH_PROJECT: "my-agent",
      REDIS_URI: "redis://r",
      REDIS_KEY_PREFIX: "berth-d1",
      GREETING: "hi",
    });
    expect(deploymentEnv({ deploymentId: "d", deploymentName: "n", env: { LANGSMITH_TRACING: "true", LANGSMITH_PROJECT: "p" }, secrets: [] }).LANGSMITH_PROJECT).toBe("p");
    expect(deploymentEnv({ deploymentId: "d", deploymentName: "n", env: {}, secrets: [] })).toEqual({});
  });

  it("knows when the deployment has a database server (Postgres) instead of PGlite", () => {
    expect(usesDatabaseServer({})).toBe(false);
    expect(usesDatabaseServer({ DATABASE_URI: "postgres://x" })).toBe(true);
    expect(usesDatabaseServer({ POSTGRES_URI_CUSTOM: "postgres://x" })).toBe(true);
    expect(usesDatabaseServer({ DATABASE_URI: "" })).toBe(false);
  });
});

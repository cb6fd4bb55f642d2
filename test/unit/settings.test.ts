/** Agent server settings: defaults < environment < flags, validated with errors naming the source. */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_SERVER_DEFAULTS, ConfigError, resolveAgentServerSettings } from "../../src/shared/config.js";

const dataDirBeside = (configPath: string) => path.join(path.dirname(path.resolve(configPath)), ".berth");
const resolve = (flags: Record<string, unknown> = {}, env: Record<string, string> = {}) =>
  resolveAgentServerSettings(flags, env, dataDirBeside);

function configError(flags: Record<string, unknown>, env: Record<string, string> = {}): string {
  try {
    resolve(flags, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("resolveAgentServerSettings", () => {
  it("has the documented defaults", () => {
    const s = resolve();
    expect(s).toMatchObject({
      configPath: "langgraph.json",
      host: "127.0.0.1",
      port: 8123,
      jobsPerWorker: 10,
      serveHttp: true,
      defaultMultitaskStrategy: "enqueue",
      maxBodyBytes: 10 * 1024 * 1024,
      logLevel: "info",
    });
    expect(s.databaseUri).toBeUndefined();
    expect(s.redisUri).toBeUndefined();
    expect(s.dataDir).toBe(path.resolve(".berth"));
    expect(s.port).toBe(AGENT_SERVER_DEFAULTS.port);
  });

  it("puts the data directory beside the config file unless told otherwise", () => {
    expect(resolve({ configPath: "/srv/app/langgraph.json" }).dataDir).toBe("/srv/app/.berth");
    expect(resolve({ configPath: "/srv/app/langgraph.json" }, { BERTH_DATA_DIR: "/var/berth" }).dataDir).toBe("/var/berth");
    expect(resolve({ configPath: "/srv/app/langgraph.json", dataDir: "/data" }, { BERTH_DATA_DIR: "/var/berth" }).dataDir).toBe("/data");
  });

  it("reads environment variables and coerces numbers", () => {
    const s = resolve(
      {},
      {
        PORT: "9000",
        HOST: "0.0.0.0",
        N_JOBS_PER_WORKER: "0",
        DATABASE_URI: "postgresql://u:p@db:5432/app",
        REDIS_URI: "redis://cache:6379",
        LOG_LEVEL: "debug",
        BG_JOB_MAX_RETRIES: "5",
        BERTH_MAX_BODY_BYTES: "4096",
        BERTH_DEFAULT_MULTITASK_STRATEGY: "reject",
      },
    );
    expect(s).toMatchObject({
      port: 9000,
      host: "0.0.0.0",
      jobsPerWorker: 0,
      databaseUri: "postgresql://u:p@db:5432/app",
      redisUri: "redis://cache:6379",
      logLevel: "debug",
      maxAttempts: 5,
      maxBodyBytes: 4096,
      defaultMultitaskStrategy: "reject",
    });
  });

  it("accepts POSTGRES_URI when DATABASE_URI is absent, and prefers DATABASE_URI", () => {
    expect(resolve({}, { POSTGRES_URI: "postgresql://pg:5432/x" }).databaseUri).toBe("postgresql://pg:5432/x");
    expect(resolve({}, { POSTGRES_URI: "postgresql://pg:5432/x", DATABASE_URI: "postgresql://db:5432/y" }).databaseUri).toBe(
      "postgresql://db:5432/y",
    );
  });

  it("ignores empty environment variables", () => {
    const s = resolve({}, { PORT: "", DATABASE_URI: "" });
    expect(s.port).toBe(8123);
    expect(s.databaseUri).toBeUndefined();
  });

  it("flags win over the environment", () => {
    const s = resolve({ port: "7000", jobsPerWorker: "3", host: "::1", logLevel: "warn" }, { PORT: "9000", N_JOBS_PER_WORKER: "8", HOST: "0.0.0.0", LOG_LEVEL: "debug" });
    expect(s).toMatchObject({ port: 7000, jobsPerWorker: 3, host: "::1", logLevel: "warn" });
  });

  it("undefined flags do not override the environment", () => {
    expect(resolve({ port: undefined }, { PORT: "9000" }).port).toBe(9000);
  });

  it("an invalid environment value names the variable", () => {
    const msg = configError({}, { PORT: "eighty" });
    expect(msg).toContain("environment variable PORT");
    expect(msg).toContain('"eighty"');
    expect(configError({}, { PORT: "70000" })).toMatch(/PORT: must be at most 65535/);
    expect(configError({}, { N_JOBS_PER_WORKER: "-1" })).toMatch(/N_JOBS_PER_WORKER: must be at least 0/);
    expect(configError({}, { N_JOBS_PER_WORKER: "2.5" })).toMatch(/N_JOBS_PER_WORKER: must be a whole number/);
    expect(configError({}, { DATABASE_URI: "not a uri" })).toContain("environment variable DATABASE_URI");
    expect(configError({}, { POSTGRES_URI: "not a uri" })).toContain("environment variable POSTGRES_URI");
    expect(configError({}, { LOG_LEVEL: "loud" })).toContain("environment variable LOG_LEVEL");
    expect(configError({}, { BERTH_DEFAULT_MULTITASK_STRATEGY: "shove" })).toContain("BERTH_DEFAULT_MULTITASK_STRATEGY");
  });

  it("an invalid flag value names the flag", () => {
    expect(configError({ port: "abc" })).toContain("--port");
    // The names of the real CLI flags, not of the settings behind them.
    expect(configError({ jobsPerWorker: "-2" }, { N_JOBS_PER_WORKER: "4" })).toContain("--n-jobs-per-worker: must be at least 0");
    expect(configError({ configPath: "" })).toContain("--config:");
    expect(configError({ dataDir: "" })).toContain("--data-dir:");
    expect(configError({ logLevel: "shout" })).toContain("--log-level:");
    expect(configError({ maxBodyBytes: 10 })).toMatch(/--max-body-bytes: must be at least 1024/);
  });

  it("reports every bad setting at once", () => {
    const msg = configError({ port: "abc" }, { N_JOBS_PER_WORKER: "many" });
    expect(msg).toContain("--port");
    expect(msg).toContain("N_JOBS_PER_WORKER");
  });
});

/** The `berth` CLI's start-up errors: each one exits non-zero with a message a person can act on. */
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BERTH_BIN, FIXTURE_CONFIG } from "../helpers/server.js";

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

let tmp: string;

/** Run `berth …` to completion with a clean environment (no database or port from the caller). */
function berth(args: string[], env: Record<string, string> = {}, timeoutMs = 150_000): Promise<Result> {
  const base = { ...process.env };
  for (const k of ["DATABASE_URI", "POSTGRES_URI", "POSTGRES_URI_CUSTOM", "REDIS_URI", "REDIS_URI_CUSTOM", "PORT", "HOST", "BERTH_CONFIG", "N_JOBS_PER_WORKER"]) {
    delete base[k];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BERTH_BIN, ...args], {
      env: { ...base, BERTH_DATA_DIR: path.join(tmp, "data"), LOG_LEVEL: "error", BERTH_FROM_SOURCE: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`berth ${args.join(" ")} did not exit within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("berth CLI", () => {
  let blocker: net.Server;
  let busyPort: number;
  beforeAll(async () => {
    tmp = await mkdtemp(path.join(os.tmpdir(), "berth-cli-"));
    blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", () => r()));
    busyPort = (blocker.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => blocker?.close(() => r()));
    await rm(tmp, { recursive: true, force: true });
  });

  it("--help lists serve and worker", async () => {
    const res = await berth(["--help"]);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^\s*serve\b/m);
    expect(res.stdout).toMatch(/^\s*worker\b/m);
  });

  it("serve --help documents --config, --port and --host", async () => {
    const res = await berth(["serve", "--help"]);
    expect(res.code).toBe(0);
    for (const flag of ["--config", "--port", "--host", "--data-dir", "--n-jobs-per-worker"]) expect(res.stdout).toContain(flag);
  });

  it("a port already in use exits non-zero saying so, without opening the database", async () => {
    const res = await berth(["serve", "--config", FIXTURE_CONFIG, "--port", String(busyPort)]);
    expect(res.code).not.toBe(0);
    expect(res.code).not.toBeNull();
    expect(res.stderr).toContain(`port ${busyPort}`);
    expect(res.stderr).toMatch(/already in use/);
    // Nothing was created: the check happens before the embedded database starts.
    await expect(readdir(path.join(tmp, "data"))).rejects.toThrow(/ENOENT/);
  });

  it("a missing config file is a clear error", async () => {
    const missing = path.join(tmp, "nowhere", "langgraph.json");
    const res = await berth(["serve", "--config", missing, "--port", "0"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("config file not found");
    expect(res.stderr).toContain(missing);
  });

  it("an invalid langgraph.json fails naming the key", async () => {
    const file = path.join(tmp, "langgraph.json");
    await writeFile(file, JSON.stringify({ graphs: 5 }));
    const res = await berth(["serve", "--config", file, "--port", "0"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/invalid langgraph\.json/);
    expect(res.stderr).toMatch(/\bgraphs\b/);
  });

  it("a graph file that does not exist fails naming the graph", async () => {
    const file = path.join(tmp, "missing-graph.json");
    await writeFile(file, JSON.stringify({ graphs: { ghost: "./ghost.ts:graph" } }));
    const res = await berth(["serve", "--config", file, "--port", "0"]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("ghost");
  });

  it("an invalid flag value names the flag; an invalid variable names the variable", async () => {
    const flag = await berth(["serve", "--config", FIXTURE_CONFIG, "--port", "eighty"]);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain("--port");
    const jobs = await berth(["serve", "--config", FIXTURE_CONFIG, "--n-jobs-per-worker", "lots"]);
    expect(jobs.code).not.toBe(0);
    expect(jobs.stderr).toContain("--n-jobs-per-worker");
    const env = await berth(["serve", "--config", FIXTURE_CONFIG], { PORT: "99999" });
    expect(env.code).not.toBe(0);
    expect(env.stderr).toContain("PORT");
    expect(env.stderr).toContain("65535");
  });

  it("berth worker without DATABASE_URI is a clear error", async () => {
    const res = await berth(["worker", "--config", FIXTURE_CONFIG]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain("DATABASE_URI");
  });
});

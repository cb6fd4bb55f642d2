import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentProcessError, startAgentProcess } from "../../src/runtime/local/agent-process.js";
import { FIXTURE_CONFIG } from "../helpers/server.js";

describe("local agent process", () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), "berth-proc-"));
    dirs.push(d);
    return d;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const env = { BERTH_FROM_SOURCE: "1", LOG_LEVEL: "info", MY_SECRET: "s3cret" };

  it("starts berth serve for a config, becomes healthy, logs, and stops gracefully", async () => {
    const lines: string[] = [];
    const p = await startAgentProcess({ configPath: FIXTURE_CONFIG, dataDir: tmp(), env, log: (l) => lines.push(l) });
    try {
      await p.waitHealthy(60_000);
      expect((await fetch(`${p.url}/ok`)).status).toBe(200);
      expect(lines.some((l) => l.includes("database ready"))).toBe(true);
    } finally {
      await p.stop(10_000);
    }
    expect(await p.exited).toBe(0);
  });

  it("talks to the address the process reports it bound, not a port picked for it beforehand", async () => {
    // A stand-in for berth serve that binds a port of its own choosing (whatever --port says) and
    // reports it over IPC as berth serve does. A port picked by the caller and released before the
    // process binds it can be taken meanwhile on a busy machine; the address the process reports
    // cannot be wrong.
    const dir = tmp();
    const fake = path.join(dir, "own-port.cjs");
    writeFileSync(
      fake,
      `const http = require("node:http");
       const server = http.createServer((req, res) => res.end(req.url === "/ok" ? "ok" : "other"));
       server.listen(0, "127.0.0.1", () => process.send({ type: "ready", url: "http://127.0.0.1:" + server.address().port }));
       process.on("SIGTERM", () => process.exit(0));`,
    );
    const p = await startAgentProcess({ configPath: FIXTURE_CONFIG, dataDir: dir, env, log: () => undefined, command: { file: process.execPath, args: [fake] } });
    try {
      await p.waitHealthy(60_000);
      const res = await fetch(`${p.url}/ok`);
      expect(await res.text()).toBe("ok");
    } finally {
      await p.stop(10_000);
    }
  });

  it("fails with the exit code and keeps the output when the agent cannot start", async () => {
    const dir = tmp();
    const config = path.join(dir, "langgraph.json");
    writeFileSync(config, JSON.stringify({ graphs: { broken: "./missing.ts:graph" } }));
    const lines: string[] = [];
    const p = await startAgentProcess({ configPath: config, dataDir: dir, env, log: (l) => lines.push(l) });
    await expect(p.waitHealthy(60_000)).rejects.toThrow(/exited with code 1 before it was healthy/);
    expect(lines.join("\n")).toMatch(/missing\.ts/);
  });

  it("fails with LangSmith's timeout wording when the agent never becomes healthy", async () => {
    const dir = tmp();
    // a "berth" that listens nowhere and never exits
    const fake = path.join(dir, "sleep.js");
    writeFileSync(fake, "setInterval(() => {}, 1000);");
    const p = await startAgentProcess({ configPath: FIXTURE_CONFIG, dataDir: dir, env, log: () => undefined, command: { file: process.execPath, args: [fake] } });
    try {
      await expect(p.waitHealthy(1500)).rejects.toThrow(AgentProcessError);
      await expect(p.waitHealthy(1000)).rejects.toThrow("Timeout: Deployment is not ready after 1 seconds.");
    } finally {
      await p.stop(1000);
    }
  });
});

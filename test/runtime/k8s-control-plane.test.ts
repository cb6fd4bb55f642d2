/**
 * `berth control-plane` as a process: bad settings stop it with exit code 2 and a message naming
 * the variable; with a kubeconfig it serves the API and tracing and deploys to the cluster (the
 * fake API server) on its default runtime, k8s; SIGTERM stops it cleanly.
 */
import { fork, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeApiServer, type FakeApiServer } from "../fake-apiserver/index.js";
import { captureOutput, childLogLevel } from "../helpers/child-output.js";
import { BERTH_BIN } from "../helpers/server.js";

const KEY = "berth-cli-test-admin-key-0123456789";

function controlPlane(env: Record<string, string>, args: string[] = []) {
  return spawnSync(process.execPath, [BERTH_BIN, "control-plane", ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, BERTH_FROM_SOURCE: "1", ...env },
    encoding: "utf8",
    timeout: 120_000,
  });
}

describe("berth control-plane", () => {
  let dir: string;
  let fake: FakeApiServer;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), "berth-cp-cli-"));
    fake = await startFakeApiServer();
  });
  afterAll(async () => {
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops with exit code 2 and names the variable or flag of a bad setting", { timeout: 180_000 }, () => {
    // one process per case is slow (the sources are compiled on the fly): the full list of messages is in test/unit/k8s-listener-config.test.ts
    const cases: [Record<string, string>, string[], RegExp][] = [
      [{ PORT: "eighty", BERTH_K8S: "maybe" }, [], /environment variable PORT: must be a number[\s\S]*environment variable BERTH_K8S: must be true, false or auto/],
      [{ DATABASE_URI: "postgres://127.0.0.1:1/none" }, ["--image-registry", "https://registry.example.com"], /--image-registry: must be a registry path/],
      [{ DATABASE_URI: "postgres://127.0.0.1:1/none" }, [], /environment variable BERTH_SECRETS_KEY: required with DATABASE_URI[\s\S]*environment variable BERTH_API_KEY: required with DATABASE_URI/],
    ];
    for (const [env, args, message] of cases) {
      const r = controlPlane({ BERTH_DATA_DIR: dir, ...env }, args);
      expect(r.status, `${JSON.stringify(env)} ${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it("serves the API and tracing, and deploys to its cluster by default", { timeout: 180_000 }, async () => {
    const kubeconfig = path.join(dir, "kubeconfig");
    writeFileSync(kubeconfig, fake.kubeConfig().exportConfig());
    const child = fork(BERTH_BIN, ["control-plane", "--port", "0", "--host", "127.0.0.1", "--log-level", childLogLevel("warn")], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        BERTH_FROM_SOURCE: "1",
        BERTH_DATA_DIR: path.join(dir, "data"),
        BERTH_API_KEY: KEY,
        KUBECONFIG: kubeconfig,
        BERTH_K8S_DEFAULT_NAMESPACE: "agents",
        BERTH_PUBLIC_URL: "http://berth.berth-system.svc:8080",
      },
      // kept, printed only if the test fails (child-output.ts)
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    const output = captureOutput(child, "berth control-plane");
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`berth control-plane did not start:\n${output()}`)), 120_000);
        child.on("message", (m: { type?: string; url?: string }) => m?.type === "ready" && (clearTimeout(timer), resolve(m.url!)));
        child.once("exit", (code) => reject(new Error(`berth control-plane exited with ${code}:\n${output()}`)));
      });
      const api = (method: string, p: string, body?: unknown, key: string | null = KEY) =>
        fetch(`${url}${p}`, { method, headers: { ...(key ? { "x-api-key": key } : {}), "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      expect((await api("GET", "/ok")).status).toBe(200);
      // API keys are required even from this machine
      expect((await api("GET", "/v2/deployments", undefined, null)).status).toBe(401);
      expect((await api("GET", "/tracing/info")).status).toBe(200);
      const created = await api("POST", "/v2/deployments", {
        name: "cli-agent",
        source: "external_container",
        source_config: {},
        source_revision_config: { image_uri: "registry.example.com/acme/agent:1.0" },
        secrets: [],
      });
      expect(created.status).toBe(201);
      const id = ((await created.json()) as { id: string }).id;
      const deadline = Date.now() + 20_000;
      while (!fake.get("berth.dev/v1alpha1", "AgentDeployment", "agents", "cli-agent") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const cr = fake.get("berth.dev/v1alpha1", "AgentDeployment", "agents", "cli-agent");
      expect(cr?.spec).toMatchObject({ deploymentId: id, tracing: { endpoint: "http://berth.berth-system.svc:8080/tracing", project: "cli-agent" } });
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});

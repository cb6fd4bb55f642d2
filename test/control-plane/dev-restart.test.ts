/**
 * `berth dev` restarts: killed outright, its agents stop with it (they would otherwise hold their
 * embedded databases); started again, it brings its deployments back at the same URLs, and a
 * revision that was mid-build is marked INTERRUPTED and built again.
 */
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOutput, childLogLevel } from "../helpers/child-output.js";
import { BERTH_BIN, eventually } from "../helpers/server.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

interface Dev {
  child: ChildProcess;
  url: string;
  integrationId: string;
}

function startDev(dataDir: string): Promise<Dev> {
  const child = fork(BERTH_BIN, ["dev", "--port", "0", "--data-dir", dataDir, "--log-level", childLogLevel("warn")], {
    env: { ...process.env, BERTH_FROM_SOURCE: "1" },
    // kept, printed only if a test fails (child-output.ts)
    stdio: ["ignore", "pipe", "pipe", "ipc"],
  });
  const output = captureOutput(child, "berth dev");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`berth dev did not start:\n${output()}`)), 120_000);
    child.on("message", (m: any) => m?.type === "ready" && (clearTimeout(timer), resolve({ child, url: m.url, integrationId: m.integrationId })));
    child.once("exit", (code) => reject(new Error(`berth dev exited with ${code}:\n${output()}`)));
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const childrenOf = (pid: number) =>
  execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)]).toString().split("\n").map((s) => Number(s.trim())).filter(Boolean);

describe("berth dev restarts", () => {
  let dir: string;
  let repo: TestRepo;
  const devs: Dev[] = [];
  beforeAll(() => {
    dir = scratchDir("dev-restart");
    repo = createRepo(dir);
  });
  afterAll(() => {
    for (const d of devs) d.child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  it("stops agents with a killed control plane, and brings deployments back on restart", async () => {
    const dataDir = `${dir}/.berth`;
    const first = await startDev(dataDir);
    devs.push(first);
    const api = (dev: Dev, method: string, path: string, body?: unknown) =>
      fetch(`${dev.url}${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => undefined)) as any }));
    const created = await api(first, "POST", "/v2/deployments", {
      name: "survivor",
      source: "hosted_git",
      source_config: { integration_id: first.integrationId, repo_url: repo.url, install_command: "true" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [{ name: "GREETING", value: "still here" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await api(first, "GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}?wait=120`)).body.status).toBe("DEPLOYED");
    const url = (await api(first, "GET", `/v2/deployments/${id}`)).body.source_config.custom_url;
    const agents = childrenOf(first.child.pid!);
    expect(agents.length).toBeGreaterThan(0);

    // a slow second revision, killed mid-build
    await api(first, "PATCH", `/v2/deployments/${id}`, { source_config: { install_command: "sleep 30" } });
    const slow = (await api(first, "POST", `/v2/deployments/${id}/revisions`, {})).body;
    await eventually(async () => (await api(first, "GET", `/v2/deployments/${id}/revisions/${slow.id}`)).body.status === "BUILDING", 30_000);
    await api(first, "PATCH", `/v2/deployments/${id}`, { source_config: { install_command: "true" } });

    first.child.kill("SIGKILL");
    await eventually(async () => agents.every((pid) => !alive(pid)), 60_000);

    const second = await startDev(dataDir);
    devs.push(second);
    const revs = (await api(second, "GET", `/v2/deployments/${id}/revisions`)).body.resources;
    const interrupted = revs.find((r: any) => r.id === slow.id);
    expect(interrupted).toMatchObject({ status: "INTERRUPTED", status_reason: expect.stringMatching(/restarted/) });
    // its configuration is built again as a new revision, which deploys
    expect(revs[0].id).not.toBe(slow.id);
    expect((await api(second, "GET", `/v2/deployments/${id}/revisions/${revs[0].id}?wait=120`)).body.status).toBe("DEPLOYED");
    // the deployment answers at the same URL
    // with the admin key berth dev issued: deployments require a key of their tenant
    const agentKey = { "x-api-key": readFileSync(`${dataDir}/admin.key`, "utf8").trim() };
    const thread = await fetch(`${url}/threads`, { method: "POST", headers: { "content-type": "application/json", ...agentKey }, body: "{}" }).then((r) => r.json() as Promise<any>);
    const out = await fetch(`${url}/threads/${thread.thread_id}/runs/wait`, {
      method: "POST",
      headers: { "content-type": "application/json", ...agentKey },
      body: JSON.stringify({ assistant_id: "env", input: {} }),
    }).then((r) => r.json() as Promise<any>);
    expect(out.greeting).toBe("still here");
    second.child.kill("SIGTERM");
  }, 240_000);
});

/**
 * `berth dev` on a real Postgres (DATABASE_URI): the control plane, and the agent server it runs
 * for a deployment (its own database on the same server, the LISTEN bus since there is no
 * Redis), survive a Postgres restart — same processes, serving runs again afterwards. Runs
 * against a private Postgres cluster (the shared one is never restarted).
 */
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { startPrivatePostgres, type PrivatePostgres } from "../helpers/private-postgres.js";
import { BERTH_BIN, eventually } from "../helpers/server.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

const KEY = "berth-dev-restart-key-0123456789abcdef";

function startDev(dataDir: string, databaseUri: string): Promise<{ child: ChildProcess; url: string; integrationId: string }> {
  const log = process.env.BERTH_TEST_LOG ?? "silent";
  const child = fork(BERTH_BIN, ["dev", "--port", "0", "--data-dir", dataDir, "--log-level", log], {
    env: { ...process.env, BERTH_FROM_SOURCE: "1", DATABASE_URI: databaseUri, BERTH_SECRETS_KEY: keyToConfig(generateKey()), BERTH_API_KEY: KEY, LOG_LEVEL: log },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("berth dev did not start")), 120_000);
    child.on("message", (m: any) => m?.type === "ready" && (clearTimeout(timer), resolve({ child, url: m.url, integrationId: m.integrationId })));
    child.once("exit", (code) => (clearTimeout(timer), reject(new Error(`berth dev exited with ${code}`))));
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
const childrenOf = (pid: number): number[] => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)]).toString().split("\n").map((s) => Number(s.trim())).filter(Boolean);
  } catch {
    return []; // ps exits 1 when there are none
  }
};

describe("a Postgres restart under berth dev", () => {
  let dir: string;
  let repo: TestRepo;
  let pg: PrivatePostgres;
  let dev: ChildProcess | undefined;
  beforeAll(async () => {
    dir = scratchDir("dev-db-restart");
    repo = createRepo(dir);
    pg = await startPrivatePostgres();
  });
  afterAll(async () => {
    const agents = dev?.pid ? childrenOf(dev.pid) : [];
    dev?.kill("SIGKILL");
    for (const pid of agents.filter(alive)) process.kill(pid, "SIGKILL");
    await pg?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the control plane and its agent server running, and both work again", async () => {
    const started = await startDev(`${dir}/.berth`, pg.uri);
    dev = started.child;
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${started.url}${path}`, { method, headers: { "content-type": "application/json", "x-api-key": KEY }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json().catch(() => undefined)) as any }));
    const created = await api("POST", "/v2/deployments", {
      name: "steady",
      source: "hosted_git",
      source_config: { integration_id: started.integrationId, repo_url: repo.url, install_command: "true" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [{ name: "GREETING", value: "hello" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await api("GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}?wait=120`)).body.status).toBe("DEPLOYED");
    const url = (await api("GET", `/v2/deployments/${id}`)).body.source_config.custom_url as string;
    const runOnce = async () => {
      const thread = (await fetch(`${url}/threads`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": KEY }, body: "{}" }).then((r) => r.json())) as any;
      const res = await fetch(`${url}/threads/${thread.thread_id}/runs/wait`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY },
        body: JSON.stringify({ assistant_id: "env", input: {} }),
      });
      return res.ok ? ((await res.json()) as any) : undefined;
    };
    expect((await runOnce())?.greeting).toBe("hello");
    const agents = childrenOf(dev.pid!);
    expect(agents.length).toBeGreaterThan(0);

    await pg.restart();

    const out = await eventually(() => runOnce().catch(() => undefined), 90_000, 250);
    expect(out.greeting).toBe("hello");
    expect((await api("GET", `/v2/deployments/${id}`)).status).toBe(200);
    expect(alive(dev.pid!)).toBe(true);
    // the same agent server processes: none died and was restarted by the deployer
    expect(agents.every(alive)).toBe(true);
    expect(childrenOf(dev.pid!).sort()).toEqual([...agents].sort());
  }, 300_000);
});

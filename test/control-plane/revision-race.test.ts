/**
 * Concurrent PATCHes on a hosted_git deployment of the local runtime (issue 13 item 14): each
 * PATCH creates a revision and SKIPs the older not-started ones in SQL while the runtime may be
 * about to start one of them. The runtime must then drop it quietly (compare-and-set), never
 * attempt an illegal move (SKIPPED → BUILDING), and the newest revision must still deploy.
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { transition, type RevisionStatus } from "../../src/control-plane/rules/index.js";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/service.js";
import { silentLogger } from "../../src/shared/logging.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1";

describe("revision statuses under concurrent PATCHes", () => {
  let dir: string;
  let repo: TestRepo;
  let dev: ControlPlaneServerHandle;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${dev.url}${path}`, { method, headers: { "x-api-key": dev.adminKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    dir = scratchDir("revision-race");
    repo = createRepo(dir);
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent" }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 200 },
      pollMs: 0,
    });
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("skips the overtaken revisions without an illegal transition, and deploys the newest", async () => {
    const created = await api("POST", "/v2/deployments", {
      name: "race",
      source: "hosted_git",
      // each build takes a moment, so PATCHes land while one builds and others wait for the slot
      source_config: { integration_id: dev.integrationId, repo_url: repo.url, install_command: "true", build_command: "sleep 0.3" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [{ name: "GREETING", value: "v0" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    // waves of concurrent PATCHes, each a new revision, for as long as the first build runs and beyond
    let n = 0;
    for (let wave = 0; wave < 6; wave++) {
      const patches = Array.from({ length: 4 }, () => api("PATCH", `/v2/deployments/${id}`, { secrets: [{ name: "GREETING", value: `v${++n}` }] }));
      for (const p of await Promise.all(patches)) expect(p.status).toBe(200);
      await new Promise((r) => setTimeout(r, 150)); // spreads the waves over the builds; not a wait for an effect
    }

    const latestId = (await api("GET", `/v2/deployments/${id}`)).body.latest_revision_id as string;
    const latest = (await api("GET", `/v2/deployments/${id}/revisions/${latestId}?wait=180`)).body;
    expect(latest.status).toBe("DEPLOYED");

    // every revision ended, and each went only through legal moves
    const revisions = await dev.controlPlane.deployments.revisions(DEFAULT_TENANT_ID, id, { limit: 100, offset: 0 });
    expect(revisions.length).toBe(n + 1);
    for (const r of revisions) {
      const statuses = r.status_history.map((h) => h.status as RevisionStatus);
      for (let i = 1; i < statuses.length; i++) expect(transition(statuses[i - 1]!, statuses[i]!).ok, `${r.id}: ${statuses.join(" → ")}`).toBe(true);
    }
    // and nothing tried an illegal one (a refused write leaves no history; the store counts them)
    expect(dev.controlPlane.deployments.illegalTransitions).toBe(0);
  }, 300_000);

});

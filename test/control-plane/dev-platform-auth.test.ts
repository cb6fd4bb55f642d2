/**
 * Platform auth end to end in `berth dev`: a deployment of a real git repository, reached through
 * its stable URL (the local proxy), answers only keys of its tenant — the admin key berth dev
 * issued, a key created through the API once the agent server has refreshed, never a revoked one,
 * another tenant's key or the deployment's own scoped keys (tracing, platform-auth credential).
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/index.js";
import { silentLogger } from "../../src/shared/logging.js";
import { eventually } from "../helpers/server.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

describe("berth dev: deployments require a key of their tenant", () => {
  let dir: string;
  let repo: TestRepo;
  let dev: ControlPlaneServerHandle;
  const api = async (method: string, p: string, body?: unknown, key = dev.adminKey) => {
    const res = await fetch(`${dev.url}${p}`, { method, headers: { "x-api-key": key, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    dir = scratchDir("dev-platform-auth");
    repo = createRepo(dir);
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent", authRefreshSeconds: 1 }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 0,
    });
  });
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the issued key, takes new keys, drops revoked ones, refuses everyone else", async () => {
    const created = await api("POST", "/v2/deployments", {
      name: "guarded",
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repo.url, install_command: "true" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [{ name: "GREETING", value: "hello" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await api("GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}?wait=300`)).body.status).toBe("DEPLOYED");
    const url = (await api("GET", `/v2/deployments/${id}`)).body.source_config.custom_url as string;
    const status = async (key?: string) =>
      (await fetch(`${url}/threads/search`, { method: "POST", headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) }, body: "{}" })).status;

    // open: the probe and the description; closed: everything else, even from this machine
    expect((await fetch(`${url}/ok`)).status).toBe(200);
    const info: any = await (await fetch(`${url}/info`)).json();
    expect(info.auth).toMatchObject({ mode: "platform", tenant_id: DEFAULT_TENANT_ID, refresh: { every_seconds: 1 } });
    expect(await status()).toBe(401);

    // the key berth dev issued works with the SDK, the run sees its secret
    const client = new Client({ apiUrl: url, apiKey: dev.adminKey, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    expect(((await client.runs.wait(thread.thread_id, "env", { input: {} })) as { greeting: string }).greeting).toBe("hello");

    // the deployment's own keys open nothing of it; another tenant's key neither
    const keys = path.join(dir, ".berth", "keys");
    const tracingKey = readFileSync(path.join(keys, `${id}.tracing.key`), "utf8").trim();
    const authKey = readFileSync(path.join(keys, `${id}.auth.key`), "utf8").trim();
    const tenant = await api("POST", "/v2/tenants", { name: "elsewhere" });
    expect(tenant.status).toBe(201);
    const foreign = (await api("POST", "/v2/api-keys", { tenant_ids: [tenant.body.id] })).body.key as string;
    for (const key of [tracingKey, authKey, foreign]) expect(await status(key)).toBe(401);
    expect((await api("GET", "/v2/deployments", undefined, authKey)).status).toBe(403);
    expect((await api("GET", `/v2/deployments/${id}/platform-auth/keys`, undefined, authKey)).status).toBe(200);
    // another tenant's key sees neither the thread nor can it join the run's thread
    expect((await fetch(`${url}/threads/${thread.thread_id}`, { headers: { "x-api-key": foreign } })).status).toBe(401);

    // a key created now works once the agent server has refreshed; revoked, it stops
    const late = (await api("POST", "/v2/api-keys", { name: "late" })).body;
    await eventually(async () => (await status(late.key)) === 200, 60_000, 500);
    expect((await new Client({ apiUrl: url, apiKey: late.key, callerOptions: { maxRetries: 0 } }).threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);
    expect((await api("DELETE", `/v2/api-keys/${late.id}`)).status).toBe(204);
    await eventually(async () => (await status(late.key)) === 401, 60_000, 200);
    expect(await status(dev.adminKey)).toBe(200);

    // deleting the deployment revokes its credential
    expect((await api("DELETE", `/v2/deployments/${id}`)).status).toBe(204);
    await eventually(async () => (await api("GET", `/v2/deployments/${id}`)).status === 404, 60_000);
    expect((await api("GET", `/v2/deployments/${id}/platform-auth/keys`, undefined, authKey)).status).toBe(401);
  }, 600_000);
});

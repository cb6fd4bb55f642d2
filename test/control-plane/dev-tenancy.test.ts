/**
 * Tenants and credentials in `berth dev` (the local runtime), through the public APIs only: a
 * tenant made with the admin API deploys an agent; its install command sees no credential and, as
 * the control plane runs as root here, runs as a user of its own that cannot read the control
 * plane's keys, database or another deployment's checkout; its agent server gets a key that only
 * writes traces into its own project (refused by every other API), revoked when it is deleted.
 */
import { chmodSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { canSwitchUser } from "../../src/runtime/local/isolation.js";
import { silentLogger } from "../../src/shared/logging.js";
import { eventually } from "../helpers/server.js";
import { createRepo, scratchDir, SCRATCH, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

/** A graph that hands back the tracing key its process was given. */
const KEY_GRAPH = `
import { Annotation, StateGraph } from "@langchain/langgraph";
const State = Annotation.Root({ key: Annotation<string> });
export const key = new StateGraph(State)
  .addNode("read", async () => ({ key: process.env.LANGSMITH_API_KEY ?? "unset" }))
  .addEdge("__start__", "read")
  .compile();
`;

describe("berth dev: tenants and credentials", () => {
  let dir: string;
  let dataDir: string;
  let repo: TestRepo;
  let dev: ControlPlaneServerHandle;
  const call = async (key: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${dev.url}${p}`, { method, headers: { "x-api-key": key, "content-type": "application/json", ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const deployed = async (key: string, id: string, revisionId: string) => {
    const rev = (await call(key, "GET", `/v2/deployments/${id}/revisions/${revisionId}?wait=120`)).body;
    expect(rev.status, `revision ${rev.status}: ${rev.status_reason}`).toBe("DEPLOYED");
  };
  const hostedGit = (name: string, install_command: string, integration_id = dev.integrationId) => ({
    name,
    source: "hosted_git",
    source_config: { integration_id, repo_url: repo.url, install_command },
    source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
    secrets: [{ name: "GREETING", value: "hello" }],
  });

  beforeAll(async () => {
    dir = scratchDir("dev-tenancy");
    // the deployments' own users must be able to pass through to their directories
    for (const d of [SCRATCH, dir]) chmodSync(d, 0o711);
    dataDir = path.join(dir, ".berth");
    repo = createRepo(dir);
    repo.commit({ "agent/langgraph.json": JSON.stringify({ graphs: { env: "./graph.ts:env", key: "./key.ts:key" } }), "agent/key.ts": KEY_GRAPH });
    chmodSync(path.join(dir, "repo"), 0o755);
    // an admin key left readable by an older version
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, "admin.key"), `berth_${randomUUID().replace(/-/g, "")}\n`, { mode: 0o644 });
    // the embedded dev mode: this machine's user needs no key, other users do
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir, logLevel: "silent" }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 0,
    });
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps its keys and database to itself", () => {
    expect(statSync(path.join(dataDir, "admin.key")).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, "secrets.key")).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, "db")).mode & 0o777).toBe(0o700);
    expect(statSync(dataDir).mode & 0o777).toBe(0o711);
  });

  it("a deployment's credential writes its own tenant's traces and nothing else; its builds see no key", async () => {
    // tenant A (the default tenant) has a deployment, and a trace with something private in it
    const a = await call(dev.adminKey, "POST", "/v2/deployments", hostedGit(`a-${randomUUID().slice(0, 6)}`, "true"));
    expect(a.status).toBe(201);
    await deployed(dev.adminKey, a.body.id, a.body.latest_revision_id);
    const privateRun = { id: randomUUID(), name: "a-private", run_type: "chain", start_time: new Date().toISOString(), inputs: { text: "tenant A only" }, session_name: a.body.name };
    expect((await call(dev.adminKey, "POST", "/tracing/runs", privateRun)).status).toBe(202);

    // tenant B, made through the admin API, with a key of its own
    const tenant = (await call(dev.adminKey, "POST", "/v2/tenants", { name: `tenant-b-${randomUUID().slice(0, 6)}` })).body;
    const bKey = (await call(dev.adminKey, "POST", "/v2/api-keys", { name: "b", tenant_ids: [tenant.id] })).body.key as string;

    // B's install command fails the build if it sees any credential or can read what is not its own
    const checks = [
      `test -z "$LANGSMITH_API_KEY" || { echo "install sees LANGSMITH_API_KEY"; exit 1; }`,
      `test -z "$DATABASE_URI" || { echo "install sees DATABASE_URI"; exit 1; }`,
      `! (env | grep -v '^BERTH_FROM_SOURCE=' | grep -q '^BERTH_') || { echo "install sees BERTH_ settings"; exit 1; }`,
      `case "$HOME" in ${dataDir}/deployments/*) ;; *) echo "HOME is $HOME"; exit 1;; esac`,
      ...(canSwitchUser()
        ? [
            `test "$(id -u)" != 0 || { echo "install runs as root"; exit 1; }`,
            // the embedded dev mode's key-less access is for the control plane's own user only
            `node -e 'fetch(process.argv[1]).then((r) => process.exit(r.status === 401 ? 0 : 1), () => process.exit(1))' ${dev.url}/v2/deployments || { echo "install uses the API without a key"; exit 1; }`,
            ...[path.join(dataDir, "admin.key"), path.join(dataDir, "secrets.key")].map((f) => `! cat ${f} >/dev/null 2>&1 || { echo "install reads ${f}"; exit 1; }`),
            `! ls ${path.join(dataDir, "db")} >/dev/null 2>&1 || { echo "install lists the control plane's database"; exit 1; }`,
            `! cat ${path.join(dataDir, "deployments", a.body.id)}/revisions/*/src/agent/graph.ts >/dev/null 2>&1 || { echo "install reads tenant A's checkout"; exit 1; }`,
          ]
        : []),
    ];
    const integration = await call(bKey, "POST", "/v1/integrations/hosted_git", { name: "local", kind: "local" });
    expect(integration.status).toBe(201);
    const b = await call(bKey, "POST", "/v2/deployments", hostedGit(`b-${randomUUID().slice(0, 6)}`, checks.join(" && "), integration.body.id));
    expect(b.status, JSON.stringify(b.body)).toBe(201);
    await deployed(bKey, b.body.id, b.body.latest_revision_id);

    // the agent server's own key, as its graph sees it
    const url = (await call(bKey, "GET", `/v2/deployments/${b.body.id}`)).body.source_config.custom_url as string;
    // platform auth: B's deployment answers B's keys, never A's (not even the admin key) nor none
    for (const other of [dev.adminKey, undefined]) {
      const res = await fetch(`${url}/threads`, { method: "POST", headers: { "content-type": "application/json", ...(other ? { "x-api-key": other } : {}) }, body: "{}" });
      expect(res.status).toBe(401);
    }
    const client = new Client({ apiUrl: url, apiKey: bKey, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const { key } = (await client.runs.wait(thread.thread_id, "key", { input: {} })) as { key: string };
    expect(key).toMatch(/^berth_/);
    expect(key).not.toBe(dev.adminKey);

    // refused by everything but ingestion, whichever tenant it names
    for (const [method, p] of [["GET", "/v2/deployments"], ["GET", `/v2/deployments/${a.body.id}`], ["GET", "/v2/api-keys"], ["GET", "/v2/tenants"], ["GET", "/tracing/runs"], ["GET", "/tracing/projects"], ["GET", `/tracing/runs/${privateRun.id}`]]) {
      expect((await call(key, method!, p!)).status, `${method} ${p}`).toBe(403);
    }
    expect((await call(key, "GET", "/v2/deployments", undefined, { "x-tenant-id": a.body.tenant_id })).status).toBe(403);
    // it writes only into its own project
    const run = (session_name: string) => ({ id: randomUUID(), name: "probe", run_type: "chain", start_time: new Date().toISOString(), inputs: {}, session_name });
    expect((await call(key, "POST", "/tracing/runs", run(a.body.name))).status).toBe(422);
    const otherProject = run(`other-${randomUUID().slice(0, 6)}`);
    expect((await call(bKey, "POST", "/tracing/runs", otherProject)).status).toBe(202);
    expect((await call(key, "PATCH", `/tracing/runs/${otherProject.id}`, { outputs: { changed: true } })).status).toBe(422);
    // a run id of tenant A names nothing of B's: A's run stays as it was
    await call(key, "PATCH", `/tracing/runs/${privateRun.id}`, { outputs: { changed: true } });
    expect((await call(dev.adminKey, "GET", `/tracing/runs/${privateRun.id}`)).body.outputs ?? null).toBeNull();

    // the graph's traces land in B's project, which tenant A cannot see
    const bRuns = await eventually(async () => {
      const list = (await call(bKey, "GET", `/tracing/runs?project_name=${b.body.name}`)).body.runs as { name: string }[];
      return list.length > 0 && list;
    }, 60_000);
    expect(bRuns.length).toBeGreaterThan(0);
    expect((await call(dev.adminKey, "GET", `/tracing/runs?project_name=${b.body.name}`)).body.runs ?? []).toEqual([]);
    expect(JSON.stringify((await call(bKey, "GET", `/tracing/runs/${privateRun.id}`)).body)).not.toContain("tenant A only");

    // a new revision keeps the key (its old process may still be sending traces)
    const patched = await call(bKey, "PATCH", `/v2/deployments/${b.body.id}`, { secrets: [{ name: "GREETING", value: "hi" }] });
    expect(patched.status).toBe(200);
    await deployed(bKey, b.body.id, patched.body.latest_revision_id);
    const again = (await client.runs.wait((await client.threads.create()).thread_id, "key", { input: {} })) as { key: string };
    expect(again.key).toBe(key);

    // deleting the deployment revokes its key
    expect((await call(bKey, "DELETE", `/v2/deployments/${b.body.id}`)).status).toBe(204);
    await eventually(async () => (await call(key, "POST", "/tracing/runs", run(b.body.name))).status === 401, 60_000);
    await eventually(async () => (await call(bKey, "GET", `/v2/deployments/${b.body.id}`)).status === 404, 60_000);
  }, 600_000);
});

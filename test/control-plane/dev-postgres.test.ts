/** berth dev on a Postgres server: each deployment gets its own database, dropped with it. */
import { rmSync } from "node:fs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { databaseName } from "../../src/runtime/local/databases.js";
import { silentLogger } from "../../src/shared/logging.js";
import { createScratchDatabase } from "../helpers/postgres.js";
import { eventually, servicesUp } from "../helpers/server.js";
import { POSTGRES_ADMIN_URI } from "../helpers/services.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1";

(servicesUp() ? describe : describe.skip)("berth dev on Postgres", () => {
  let dir: string;
  let repo: TestRepo;
  let scratch: { uri: string; drop(): Promise<void> };
  let dev: ControlPlaneServerHandle;
  const exists = async (name: string) => {
    const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URI });
    await c.connect();
    try {
      return Boolean((await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount);
    } finally {
      await c.end();
    }
  };

  beforeAll(async () => {
    dir = scratchDir("dev-pg");
    repo = createRepo(dir);
    scratch = await createScratchDatabase(POSTGRES_ADMIN_URI, "berth_cp");
    const settings = resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, databaseUri: scratch.uri, secretsKeys: keyToConfig(generateKey()), logLevel: "silent" }, {});
    dev = await startControlPlaneServer(settings, silentLogger, { deployer: { stopGraceMs: 5000, drainMs: 500 }, pollMs: 0 });
  });
  afterAll(async () => {
    await dev?.close();
    await scratch?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("deploys into a database of its own and drops it on delete", async () => {
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${dev.url}${path}`, { method, headers: { "x-api-key": dev.adminKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    const created = await api("POST", "/v2/deployments", {
      name: "pg-agent",
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repo.url, install_command: "true" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [{ name: "GREETING", value: "from postgres" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect((await api("GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}?wait=120`)).body.status).toBe("DEPLOYED");
    expect(await exists(databaseName(id))).toBe(true);
    const url = (await api("GET", `/v2/deployments/${id}`)).body.source_config.custom_url;
    const thread = (await (await fetch(`${url}/threads`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": dev.adminKey }, body: "{}" })).json()) as any;
    // the thread lives in the deployment's own database
    const c = new pg.Client({ connectionString: scratch.uri.replace(/\/[^/]+$/, `/${databaseName(id)}`) });
    await c.connect();
    expect((await c.query("SELECT count(*)::int AS n FROM threads WHERE thread_id = $1", [thread.thread_id])).rows[0].n).toBe(1);
    // owned by a role of its own, which the agent server connects as; no one else may connect
    const name = databaseName(id);
    expect((await c.query("SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1", [name])).rows[0].owner).toBe(name);
    const users = (await c.query("SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [name])).rows.map((r) => r.usename);
    expect(users).toEqual([name]);
    const probe = `probe_${id.slice(0, 8)}`;
    await c.query(`CREATE ROLE ${probe}`);
    try {
      expect((await c.query("SELECT has_database_privilege($1, $2, 'CONNECT') AS ok", [probe, name])).rows[0].ok).toBe(false);
    } finally {
      await c.query(`DROP ROLE ${probe}`);
    }
    await c.end();
    expect((await api("DELETE", `/v2/deployments/${id}`)).status).toBe(204);
    await eventually(async () => !(await exists(databaseName(id))), 30_000);
    // its role goes with it
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URI });
    await admin.connect();
    expect((await admin.query("SELECT count(*)::int AS n FROM pg_roles WHERE rolname = $1", [databaseName(id)])).rows[0].n).toBe(0);
    await admin.end();
  }, 180_000);
});

/**
 * The control plane's REST API over plain HTTP, on both backends: status codes and bodies as the
 * reference lists them, revisions on PATCH, secrets masked and encrypted at rest, tenants apart.
 */
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { controlPlaneForSuite, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { describeBackends } from "../helpers/server.js";

const INTEGRATION = "6f1c1f7e-1b1a-4c1e-9a53-0a1b2c3d4e5f";

describeBackends("control plane API", (backend) => {
  let s: ControlPlaneTestServer;
  controlPlaneForSuite(backend, (x) => (s = x));
  let listenerId: string;
  const name = (p: string) => `${p}-${randomUUID().slice(0, 8)}`;
  const external = (n: string, extra: Record<string, unknown> = {}) => ({
    name: n,
    source: "external_container",
    source_config: { listener_id: listenerId, listener_config: { k8s_namespace: "agents" }, resource_spec: { cpu: 2 } },
    source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" },
    secrets: [{ name: "OPENAI_API_KEY", value: "sk-secret-1" }],
    ...extra,
  });

  beforeAll(async () => {
    const created = await s.api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: `cluster-${backend}`, compute_config: { k8s_namespaces: ["agents"] } });
    expect(created.status).toBe(201);
    listenerId = created.body.id;
  });

  it("creates a deployment with its first revision, secrets masked", async () => {
    const res = await s.api("POST", "/v2/deployments", external(name("ext")));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      source: "external_container",
      status: "AWAITING_DATABASE",
      active_revision_id: null,
      secrets: [{ name: "OPENAI_API_KEY", value: "********" }],
      source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0", repo_commit_sha: null },
      image_version: null,
    });
    expect(res.body.latest_revision_id).toMatch(/^[0-9a-f-]{36}$/);
    const revs = await s.api("GET", `/v2/deployments/${res.body.id}/revisions`);
    expect(revs.body.resources).toEqual([expect.objectContaining({ id: res.body.latest_revision_id, status: "QUEUED", source: "external_container" })]);
    expect((await s.api("GET", `/v2/deployments/${res.body.id}`)).body).toMatchObject({ id: res.body.id, name: res.body.name });
  });

  it("keeps secrets encrypted at rest", async () => {
    const res = await s.api("POST", "/v2/deployments", external(name("enc")));
    const { rows } = await s.db.pool.query("SELECT secrets::text AS d FROM cp_deployments WHERE id = $1 UNION ALL SELECT secrets::text FROM cp_revisions WHERE deployment_id = $1", [res.body.id]);
    expect(rows.length).toBe(2);
    for (const r of rows) {
      expect(r.d).not.toContain("sk-secret-1");
      expect(r.d).toContain("v1:");
    }
    expect((await s.cp.deployments.get("00000000-0000-4000-8000-000000000001", res.body.id)).secrets).toEqual([{ name: "OPENAI_API_KEY", value: "sk-secret-1" }]);
  });

  it("answers rule violations with the reference's codes and bodies", async () => {
    const git = { name: name("git"), source: "hosted_git", source_config: { integration_id: INTEGRATION, repo_url: "file:///tmp/x" }, source_revision_config: { agent_config_path: "langgraph.json" }, secrets: [] };
    const missingRef = await s.api("POST", "/v2/deployments", git);
    expect(missingRef.status).toBe(400);
    expect(missingRef.body.detail).toMatch(/^Source configuration error: .*repo_ref/);
    const { secrets: _s, ...noSecrets } = external(name("x"));
    expect((await s.api("POST", "/v2/deployments", noSecrets)).body).toEqual({ detail: [{ loc: ["body", "secrets"], msg: "Field required", type: "missing" }] });
    expect((await s.api("POST", "/v2/deployments", external("Bad_Name"))).status).toBe(422);
    const reserved = await s.api("POST", "/v2/deployments", external(name("r"), { source_config: { listener_id: listenerId, resource_spec: { executor_cpu: 1 } } }));
    expect(reserved.status).toBe(422);
    expect(reserved.body.detail[0].loc).toEqual(["body", "source_config", "resource_spec", "executor_cpu"]);
    const id = randomUUID();
    expect((await s.api("GET", `/v2/deployments/${id}`)).body).toEqual({ detail: `Deployment ID ${id} not found.` });
    expect((await s.api("GET", "/v2/deployments/not-a-uuid")).status).toBe(422);
    const unknownListener = await s.api("POST", "/v2/deployments", external(name("l"), { source_config: { listener_id: randomUUID() } }));
    expect(unknownListener.status).toBe(400);
    expect(unknownListener.body.detail).toMatch(/^Listener ID .* not found\.$/);
  });

  it("refuses a second deployment with the same name (409) and a second listener with the same compute_id (409)", async () => {
    const n = name("dup");
    expect((await s.api("POST", "/v2/deployments", external(n))).status).toBe(201);
    expect((await s.api("POST", "/v2/deployments", external(n))).status).toBe(409);
    expect((await s.api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: `cluster-${backend}` })).status).toBe(409);
  });

  it("lists with filters and offsets", async () => {
    const prefix = name("lst");
    for (const i of [1, 2, 3]) await s.api("POST", "/v2/deployments", external(`${prefix}-${i}`));
    const page1 = await s.api("GET", `/v2/deployments?name_contains=${prefix}&limit=2`);
    expect(page1.body.resources).toHaveLength(2);
    expect(page1.body.offset).toBe(2);
    const page2 = await s.api("GET", `/v2/deployments?name_contains=${prefix}&limit=2&offset=${page1.body.offset}`);
    expect(page2.body.resources).toHaveLength(1);
    expect((await s.api("GET", `/v2/deployments?name=${prefix}-2`)).body.resources.map((d: any) => d.name)).toEqual([`${prefix}-2`]);
    expect((await s.api("GET", "/v2/deployments?limit=101")).status).toBe(422);
  });

  it("PATCH creates a revision only for revision fields, secrets or resource_spec; queued revisions are skipped", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("p")))).body;
    const plain = await s.api("PATCH", `/v2/deployments/${d.id}`, { source_config: { custom_url: "https://agent.example.com" } });
    expect(plain.status).toBe(200);
    expect(plain.body.latest_revision_id).toBe(d.latest_revision_id);
    expect(plain.body.source_config.custom_url).toBe("https://agent.example.com");
    const withSecret = await s.api("PATCH", `/v2/deployments/${d.id}`, { secrets: [{ name: "OPENAI_API_KEY", value: "********" }, { name: "NEW", value: "v" }] });
    expect(withSecret.body.latest_revision_id).not.toBe(d.latest_revision_id);
    const revs = (await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources;
    expect(revs.map((r: any) => r.status)).toEqual(["QUEUED", "SKIPPED"]);
    // the masked value kept the stored one
    const stored = await s.cp.deployments.get("00000000-0000-4000-8000-000000000001", d.id);
    expect(stored.secrets).toEqual([{ name: "OPENAI_API_KEY", value: "sk-secret-1" }, { name: "NEW", value: "v" }]);
    const immutable = await s.api("PATCH", `/v2/deployments/${d.id}`, { name: "another-name" });
    expect(immutable.status).toBe(400);
    expect(immutable.body.detail).toMatch(/name/);
    expect((await s.api("PATCH", `/v2/deployments/${randomUUID()}`, { secrets: [] })).status).toBe(404);
  });

  it("gives every concurrent PATCH its own revision, in order", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("conc")))).body;
    const answers = await Promise.all([1, 2, 3, 4, 5].map((i) => s.api("PATCH", `/v2/deployments/${d.id}`, { source_revision_config: { image_uri: `img:${i}` } })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    const revs = (await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources;
    expect(revs).toHaveLength(6);
    const latest = (await s.api("GET", `/v2/deployments/${d.id}`)).body;
    expect(latest.latest_revision_id).toBe(revs[0].id);
    expect(latest.source_revision_config.image_uri).toBe(revs[0].source_revision_config.image_uri);
    expect(revs.filter((r: any) => r.status === "QUEUED")).toHaveLength(1);
  });

  it("tracks status through the state machine: DEPLOYED makes a revision active and the deployment READY", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("st")))).body;
    const store = s.cp.deployments;
    await store.setDatabaseReady(d.id, true);
    expect((await s.api("GET", `/v2/deployments/${d.id}`)).body.status).toBe("UNUSED");
    for (const st of ["AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"] as const) await store.setRevisionStatus(d.latest_revision_id, st, { buildless: true });
    const ready = (await s.api("GET", `/v2/deployments/${d.id}`)).body;
    expect(ready).toMatchObject({ status: "READY", active_revision_id: d.latest_revision_id });
    await expect(store.setRevisionStatus(d.latest_revision_id, "BUILDING")).rejects.toThrow(/DEPLOYED is terminal|illegal/);
    // a newer revision that fails leaves the old one active
    const next = (await s.api("POST", `/v2/deployments/${d.id}/revisions`, {})).body;
    expect(next.status).toBe("QUEUED");
    await store.setRevisionStatus(next.id, "AWAITING_DEPLOY");
    await store.setRevisionStatus(next.id, "DEPLOYING");
    await store.setRevisionStatus(next.id, "DEPLOY_FAILED", { reason: "Timeout: Deployment is not ready after 300 seconds." });
    const after = (await s.api("GET", `/v2/deployments/${d.id}`)).body;
    expect(after).toMatchObject({ active_revision_id: d.latest_revision_id, latest_revision_id: next.id, status: "READY" });
    expect((await s.api("GET", `/v2/deployments/${d.id}/revisions/${next.id}`)).body).toMatchObject({ status: "DEPLOY_FAILED", status_reason: expect.stringMatching(/^Timeout/) });
  });

  it("tells the revision serving traffic from those it superseded, which keep DEPLOYED", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("roll")))).body;
    const store = s.cp.deployments;
    await store.setDatabaseReady(d.id, true);
    const deploy = async (rid: string) => {
      for (const st of ["AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED"] as const) await store.setRevisionStatus(rid, st, { buildless: true });
    };
    const first = d.latest_revision_id as string;
    await deploy(first);
    const patched = (await s.api("PATCH", `/v2/deployments/${d.id}`, { secrets: [{ name: "GREETING", value: "hi" }] })).body.latest_revision_id as string;
    await deploy(patched);
    const back = (await s.api("POST", `/v2/deployments/${d.id}/revisions/${first}/redeploy`)).body.latest_revision_id as string;
    // the rollback's revision on its way: the PATCH's still serves
    await store.setRevisionStatus(back, "AWAITING_DEPLOY", { buildless: true });
    const serving = async () => (await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources.map((r: any) => [r.id, r.status, r.is_active, r.superseded]);
    expect(await serving()).toEqual([
      [back, "AWAITING_DEPLOY", false, false],
      [patched, "DEPLOYED", true, false],
      [first, "DEPLOYED", false, true],
    ]);
    await store.setRevisionStatus(back, "DEPLOYING");
    await store.setRevisionStatus(back, "DEPLOYED");
    expect(await serving()).toEqual([
      [back, "DEPLOYED", true, false],
      [patched, "DEPLOYED", false, true],
      [first, "DEPLOYED", false, true],
    ]);
    expect((await s.api("GET", `/v2/deployments/${d.id}`)).body.active_revision_id).toBe(back);
    // one revision, and ?wait, read the same
    expect((await s.api("GET", `/v2/deployments/${d.id}/revisions/${back}?wait=5`)).body).toMatchObject({ status: "DEPLOYED", is_active: true, superseded: false });
    expect((await s.api("GET", `/v2/deployments/${d.id}/revisions/${patched}`)).body).toMatchObject({ status: "DEPLOYED", is_active: false, superseded: true });
    // a revision just created serves nothing yet
    expect((await s.api("POST", `/v2/deployments/${d.id}/revisions`, {})).body).toMatchObject({ status: "QUEUED", is_active: false, superseded: false });
  });

  it("records every status a revision went through, with when and why", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("hist")))).body;
    const store = s.cp.deployments;
    const first = d.latest_revision_id;
    await store.setRevisionStatus(first, "AWAITING_DEPLOY");
    await store.setRevisionStatus(first, "DEPLOYING");
    await store.setRevisionStatus(first, "DEPLOY_FAILED", { reason: "crashed at start" });
    // a revision overtaken before it started: SKIPPED by the newer one, with the reason
    const second = (await s.api("POST", `/v2/deployments/${d.id}/revisions`, {})).body;
    await s.api("POST", `/v2/deployments/${d.id}/revisions`, {});
    const history = async (rid: string) => (await s.api("GET", `/v2/deployments/${d.id}/revisions/${rid}`)).body.status_history as { status: string; at: string; reason: string | null }[];
    const h1 = await history(first);
    expect(h1.map((h) => h.status)).toEqual(["QUEUED", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOY_FAILED"]);
    expect(h1.at(-1)!.reason).toBe("crashed at start");
    const times = h1.map((h) => Date.parse(h.at));
    expect(times.every((t, i) => Number.isFinite(t) && (i === 0 || t >= times[i - 1]!))).toBe(true);
    expect(times[0]).toBeGreaterThanOrEqual(Date.parse(d.created_at) - 1000);
    const h2 = await history(second.id);
    expect(h2.map((h) => h.status)).toEqual(["QUEUED", "SKIPPED"]);
    expect(h2[1]!.reason).toMatch(/newer revision/);
    // the list carries it too
    const listed = (await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources;
    expect(listed.find((r: { id: string }) => r.id === first).status_history).toHaveLength(4);
  });

  it("?wait returns as soon as the revision's status is terminal", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("wait")))).body;
    const url = `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}`;
    const t0 = Date.now();
    expect((await s.api("GET", `${url}?wait=0.3`)).body.status).toBe("QUEUED");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    // the longest wait allowed: answering before the test's own timeout means it answered on the change
    const waiting = s.api("GET", `${url}?wait=300`);
    setTimeout(async () => {
      await s.cp.deployments.setRevisionStatus(d.latest_revision_id, "AWAITING_DEPLOY");
      await s.cp.deployments.setRevisionStatus(d.latest_revision_id, "DEPLOYING");
      await s.cp.deployments.setRevisionStatus(d.latest_revision_id, "DEPLOYED");
    }, 300);
    expect((await waiting).body.status).toBe("DEPLOYED");
    expect((await s.api("GET", `${url}?wait=1000`)).status).toBe(422);
  });

  it("redeploys an older revision as a new one with its configuration", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("rb")))).body;
    await s.api("PATCH", `/v2/deployments/${d.id}`, { source_revision_config: { image_uri: "ghcr.io/acme/agent:2.0" }, secrets: [{ name: "OPENAI_API_KEY", value: "sk-2" }] });
    const back = await s.api("POST", `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/redeploy`);
    expect(back.status).toBe(200);
    expect(back.body.source_revision_config.image_uri).toBe("ghcr.io/acme/agent:1.0");
    const revs = (await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources;
    expect(revs).toHaveLength(3);
    expect(revs[0].source_revision_config.image_uri).toBe("ghcr.io/acme/agent:1.0");
    expect((await s.cp.deployments.get("00000000-0000-4000-8000-000000000001", d.id)).secrets).toEqual([{ name: "OPENAI_API_KEY", value: "sk-secret-1" }]);
    expect((await s.api("POST", `/v2/deployments/${d.id}/revisions/${randomUUID()}/redeploy`)).status).toBe(404);
  });

  it("serves build and deploy logs with a cursor", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("logs")))).body;
    await s.cp.deployments.appendLogs(d.latest_revision_id, "build", Array.from({ length: 5 }, (_, i) => ({ level: "INFO", message: `line ${i}` })));
    await s.cp.deployments.appendLogs(d.latest_revision_id, "deploy", [{ level: "ERROR", message: "boom" }]);
    const base = `/v2/deployments/${d.id}/revisions/${d.latest_revision_id}/logs`;
    const p1 = (await s.api("GET", `${base}?type=build&limit=3`)).body;
    expect(p1.logs.map((l: any) => l.message)).toEqual(["line 0", "line 1", "line 2"]);
    const p2 = (await s.api("GET", `${base}?type=build&limit=3&offset=${p1.next_offset}`)).body;
    expect(p2).toMatchObject({ logs: [{ message: "line 3" }, { message: "line 4" }], next_offset: null });
    expect((await s.api("GET", `${base}?type=deploy`)).body.logs).toEqual([expect.objectContaining({ level: "ERROR", message: "boom" })]);
    expect((await s.api("GET", `${base}?type=other`)).status).toBe(422);
    expect((await s.api("GET", `${base}?type=build&offset=zzz`)).status).toBe(400);
  });

  it("deletes (204) and then no longer finds the deployment", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("del")))).body;
    expect((await s.api("DELETE", `/v2/deployments/${d.id}`)).status).toBe(204);
    expect((await s.api("GET", `/v2/deployments/${d.id}`)).status).toBe(404);
  });

  it("replays the first answer for a repeated Idempotency-Key, and refuses the key for another request", async () => {
    const n = name("idem");
    const key = { "idempotency-key": `create-${n}` };
    const first = await s.api("POST", "/v2/deployments", external(n), key);
    const again = await fetch(`${s.url}/v2/deployments`, { method: "POST", headers: { "x-api-key": "berth-cp-test-key-0123456789abcdef", "content-type": "application/json", ...key }, body: JSON.stringify(external(n)) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(((await again.json()) as any).id).toBe(first.body.id);
    expect((await s.api("GET", `/v2/deployments?name=${n}`)).body.resources).toHaveLength(1);
    const other = await s.api("POST", "/v2/deployments", external(`${n}-b`), key);
    expect(other.status).toBe(422);
    expect(other.body.detail[0].loc).toEqual(["header", "Idempotency-Key"]);
    const patchKey = { "idempotency-key": `patch-${n}` };
    for (let i = 0; i < 3; i++) await s.api("PATCH", `/v2/deployments/${first.body.id}`, { secrets: [{ name: "A", value: "1" }] }, patchKey);
    expect((await s.api("GET", `/v2/deployments/${first.body.id}/revisions`)).body.resources).toHaveLength(2);
  });

  it("creates, lists and revokes API keys; a key cannot mint keys for tenants it does not have", async () => {
    const created = await s.api("POST", "/v2/api-keys", { name: "ci" });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^berth_/);
    const useIt = () => fetch(`${s.url}/v2/deployments`, { headers: { "x-api-key": created.body.key } });
    expect((await useIt()).status).toBe(200);
    const listed = (await s.api("GET", "/v2/api-keys")).body.resources;
    expect(listed.map((k: any) => k.id)).toContain(created.body.id);
    expect(JSON.stringify(listed)).not.toContain(created.body.key);
    expect((await s.api("POST", "/v2/api-keys", { tenant_ids: [randomUUID()] })).status).toBe(403);
    expect((await s.api("DELETE", `/v2/api-keys/${created.body.id}`)).status).toBe(204);
    expect((await useIt()).status).toBe(401);
    expect((await s.api("DELETE", `/v2/api-keys/${created.body.id}`)).status).toBe(404);
  });

  it("keeps tenants apart and requires a key", async () => {
    const d = (await s.api("POST", "/v2/deployments", external(name("ten")))).body;
    const other = await s.cp.auth.createTenant(`other-${backend}`);
    const { key } = await s.cp.auth.createKey([other.id]);
    expect((await s.api("GET", `/v2/deployments/${d.id}`, undefined, { "x-api-key": key })).status).toBe(404);
    expect((await s.api("GET", "/v2/deployments", undefined, { "x-api-key": key })).body.resources).toEqual([]);
    expect((await fetch(`${s.url}/v2/deployments`)).status).toBe(401);
    expect((await fetch(`${s.url}/ok`)).status).toBe(200);
    const doc: any = await (await fetch(`${s.url}/openapi.json`)).json();
    expect(doc.info.version).toBe("0.1.0");
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v2/deployments", "/v2/deployments/{deployment_id}/revisions/{revision_id}/redeploy", "/v2/listeners/{listener_id}"]));
  });
});

describe("secrets keys", () => {
  it("the embedded mode generates a key once and keeps it; a server database needs one configured", async () => {
    const { mkdtempSync, rmSync, statSync } = await import("node:fs");
    const os = await import("node:os");
    const path = await import("node:path");
    const { secretsKeys } = await import("../../src/control-plane/facility.js");
    const dir = mkdtempSync(path.join(os.tmpdir(), "berth-keys-"));
    try {
      const a = secretsKeys({ embedded: true, dataDir: dir });
      const b = secretsKeys({ embedded: true, dataDir: dir });
      expect(a[0]!.equals(b[0]!)).toBe(true);
      expect(statSync(path.join(dir, "secrets.key")).mode & 0o777).toBe(0o600);
      expect(() => secretsKeys({ embedded: false, dataDir: dir })).toThrow(/BERTH_SECRETS_KEY/);
      expect(() => secretsKeys({ embedded: false, dataDir: dir, secretsKeys: ["short"] })).toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

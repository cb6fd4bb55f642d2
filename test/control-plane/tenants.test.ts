/**
 * The admin API for tenants (/v2/tenants) over plain HTTP, on both backends: only an admin key may
 * use it; a tenant made through it gets keys that act for it alone; deleting it revokes them.
 */
import { randomUUID } from "node:crypto";
import { expect, it } from "vitest";
import { CP_ADMIN_KEY, controlPlaneForSuite, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { describeBackends } from "../helpers/server.js";

describeBackends("tenants admin API", (backend) => {
  let s: ControlPlaneTestServer;
  controlPlaneForSuite(backend, (x) => (s = x));
  const admin = { "x-api-key": CP_ADMIN_KEY };
  const asKey = (key: string) => ({ "x-api-key": key });
  const tenantName = () => `acme-${randomUUID().slice(0, 8)}`;

  it("an admin key creates a tenant, lists and reads it; its keys act for it alone", async () => {
    const name = tenantName();
    const created = await s.api("POST", "/v2/tenants", { name }, admin);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, id: expect.any(String), created_at: expect.any(String) });
    const id = created.body.id;
    expect((await s.api("GET", "/v2/tenants", undefined, admin)).body.resources.map((t: any) => t.name)).toContain(name);
    expect((await s.api("GET", `/v2/tenants/${id}`, undefined, admin)).body).toEqual(created.body);
    expect((await s.api("POST", "/v2/tenants", { name }, admin)).status).toBe(409);

    // the admin mints the new tenant's first key
    const key = await s.api("POST", "/v2/api-keys", { name: "acme ci", tenant_ids: [id] }, admin);
    expect(key.status).toBe(201);
    const me = await s.api("GET", "/v2/whoami", undefined, asKey(key.body.key));
    expect(me.body).toMatchObject({ tenant_id: id, tenants: [{ id, name }], admin: false });
    // a deployment made with the tenant's key is that tenant's, invisible to the default tenant
    const dep = await s.api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: `c-${randomUUID().slice(0, 8)}` }, asKey(key.body.key));
    expect(dep.status).toBe(201);
    expect((await s.api("GET", `/v2/listeners/${dep.body.id}`)).status).toBe(404);
    expect((await s.api("GET", `/v2/listeners/${dep.body.id}`, undefined, asKey(key.body.key))).status).toBe(200);
  });

  it("refuses tenant management to keys that are not admin", async () => {
    const { key } = await s.cp.auth.createKey(undefined, "plain");
    for (const [method, path, body] of [
      ["GET", "/v2/tenants", undefined],
      ["POST", "/v2/tenants", { name: tenantName() }],
      ["GET", `/v2/tenants/${randomUUID()}`, undefined],
      ["DELETE", `/v2/tenants/${randomUUID()}`, undefined],
    ] as const) {
      const res = await s.api(method, path, body, asKey(key));
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.detail).toMatch(/admin/);
    }
    // nor can a plain key mint keys for another tenant
    const other = (await s.api("POST", "/v2/tenants", { name: tenantName() }, admin)).body;
    expect((await s.api("POST", "/v2/api-keys", { tenant_ids: [other.id] }, asKey(key))).status).toBe(403);
    expect((await s.api("GET", "/v2/tenants", undefined, asKey(key))).body.resources).toBeUndefined();
  });

  it("deleting a tenant revokes its keys; the default tenant and tenants with deployments stay", async () => {
    const t = (await s.api("POST", "/v2/tenants", { name: tenantName() }, admin)).body;
    const key = (await s.api("POST", "/v2/api-keys", { tenant_ids: [t.id] }, admin)).body.key;
    expect((await s.api("GET", "/v2/whoami", undefined, asKey(key))).status).toBe(200);

    const listener = (await s.api("POST", "/v2/listeners", { compute_type: "k8s", compute_id: `c-${randomUUID().slice(0, 8)}`, compute_config: { k8s_namespaces: ["agents"] } }, asKey(key))).body;
    const d = await s.api(
      "POST",
      "/v2/deployments",
      {
        name: `d-${randomUUID().slice(0, 8)}`,
        source: "external_container",
        source_config: { listener_id: listener.id, listener_config: { k8s_namespace: "agents" } },
        source_revision_config: { image_uri: "ghcr.io/acme/agent:1.0" },
        secrets: [],
      },
      asKey(key),
    );
    expect(d.status, JSON.stringify(d.body)).toBe(201);
    const refused = await s.api("DELETE", `/v2/tenants/${t.id}`, undefined, admin);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/deployments/);
    await s.cp.deployments.remove(d.body.id);

    expect((await s.api("DELETE", `/v2/tenants/${t.id}`, undefined, admin)).status).toBe(204);
    expect((await s.api("GET", "/v2/whoami", undefined, asKey(key))).status).toBe(401);
    expect((await s.api("GET", `/v2/tenants/${t.id}`, undefined, admin)).status).toBe(404);
    expect((await s.api("DELETE", `/v2/tenants/${t.id}`, undefined, admin)).status).toBe(404);
    const me = (await s.api("GET", "/v2/whoami", undefined, admin)).body;
    expect((await s.api("DELETE", `/v2/tenants/${me.tenant_id}`, undefined, admin)).status).toBe(409);
  });

  it("answers bad input with a clear 422/404", async () => {
    for (const body of [{}, { name: "" }, { name: "   " }, { name: 42 }, { name: "x".repeat(101) }, { name: "a\nb" }]) {
      const res = await s.api("POST", "/v2/tenants", body, admin);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    expect((await s.api("GET", "/v2/tenants/not-a-uuid", undefined, admin)).status).toBe(422);
    expect((await s.api("POST", "/v2/api-keys", { tenant_ids: [randomUUID()] }, admin)).status).toBe(404);
  });
});

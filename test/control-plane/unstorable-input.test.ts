/**
 * NUL and lone surrogates in control-plane requests (issue 13 item 11): 422 naming the field, never
 * a 500 from Postgres — and a secret is never silently altered: refused, the stored one unchanged.
 */
import { expect, it } from "vitest";
import { controlPlaneForSuite, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { describeBackends } from "../helpers/server.js";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/service.js";

describeBackends("control plane: unstorable text", (backend) => {
  let s: ControlPlaneTestServer;
  controlPlaneForSuite(backend, (x) => (s = x));

  const body = (over: Record<string, unknown> = {}) => ({
    name: "nul-test",
    source: "external_container",
    source_config: {},
    source_revision_config: { image_uri: "img:1" },
    secrets: [{ name: "TOKEN", value: "s3cret" }],
    ...over,
  });

  it("refuses NUL and lone surrogates on create and PATCH with 422 naming the field", async () => {
    const refused: [Record<string, unknown>, (string | number)[]][] = [
      [{ source_config: { build_command: "make\u0000" } }, ["body", "source_config", "build_command"]],
      [{ source_config: { install_command: "npm ci\ud800" } }, ["body", "source_config", "install_command"]],
      [{ secrets: [{ name: "TOKEN", value: "s3\u0000cret" }] }, ["body", "secrets", 0, "value"]],
      [{ source_config: { resource_spec: { labels: { "a\udc00": "b" } } } }, ["body", "source_config", "resource_spec", "labels", "a\udc00"]],
    ];
    for (const [over, loc] of refused) {
      const res = await s.api("POST", "/v2/deployments", body(over));
      expect(res.status, JSON.stringify(loc)).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ loc, type: "string_unstorable" });
    }
    expect((await s.api("GET", "/v2/deployments?name_contains=nul-test")).body.resources).toEqual([]);

    const created = await s.api("POST", "/v2/deployments", body());
    expect(created.status).toBe(201);
    const id = created.body.id;
    const before = await s.cp.deployments.get(DEFAULT_TENANT_ID, id);
    for (const [over, loc] of refused) {
      const res = await s.api("PATCH", `/v2/deployments/${id}`, over);
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(loc);
    }
    const after = await s.cp.deployments.get(DEFAULT_TENANT_ID, id);
    expect(after.secrets).toEqual(before.secrets);
    expect(after.latest_revision_id).toBe(before.latest_revision_id);
  });

});

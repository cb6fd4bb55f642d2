/**
 * Property test over HTTP: whatever body arrives at create or PATCH, the answer is a success or a
 * 400/404/409/422 in the documented shape — never a 500, a hang or a crash.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { controlPlaneForSuite, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { describeBackends } from "../helpers/server.js";

const wellFormed = (status: number, body: any) => {
  if (status === 422) return Array.isArray(body?.detail) && body.detail.every((d: any) => Array.isArray(d.loc) && ["body", "path", "query", "header"].includes(d.loc[0]) && typeof d.msg === "string" && typeof d.type === "string");
  if (status >= 400) return typeof body?.detail === "string";
  return typeof body?.id === "string";
};

describeBackends("control plane bodies (property)", (backend) => {
  let s: ControlPlaneTestServer;
  controlPlaneForSuite(backend, (x) => (s = x));

  // near-valid bodies reach the rules, not just the schema
  const nearValid = fc.record(
    {
      name: fc.oneof(fc.constantFrom("a", "agent-1", "Bad_Name", "", "x".repeat(80)), fc.string()),
      source: fc.oneof(fc.constantFrom("hosted_git", "external_container"), fc.string()),
      source_config: fc.oneof(
        fc.record({ custom_url: fc.option(fc.webUrl()), build_on_push: fc.option(fc.boolean()), resource_spec: fc.option(fc.dictionary(fc.constantFrom("cpu", "memory_mb", "executor_cpu", "min_scale", "volumes"), fc.oneof(fc.integer(), fc.string(), fc.constant(null), fc.array(fc.anything())))) }, { requiredKeys: [] }),
        fc.anything(),
      ),
      source_revision_config: fc.oneof(fc.record({ image_uri: fc.option(fc.string()), repo_ref: fc.option(fc.constantFrom("main", "refs/tags/v1")) }, { requiredKeys: [] }), fc.anything()),
      secrets: fc.oneof(fc.array(fc.record({ name: fc.oneof(fc.constantFrom("A", "OPENAI_API_KEY", "1bad", "********"), fc.string()), value: fc.oneof(fc.string(), fc.constant("********")) })), fc.anything()),
    },
    { requiredKeys: [] },
  );

  it("create answers 201, 400, 409 or 422 in the documented shape", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearValid, fc.jsonValue()), async (body) => {
        const res = await s.api("POST", "/v2/deployments", body);
        expect([201, 400, 409, 422]).toContain(res.status);
        expect(wellFormed(res.status, res.body)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("PATCH answers 200, 400, 409 or 422 in the documented shape", async () => {
    const d = (await s.api("POST", "/v2/deployments", { name: `fuzz-${backend}`, source: "external_container", source_config: {}, source_revision_config: { image_uri: "img:1" }, secrets: [{ name: "A", value: "1" }] })).body;
    await fc.assert(
      fc.asyncProperty(fc.oneof(nearValid, fc.jsonValue()), async (body) => {
        const res = await s.api("PATCH", `/v2/deployments/${d.id}`, body);
        expect([200, 400, 409, 422]).toContain(res.status);
        expect(wellFormed(res.status, res.body)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });
});

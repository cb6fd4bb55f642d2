/**
 * A deployment's tracing key (scope tracing:write, pinned to one project) through the real
 * `langsmith` SDK and plain multipart: its runs land in its project; reads, other projects and
 * attachments for runs it did not send are refused.
 */
import { randomUUID } from "node:crypto";
import { Client } from "langsmith";
import { traceable } from "langsmith/traceable";
import { expect, it } from "vitest";
import { DEFAULT_TENANT_ID } from "../../src/shared/auth/index.js";
import { eventually, describeBackends } from "../helpers/server.js";
import { tracingServerForSuite, type TracingTestServer } from "../helpers/tracing.js";

describeBackends("scoped tracing keys", (backend) => {
  let server: TracingTestServer;
  tracingServerForSuite(backend, (s) => (server = s));
  const keyFor = async (project: string) => (await server.handle.facility.auth.createDeploymentKey(DEFAULT_TENANT_ID, { id: randomUUID(), name: project })).key;
  const post = async (key: string, path: string, body: RequestInit["body"], method = "POST") => {
    const res = await fetch(`${server.url}${path}`, { method, body, headers: { "x-api-key": key, ...(typeof body === "string" ? { "content-type": "application/json" } : {}) } });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  it("the SDK traces into the key's project; the key reads nothing", async () => {
    const project = `dep-${randomUUID().slice(0, 8)}`;
    const key = await keyFor(project);
    const client = new Client({ apiUrl: server.url, apiKey: key, autoBatchTracing: true });
    const step = traceable(async (x: string) => `echo ${x}`, { name: "scoped-step", client, project_name: project, tracingEnabled: true });
    await step("hi");
    await client.awaitPendingTraceBatches();
    const runs = await eventually(async () => {
      const body = (await server.api(`/runs?project_name=${project}`)).body;
      return body.runs?.length > 0 && body.runs;
    });
    expect(runs.map((r: any) => r.name)).toContain("scoped-step");
    for (const path of ["/runs", "/projects", `/runs/${runs[0].id}`]) {
      const res = await fetch(`${server.url}${path}`, { headers: { "x-api-key": key } });
      expect(res.status, path).toBe(403);
    }
  });

  it("refuses runs for other projects and attachments for runs it did not send", async () => {
    const project = `dep-${randomUUID().slice(0, 8)}`;
    const key = await keyFor(project);
    const run = (session_name: string) => ({ id: randomUUID(), name: "r", run_type: "chain", start_time: new Date().toISOString(), inputs: {}, session_name });
    const elsewhere = await post(key, "/runs", JSON.stringify(run(`other-${randomUUID().slice(0, 8)}`)));
    expect(elsewhere.status).toBe(422);
    expect(JSON.stringify(elsewhere.body)).toContain(project);

    // an attachment for a run of another project of the same tenant
    const foreign = run(`other-${randomUUID().slice(0, 8)}`);
    expect((await server.api("/runs", { method: "POST", body: JSON.stringify(foreign) })).status).toBe(202);
    const own = run(project);
    const form = new FormData();
    form.append(`post.${own.id}`, new Blob([JSON.stringify(own)], { type: "application/json" }));
    form.append(`attachment.${own.id}.note`, new Blob(["mine"], { type: "text/plain" }));
    form.append(`attachment.${foreign.id}.note`, new Blob(["not mine"], { type: "text/plain" }));
    const res = await post(key, "/runs/multipart", form);
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(1);
    expect(res.body.errors).toEqual([expect.objectContaining({ run_id: foreign.id })]);
    const stored = (await server.api(`/runs/${own.id}`)).body;
    expect(stored.attachments.map((a: any) => a.name)).toEqual(["note"]);
  });
});

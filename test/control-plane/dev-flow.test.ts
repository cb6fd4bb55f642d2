/**
 * The whole spec §1.4 flow on one machine, as `berth dev` runs it: create a deployment from a real
 * git repository, wait for DEPLOYED, call it through the SDK and A2A, change a secret (new
 * revision, new value seen by the graph), roll back, fail a build, see its traces, delete it.
 */
import { rmSync } from "node:fs";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { eventually } from "../helpers/server.js";
import { createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

describe("berth dev: the whole flow", () => {
  let dir: string;
  let repo: TestRepo;
  let dev: ControlPlaneServerHandle;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${dev.url}${path}`, { method, headers: { "x-api-key": dev.adminKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  const waitFor = async (deploymentId: string, revisionId: string) =>
    (await api("GET", `/v2/deployments/${deploymentId}/revisions/${revisionId}?wait=120`)).body;

  beforeAll(async () => {
    dir = scratchDir("dev-flow");
    repo = createRepo(dir);
    // a messages graph too, so the deployment speaks A2A
    repo.commit({
      "agent/langgraph.json": JSON.stringify({ graphs: { env: "./graph.ts:env", chat: "./chat.ts:chat" } }),
      "agent/chat.ts": `
import { AIMessage } from "@langchain/core/messages";
import { MessagesAnnotation, StateGraph } from "@langchain/langgraph";
export const chat = new StateGraph(MessagesAnnotation)
  .addNode("reply", async (s) => ({ messages: [new AIMessage(\`\${process.env.GREETING}: \${String(s.messages.at(-1)?.content)}\`)] }))
  .addEdge("__start__", "reply")
  .compile();
`,
    });
    dev = await startControlPlaneServer(resolveControlPlaneSettings({ port: 0, dataDir: `${dir}/.berth`, logLevel: "silent" }, {}), silentLogger, {
      deployer: { stopGraceMs: 5000, drainMs: 500 },
      pollMs: 300,
    });
  });
  afterAll(async () => {
    await dev?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("creates, deploys, serves, updates, rolls back, fails a build, traces and deletes", async () => {
    const name = "greeter";
    const created = await api("POST", "/v2/deployments", {
      name,
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repo.url, install_command: "true" },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [{ name: "GREETING", value: "hello" }],
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const first = await waitFor(id, created.body.latest_revision_id);
    expect(first).toMatchObject({ status: "DEPLOYED", source_revision_config: { repo_commit_sha: repo.head() } });

    const deployment = (await api("GET", `/v2/deployments/${id}`)).body;
    expect(deployment).toMatchObject({ status: "READY", active_revision_id: first.id });
    const url = deployment.source_config.custom_url as string;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    // platform auth: the deployment answers only a key of its tenant (here the admin key berth dev issued)
    expect((await fetch(`${url}/threads`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" })).status).toBe(401);
    const client = new Client({ apiUrl: url, apiKey: dev.adminKey, callerOptions: { maxRetries: 0 } });
    const thread = await client.threads.create();
    const out = (await client.runs.wait(thread.thread_id, "env", { input: {} })) as { greeting: string };
    expect(out.greeting).toBe("hello");

    // A2A on the same URL
    const a2a = await fetch(`${url}/a2a/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": dev.adminKey },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message: { role: "user", messageId: "m1", kind: "message", parts: [{ kind: "text", text: "hi" }] } } }),
    });
    const a2aBody: any = await a2a.json();
    expect(JSON.stringify(a2aBody.result)).toContain("hello: hi");

    // a secret change is a new revision; the graph sees the new value, the thread survives
    const patched = await api("PATCH", `/v2/deployments/${id}`, { secrets: [{ name: "GREETING", value: "bonjour" }] });
    expect(patched.body.latest_revision_id).not.toBe(first.id);
    expect((await waitFor(id, patched.body.latest_revision_id)).status).toBe("DEPLOYED");
    expect(((await client.runs.wait(thread.thread_id, "env", { input: {} })) as { greeting: string }).greeting).toBe("bonjour");
    expect((await client.threads.get(thread.thread_id)).thread_id).toBe(thread.thread_id);

    // roll back to the first revision's configuration
    const back = await api("POST", `/v2/deployments/${id}/revisions/${first.id}/redeploy`);
    expect(back.status).toBe(200);
    expect((await waitFor(id, back.body.latest_revision_id)).status).toBe("DEPLOYED");
    expect(((await client.runs.wait(thread.thread_id, "env", { input: {} })) as { greeting: string }).greeting).toBe("hello");

    // a failing build: BUILD_FAILED with its output in the build log; the running revision stays
    await api("PATCH", `/v2/deployments/${id}`, { source_config: { install_command: "echo compiling; exit 3" } });
    const failing = (await api("POST", `/v2/deployments/${id}/revisions`, {})).body;
    const failed = await waitFor(id, failing.id);
    expect(failed.status).toBe("BUILD_FAILED");
    const logs = (await api("GET", `/v2/deployments/${id}/revisions/${failing.id}/logs?type=build&limit=1000`)).body.logs.map((l: any) => l.message).join("\n");
    expect(logs).toContain("compiling");
    expect((await api("GET", `/v2/deployments/${id}`)).body.active_revision_id).toBe(back.body.latest_revision_id);
    expect(((await client.runs.wait(thread.thread_id, "env", { input: {} })) as { greeting: string }).greeting).toBe("hello");

    // traces of the deployment's runs land in its project, named after the deployment
    await eventually(async () => {
      const runs = (await api("GET", `/tracing/runs?project_name=${name}&is_root=true`)).body.runs;
      return runs.length >= 1 && runs.some((r: any) => r.metadata.graph_id === "env");
    }, 30_000);

    // delete: AWAITING_DELETE, then gone, and the URL stops answering
    expect((await api("DELETE", `/v2/deployments/${id}`)).status).toBe(204);
    await eventually(async () => (await api("GET", `/v2/deployments/${id}`)).status === 404, 30_000);
    await expect(fetch(`${url}/ok`)).rejects.toThrow();
  }, 300_000);

  it("build_on_push on a local repository: a commit to the branch becomes a new deployed revision", async () => {
    const created = await api("POST", "/v2/deployments", {
      name: "pusher",
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repo.url, install_command: "true", build_on_push: true },
      source_revision_config: { repo_ref: "main", agent_config_path: "agent/langgraph.json" },
      secrets: [],
    });
    const id = created.body.id;
    expect((await waitFor(id, created.body.latest_revision_id)).status).toBe("DEPLOYED");
    const url = (await api("GET", `/v2/deployments/${id}`)).body.source_config.custom_url;
    const client = new Client({ apiUrl: url, apiKey: dev.adminKey, callerOptions: { maxRetries: 0 } });
    const before = (await client.runs.wait(null, "env", { input: {} })) as { greeting: string };
    expect(before.greeting).toBe("unset");

    const { GRAPH_TS } = await import("../runtime/local-repo.js");
    const sha = repo.commit({ "agent/graph.ts": GRAPH_TS.replace('"unset"', '"from the new commit"') }, "new default");
    const next = await eventually(async () => {
      const revs = (await api("GET", `/v2/deployments/${id}/revisions`)).body.resources;
      return revs.length > 1 ? revs[0] : undefined;
    }, 30_000);
    expect(await waitFor(id, next.id)).toMatchObject({ status: "DEPLOYED", source_revision_config: { repo_commit_sha: sha } });
    expect(((await client.runs.wait(null, "env", { input: {} })) as { greeting: string }).greeting).toBe("from the new commit");
    // no new commit, no new revision
    await new Promise((r) => setTimeout(r, 1000));
    expect((await api("GET", `/v2/deployments/${id}/revisions`)).body.resources).toHaveLength(2);
  });

  it("refuses external_container on the local listener with a clear 400", async () => {
    const res = await api("POST", "/v2/deployments", { name: "img", source: "external_container", source_config: {}, source_revision_config: { image_uri: "ghcr.io/a/b:1" }, secrets: [] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/external_container needs a k8s listener/);
  });
});

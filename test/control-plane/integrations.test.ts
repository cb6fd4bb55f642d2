/** Hosted-git integrations over HTTP: records, repos of a local directory, and signed push webhooks. */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sign } from "../../src/control-plane/git-hosts.js";
import { controlPlaneForSuite, type ControlPlaneTestServer } from "../helpers/control-plane.js";
import { describeBackends } from "../helpers/server.js";

const SECRET = "webhook-secret-for-tests-0123";

describeBackends("hosted-git integrations", (backend) => {
  let s: ControlPlaneTestServer;
  controlPlaneForSuite(backend, (x) => (s = x));
  let root: string;
  let repo: string;
  let integration: any;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), "berth-repos-"));
    repo = path.join(root, "agent");
    mkdirSync(repo);
    execFileSync("git", ["init", "--quiet", "--initial-branch=main"], { cwd: repo });
    writeFileSync(path.join(repo, "langgraph.json"), "{}");
    mkdirSync(path.join(root, "not-a-repo"));
    const res = await s.api("POST", "/v1/integrations/hosted_git", { name: "local", kind: "local", base_url: root, webhook_secret: SECRET, token: "never-shown" });
    expect(res.status).toBe(201);
    integration = res.body;
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const deployment = (name: string, repoUrl: string, extra: Record<string, unknown> = {}) => ({
    name,
    source: "hosted_git",
    source_config: { integration_id: integration.id, repo_url: repoUrl, build_on_push: true, ...extra },
    source_revision_config: { repo_ref: "main", agent_config_path: "langgraph.json" },
    secrets: [],
  });

  it("lists integrations without their secrets, and the repositories of a local one", async () => {
    const list = (await s.api("GET", "/v1/integrations/hosted_git/install")).body;
    expect(list).toEqual([expect.objectContaining({ id: integration.id, kind: "local", has_token: true, has_webhook_secret: true })]);
    expect(JSON.stringify(list)).not.toContain("never-shown");
    expect(JSON.stringify(list)).not.toContain(SECRET);
    const repos = (await s.api("GET", `/v1/integrations/hosted_git/${integration.id}/repos`)).body;
    expect(repos).toEqual([expect.objectContaining({ host_integration_id: integration.id, name: "agent", url: pathToFileURL(repo).href })]);
    expect((await s.api("POST", "/v1/integrations/hosted_git", { name: "local", kind: "local" })).status).toBe(409);
  });

  it("builds hosted_git deployments only from repositories the integration accepts", async () => {
    expect((await s.api("POST", "/v2/deployments", deployment(`ok-${backend}`, pathToFileURL(repo).href))).status).toBe(201);
    const https = await s.api("POST", "/v2/deployments", deployment(`web-${backend}`, "https://github.com/acme/agent"));
    expect(https.status).toBe(400);
    expect(https.body.detail).toMatch(/^Source configuration error: a local integration builds from file:\/\/ URLs/);
    const unknown = await s.api("POST", "/v2/deployments", { ...deployment(`unk-${backend}`, repo), source_config: { integration_id: "00000000-0000-4000-8000-0000000000aa", repo_url: repo } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatch(/^Integration ID .* not found\.$/);
  });

  it("turns a signed push into a revision of each matching build_on_push deployment", async () => {
    const d = (await s.api("POST", "/v2/deployments", deployment(`push-${backend}`, repo))).body;
    const other = (await s.api("POST", "/v2/deployments", { ...deployment(`dev-${backend}`, repo), source_revision_config: { repo_ref: "dev", agent_config_path: "langgraph.json" } })).body;
    const hook = (payload: unknown, headers: Record<string, string> = {}) => {
      const raw = JSON.stringify(payload);
      return fetch(`${s.url}/v1/integrations/hosted_git/webhook?integration_id=${integration.id}`, {
        method: "POST",
        body: raw,
        headers: { "content-type": "application/json", "x-github-event": "push", "x-hub-signature-256": sign(SECRET, raw), ...headers },
      });
    };
    const push = { ref: "refs/heads/main", after: "abc", repository: { clone_url: pathToFileURL(repo).href } };
    const res = await hook(push);
    expect(res.status).toBe(202);
    const created = ((await res.json()) as any).revisions as { deployment_id: string; revision_id: string }[];
    expect(created.map((c) => c.deployment_id)).toContain(d.id);
    expect(created.map((c) => c.deployment_id)).not.toContain(other.id);
    const revs = (await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources;
    expect(revs).toHaveLength(2);
    expect(revs[1].status).toBe("SKIPPED"); // the first one had not started: overtaken
    expect((await hook(push, { "x-hub-signature-256": sign("wrong-secret-0123456789", JSON.stringify(push)) })).status).toBe(401);
    expect((await hook({ ...push, ref: "refs/tags/v1" })).status).toBe(202);
    expect((await s.api("GET", `/v2/deployments/${d.id}/revisions`)).body.resources).toHaveLength(2);
    expect((await hook({ zen: "hi" }, { "x-github-event": "ping" })).status).toBe(200);
  });
});

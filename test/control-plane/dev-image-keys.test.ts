/**
 * langgraph.json's image keys in `berth dev` (the local runtime), through the control plane's API:
 * `dependencies` directories are installed (a stand-in npm on PATH records where it ran, and the
 * deployed graph reports what it finds), while a `node_version` the local Node.js is not, any
 * `dockerfile_lines` and a `dependencies` path out of the repository fail the revision
 * (BUILD_FAILED) with the reason in its status and build log — before any install runs.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { BASE_FILES, createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

const MAJOR = Number(process.versions.node.split(".")[0]);

/** Which of the repository root, agent/ and tools/ hold the stand-in npm's marker. */
const DEPS_GRAPH = `
import { existsSync } from "node:fs";
import { Annotation, StateGraph } from "@langchain/langgraph";
const State = Annotation.Root({ installed: Annotation<string[]> });
export const deps = new StateGraph(State)
  .addNode("look", async () => ({
    installed: [["root", "../installed-by-npm"], ["agent", "./installed-by-npm"], ["tools", "../tools/installed-by-npm"]]
      .filter(([, p]) => existsSync(new URL(p, import.meta.url)))
      .map(([name]) => name),
  }))
  .addEdge("__start__", "look")
  .compile();
`;

const config = (keys: Record<string, unknown>) => JSON.stringify({ graphs: { deps: "./deps.ts:deps" }, ...keys });

describe("berth dev: node_version, dependencies and dockerfile_lines", () => {
  let dir: string;
  let repo: TestRepo;
  let dev: ControlPlaneServerHandle;
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${dev.url}${p}`, { method, headers: { "x-api-key": dev.adminKey, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
  /** Create a deployment of `configPath`; resolves with its first revision once it ended, and its build log. */
  const deploy = async (name: string, configPath: string) => {
    const created = await api("POST", "/v2/deployments", {
      name,
      source: "hosted_git",
      source_config: { integration_id: dev.integrationId, repo_url: repo.url },
      source_revision_config: { repo_ref: "main", agent_config_path: configPath },
      secrets: [],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const revision = (await api("GET", `/v2/deployments/${id}/revisions/${created.body.latest_revision_id}?wait=120`)).body;
    const log = (await api("GET", `/v2/deployments/${id}/revisions/${revision.id}/logs?type=build&limit=1000`)).body.logs.map((l: { message: string }) => l.message).join("\n");
    return { id, revision, log };
  };

  beforeAll(async () => {
    dir = scratchDir("dev-image-keys");
    // a stand-in npm (the deployer's install commands find it first on PATH): records where it ran
    const bin = path.join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "stand-in npm $* in $PWD"\necho "$*" > installed-by-npm\n`);
    chmodSync(path.join(bin, "npm"), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH}`;
    repo = createRepo(dir, {
      ...BASE_FILES,
      "agent/deps.ts": DEPS_GRAPH,
      "tools/package.json": JSON.stringify({ name: "tools", private: true }),
      "agent/langgraph.json": config({ node_version: String(MAJOR), dependencies: [".", "../tools"] }),
      "agent/node.json": config({ node_version: MAJOR + 2 }),
      "agent/lines.json": config({ dockerfile_lines: ["RUN apt-get update && apt-get install -y git"] }),
      "agent/outside.json": config({ dependencies: [".", "../../.."] }),
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

  it("installs the repository root and every dependencies directory with a package.json; the agent runs on them", async () => {
    const { id, revision, log } = await deploy("with-deps", "agent/langgraph.json");
    expect(revision.status).toBe("DEPLOYED");
    expect(log).toMatch(/install in tools \(dependencies of the config\): package\.json without a lockfile/);
    expect(log).toMatch(/stand-in npm install in \S+\/src\/tools$/m);
    const url = (await api("GET", `/v2/deployments/${id}`)).body.source_config.custom_url as string;
    const client = new Client({ apiUrl: url, apiKey: dev.adminKey, callerOptions: { maxRetries: 0 } });
    const out = (await client.runs.wait(null, "deps", { input: {} })) as { installed: string[] };
    expect(out.installed).toEqual(["root", "tools"]); // agent/ has no package.json: nothing installed there
  });

  const refused: [string, string, RegExp][] = [
    ["a node_version the local Node.js is not", "agent/node.json", new RegExp(`^node_version "${MAJOR + 2}" asks for Node\\.js ${MAJOR + 2}, but the local runtime runs agents with the control plane's Node\\.js ${process.versions.node.replaceAll(".", "\\.")}: start berth dev with Node\\.js ${MAJOR + 2}`)],
    ["dockerfile_lines", "agent/lines.json", /^dockerfile_lines \(1 line\) cannot be applied: the local runtime builds no image/],
    ["a dependencies path out of the repository", "agent/outside.json", /^dependencies\[1\] "\.\.\/\.\.\/\.\." points outside the repository$/],
  ];
  for (const [label, configPath, reason] of refused) {
    it(`fails the build before installing anything for ${label}`, async () => {
      const { revision, log } = await deploy(`refused-${path.basename(configPath, ".json")}`, configPath);
      expect(revision.status).toBe("BUILD_FAILED");
      expect(revision.status_reason).toMatch(reason);
      expect(log).toContain(`BUILD_FAILED: ${revision.status_reason}`);
      expect(log).not.toContain("stand-in npm");
    });
  }
});

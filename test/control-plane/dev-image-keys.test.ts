/**
 * langgraph.json's image keys in `berth dev` (the local runtime), through the control plane's API:
 * `dependencies` directories are installed (a stand-in npm on PATH records where it ran, and the
 * deployed graph reports what it finds), a `node_version` of another Node.js runs on that Node.js when
 * it is installed as node<major> (a stand-in here), while a `node_version` no Node.js of the machine is, any
 * `dockerfile_lines` and a `dependencies` path out of the repository fail the revision
 * (BUILD_FAILED) with the reason in its status and build log — before any install runs.
 */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@langchain/langgraph-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveControlPlaneSettings } from "../../src/control-plane/settings.js";
import { startControlPlaneServer, type ControlPlaneServerHandle } from "../../src/control-plane/server.js";
import { silentLogger } from "../../src/shared/logging.js";
import { BASE_FILES, createRepo, scratchDir, type TestRepo } from "../runtime/local-repo.js";

process.env.BERTH_FROM_SOURCE = "1"; // deployments run this checkout's sources

const MAJOR = Number(process.versions.node.split(".")[0]);
/** A Node.js major "installed" as node<OTHER> on PATH (a stand-in); MISSING is one nobody has. */
const OTHER = MAJOR + 2;
const MISSING = MAJOR + 40;

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
    writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "stand-in npm $* in $PWD with node $(command -v node)"\necho "$*" > installed-by-npm\n`);
    chmodSync(path.join(bin, "npm"), 0o755);
    // "Node.js OTHER": answers the version check as that major, records how it was run, and runs this Node.js
    writeFileSync(
      path.join(bin, `node${OTHER}`),
      `#!/bin/sh\nif [ "$1" = "-p" ] && [ "$2" = "process.versions.node" ]; then echo "${OTHER}.1.0"; exit 0; fi\necho "$*" >> "${path.join(dir, "other-node-runs")}"\nexec "${process.execPath}" "$@"\n`,
    );
    chmodSync(path.join(bin, `node${OTHER}`), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH}`;
    repo = createRepo(dir, {
      ...BASE_FILES,
      "agent/deps.ts": DEPS_GRAPH,
      "tools/package.json": JSON.stringify({ name: "tools", private: true }),
      "agent/langgraph.json": config({ node_version: String(MAJOR), dependencies: [".", "../tools"] }),
      "agent/node.json": config({ node_version: MISSING }),
      "agent/other-node.json": config({ node_version: String(OTHER), dependencies: ["../tools"] }),
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
    expect(log).toMatch(/stand-in npm install in \S+\/src\/tools with node /);
    const url = (await api("GET", `/v2/deployments/${id}`)).body.source_config.custom_url as string;
    const client = new Client({ apiUrl: url, apiKey: dev.adminKey, callerOptions: { maxRetries: 0 } });
    const out = (await client.runs.wait(null, "deps", { input: {} })) as { installed: string[] };
    expect(out.installed).toEqual(["root", "tools"]); // agent/ has no package.json: nothing installed there
  });

  it("runs the install commands and the agent server on node<major> from PATH when node_version asks for another Node.js", async () => {
    const { revision, log } = await deploy("other-node", "agent/other-node.json");
    expect(revision.status, revision.status_reason).toBe("DEPLOYED");
    expect(log).toContain(`node_version: Node.js ${OTHER}.1.0 at ${path.join(dir, "bin", `node${OTHER}`)} runs the install and build commands and the agent server`);
    // `node` of the install commands is a link to it, first on their PATH
    expect(log).toMatch(new RegExp(`stand-in npm install in \\S+/src/tools with node \\S+/revisions/${revision.id}/node/node$`, "m"));
    // the agent server was started with it (and serves: DEPLOYED)
    expect(readFileSync(path.join(dir, "other-node-runs"), "utf8")).toMatch(/berth\.js serve --config \S+\/agent\/other-node\.json/);
  });

  const refused: [string, string, RegExp][] = [
    [
      "a node_version no Node.js of the machine is",
      "agent/node.json",
      new RegExp(`^node_version "${MISSING}" asks for Node\\.js ${MISSING}, but the local runtime runs agents with the control plane's Node\\.js ${process.versions.node.replaceAll(".", "\\.")}: install Node\\.js ${MISSING} and name its node in BERTH_NODE_${MISSING} or put it on PATH as node${MISSING}`),
    ],
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

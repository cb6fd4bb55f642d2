import { describe, expect, it } from "vitest";
import { canonicalRepo, pushOf, repoUrlProblem, sameRepo, sign, validSignature } from "../../src/control-plane/git-hosts.js";

describe("repository URLs", () => {
  it.each([
    ["https://github.com/Acme/Agent.git", "https://github.com/acme/agent"],
    ["git@github.com:acme/agent.git", "https://github.com/acme/agent/"],
    ["ssh://git@github.com/acme/agent", "https://github.com/acme/agent"],
    ["/srv/repos/agent/", "file:///srv/repos/agent"],
    ["/srv/repos/agent.git", "file:///srv/repos/agent"],
  ])("%s and %s are the same repository", (a, b) => {
    expect(sameRepo(a, b)).toBe(true);
  });

  it("tells different repositories apart", () => {
    expect(sameRepo("https://github.com/acme/agent", "https://github.com/acme/agent2")).toBe(false);
    expect(sameRepo("https://github.com/acme/agent", "https://gitlab.com/acme/agent")).toBe(false);
    expect(canonicalRepo("file:///a/b")).toBe("file:///a/b");
  });

  it("lets each kind of integration accept its URLs", () => {
    expect(repoUrlProblem({ kind: "local", base_url: null }, "file:///srv/x")).toBeUndefined();
    expect(repoUrlProblem({ kind: "local", base_url: null }, "/srv/x")).toBeUndefined();
    expect(repoUrlProblem({ kind: "local", base_url: null }, "https://github.com/a/b")).toMatch(/file:\/\/ URLs or absolute paths/);
    expect(repoUrlProblem({ kind: "local", base_url: "/srv/repos" }, "/etc/x")).toMatch(/outside/);
    expect(repoUrlProblem({ kind: "local", base_url: "file:///srv/repos" }, "/srv/repos/x")).toBeUndefined();
    expect(repoUrlProblem({ kind: "github", base_url: null }, "https://github.com/a/b")).toBeUndefined();
    expect(repoUrlProblem({ kind: "github", base_url: null }, "/srv/x")).toMatch(/https/);
    expect(repoUrlProblem({ kind: "git", base_url: null }, "git@host:a/b")).toBeUndefined();
  });
});

describe("push webhooks", () => {
  const body = Buffer.from(JSON.stringify({ ref: "refs/heads/main" }));

  it("checks the HMAC signature of the raw body", () => {
    const secret = "a-webhook-secret-of-16+";
    expect(validSignature(secret, body, sign(secret, body))).toBe(true);
    expect(validSignature(secret, Buffer.concat([body, Buffer.from(" ")]), sign(secret, body))).toBe(false);
    expect(validSignature("another-secret-of-16+", body, sign(secret, body))).toBe(false);
    expect(validSignature(secret, body, undefined)).toBe(false);
    expect(validSignature(secret, body, "sha256=zz")).toBe(false);
    expect(validSignature(secret, body, "sha1=abc")).toBe(false);
  });

  it("reads branch pushes, and nothing else", () => {
    const repository = { clone_url: "https://github.com/acme/agent.git", html_url: "https://github.com/acme/agent", ssh_url: "git@github.com:acme/agent.git" };
    expect(pushOf({ ref: "refs/heads/feature/x", after: "abc123", repository })).toEqual({
      branch: "feature/x",
      commitSha: "abc123",
      repoUrls: ["https://github.com/acme/agent.git", "https://github.com/acme/agent", "git@github.com:acme/agent.git"],
    });
    expect(pushOf({ ref: "refs/tags/v1", repository })).toBeUndefined();
    expect(pushOf({ ref: "refs/heads/main", deleted: true, repository })).toBeUndefined();
    expect(pushOf("nonsense")).toBeUndefined();
    expect(pushOf(null)).toBeUndefined();
  });
});

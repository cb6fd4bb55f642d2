/**
 * Rules of hosted-git integrations (pure, but `listRepos`): which repository URLs an integration
 * accepts, when two URLs name the same repository, and GitHub-compatible push webhooks (HMAC
 * SHA-256 in X-Hub-Signature-256, the `push` payload).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Integration } from "./storage/integrations.js";

/** Why an integration cannot build from `repoUrl`; undefined when it can. */
export function repoUrlProblem(integration: Pick<Integration, "kind" | "base_url">, repoUrl: string): string | undefined {
  if (integration.kind === "local") {
    const dir = localPath(repoUrl);
    if (!dir) return `a local integration builds from file:// URLs or absolute paths, not '${repoUrl}'`;
    if (integration.base_url) {
      const root = localPath(integration.base_url) ?? integration.base_url;
      if (path.relative(root, dir).startsWith("..")) return `'${repoUrl}' is outside the integration's directory ${root}`;
    }
    return undefined;
  }
  if (integration.kind === "github") {
    if (!/^https?:\/\//i.test(repoUrl)) return `a github integration builds from https URLs, not '${repoUrl}'`;
    return undefined;
  }
  return repoUrl.trim() ? undefined : "repo_url is empty";
}

/** The directory a local repository URL names, or undefined when it is not local. */
export function localPath(url: string): string | undefined {
  if (url.startsWith("file://")) {
    try {
      return fileURLToPath(url);
    } catch {
      return undefined;
    }
  }
  return path.isAbsolute(url) ? path.normalize(url) : undefined;
}

/** One spelling per repository: no trailing slash or .git, lower-case host, file:// for paths. */
export function canonicalRepo(url: string): string {
  const local = localPath(url);
  if (local) return pathToFileURL(local.replace(/\/+$/, "").replace(/\.git$/, "")).href;
  const scp = /^([\w.-]+@)?([\w.-]+):(?!\/\/)(.+)$/.exec(url); // git@host:owner/repo
  const normal = scp ? `ssh://${scp[2]}/${scp[3]}` : url;
  try {
    const u = new URL(normal);
    return `${u.hostname.toLowerCase()}${u.pathname.replace(/\/+$/, "").replace(/\.git$/, "")}`.toLowerCase();
  } catch {
    return url.replace(/\/+$/, "").replace(/\.git$/, "");
  }
}

export function sameRepo(a: string, b: string): boolean {
  return canonicalRepo(a) === canonicalRepo(b);
}

/** Whether `header` (X-Hub-Signature-256: "sha256=<hex>") signs `body` with `secret`. */
export function validSignature(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith("sha256=")) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Buffer.from(header.slice(7), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function sign(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

export interface Push {
  branch: string;
  commitSha: string;
  /** Every URL the payload gives for the repository. */
  repoUrls: string[];
}

/** A branch push from a GitHub-compatible payload; undefined for tags, deletions and other events. */
export function pushOf(payload: unknown): Push | undefined {
  if (!payload || typeof payload !== "object") return undefined;
  const p = payload as Record<string, any>;
  if (typeof p.ref !== "string" || !p.ref.startsWith("refs/heads/") || p.deleted === true) return undefined;
  const repo = (p.repository ?? {}) as Record<string, unknown>;
  const repoUrls = ["clone_url", "html_url", "ssh_url", "git_url", "url"].map((k) => repo[k]).filter((u): u is string => typeof u === "string" && u.length > 0);
  return { branch: p.ref.slice("refs/heads/".length), commitSha: String(p.after ?? ""), repoUrls };
}

export interface RepoInfo {
  host_integration_id: string;
  id: string;
  name: string;
  owner: string;
  url: string;
  default_branch: string | null;
}

/** Repositories an integration can see: git repos under a local directory, or a GitHub account's. */
export async function listRepos(integration: Integration): Promise<RepoInfo[]> {
  if (integration.kind === "local") {
    const root = integration.base_url ? (localPath(integration.base_url) ?? integration.base_url) : undefined;
    if (!root || !existsSync(root)) return [];
    const dirs = [root, ...readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => path.join(root, d.name))];
    return dirs
      .filter((d) => existsSync(path.join(d, ".git")))
      .map((d) => ({ host_integration_id: integration.id, id: pathToFileURL(d).href, name: path.basename(d), owner: path.basename(path.dirname(d)), url: pathToFileURL(d).href, default_branch: null }));
  }
  if (integration.kind === "github") {
    const api = (integration.base_url ?? "https://api.github.com").replace(/\/+$/, "");
    const res = await fetch(`${api}/user/repos?per_page=100`, {
      headers: { accept: "application/vnd.github+json", ...(integration.token ? { authorization: `Bearer ${integration.token}` } : {}) },
      signal: AbortSignal.timeout(15_000),
    });
    if (!res.ok) throw new Error(`the git host answered ${res.status} listing repositories`);
    const repos = (await res.json()) as Record<string, any>[];
    return repos.map((r) => ({
      host_integration_id: integration.id,
      id: String(r.id),
      name: String(r.name),
      owner: String(r.owner?.login ?? ""),
      url: String(r.clone_url ?? r.html_url),
      default_branch: r.default_branch ?? null,
    }));
  }
  return [];
}

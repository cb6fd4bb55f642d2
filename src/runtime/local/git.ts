/**
 * Fetching a revision's source: `git` at a ref into a fresh directory, recording the commit.
 * Accepts what git accepts (https, ssh, file:// URLs and local paths), so local repositories deploy
 * with no setup. A token for an https host goes in an HTTP header, never into the URL or the logs.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export class GitError extends Error {}

export interface CheckoutOptions {
  repoUrl: string;
  /** A branch name, `refs/tags/…`, or a commit sha. */
  ref: string;
  dir: string;
  /** Bearer/basic token for https hosts. */
  token?: string;
  log?: (line: string) => void;
  timeoutMs?: number;
  /** Aborting kills the running git command (a superseded or deleted deployment). */
  signal?: AbortSignal;
}

/** Clone `repoUrl` at `ref` into `dir` (which must not exist) and return the commit sha. */
export async function checkout(o: CheckoutOptions): Promise<{ commitSha: string }> {
  const log = o.log ?? (() => undefined);
  const auth = o.token && /^https?:/i.test(o.repoUrl) ? ["-c", `http.extraHeader=Authorization: Bearer ${o.token}`] : [];
  const git = async (args: string[], cwd?: string) => {
    try {
      const { stdout, stderr } = await run("git", [...auth, ...args], {
        cwd,
        timeout: o.timeoutMs ?? 600_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, GIT_TERMINAL_PROMPT: "0" },
        signal: o.signal,
      });
      for (const line of `${stderr}`.split("\n").filter(Boolean)) log(line);
      return stdout.trim();
    } catch (err) {
      if (o.signal?.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new GitError("git aborted");
      const e = err as { stderr?: string; message: string };
      throw new GitError(`git ${args[0]} failed: ${(e.stderr || e.message).trim().split("\n").slice(-3).join(" ")}`);
    }
  };
  const branchOrTag = o.ref.replace(/^refs\/(heads|tags)\//, "");
  const isSha = /^[0-9a-f]{7,40}$/i.test(o.ref);
  log(`cloning ${redact(o.repoUrl)} at ${o.ref}`);
  if (isSha) {
    await git(["clone", "--quiet", "--no-checkout", o.repoUrl, o.dir]);
    await git(["checkout", "--quiet", o.ref], o.dir);
  } else {
    await git(["clone", "--quiet", "--depth", "1", "--branch", branchOrTag, o.repoUrl, o.dir]);
  }
  const commitSha = await git(["rev-parse", "HEAD"], o.dir);
  log(`checked out ${commitSha}`);
  return { commitSha };
}

/** The commit a ref points at on the remote, without cloning (for polling local repos). */
export async function remoteHead(repoUrl: string, ref: string): Promise<string | undefined> {
  const { stdout } = await run("git", ["ls-remote", repoUrl, ref.startsWith("refs/") ? ref : `refs/heads/${ref}`], { timeout: 60_000 });
  return stdout.split(/\s+/)[0] || undefined;
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password || u.username) {
      u.password = "";
      u.username = "***";
    }
    return u.toString();
  } catch {
    return url; // a local path
  }
}

/**
 * The local runtime and the image keys of a revision's langgraph.json (see ../image-keys.ts). There
 * is no image here: agents run with the control plane's own Node.js (`berth serve` under
 * process.execPath). A `node_version` of another major is honoured when that Node.js is installed
 * on the machine — named by `BERTH_NODE_<major>` (a path to its `node`), else found on PATH as
 * `node<major>` (e.g. `node22`) — and checked by asking it its version: install and build commands
 * then find it first on PATH as `node`, and the agent server runs on it. Berth never downloads one:
 * without it the build fails with the reason. `dockerfile_lines` are refused.
 */
import { execFile } from "node:child_process";
import { access, constants, mkdir, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { dependencyInstalls, dockerfileLinesProblem, ImageKeysError, nodeVersionMismatch, readImageKeys, type DependencyInstall } from "../image-keys.js";

const run = promisify(execFile);

export interface LocalImagePlan {
  /** The `dependencies` directories to install (none when an install_command replaces the installs). */
  installs: DependencyInstall[];
  /** Another Node.js than the control plane's, for node_version: its `node` and its version. */
  node?: { path: string; version: string };
}

/** Check the keys of the config at `configPath`; `env` is the deployment's inherited environment (PATH, BERTH_NODE_<major>). */
export async function localImageKeys(root: string, configPath: string, installCommand: string | null | undefined, env: NodeJS.ProcessEnv): Promise<LocalImagePlan> {
  const keys = await readImageKeys(configPath);
  const lines = dockerfileLinesProblem(keys, "the local runtime builds no image, it runs the agent with the Node.js of the control plane; remove them, or deploy on Kubernetes from a Dockerfile of your own (external_container)");
  if (lines) throw new ImageKeysError(lines);
  const installs = await dependencyInstalls(root, configPath, keys); // paths are checked even when install_command replaces the installs
  const plan: LocalImagePlan = { installs: installCommand?.trim() ? [] : installs };
  const mismatch = nodeVersionMismatch(
    keys,
    process.versions.node,
    "the local runtime runs agents with the control plane's",
    `install Node.js ${keys.nodeMajor} and name its node in BERTH_NODE_${keys.nodeMajor} or put it on PATH as node${keys.nodeMajor}, start berth dev with Node.js ${keys.nodeMajor}, or change node_version`,
  );
  if (!mismatch) return plan;
  const node = await findNode(keys.nodeMajor!, env);
  if (!node) throw new ImageKeysError(mismatch);
  return { ...plan, node };
}

/** A `node` of `major`: BERTH_NODE_<major>, else `node<major>` on PATH; each candidate asked its version. */
export async function findNode(major: number, env: NodeJS.ProcessEnv): Promise<{ path: string; version: string } | undefined> {
  // a setting of the control plane: its own environment (the deployment's inherited one leaves BERTH_* out)
  const named = env[`BERTH_NODE_${major}`] ?? process.env[`BERTH_NODE_${major}`];
  const candidates = named ? [named] : (env.PATH ?? "").split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, `node${major}`));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      const { stdout } = await run(candidate, ["-p", "process.versions.node"], { timeout: 15_000, env: { PATH: env.PATH ?? "" } });
      const version = stdout.trim();
      if (Number(version.split(".")[0]) === major) return { path: path.resolve(candidate), version };
    } catch {
      // not there, not executable, or not a Node.js: the next one
    }
  }
  return undefined;
}

/** A directory whose `node` is `nodePath`, to put first on the PATH of install and build commands. */
export async function nodeShimDir(dir: string, nodePath: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await symlink(nodePath, path.join(dir, "node"));
  return dir;
}

/**
 * What a runtime does with the image keys of a checked-out langgraph.json (see
 * agent-server/config/image-keys.ts), shared by the local runtime (deployer.ts) and the image builds
 * on Kubernetes (`berth image-step`, run by the generated Dockerfile):
 *
 * - `node_version`: honoured when it is the major of the Node.js that runs the agent, else the
 *   revision fails with a message saying which Node.js it got and how to get the right one.
 * - `dependencies`: every listed directory (relative to the config, inside the repository; symlinks
 *   resolved) that has a package.json is installed with the command its lockfile asks for, after
 *   the repository root (installed as before). A path outside the repository, or one that is not a
 *   directory, fails the revision. A user's install_command replaces all of it.
 * - `dockerfile_lines`: neither runtime can apply them (see `dockerfileLinesProblem`): a revision
 *   whose config has any fails with the reason.
 */
import { readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { imageKeysOf, type ImageKeys } from "../agent-server/config/image-keys.js";
import { detectInstallCommand, type InstallPlan } from "./local/install.js";

/** A problem with the image keys that fails the revision; the message is the reason shown. */
export class ImageKeysError extends Error {}

/** Read and check the image keys of the config at `configPath` (JSON). */
export async function readImageKeys(configPath: string): Promise<ImageKeys> {
  const where = path.basename(configPath);
  let text: string;
  try {
    text = await readFile(configPath, "utf8");
  } catch (err) {
    throw new ImageKeysError(`cannot read the agent config ${configPath}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file (check agent_config_path)" : (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ImageKeysError(`${where} is not valid JSON: ${(err as Error).message}`);
  }
  const r = imageKeysOf(value);
  if (!r.ok) throw new ImageKeysError(`invalid ${where}: ${r.problems.join("; ")}`);
  return r.keys;
}

/** Why `node_version` cannot be honoured by a Node.js of `runningVersion`, or undefined. `fix` says how to get the right one. */
export function nodeVersionMismatch(keys: ImageKeys, runningVersion: string, runsWith: string, fix: string): string | undefined {
  if (keys.nodeMajor === undefined) return undefined;
  const running = Number(runningVersion.replace(/^v/, "").split(".")[0]);
  if (running === keys.nodeMajor) return undefined;
  return `node_version "${keys.nodeMajor}" asks for Node.js ${keys.nodeMajor}, but ${runsWith} Node.js ${runningVersion.replace(/^v/, "")}: ${fix}`;
}

/** Why `dockerfile_lines` cannot be applied here, or undefined when the config has none. */
export function dockerfileLinesProblem(keys: ImageKeys, why: string): string | undefined {
  if (keys.dockerfileLines.length === 0) return undefined;
  return `dockerfile_lines (${keys.dockerfileLines.length} line${keys.dockerfileLines.length === 1 ? "" : "s"}) cannot be applied: ${why}`;
}

export interface DependencyInstall {
  /** Absolute. */
  dir: string;
  /** Relative to the repository root, for logs. */
  rel: string;
  /** Undefined: the directory has no package.json, nothing to install. */
  plan?: InstallPlan;
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/**
 * The directories `dependencies` names, in order, without the repository root (installed before)
 * and without repeats, each with its install command. Throws an ImageKeysError for a path outside
 * the repository (symlinks included) or one that is not a directory.
 */
export async function dependencyInstalls(root: string, configPath: string, keys: ImageKeys): Promise<DependencyInstall[]> {
  const realRoot = await realpath(root);
  const configDir = path.dirname(configPath);
  const seen = new Set<string>([realRoot]);
  const out: DependencyInstall[] = [];
  for (const [i, dep] of (keys.dependencies ?? []).entries()) {
    const key = `dependencies[${i}] ${JSON.stringify(dep)}`;
    if (path.isAbsolute(dep)) throw new ImageKeysError(`${key}: must be a directory relative to the config, not an absolute path`);
    const resolved = path.resolve(configDir, dep);
    if (!inside(path.resolve(root), resolved)) throw new ImageKeysError(`${key} points outside the repository`);
    let real: string;
    try {
      real = await realpath(resolved);
      if (!(await stat(real)).isDirectory()) throw new Error("not a directory");
    } catch {
      throw new ImageKeysError(`${key}: no such directory in the repository (dependencies name directories with a package.json; npm packages belong in package.json)`);
    }
    if (!inside(realRoot, real)) throw new ImageKeysError(`${key} points outside the repository (through a symbolic link)`);
    if (seen.has(real)) continue;
    seen.add(real);
    const files = new Set(await readdir(real));
    let packageJson: { packageManager?: unknown } | undefined;
    if (files.has("package.json")) {
      try {
        packageJson = JSON.parse(await readFile(path.join(real, "package.json"), "utf8")) as { packageManager?: unknown };
      } catch {
        throw new ImageKeysError(`${key}: its package.json is not valid JSON`);
      }
    }
    out.push({ dir: real, rel: path.relative(realRoot, real), plan: detectInstallCommand(files, packageJson) });
  }
  return out;
}

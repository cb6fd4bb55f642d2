/**
 * Throw-away LangGraph.js projects on disk, shaped like a user's checkout: a package.json, a
 * langgraph.json, graph modules, and optionally their own node_modules.
 */
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./server.js";

export interface TempProject {
  dir: string;
  config: string;
  remove(): Promise<void>;
}

/** Write `files` (relative path → content) into a fresh directory; `langgraph.json` names the graphs. */
export async function tempProject(files: Record<string, string>, graphs: Record<string, string>): Promise<TempProject> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-project-"));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  const config = path.join(dir, "langgraph.json");
  await writeFile(config, JSON.stringify({ graphs }));
  return { dir, config, remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Give a project its own node_modules: `copied` packages are real copies (their own module
 * instances, as when a project installs its own), `linked` ones symlink to Berth's.
 */
export async function installPackages(project: TempProject, copied: string[], linked: string[]): Promise<void> {
  for (const name of [...copied, ...linked]) {
    const from = path.join(ROOT, "node_modules", name);
    const to = path.join(project.dir, "node_modules", name);
    await mkdir(path.dirname(to), { recursive: true });
    if (copied.includes(name)) await cp(from, to, { recursive: true, dereference: true });
    else await symlink(from, to, "dir");
  }
}

/**
 * What to tell a user whose graph imports something that cannot be resolved — typically a
 * deployment whose checkout has no `node_modules`, or a package missing from `package.json`. The
 * rule (`describeUnresolved`) is pure; `explainUnresolved` gathers the facts from disk.
 */
import { access, readFile } from "node:fs/promises";
import path from "node:path";

export interface Unresolved {
  /** What the import named: `left-pad`, `@scope/pkg/sub`, `./util.js`, or an absolute path. */
  specifier: string;
  /** The file that imported it. */
  importer: string;
}

/** Parse Node's "Cannot find package/module 'X' imported from Y" (ESM) and "Cannot find module 'X'" + require stack (CJS). */
export function parseUnresolved(err: unknown): Unresolved | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  if (!e || (e.code !== "ERR_MODULE_NOT_FOUND" && e.code !== "MODULE_NOT_FOUND")) return undefined;
  const msg = String(e.message);
  const esm = /Cannot find (?:package|module) '([^']+)' imported from (.+?)\s*$/m.exec(msg);
  if (esm) return { specifier: esm[1]!, importer: esm[2]!.trim() };
  const cjs = /Cannot find module '([^']+)'[\s\S]*?Require stack:\s*\n-\s*(.+)/.exec(msg);
  if (cjs) return { specifier: cjs[1]!, importer: cjs[2]!.trim() };
  return undefined;
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`; relative and absolute paths → undefined. */
export function packageNameOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("file:") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

export interface ProjectFacts {
  /** Directory of the nearest package.json above the importer (undefined: none). */
  projectDir?: string;
  /** Dependencies listed there (all kinds). */
  declared: string[];
  /** Whether that directory has a node_modules folder. */
  hasNodeModules: boolean;
  lockfile?: "package-lock.json" | "npm-shrinkwrap.json" | "pnpm-lock.yaml" | "yarn.lock" | "bun.lockb" | "bun.lock";
}

const INSTALL: Record<NonNullable<ProjectFacts["lockfile"]>, string> = {
  "package-lock.json": "npm ci",
  "npm-shrinkwrap.json": "npm ci",
  "pnpm-lock.yaml": "pnpm install --frozen-lockfile",
  "yarn.lock": "yarn install --frozen-lockfile",
  "bun.lockb": "bun install --frozen-lockfile",
  "bun.lock": "bun install --frozen-lockfile",
};

/** The explanation: what could not be resolved, from where, and what to do about it. */
export function describeUnresolved(u: Unresolved, facts: ProjectFacts): string {
  const pkg = packageNameOf(u.specifier);
  if (!pkg) {
    const target = u.specifier.startsWith("file:") || u.specifier.startsWith("/") ? u.specifier : path.resolve(path.dirname(u.importer), u.specifier);
    return `the module "${u.specifier}" imported from ${u.importer} does not exist (looked for ${target}); check the path and its extension (ES modules need the full file name, e.g. "./util.js")`;
  }
  const head = `the package "${pkg}" imported from ${u.importer} cannot be resolved`;
  if (!facts.projectDir) {
    return `${head}: there is no package.json above it; create one that lists "${pkg}" in its dependencies and install them`;
  }
  const install = facts.lockfile ? INSTALL[facts.lockfile] : "npm install";
  const where = `in ${facts.projectDir}`;
  if (!facts.declared.includes(pkg)) {
    return `${head}: it is not among the dependencies in ${path.join(facts.projectDir, "package.json")}; add it (npm install ${pkg}) ${where}`;
  }
  if (!facts.hasNodeModules) {
    return `${head}: the project's dependencies are not installed (${facts.projectDir} has no node_modules); run "${install}" ${where}`;
  }
  return `${head}: it is listed in package.json but not installed; run "${install}" ${where}`;
}

const exists = (p: string) =>
  access(p).then(
    () => true,
    () => false,
  );

/** Read the facts about the importer's project from disk. */
export async function projectFacts(importer: string): Promise<ProjectFacts> {
  let dir = path.dirname(importer);
  for (;;) {
    const pj = path.join(dir, "package.json");
    if (await exists(pj)) {
      let declared: string[] = [];
      try {
        const json = JSON.parse(await readFile(pj, "utf8")) as Record<string, Record<string, string> | undefined>;
        for (const k of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) declared.push(...Object.keys(json[k] ?? {}));
      } catch {
        declared = [];
      }
      let lockfile: ProjectFacts["lockfile"];
      for (const f of Object.keys(INSTALL) as NonNullable<ProjectFacts["lockfile"]>[]) {
        if (await exists(path.join(dir, f))) {
          lockfile = f;
          break;
        }
      }
      return { projectDir: dir, declared, hasNodeModules: await exists(path.join(dir, "node_modules")), lockfile };
    }
    const up = path.dirname(dir);
    if (up === dir) return { declared: [], hasNodeModules: false };
    dir = up;
  }
}

/** The message for an import error, or undefined when it is not about an unresolvable import. */
export async function explainUnresolved(err: unknown): Promise<string | undefined> {
  const u = parseUnresolved(err);
  if (!u) return undefined;
  return describeUnresolved(u, await projectFacts(u.importer));
}

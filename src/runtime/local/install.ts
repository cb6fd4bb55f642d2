/**
 * Which install command a JS repository needs (pure): the lockfile decides, as the LangGraph CLI
 * does (yarn.lock → yarn, pnpm-lock.yaml → pnpm, package-lock.json → npm ci, bun.lock(b) → bun),
 * then package.json's `packageManager`; no lockfile → `npm install`. A user's `install_command`
 * always wins.
 */

export interface InstallPlan {
  command: string;
  /** Why this command, for the build log. */
  reason: string;
}

export function detectInstallCommand(files: ReadonlySet<string>, packageJson?: { packageManager?: unknown }, userCommand?: string | null): InstallPlan | undefined {
  if (userCommand && userCommand.trim()) return { command: userCommand.trim(), reason: "install_command of the deployment" };
  if (files.has("yarn.lock")) return { command: "yarn install --frozen-lockfile", reason: "yarn.lock found" };
  if (files.has("pnpm-lock.yaml")) return { command: "pnpm install --frozen-lockfile", reason: "pnpm-lock.yaml found" };
  if (files.has("package-lock.json") || files.has("npm-shrinkwrap.json")) return { command: "npm ci", reason: "package-lock.json found" };
  if (files.has("bun.lockb") || files.has("bun.lock")) return { command: "bun install --frozen-lockfile", reason: "bun lockfile found" };
  if (!files.has("package.json")) return undefined; // nothing to install
  const pm = typeof packageJson?.packageManager === "string" ? packageJson.packageManager.split("@")[0] : undefined;
  if (pm === "yarn") return { command: "yarn install", reason: "packageManager is yarn (no lockfile)" };
  if (pm === "pnpm") return { command: "pnpm install", reason: "packageManager is pnpm (no lockfile)" };
  if (pm === "bun") return { command: "bun install", reason: "packageManager is bun (no lockfile)" };
  return { command: "npm install", reason: "package.json without a lockfile" };
}

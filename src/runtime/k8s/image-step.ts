/**
 * `berth image-step <check|dependencies>`: the steps of the Dockerfile the control plane generates
 * for a hosted_git build (build.ts) that need the repository. The control plane writes the
 * Dockerfile without seeing the repository (Kaniko clones it in the cluster), so the config's image
 * keys are read inside the build, by the base image's own `berth`:
 *
 * - `check` (before any install): `node_version` must be the major of the base image's Node.js
 *   (the Node.js the agent will run with), `dockerfile_lines` must be empty, `dependencies` must
 *   name directories of the repository; otherwise the build fails with the reason (→ BUILD_FAILED,
 *   the reason in the build log's tail).
 * - `dependencies` (after the repository root's install): installs every `dependencies` directory,
 *   as the local runtime does (../image-keys.ts).
 */
import path from "node:path";
import { dependencyInstalls, dockerfileLinesProblem, nodeVersionMismatch, readImageKeys } from "../image-keys.js";
import { runShell } from "../local/shell.js";

export const IMAGE_STEPS = ["check", "dependencies"] as const;
export type ImageStep = (typeof IMAGE_STEPS)[number];

export interface ImageStepOptions {
  config: string;
  /** The repository root (the build's /deps). */
  root: string;
  out?: (line: string) => void;
  err?: (line: string) => void;
}

const DOCKERFILE_LINES_WHY =
  "Berth's Kubernetes builds write the Dockerfile before the repository is fetched (the cluster clones it), so they cannot include lines from it; do their work in an install_command or build_command, or build an image yourself and deploy it as external_container";

/** Run a step; resolves with the process exit code (the reason of a failure went to `err`). */
export async function runImageStep(step: string, o: ImageStepOptions): Promise<number> {
  const out = o.out ?? ((l: string) => process.stdout.write(`${l}\n`));
  const err = o.err ?? ((l: string) => process.stderr.write(`${l}\n`));
  const root = path.resolve(o.root);
  const config = path.resolve(root, o.config);
  try {
    if (!(IMAGE_STEPS as readonly string[]).includes(step)) throw new Error(`unknown step "${step}": one of ${IMAGE_STEPS.join(", ")}`);
    const keys = await readImageKeys(config);
    const installs = await dependencyInstalls(root, config, keys);
    if (step === "check") {
      const problem =
        dockerfileLinesProblem(keys, DOCKERFILE_LINES_WHY) ??
        nodeVersionMismatch(
          keys,
          process.versions.node,
          "the agent base image (BERTH_AGENT_BASE_IMAGE) has",
          `set BERTH_AGENT_BASE_IMAGE to a Berth image built on Node.js ${keys.nodeMajor} (docker build --build-arg NODE_IMAGE=node:${keys.nodeMajor}-bookworm-slim .), or change node_version`,
        );
      if (problem) throw new Error(problem);
      out(`langgraph.json: Node.js ${process.versions.node}${keys.nodeMajor ? ` (node_version ${keys.nodeMajor})` : ""}; ${installs.length} dependencies director${installs.length === 1 ? "y" : "ies"} besides the root`);
      return 0;
    }
    for (const dep of installs) {
      if (!dep.plan) {
        out(`dependencies: nothing to install in ${dep.rel} (no package.json)`);
        continue;
      }
      out(`install in ${dep.rel} (dependencies of the config): ${dep.plan.reason}: ${dep.plan.command}`);
      await runShell({ command: dep.plan.command, cwd: dep.dir, env: process.env, label: `install in ${dep.rel}`, log: (line, stream) => (stream === "stderr" ? err : out)(line) });
    }
    return 0;
  } catch (e) {
    err(`berth image-step ${step}: ${(e as Error).message}`);
    return 1;
  }
}

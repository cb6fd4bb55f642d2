/**
 * The local runtime and the image keys of a revision's langgraph.json (see ../image-keys.ts). There
 * is no image here: agents run with the control plane's own Node.js (`berth serve` under
 * process.execPath), so `node_version` must name its major — Berth does not look for or download
 * other Node.js versions —, and `dockerfile_lines` are refused. Both fail the build with the reason.
 */
import { dependencyInstalls, dockerfileLinesProblem, ImageKeysError, nodeVersionMismatch, readImageKeys, type DependencyInstall } from "../image-keys.js";

/** Check the keys; resolves with the `dependencies` directories to install (none when an install_command replaces the installs). */
export async function localImageKeys(root: string, configPath: string, installCommand?: string | null): Promise<DependencyInstall[]> {
  const keys = await readImageKeys(configPath);
  const lines = dockerfileLinesProblem(keys, "the local runtime builds no image, it runs the agent with the Node.js of the control plane; remove them, or deploy on Kubernetes from a Dockerfile of your own (external_container)");
  if (lines) throw new ImageKeysError(lines);
  const node = nodeVersionMismatch(keys, process.versions.node, "the local runtime runs agents with the control plane's", `start berth dev with Node.js ${keys.nodeMajor}, or change node_version`);
  if (node) throw new ImageKeysError(node);
  const installs = await dependencyInstalls(root, configPath, keys); // paths are checked even when install_command replaces the installs
  return installCommand?.trim() ? [] : installs;
}

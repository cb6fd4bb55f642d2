/**
 * A build pod's log, copied into the revision's `build` log while the build runs: the whole log is
 * read each time and only the complete lines not copied yet are appended (the Job's pod is found by
 * the revision's labels on it). After a restart, copying resumes after the lines already copied.
 */
import type { DeploymentStore } from "../../control-plane/storage/deployments.js";
import type { KubeObject, KubeRest } from "../../operator/kube/index.js";
import type { Logger } from "../../shared/logging.js";
import { KANIKO_CONTAINER } from "./build.js";
import { COMPONENT_LABEL, REVISION_ID_LABEL } from "./names.js";

/** Lines of the log kept for a failed build's reason. */
export const LOG_TAIL_LINES = 8;
const RESUME_MARKER_LINES = 3;

/**
 * How many lines of the pod's log were already copied before a restart: the position right after
 * the last place where `marker` (the build log's last lines) appears in them; 0 when it does not
 * (nothing of the pod's log was copied yet: the marker is our own "Job created" lines).
 */
export function resumeAt(podLines: readonly string[], marker: readonly string[]): number {
  if (marker.length === 0) return 0;
  for (let end = podLines.length; end >= marker.length; end--) {
    if (marker.every((line, i) => podLines[end - marker.length + i] === line)) return end;
  }
  return 0;
}

/** The level a Kaniko log line is stored with. */
export const levelOf = (line: string) => (/^(error|fatal|erro|fata)\b/i.test(line) || /level=(error|fatal)/.test(line) ? "ERROR" : "INFO");

/** The last lines of a revision's build log: where following its build again picks up (see `resumeAt`). */
export async function lastBuildLines(store: Pick<DeploymentStore, "logs">, revisionId: string): Promise<string[]> {
  const page = await store.logs(revisionId, { type: "build", limit: RESUME_MARKER_LINES, order: "desc" });
  return page.logs.map((l) => l.message).reverse();
}

/** The build's pod (the newest, should the Job have made several). */
export async function buildPod(rest: KubeRest, namespace: string, revisionId: string): Promise<KubeObject | undefined> {
  const pods = await rest.list("v1", "Pod", namespace, `${REVISION_ID_LABEL}=${revisionId},${COMPONENT_LABEL}=build`);
  return [...pods.items].sort((a, b) => String(b.metadata.creationTimestamp ?? "").localeCompare(String(a.metadata.creationTimestamp ?? "")))[0];
}

/** Kaniko's `--digest-file=/dev/termination-log` ends up as the container's termination message. */
export function terminatedMessage(pod: KubeObject): string | undefined {
  const statuses = (pod.status as { containerStatuses?: { name: string; state?: { terminated?: { message?: string } } }[] } | undefined)?.containerStatuses;
  return statuses?.find((s) => s.name === KANIKO_CONTAINER)?.state?.terminated?.message;
}

export class BuildLog {
  private written = 0;
  /** The last lines seen (a failed build's reason ends with them). */
  tail: string[] = [];

  constructor(
    private readonly rest: KubeRest,
    private readonly store: Pick<DeploymentStore, "appendLogs">,
    private readonly revisionId: string,
    /** The build log's last lines before a restart: `written` is found from them on the first read. */
    private marker: string[] | undefined,
    private readonly logger: Logger,
  ) {}

  /** Copy the pod's new complete lines (all of them once the Job is done: `final`). */
  async copy(namespace: string, pod: KubeObject, final: boolean): Promise<void> {
    const text = await this.rest
      .request<string>("GET", `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod.metadata.name)}/log`, { query: { container: KANIKO_CONTAINER }, text: true })
      .catch(() => undefined); // not started yet, or already gone
    if (typeof text !== "string") return;
    const complete = final ? text : text.slice(0, text.lastIndexOf("\n") + 1);
    const lines = complete.split("\n");
    if (lines.at(-1) === "") lines.pop();
    this.tail = lines.slice(-LOG_TAIL_LINES);
    if (this.marker) {
      this.written = resumeAt(lines, this.marker);
      this.marker = undefined;
    }
    const fresh = lines.slice(this.written);
    if (fresh.length === 0) return;
    this.written = lines.length;
    await this.store
      .appendLogs(this.revisionId, "build", fresh.map((message) => ({ level: levelOf(message), message })))
      .catch((err) => this.logger.warn({ err, revision: this.revisionId }, "could not write build logs"));
  }
}

/**
 * The image builds of hosted_git revisions on Kubernetes: one Kaniko Job per revision
 * (AWAITING_BUILD → BUILDING), followed beside the deployment's chain while its pod's log is copied
 * into the revision's build log; its end is a step of the chain — BUILD_FAILED with the log's tail,
 * or AWAITING_DEPLOY and the pushed image handed to the listener (`onBuilt`), which deploys it.
 * A newer revision cancels an older one's build (Job deleted, INTERRUPTED); after a restart a
 * BUILDING revision's Job is followed again, or started again when it is gone.
 *
 * Kept apart from the listener because the Job's life cycle (objects, polling, logs, cancelling)
 * is its own concern: the listener only starts, cancels and resumes builds and deploys their image.
 */
import type { Listener } from "../../control-plane/rules/index.js";
import type { DeploymentRow, DeploymentStore, RevisionRow } from "../../control-plane/storage/deployments.js";
import type { IntegrationStore } from "../../control-plane/storage/integrations.js";
import { isConflict, type KubeRest } from "../../operator/kube/index.js";
import type { Logger } from "../../shared/logging.js";
import {
  buildJobFor,
  dockerfileConfigMapFor,
  dockerfileFor,
  gitContext,
  gitContextProblem,
  gitCredentialsSecretFor,
  imageFor,
  jobOutcome,
  pinnedImage,
  type JobOutcome,
} from "./build.js";
import { BuildLog, buildPod, lastBuildLines, terminatedMessage } from "./build-log.js";
import type { ResolveCommit } from "./commit.js";
import { FIELD_MANAGER, buildName, gitSecretName } from "./names.js";
import { buildPlacement, type BuildDefaults } from "./placement.js";
import type { Revisions } from "./revisions.js";
import { Aborted, passOn, retryable, type Steps } from "./steps.js";

export interface BuildRunnerOptions {
  rest: KubeRest;
  store: DeploymentStore;
  integrations: Pick<IntegrationStore, "get">;
  /** What hosted_git images extend. */
  agentBaseImage: string;
  /** Registry, push secret and Kaniko image when the deployment's listener names none. */
  build: BuildDefaults;
  buildTimeoutSeconds?: number;
  buildTtlSeconds?: number;
  resolveCommit: ResolveCommit;
  /** How often a running Job is read. */
  pollMs: number;
  logger: Logger;
  steps: Steps;
  revisions: Revisions;
  listenerOf(d: DeploymentRow): Promise<Listener | undefined>;
  namespaceOf(d: DeploymentRow, listener?: Listener): Promise<string>;
  /** The build of `r` pushed `image` and `r` is AWAITING_DEPLOY: deploy it (runs as a step of the chain). */
  onBuilt(d: DeploymentRow, r: RevisionRow, image: string): Promise<void>;
}

interface Build {
  deploymentId: string;
  revisionId: string;
  namespace: string;
  name: string;
  controller: AbortController;
}

type BuildResult = { ok: true; image: string } | { ok: false; reason: string; tail: string[] };

export class BuildRunner {
  /** The builds followed now, by revision id. */
  private readonly builds = new Map<string, Build>();

  constructor(private readonly o: BuildRunnerOptions) {}

  /** Stop following the deployment's builds at once (a delete; their Jobs go with its objects). */
  abort(deploymentId: string): void {
    for (const b of this.buildsOf(deploymentId)) b.controller.abort();
  }

  /** Stop following every build (the listener closes). */
  abortAll(): void {
    for (const b of this.builds.values()) b.controller.abort();
  }

  /** A newer revision cancels the builds of older ones: Job deleted, revision INTERRUPTED. */
  async cancelOlder(d: DeploymentRow, newerId: string): Promise<void> {
    for (const b of this.buildsOf(d.id)) {
      if (b.revisionId === newerId) continue;
      b.controller.abort();
      this.builds.delete(b.revisionId);
      await this.deleteObjects(b.namespace, b.name);
      const r = await this.o.revisions.revision(d, b.revisionId);
      if (r && (await this.o.revisions.advance(r, "INTERRUPTED", { reason: `superseded by revision ${newerId}: its build was cancelled` }))) {
        await this.o.revisions.log(r.id, "build", [`build cancelled: superseded by revision ${newerId}`]);
      }
    }
  }

  /** Delete the Job and ConfigMap of a revision's build that is not followed (a restart found it superseded). */
  discard(d: DeploymentRow, revisionId: string, namespace: string): Promise<void> {
    return this.deleteObjects(namespace, buildName(d.name, revisionId));
  }

  /** Build `r` (CREATING/QUEUED/AWAITING_BUILD → … → BUILDING); a build that cannot start is BUILD_FAILED. */
  async start(d: DeploymentRow, r: RevisionRow): Promise<void> {
    const { revisions } = this.o;
    if (r.status === "CREATING" && !(await revisions.advance(r, "QUEUED"))) return;
    if (["CREATING", "QUEUED"].includes(r.status) && !(await revisions.advance(r, "AWAITING_BUILD"))) return;
    try {
      await this.launch(d, r, true);
    } catch (err) {
      if (passOn(err)) throw err;
      await revisions.fail(r, `could not start the build: ${(err as Error).message}`, "build");
    }
  }

  /** After a restart, a BUILDING revision: follow its Job again, or build again when the Job is gone. */
  async resume(d: DeploymentRow, r: RevisionRow, namespace: string): Promise<void> {
    const name = buildName(d.name, r.id);
    const job = await this.o.steps.kube(() => this.o.rest.get("batch/v1", "Job", namespace, name));
    const destination = await this.destinationOf(d, r);
    if (job && destination) {
      const marker = await lastBuildLines(this.o.store, r.id);
      await this.o.revisions.log(r.id, "build", ["the control plane restarted: following the build again"]);
      return this.follow(d, r, { namespace, name, destination }, marker);
    }
    await this.o.revisions.log(r.id, "build", ["the control plane restarted and the build job is gone: building again"]);
    return this.launch(d, r, false).catch((err) => {
      if (err instanceof Aborted || retryable(err)) throw err;
      return this.o.revisions.fail(r, `could not start the build: ${(err as Error).message}`, "build");
    });
  }

  /** Where a revision's build pushes, or undefined when no registry is configured. */
  async destinationOf(d: DeploymentRow, r: RevisionRow, listener?: Listener): Promise<string | undefined> {
    const registry = buildPlacement((listener ?? (await this.o.listenerOf(d)))?.compute_config, this.o.build).imageRegistry;
    return registry ? imageFor(registry, d.name, r.id) : undefined;
  }

  private buildsOf(deploymentId: string): Build[] {
    return [...this.builds.values()].filter((b) => b.deploymentId === deploymentId);
  }

  private async deleteObjects(namespace: string, name: string): Promise<void> {
    const { rest, steps, logger } = this.o;
    await steps.kube(() => rest.remove({ apiVersion: "batch/v1", kind: "Job", namespace, name }, "Background")).catch((err) => logger.warn({ err, name }, "could not delete a build job"));
    await steps.kube(() => rest.remove({ apiVersion: "v1", kind: "ConfigMap", namespace, name })).catch((err) => logger.warn({ err, name }, "could not delete a build config map"));
  }

  /**
   * Create the Dockerfile ConfigMap, the git credentials and the Kaniko Job of `r` (AWAITING_BUILD →
   * BUILDING), then follow the Job. `fresh` false: the revision is BUILDING already (a restart whose
   * Job is gone) and keeps its status.
   */
  private async launch(d: DeploymentRow, r: RevisionRow, fresh: boolean): Promise<void> {
    const { rest, steps, revisions } = this.o;
    const listener = await this.o.listenerOf(d);
    const namespace = await this.o.namespaceOf(d, listener);
    const placement = buildPlacement(listener?.compute_config, this.o.build);
    const destination = await this.destinationOf(d, r, listener);
    if (!destination) return revisions.fail(r, "no image registry to push to: set BERTH_IMAGE_REGISTRY (or compute_config.image_registry of the listener)", "build");
    const repoUrl = d.config.source_config.repo_url ?? "";
    const ref = r.snapshot.source_revision_config.repo_ref ?? "main";
    const problem = gitContextProblem(repoUrl);
    if (problem) return revisions.fail(r, problem, "build");
    const integrationId = d.config.source_config.integration_id;
    const token = integrationId ? (await this.o.integrations.get(d.tenant_id, integrationId)).token : null;
    let sha = r.repo_commit_sha ?? undefined;
    if (!sha) {
      sha = await this.o.resolveCommit(repoUrl, ref, token).catch((err) => {
        void revisions.log(r.id, "build", [`could not resolve ${ref} to a commit (${(err as Error).message.split("\n")[0]}): building the ref's head`]);
        return undefined;
      });
    }
    const git = gitContext(repoUrl, ref, sha);
    const credentials = token ? { username: "x-access-token", password: token } : git.credentials;
    const name = buildName(d.name, r.id);
    const dockerfile = dockerfileFor({
      baseImage: this.o.agentBaseImage,
      agentConfigPath: r.snapshot.source_revision_config.agent_config_path ?? "langgraph.json",
      installCommand: d.config.source_config.install_command,
      buildCommand: d.config.source_config.build_command,
      deploymentName: d.name,
      revisionId: r.id,
    });
    // BUILDING before the Job exists: if a newer revision skipped this one meanwhile, nothing is created
    if (fresh && !(await revisions.advance(r, "BUILDING", sha ? { commitSha: sha } : {}))) return;
    await steps.kube(() => rest.apply(dockerfileConfigMapFor(d, r.id, { name, namespace, dockerfile }), FIELD_MANAGER));
    const gitSecret = credentials ? gitSecretName(d.name) : undefined;
    if (gitSecret && credentials) await steps.kube(() => rest.apply(gitCredentialsSecretFor(d, { name: gitSecret, namespace, ...credentials }), FIELD_MANAGER));
    const job = buildJobFor(d, {
      name,
      namespace,
      revisionId: r.id,
      kanikoImage: placement.kanikoImage,
      git,
      destination,
      configMap: name,
      pushSecret: placement.registryPushSecret,
      gitSecret,
      ttlSecondsAfterFinished: this.o.buildTtlSeconds ?? 3600,
      activeDeadlineSeconds: this.o.buildTimeoutSeconds ?? 1800,
    });
    await steps.kube(() => rest.create(job)).catch((err) => {
      if (!isConflict(err)) throw err; // already there: created before a restart
    });
    await revisions.log(r.id, "build", [
      sha ? `building ${repoUrl} at ${ref} (commit ${sha})` : `building ${repoUrl} at ${ref}`,
      `Job ${namespace}/${name} created: ${placement.kanikoImage} → ${destination}`,
      "Dockerfile:",
      ...dockerfile.trimEnd().split("\n").map((l) => `  ${l}`),
    ]);
    this.follow(d, r, { namespace, name, destination });
  }

  /** Follow a build Job beside the chain; its end is a step of the chain. */
  private follow(d: DeploymentRow, r: RevisionRow, job: { namespace: string; name: string; destination: string }, resumeMarker?: string[]): void {
    const { rest, logger } = this.o;
    const build: Build = { deploymentId: d.id, revisionId: r.id, namespace: job.namespace, name: job.name, controller: new AbortController() };
    this.builds.get(r.id)?.controller.abort();
    this.builds.set(r.id, build);
    const signal = build.controller.signal;
    void (async () => {
      const logs = new BuildLog(rest, this.o.store, r.id, resumeMarker, logger);
      let outcome: JobOutcome = { done: false };
      let digest: string | undefined;
      while (!outcome.done) {
        await this.o.steps.sleep(this.o.pollMs, signal);
        const current = await rest.get("batch/v1", "Job", job.namespace, job.name).catch((err) => {
          logger.debug({ err, job: job.name }, "reading a build job failed; retrying");
          return null;
        });
        if (current === null) continue;
        if (current === undefined) {
          outcome = { done: true, succeeded: false, reason: "the build job was deleted" };
          break;
        }
        outcome = jobOutcome(current);
        const pod = await buildPod(rest, job.namespace, r.id).catch(() => undefined);
        if (pod) {
          await logs.copy(job.namespace, pod, outcome.done);
          digest = terminatedMessage(pod);
        }
      }
      if (signal.aborted) return;
      const result: BuildResult = outcome.succeeded ? { ok: true, image: pinnedImage(job.destination, digest) } : { ok: false, reason: outcome.reason, tail: logs.tail };
      this.o.steps.queue(d.id, () => this.finish(d, r.id, job, result));
    })()
      .catch((err) => {
        if (!(err instanceof Aborted)) logger.error({ err, revision: r.id }, "following a build failed");
      })
      .finally(() => {
        if (this.builds.get(r.id) === build) this.builds.delete(r.id);
      });
  }

  private async finish(deployment: DeploymentRow, revisionId: string, job: { namespace: string; name: string }, result: BuildResult): Promise<void> {
    const { revisions } = this.o;
    const d = await revisions.live(deployment);
    const r = await revisions.revision(d, revisionId);
    if (!r || r.status !== "BUILDING") return;
    await this.deleteObjects(job.namespace, job.name);
    if (!result.ok) {
      const tail = result.tail.length > 0 ? `\n${result.tail.join("\n")}` : "";
      await revisions.log(r.id, "build", [`build failed: ${result.reason}`], "ERROR");
      await revisions.advance(r, "BUILD_FAILED", { reason: `build failed: ${result.reason}${tail}` });
      return;
    }
    await revisions.log(r.id, "build", [`image pushed: ${result.image}`]);
    if (!(await revisions.advance(r, "AWAITING_DEPLOY"))) return;
    await this.o.onBuilt(d, r, result.image);
  }
}

/**
 * The local runtime's deploy pipeline: one `LocalDeployer` per deployment turns revisions into a
 * running `berth serve` behind a stable URL.
 *
 *   CREATING → QUEUED → AWAITING_BUILD   waiting for the deployment's single build/deploy slot
 *   BUILDING         git checkout into <dataDir>/revisions/<revisionId>/src (commit sha recorded),
 *                    the config's node_version / dependencies / dockerfile_lines checked (image-keys.ts),
 *                    install (install_command, or the lockfile's) from the repo root, then in each
 *                    `dependencies` directory, build_command from the config's directory; output → build log
 *   AWAITING_DEPLOY  (PGlite only) the previous revision's process is stopped, see below
 *   DEPLOYING        `berth serve` for <checkout>/<agent_config_path>, output → deploy log, until /ok
 *                    answers or the deadline passes (counted from DEPLOYING, as the rules say)
 *   DEPLOYED         the proxy sends new requests to the new process; the old one drains and stops
 *
 * Storage stays out of it: statuses and logs go to a `RevisionSink` the control plane implements.
 * Every status write is checked by the rules' state machine first; an illegal move throws.
 *
 * Superseding: a newer `deploy()` turns older revisions that have not started (CREATING, QUEUED,
 * AWAITING_BUILD — `nextForSupersede`) into SKIPPED and aborts them. A revision already BUILDING or
 * later keeps going (the rules do not allow skipping it; its result may still be the deployment's
 * only healthy revision); the newer one waits for the slot and replaces it afterwards.
 *
 * One database per deployment: every revision of a deployment uses `<dataDir>/db` (PGlite), or the
 * DATABASE_URI the control plane passes, so threads and runs survive a redeploy.
 * Trade-off: PGlite is an embedded database that only one process may open at a time, so with
 * PGlite the old process is stopped (gracefully: its running runs finish or go back to the queue
 * of the shared database) *before* the new one starts. The deployment is briefly unavailable; the
 * proxy holds requests meanwhile instead of failing them, and if the new revision does not become
 * healthy the previous one is started again. With a Postgres DATABASE_URI both processes can share
 * the database, so the new process starts next to the old one and the swap has no downtime.
 *
 * Crashes: when the serving process dies unexpectedly it is restarted with backoff (1 s, 2 s, 4 s…
 * capped at 30 s; the backoff resets once a process stays up for a minute), logged to the deploy log
 * of its revision, with the proxy holding requests until it is back.
 */
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import {
  DEFAULT_DEPLOY_DEADLINE_MS,
  isTerminal,
  nextForSupersede,
  StaleRevisionStatusError,
  transition,
  type RevisionStatus,
} from "../../control-plane/rules/index.js";
import { deploymentEnv, inheritedEnv, sandboxedEnv, usesDatabaseServer } from "./env.js";
import { chownTree, prepareDeploymentDir } from "./isolation.js";
import { checkout } from "./git.js";
import { detectInstallCommand } from "./install.js";
import { localImageKeys, nodeShimDir } from "./image-keys.js";
import { DeploymentProxy } from "./proxy.js";
import { runShell } from "./shell.js";
import { Slot } from "./slot.js";
import { DeployError, Instance, Stopped, type InstanceHooks } from "./supervised-instance.js";
import type { DeployOptions, DeployResult, LocalDeployerOptions, LocalRevisionSpec, RevisionSink } from "./deploy-types.js";

export type { DeployOptions, DeployResult, LocalDeployerOptions, LocalRevisionSpec, RevisionSink } from "./deploy-types.js";

export class IllegalTransitionError extends Error {}
class SinkError extends Error {}
class BuildError extends Error {}
class Superseded extends Error {}
class Interrupted extends Error {}

const noop = () => undefined;

/** One revision going through the pipeline. */
class Job {
  readonly controller = new AbortController();
  writes: Promise<void> = Promise.resolve();
  commitSha?: string;
  done?: Promise<DeployResult>;
  constructor(
    readonly spec: LocalRevisionSpec,
    readonly sink: RevisionSink,
    public status: RevisionStatus,
  ) {}
  get id(): string {
    return this.spec.revisionId;
  }
  get signal(): AbortSignal {
    return this.controller.signal;
  }
}

export class LocalDeployer {
  readonly deploymentId: string;
  private proxy?: DeploymentProxy;
  private listening?: Promise<DeploymentProxy>;
  private readonly slot = new Slot();
  private readonly jobs = new Set<Job>();
  private readonly retiring = new Map<Promise<void>, string>();
  private active?: Instance;
  private stopped = false;
  private stopping?: Promise<void>;
  private readonly inherit: NodeJS.ProcessEnv;

  constructor(private readonly opts: LocalDeployerOptions) {
    this.deploymentId = opts.deploymentId;
    this.inherit = opts.inheritEnv ?? inheritedEnv();
  }

  /** Start the proxy (idempotent); resolves with the deployment URL. */
  async listen(): Promise<string> {
    this.listening ??= DeploymentProxy.listen({ host: this.opts.host, port: this.opts.port, holdMs: this.opts.holdMs }).then((p) => (this.proxy = p));
    return (await this.listening).url;
  }

  /** The deployment's stable URL (the proxy); available once `listen()` or `deploy()` started it. */
  get url(): string {
    if (!this.proxy) throw new Error("the deployment proxy is not listening yet: call listen() first");
    return this.proxy.url;
  }

  /** The revision serving traffic (or being restarted after a crash), if any. */
  get activeRevisionId(): string | undefined {
    return this.active?.revisionId;
  }

  /** The serving process, for health reporting and tests. */
  get activeProcess(): { pid: number; url: string; restarts: number } | undefined {
    const a = this.active;
    return a?.proc ? { pid: a.proc.pid, url: a.proc.url, restarts: a.restarts } : undefined;
  }

  /**
   * Build and roll out a revision; resolves once it reached a terminal status (or the deployer was
   * stopped). Failures of the revision resolve with their status; a failing sink or an illegal
   * transition rejects.
   */
  deploy(spec: LocalRevisionSpec, sink: RevisionSink, opts: DeployOptions = {}): Promise<DeployResult> {
    if (this.stopped) return Promise.reject(new Error(`deployment ${this.deploymentId} is stopped`));
    if (spec.deploymentId !== this.deploymentId) return Promise.reject(new Error(`revision ${spec.revisionId} belongs to deployment ${spec.deploymentId}, not ${this.deploymentId}`));
    const job = new Job(spec, sink, opts.initialStatus ?? "CREATING");
    // Synchronously, so that the order of deploy() calls is the order of supersession.
    for (const older of this.jobs) {
      if (nextForSupersede(older.status) !== "SKIPPED") continue;
      if (older.spec.seq !== undefined && spec.seq !== undefined && older.spec.seq > spec.seq) continue;
      const reason = `Superseded by revision ${spec.revisionId}.`;
      this.log(older, "build", `skipped: ${reason}`);
      this.move(older, "SKIPPED", reason).catch(noop);
      older.controller.abort(new Superseded(reason));
    }
    this.jobs.add(job);
    const onAbort = () => job.controller.abort(new Interrupted(`Interrupted: ${String((opts.signal?.reason as Error)?.message ?? opts.signal?.reason ?? "aborted")}`));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener("abort", onAbort, { once: true });
    job.done = this.run(job, opts.deadlineMs ?? DEFAULT_DEPLOY_DEADLINE_MS).finally(() => {
      this.jobs.delete(job);
      opts.signal?.removeEventListener("abort", onAbort);
    });
    return job.done;
  }

  /**
   * Stop everything for good (deployment deletion): revisions in progress are abandoned, the
   * serving process is stopped gracefully and the proxy closes. Sinks are told nothing.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.stopped = true;
      for (const job of this.jobs) job.controller.abort(new Stopped("the deployment is being deleted"));
      await Promise.allSettled([...this.jobs].map((j) => j.done));
      const active = this.active;
      this.active = undefined;
      if (active) await active.retire(undefined, 0);
      await Promise.allSettled([...this.retiring.keys()]);
      if (this.listening) await (await this.listening.catch(() => undefined))?.close();
    })();
    return this.stopping;
  }

  // ---- the pipeline ----

  private async run(job: Job, deadlineMs: number): Promise<DeployResult> {
    try {
      if (job.status === "CREATING") await this.step(job, "QUEUED");
      await this.step(job, "AWAITING_BUILD");
      await this.listen();
      const release = await this.slot.acquire(job.signal);
      try {
        const built = await this.build(job);
        await this.step(job, "AWAITING_DEPLOY");
        await this.rollout(job, built, deadlineMs);
      } finally {
        release();
      }
      return { revisionId: job.id, status: job.status, commitSha: job.commitSha };
    } catch (err) {
      return this.settle(job, err as Error);
    }
  }

  /** The end of a revision that did not make it. */
  private async settle(job: Job, err: Error): Promise<DeployResult> {
    const result = (reason?: string): DeployResult => ({ revisionId: job.id, status: job.status, commitSha: job.commitSha, reason });
    if (err instanceof SinkError || err instanceof IllegalTransitionError) throw err;
    const cause = job.signal.aborted ? job.signal.reason : undefined;
    if (cause instanceof Stopped || this.stopped) return { ...result("the deployment was stopped"), stopped: true };
    if (isTerminal(job.status)) return result(cause instanceof Error ? cause.message : undefined); // skipped
    if (cause instanceof Interrupted) {
      this.log(job, job.status === "DEPLOYING" || job.status === "AWAITING_DEPLOY" ? "deploy" : "build", cause.message, "ERROR");
      await this.move(job, "INTERRUPTED", cause.message);
      return result(cause.message);
    }
    const deploying = job.status === "AWAITING_DEPLOY" || job.status === "DEPLOYING";
    const reason = err instanceof BuildError || err instanceof DeployError ? err.message : `${err.name}: ${err.message}`;
    const status: RevisionStatus = job.status === "CREATING" ? "CREATE_FAILED" : deploying ? "DEPLOY_FAILED" : "BUILD_FAILED";
    this.log(job, deploying ? "deploy" : "build", `${status}: ${reason}`, "ERROR");
    await this.move(job, status, reason);
    return result(reason);
  }

  /** The config to serve, and the `node` to serve it with when node_version asks for another Node.js. */
  private async build(job: Job): Promise<{ configPath: string; node?: string }> {
    const { spec, signal } = job;
    await this.step(job, "BUILDING");
    const timeoutMs = this.opts.buildTimeoutMs ?? 1_800_000;
    const log = (line: string, level: "INFO" | "ERROR" = "INFO") => this.log(job, "build", line, level);
    const sandbox = await this.sandbox(spec);
    const revDir = path.join(spec.dataDir, "revisions", spec.revisionId);
    const root = path.join(revDir, "src");
    await rm(root, { recursive: true, force: true });
    await mkdir(revDir, { recursive: true });
    let t = Date.now();
    const took = () => `${((Date.now() - t) / 1000).toFixed(1)} s`;
    try {
      job.commitSha = (await checkout({ repoUrl: spec.repoUrl, ref: spec.repoRef, dir: root, log: (l) => log(l), signal, timeoutMs })).commitSha;
    } catch (err) {
      if (signal.aborted) throw err;
      throw new BuildError((err as Error).message);
    }
    if (spec.user) await chownTree(revDir, spec.user);
    log(`checkout done in ${took()}`);

    const configPath = path.resolve(root, spec.agentConfigPath);
    if (path.relative(root, configPath).startsWith("..") || path.isAbsolute(spec.agentConfigPath)) {
      throw new BuildError(`agent_config_path "${spec.agentConfigPath}" points outside the repository`);
    }
    if (!existsSync(configPath)) throw new BuildError(`agent_config_path "${spec.agentConfigPath}" does not exist at commit ${job.commitSha}`);
    // node_version, dependencies and dockerfile_lines: honoured or refused here, before any install runs
    const image = await localImageKeys(root, configPath, spec.installCommand, sandbox).catch((err: Error) => {
      throw new BuildError(err.message);
    });
    if (image.node) {
      log(`node_version: Node.js ${image.node.version} at ${image.node.path} runs the install and build commands and the agent server`);
      sandbox.PATH = `${await nodeShimDir(path.join(revDir, "node"), image.node.path)}${path.delimiter}${sandbox.PATH ?? ""}`;
    }

    const env = { ...sandbox, ...deploymentEnv(spec, "build") };
    const shell = async (label: string, command: string, cwd: string) => {
      t = Date.now();
      log(`$ ${command}  (${label}, in ${path.relative(root, cwd) || "."})`);
      try {
        await runShell({ command, cwd, env, signal, timeoutMs, label, user: spec.user, log: (l, stream) => log(l, stream === "stderr" ? "ERROR" : "INFO") });
      } catch (err) {
        if (signal.aborted) throw err;
        throw new BuildError((err as Error).message);
      }
      log(`${label} done in ${took()}`);
    };

    const files = new Set(await readdir(root));
    let packageJson: { packageManager?: unknown } | undefined;
    if (files.has("package.json")) {
      try {
        packageJson = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as { packageManager?: unknown };
      } catch {
        log("package.json is not valid JSON; ignoring its packageManager", "ERROR");
      }
    }
    const plan = detectInstallCommand(files, packageJson, spec.installCommand);
    if (plan) {
      log(`install: ${plan.reason}`);
      await shell("install command", plan.command, root);
    } else log("no package.json at the repository root and no install_command: nothing to install");
    for (const dep of image.installs) {
      if (!dep.plan) {
        log(`dependencies: nothing to install in ${dep.rel} (no package.json)`);
        continue;
      }
      log(`install in ${dep.rel} (dependencies of the config): ${dep.plan.reason}`);
      await shell("install command", dep.plan.command, dep.dir);
    }
    if (spec.buildCommand?.trim()) await shell("build command", spec.buildCommand.trim(), path.dirname(configPath));
    return { configPath, node: image.node?.path };
  }

  private async rollout(job: Job, { configPath, node }: { configPath: string; node?: string }, deadlineMs: number): Promise<void> {
    const { spec, signal } = job;
    const proxy = this.proxy!;
    const env = deploymentEnv(spec);
    const shared = usesDatabaseServer(env);
    const log = (line: string, level: "INFO" | "ERROR" = "INFO") => this.log(job, "deploy", line, level);
    const previous = this.active;
    let stoppedPrevious = false;
    const instance = new Instance(job.id, spec, job.sink, configPath, env, {
      opts: this.opts,
      inherit: await this.sandbox(spec),
      muted: () => this.stopped,
      hooks: this.hooks,
      deadlineMs,
      node,
    });
    try {
      if (previous && !shared) {
        // PGlite admits one process: the old one goes first (see the header comment).
        log(`the embedded database (PGlite) admits one process at a time: stopping revision ${previous.revisionId} first; requests wait until revision ${job.id} is ready`);
        proxy.hold();
        this.active = undefined;
        stoppedPrevious = true;
        await previous.retire(proxy, this.opts.drainMs ?? 10_000);
        signal.throwIfAborted();
      }
      await this.step(job, "DEPLOYING");
      log(`starting the agent server (${shared ? "Postgres database" : `PGlite database in ${path.join(spec.dataDir, "db")}`}; ready within ${deadlineMs / 1000} s)`);
      await instance.startOnce(deadlineMs, signal);
    } catch (err) {
      if (stoppedPrevious && previous && !this.stopped) {
        log(`revision ${job.id} did not become ready: starting revision ${previous.revisionId} again`, "ERROR");
        this.active = previous;
        previous.revive();
      } else if (!this.active && !this.stopped) proxy.down("no revision of the deployment is ready");
      throw err;
    }
    // The swap: new requests go to the new process from here on; requests in flight finish where they are.
    this.active = instance;
    instance.supervise();
    proxy.setTarget(instance.url!);
    log(`serving traffic at ${proxy.url}`);
    if (previous && !stoppedPrevious) {
      const retiring = previous.retire(proxy, this.opts.drainMs ?? 10_000).then(
        () => log(`revision ${previous.revisionId} stopped`),
        (err: Error) => log(`stopping revision ${previous.revisionId} failed: ${err.message}`, "ERROR"),
      );
      this.retiring.set(retiring, previous.revisionId);
      void retiring.finally(() => this.retiring.delete(retiring));
    }
    await this.step(job, "DEPLOYED");
    await this.prune(spec.dataDir).catch(noop);
  }

  /** The inherited environment of the deployment's processes, with its private HOME and TMPDIR (made here). */
  private async sandbox(spec: LocalRevisionSpec): Promise<NodeJS.ProcessEnv> {
    return sandboxedEnv(this.inherit, await prepareDeploymentDir(spec.dataDir, spec.user), Boolean(spec.user));
  }

  private readonly hooks: InstanceHooks = {
    up: (inst) => {
      if (this.active === inst && inst.url && !this.stopped) {
        inst.log(`serving traffic again at ${this.proxy?.url}`);
        this.proxy?.setTarget(inst.url);
      }
    },
    down: (inst) => {
      if (this.active === inst && !this.stopped) this.proxy?.hold();
    },
  };

  /** Remove checkouts no process or revision in progress needs any more. */
  private async prune(dataDir: string): Promise<void> {
    const keep = new Set<string>([...[...this.jobs].map((j) => j.id), ...this.retiring.values()]);
    if (this.active) keep.add(this.active.revisionId);
    const dir = path.join(dataDir, "revisions");
    for (const name of await readdir(dir)) if (!keep.has(name)) await rm(path.join(dir, name), { recursive: true, force: true });
  }

  // ---- statuses and logs ----

  /** A pipeline step: stop if the revision was skipped, interrupted or the deployer stopped; else move. */
  private step(job: Job, next: RevisionStatus): Promise<void> {
    job.signal.throwIfAborted();
    return this.move(job, next);
  }

  /**
   * Check `current → next` with the rules' state machine (throwing on an illegal move), record it at
   * once (so supersession sees it) and write it to the sink after the job's earlier writes.
   */
  private move(job: Job, next: RevisionStatus, reason?: string): Promise<void> {
    const t = transition(job.status, next, { buildless: false });
    if (!t.ok) throw new IllegalTransitionError(`revision ${job.id}: ${t.error}`);
    if (!t.changed) return job.writes;
    const from = job.status;
    job.status = next;
    if (this.stopped) return job.writes;
    const detail: { reason?: string; commitSha?: string; from?: RevisionStatus } = { from };
    if (reason) detail.reason = reason;
    if (job.commitSha) detail.commitSha = job.commitSha;
    job.writes = job.writes.then(() =>
      job.sink.setStatus(next, detail).catch((err: Error) => {
        if (err instanceof StaleRevisionStatusError && isTerminal(err.stored)) {
          // the control plane ended it first (a newer revision skipped it): stop, quietly
          job.status = err.stored;
          const why = new Superseded(err.message);
          job.controller.abort(why);
          throw why;
        }
        throw new SinkError(`writing status ${next} of revision ${job.id} failed: ${err.message}`);
      }),
    );
    job.writes.catch(noop);
    return job.writes;
  }

  private log(job: Job, type: "build" | "deploy", line: string, level: "INFO" | "ERROR" = "INFO"): void {
    if (this.stopped) return;
    try {
      job.sink.log(type, line, level);
    } catch {
      // must not throw; a lost line must not fail the revision
    }
  }
}

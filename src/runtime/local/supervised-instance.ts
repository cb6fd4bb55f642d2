/**
 * A revision's agent server process under supervision (restarts with backoff, retire with drain);
 * the deploy pipeline in deployer.ts decides when one starts, serves and retires.
 */
import path from "node:path";
import { deployTimeoutReason } from "../../control-plane/rules/index.js";
import { startAgentProcess, type AgentProcess } from "./agent-process.js";
import type { LocalDeployerOptions, LocalRevisionSpec, RevisionSink } from "./deploy-types.js";
import type { DeploymentProxy } from "./proxy.js";
import { abortReason } from "./shell.js";

/** The agent server did not become healthy: its message is the revision's failure reason. */
export class DeployError extends Error {}
/** The deployment is being stopped (deleted) or the instance retired. */
export class Stopped extends Error {}

const noop = () => undefined;

export interface InstanceHooks {
  up(inst: Instance): void;
  down(inst: Instance): void;
}

/**
 * A revision's agent server under supervision: one process at a time, restarted with backoff
 * when it dies unexpectedly, until retired.
 */
export class Instance {
  proc?: AgentProcess;
  retired = false;
  restarts = 0;
  private attempt = 0;
  private timer?: NodeJS.Timeout;
  private stableTimer?: NodeJS.Timeout;
  private starting?: AbortController;
  private readonly tail: string[] = [];

  constructor(
    readonly revisionId: string,
    readonly spec: LocalRevisionSpec,
    readonly sink: RevisionSink,
    readonly configPath: string,
    readonly env: Record<string, string>,
    private readonly d: { opts: LocalDeployerOptions; inherit: NodeJS.ProcessEnv; muted: () => boolean; hooks: InstanceHooks; deadlineMs: number; node?: string },
  ) {}

  get url(): string | undefined {
    return this.proc?.url;
  }

  log(line: string, level: "INFO" | "ERROR" = "INFO"): void {
    if (this.d.muted()) return;
    try {
      this.sink.log("deploy", line, level);
    } catch {
      // a sink must not throw; if it does, the log line is lost, not the deployment
    }
  }

  /** Spawn a process and wait until it is healthy (or fail, leaving nothing running). */
  async startOnce(deadlineMs: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.tail.length = 0;
    const proc = await startAgentProcess({
      configPath: this.configPath,
      dataDir: path.join(this.spec.dataDir, "db"),
      env: this.env,
      inheritEnv: this.d.inherit,
      user: this.spec.user,
      host: this.d.opts.host,
      command: this.d.opts.command,
      node: this.d.node,
      log: (line, stream) => {
        this.tail.push(line);
        if (this.tail.length > 5) this.tail.shift();
        this.log(line, stream === "stderr" || /"level":(50|60)\b/.test(line) ? "ERROR" : "INFO");
      },
    });
    this.proc = proc;
    this.log(`started berth serve (pid ${proc.pid}) for ${path.relative(path.join(this.spec.dataDir, "revisions", this.revisionId, "src"), this.configPath)}`);
    const started = Date.now();
    let onAbort: (() => void) | undefined;
    try {
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(abortReason(signal!));
        signal?.addEventListener("abort", onAbort, { once: true });
      });
      aborted.catch(noop);
      await Promise.race([proc.waitHealthy(deadlineMs), aborted]);
      this.log(`healthy after ${((Date.now() - started) / 1000).toFixed(1)} s at ${proc.url}`);
    } catch (err) {
      await proc.stop(this.d.opts.stopGraceMs ?? 30_000);
      const message = (err as Error).message;
      if (signal?.aborted) throw err;
      if (message.startsWith("Timeout:")) throw new DeployError(deployTimeoutReason(deadlineMs));
      const last = this.tail.filter((l) => !l.startsWith("{")).slice(-3);
      throw new DeployError(last.length ? `${message}: ${last.join(" | ")}` : message);
    } finally {
      if (onAbort) signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Watch the current process; an exit that nobody asked for starts the restart loop. */
  supervise(): void {
    const proc = this.proc;
    if (!proc || this.retired) return;
    const resetAfter = this.d.opts.restartBackoff?.resetAfterMs ?? 60_000;
    clearTimeout(this.stableTimer);
    this.stableTimer = setTimeout(() => (this.attempt = 0), resetAfter);
    this.stableTimer.unref();
    void proc.exited.then((code) => {
      if (this.retired || this.proc !== proc) return;
      clearTimeout(this.stableTimer);
      const how = code === null ? `was killed (${proc.child.signalCode ?? "signal"})` : `exited with code ${code}`;
      this.log(`the agent server (pid ${proc.pid}) ${how} unexpectedly`, "ERROR");
      this.d.hooks.down(this);
      this.scheduleRestart();
    });
  }

  private scheduleRestart(): void {
    if (this.retired) return;
    const initial = this.d.opts.restartBackoff?.initialMs ?? 1000;
    const max = this.d.opts.restartBackoff?.maxMs ?? 30_000;
    const delay = Math.min(initial * 2 ** this.attempt, max);
    this.attempt++;
    this.log(`restarting in ${delay / 1000} s (attempt ${this.attempt})`);
    this.timer = setTimeout(() => void this.restart(), delay);
  }

  private async restart(): Promise<void> {
    if (this.retired) return;
    const ctl = (this.starting = new AbortController());
    try {
      await this.startOnce(this.d.deadlineMs, ctl.signal);
    } catch (err) {
      if (this.retired) return;
      this.log(`restart failed: ${(err as Error).message}`, "ERROR");
      this.scheduleRestart();
      return;
    } finally {
      if (this.starting === ctl) this.starting = undefined;
    }
    if (this.retired) return;
    this.restarts++;
    this.d.hooks.up(this);
    this.supervise();
  }

  /** Bring a retired revision's process back (after a failed PGlite swap), through the restart loop. */
  revive(): void {
    this.retired = false;
    this.attempt = 0;
    this.timer = setTimeout(() => void this.restart(), 0);
  }

  /** Stop supervising and stop the process: requests in flight through `proxy` may finish first (at most `drainMs`). */
  async retire(proxy: DeploymentProxy | undefined, drainMs: number): Promise<void> {
    this.retired = true;
    clearTimeout(this.timer);
    clearTimeout(this.stableTimer);
    this.starting?.abort(new Stopped("retired"));
    const proc = this.proc;
    if (!proc) return;
    if (proxy && drainMs > 0) {
      const drained = await proxy.retire(proc.url, drainMs);
      if (!drained) this.log(`requests still in flight after ${drainMs / 1000} s; stopping anyway`);
    }
    this.log(`stopping the agent server (pid ${proc.pid}) gracefully`);
    await proc.stop(this.d.opts.stopGraceMs ?? 30_000);
    if (proxy) await proxy.retire(proc.url, 0);
  }
}

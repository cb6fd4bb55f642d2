/**
 * One agent server process of a local deployment: `berth serve` for the revision's config, with
 * the deployment's secrets as environment, its output captured line by line (the deploy log),
 * healthy once `/ok` answers, stopped gracefully (SIGTERM lets running runs finish or go back to
 * the queue; SIGKILL after the grace period).
 *
 * The port: unless one is given, `berth serve --port 0` binds one itself and reports its address
 * over the IPC channel ("ready"). Picking a free port here and passing it down would leave a gap in
 * which another process (another deployment starting, anything on a busy machine) can take it: the
 * agent then fails to start, or worse, the health check talks to the other process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const BERTH_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../bin/berth.js");

export class AgentProcessError extends Error {}

export interface AgentProcessOptions {
  configPath: string;
  dataDir: string;
  /** Environment added to the control plane's own (secrets, tracing, DATABASE_URI…). */
  env: Record<string, string>;
  /** The environment `env` is added to (default: this process's); the deployer passes a filtered copy. */
  inheritEnv?: NodeJS.ProcessEnv;
  host?: string;
  /** A fixed port; by default the process binds a free one itself and reports it (see above). */
  port?: number;
  /** Each line of output (stdout and stderr), as it comes. */
  log: (line: string, stream: "stdout" | "stderr") => void;
  /** The command that runs berth (tests use the sources). */
  command?: { file: string; args: string[] };
  /** The `node` that runs berth when no `command` is given (node_version); default this process's. */
  node?: string;
  /** Run as this user (the control plane runs as root; see isolation.ts). */
  user?: { uid: number; gid: number };
}

export interface AgentProcess {
  /** Where it listens: known once it reported ready (always after `waitHealthy`); "" before. */
  readonly url: string;
  pid: number;
  child: ChildProcess;
  /** Resolves when the process exits, with its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Wait until `/ok` answers 200, or fail when the process exits or the deadline passes. */
  waitHealthy(deadlineMs: number): Promise<void>;
  stop(graceMs?: number): Promise<void>;
}

const urlOf = (host: string, port: number | string) => `http://${host.includes(":") ? `[${host}]` : host}:${port}`;

export async function startAgentProcess(o: AgentProcessOptions): Promise<AgentProcess> {
  const host = o.host ?? "127.0.0.1";
  const cmd = o.command ?? { file: o.node ?? process.execPath, args: [BERTH_BIN] };
  const child = spawn(cmd.file, [...cmd.args, "serve", "--config", o.configPath, "--port", String(o.port ?? 0), "--host", host, "--data-dir", o.dataDir], {
    // BERTH_EXIT_WITH_PARENT: if the control plane is killed outright, its agents stop too rather
    // than linger holding their embedded database (which a restarted control plane needs)
    env: { ...(o.inheritEnv ?? process.env), ...o.env, BERTH_EXIT_WITH_PARENT: "1" },
    // ipc: the process reports the address it bound ("ready")
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    ...o.user,
  });
  let url = o.port ? urlOf(host, o.port) : "";
  const ready = new Promise<void>((resolve) => {
    child.on("message", (m: { type?: string; url?: string }) => {
      if (m?.type !== "ready" || typeof m.url !== "string") return;
      // its port, on the host we asked for (it may report a wildcard address)
      url = urlOf(host, new URL(m.url).port);
      // nothing else comes over the channel; without it the process does not keep this one alive
      if (child.connected) child.disconnect();
      resolve();
    });
  });
  const lines = (stream: "stdout" | "stderr") => {
    let rest = "";
    child[stream]!.on("data", (chunk: Buffer) => {
      const text = rest + chunk.toString("utf8");
      const parts = text.split("\n");
      rest = parts.pop() ?? "";
      for (const p of parts) if (p) o.log(p, stream);
    });
    // the last line of a process that dies mid-write has no newline (often the interesting one)
    child[stream]!.on("end", () => {
      if (rest) o.log(rest, stream);
      rest = "";
    });
  };
  lines("stdout");
  lines("stderr");
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const spawnError = new Promise<never>((_, reject) => child.once("error", (err) => reject(new AgentProcessError(`could not start berth: ${err.message}`))));
  spawnError.catch(() => undefined);
  return {
    get url() {
      return url;
    },
    pid: child.pid ?? -1,
    child,
    exited,
    async waitHealthy(deadlineMs) {
      const deadline = Date.now() + deadlineMs;
      let done = false;
      const died = exited.then((code) => {
        if (!done) throw new AgentProcessError(`the agent server exited with code ${code} before it was healthy`);
      });
      const poll = (async () => {
        const late = new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now())).unref());
        await Promise.race([ready, late]);
        while (url && Date.now() < deadline) {
          try {
            const res = await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2000) });
            if (res.ok) return;
          } catch {
            // not listening yet
          }
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new AgentProcessError(`Timeout: Deployment is not ready after ${Math.round(deadlineMs / 1000)} seconds.`);
      })();
      try {
        await Promise.race([poll, died, spawnError]);
      } finally {
        done = true;
      }
    },
    async stop(graceMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * One agent server process of a local deployment: `berth serve` for the revision's config, with
 * the deployment's secrets as environment, its output captured line by line (the deploy log),
 * healthy once `/ok` answers, stopped gracefully (SIGTERM lets running runs finish or go back to
 * the queue; SIGKILL after the grace period).
 */
import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
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
  port?: number;
  /** Each line of output (stdout and stderr), as it comes. */
  log: (line: string, stream: "stdout" | "stderr") => void;
  /** The command that runs berth (tests use the sources). */
  command?: { file: string; args: string[] };
  /** Run as this user (the control plane runs as root; see isolation.ts). */
  user?: { uid: number; gid: number };
}

export interface AgentProcess {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Resolves when the process exits, with its exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Wait until `/ok` answers 200, or fail when the process exits or the deadline passes. */
  waitHealthy(deadlineMs: number): Promise<void>;
  stop(graceMs?: number): Promise<void>;
}

/** A free port on the host, picked by the OS. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, host, () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startAgentProcess(o: AgentProcessOptions): Promise<AgentProcess> {
  const host = o.host ?? "127.0.0.1";
  const port = o.port ?? (await freePort(host));
  const cmd = o.command ?? { file: process.execPath, args: [BERTH_BIN] };
  const child = spawn(cmd.file, [...cmd.args, "serve", "--config", o.configPath, "--port", String(port), "--host", host, "--data-dir", o.dataDir], {
    // BERTH_EXIT_WITH_PARENT: if the control plane is killed outright, its agents stop too rather
    // than linger holding their embedded database (which a restarted control plane needs)
    env: { ...(o.inheritEnv ?? process.env), ...o.env, BERTH_EXIT_WITH_PARENT: "1" },
    stdio: ["ignore", "pipe", "pipe"],
    ...o.user,
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
  const url = `http://${host}:${port}`;

  return {
    url,
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
        while (Date.now() < deadline) {
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

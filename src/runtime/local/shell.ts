/**
 * Running a build step of a revision (`install_command`, `build_command`): `sh -c` in a directory,
 * every output line to the build log, the last lines kept for the failure reason. The command runs
 * in its own process group, so aborting (a superseded revision, a deleted deployment) or a timeout
 * also ends what it started (`npm` → `node` → `esbuild`…).
 */
import { spawn } from "node:child_process";

export class ShellError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly lastLines: string[],
  ) {
    super(message);
  }
}

export interface ShellOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  log: (line: string, stream: "stdout" | "stderr") => void;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** What the command is, for messages ("install command"). */
  label?: string;
  /** How many trailing lines a failure reports. */
  tailLines?: number;
  /** Run as this user (the control plane runs as root; see isolation.ts). */
  user?: { uid: number; gid: number };
}

/** Run `command` with `sh -c`; resolves on exit code 0, otherwise rejects with a ShellError quoting the last lines. */
export function runShell(o: ShellOptions): Promise<void> {
  const label = o.label ?? "command";
  const tail: string[] = [];
  const keep = o.tailLines ?? 10;
  return new Promise<void>((resolve, reject) => {
    if (o.signal?.aborted) return reject(abortReason(o.signal));
    const child = spawn("sh", ["-c", o.command], { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"], detached: true, ...o.user });
    const killGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    let killTimer: NodeJS.Timeout | undefined;
    let why: Error | undefined;
    const terminate = (reason: Error) => {
      why ??= reason;
      killGroup("SIGTERM");
      killTimer ??= setTimeout(() => killGroup("SIGKILL"), 5000);
    };
    const onAbort = () => terminate(abortReason(o.signal!));
    o.signal?.addEventListener("abort", onAbort, { once: true });
    const timeout = o.timeoutMs
      ? setTimeout(() => terminate(new ShellError(`${label} "${o.command}" timed out after ${Math.round(o.timeoutMs! / 1000)} seconds`, null, tail)), o.timeoutMs)
      : undefined;
    for (const stream of ["stdout", "stderr"] as const) {
      let rest = "";
      const emit = (line: string) => {
        o.log(line, stream);
        tail.push(line);
        if (tail.length > keep) tail.shift();
      };
      child[stream].on("data", (chunk: Buffer) => {
        const parts = (rest + chunk.toString("utf8")).split(/\r?\n/);
        rest = parts.pop() ?? "";
        for (const p of parts) if (p.trim()) emit(p);
      });
      child[stream].on("end", () => {
        if (rest.trim()) emit(rest);
        rest = "";
      });
    }
    child.once("error", (err) => {
      why ??= new ShellError(`${label} "${o.command}" could not start: ${err.message}`, null, tail);
    });
    child.once("close", (code, signal) => {
      o.signal?.removeEventListener("abort", onAbort);
      clearTimeout(timeout);
      clearTimeout(killTimer);
      // the group may still hold a background process of the command
      if (why) killGroup("SIGKILL");
      if (why) return reject(why);
      if (code === 0) return resolve();
      const status = code === null ? `was killed by ${signal}` : `failed with exit code ${code}`;
      const last = tail.length ? `: ${tail.slice(-5).join(" | ")}` : "";
      reject(new ShellError(`${label} "${o.command}" ${status}${last}`, code, [...tail]));
    });
  });
}

export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason ?? "aborted"));
}

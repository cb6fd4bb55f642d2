/**
 * A private, throwaway PostgreSQL cluster for tests that need to restart or kill the database
 * (the shared one on 127.0.0.1:5432 must never be restarted). Each cluster lives in its own temp
 * directory, listens on 127.0.0.1 on a random free port with trust auth (user `postgres`), and
 * keeps that port across restarts so clients can reconnect to the same URI.
 *
 *   const pg = await startPrivatePostgres();
 *   // pg.uri -> postgres://postgres@127.0.0.1:<port>/postgres
 *   await pg.restart();                 // stop -m fast, start again on the same port
 *   await pg.restart({ mode: "immediate", whileDown: async () => { ... } });
 *   await pg.kill();                    // SIGKILL postmaster + backends; stays down
 *   await pg.start();                   // bring it back (same port, same data)
 *   await pg.stop();                    // final: stop and delete the directory (idempotent)
 *
 * Binaries come from $BERTH_PG_BIN, else the newest /usr/lib/postgresql/<ver>/bin, else PATH.
 * Postgres refuses to run as root, so when the tests run as root the cluster is owned by and run
 * as the `postgres` OS user (or $BERTH_PG_OS_USER).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { chown, mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "./ports.js";

export interface PrivatePostgres {
  /** Connection URI to the `postgres` database as superuser `postgres` (trust auth). */
  uri: string;
  port: number;
  /** The cluster's data directory (inside a temp dir removed by stop()). */
  dataDir: string;
  /**
   * Stop the server, then start it again on the same port. `mode` is pg_ctl's shutdown mode:
   * "fast" (default: disconnects clients, clean shutdown) or "immediate" (crash-like, recovery on
   * start). `whileDown` runs while the server is down, before it starts again.
   */
  restart(opts?: { mode?: "fast" | "immediate"; whileDown?: () => Promise<void> }): Promise<void>;
  /** SIGKILL the postmaster and all its backends (a crash). The server stays down until start(). */
  kill(): Promise<void>;
  /** Stop the server (pg_ctl mode, default "fast") without deleting anything; start() brings it back. */
  down(mode?: "fast" | "immediate"): Promise<void>;
  /** Start a server brought down by down() or kill(), on the same port. No-op if it runs. */
  start(): Promise<void>;
  /** Final cleanup: stop the server and delete its directory. Idempotent. */
  stop(): Promise<void>;
}

function pgBinDir(): string {
  if (process.env.BERTH_PG_BIN) return process.env.BERTH_PG_BIN;
  const base = "/usr/lib/postgresql";
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(path.join(base, v, "bin", "pg_ctl")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(base, versions[0]!, "bin");
  }
  return ""; // rely on PATH
}

/** uid/gid to run Postgres as: ourselves, unless we are root (Postgres refuses root). */
function osUser(): { uid: number; gid: number } | undefined {
  if (typeof process.getuid !== "function" || process.getuid() !== 0) return undefined;
  const name = process.env.BERTH_PG_OS_USER ?? "postgres";
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.split(":")[0] === name);
  if (!line) throw new Error(`private Postgres: running as root and there is no OS user "${name}" to run Postgres as (set BERTH_PG_OS_USER)`);
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}


function run(bin: string, args: string[], user: { uid: number; gid: number } | undefined, cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      env: { ...process.env, LC_ALL: "C", LANG: "C", PGTZ: "UTC" },
      stdio: ["ignore", "pipe", "pipe"],
      ...(user ?? {}),
    });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, output }));
  });
}

/** Clusters still alive, killed if the test process exits without stopping them. */
const live = new Set<{ pidFile: string; dir: string }>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const c of live) {
      killGroupSync(c.pidFile);
      rmSync(c.dir, { recursive: true, force: true });
    }
  });
}

/**
 * A detached shell that kills the cluster and deletes its directory once this process is gone:
 * vitest ends its workers with signals, so an 'exit' hook alone leaves clusters running.
 */
function startWatchdog(pidFile: string, dir: string): ChildProcess {
  const script = [
    `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done`,
    `pid=$(head -1 "${pidFile}" 2>/dev/null)`,
    `if [ -n "$pid" ]; then kill -9 -"$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null; fi`,
    `rm -rf "${dir}"`,
  ].join("\n");
  const child = spawn("sh", ["-c", script], { detached: true, stdio: "ignore" });
  child.unref();
  return child;
}

function stopWatchdog(watchdog: ChildProcess): void {
  if (watchdog.exitCode === null && watchdog.signalCode === null) watchdog.kill("SIGKILL");
}

function postmasterPid(pidFile: string): number | undefined {
  try {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** pg_ctl starts the postmaster in its own session, so its pid is the group of every backend. */
function killGroupSync(pidFile: string): number | undefined {
  const pid = postmasterPid(pidFile);
  if (pid === undefined) return undefined;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
  return pid;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = pgBinDir();
  const tool = (name: string) => (bin ? path.join(bin, name) : name);
  const user = osUser();
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-pg-"));
  if (user) await chown(dir, user.uid, user.gid);
  const dataDir = path.join(dir, "data");
  const logFile = path.join(dir, "postgres.log");
  const pidFile = path.join(dataDir, "postmaster.pid");
  const entry = { pidFile, dir };
  live.add(entry);
  installExitHook();
  const watchdog = startWatchdog(pidFile, dir);

  const fail = async (what: string, output: string): Promise<never> => {
    const log = await readFile(logFile, "utf8").catch(() => "");
    throw new Error(`private Postgres: ${what} failed\n${output}\n${log.split("\n").slice(-30).join("\n")}`);
  };

  const init = await run(tool("initdb"), ["-D", dataDir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"], user, dir);
  if (init.code !== 0) {
    live.delete(entry);
    stopWatchdog(watchdog);
    await rm(dir, { recursive: true, force: true });
    await fail("initdb", init.output);
  }

  let port = 0;
  const pgCtlStart = async () => {
    const opts = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      `-c unix_socket_directories=${dir}`,
      "-c fsync=off",
      "-c full_page_writes=off",
      "-c max_connections=200",
    ].join(" ");
    return run(tool("pg_ctl"), ["-D", dataDir, "-l", logFile, "-w", "-t", "120", "-o", opts, "start"], user, dir);
  };
  // The port is free when we pick it but another process may grab it first: retry with a new one.
  for (let attempt = 0; ; attempt++) {
    port = await freePort();
    const started = await pgCtlStart();
    if (started.code === 0) break;
    if (attempt >= 4) {
      await stopNow();
      await fail("pg_ctl start", started.output);
    }
  }

  let running = true;
  let removed = false;

  async function down(mode: "fast" | "immediate" = "fast"): Promise<void> {
    if (!running) return;
    const res = await run(tool("pg_ctl"), ["-D", dataDir, "-m", mode, "-w", "-t", "120", "stop"], user, dir);
    if (res.code !== 0 && postmasterPid(pidFile) !== undefined) await fail(`pg_ctl stop -m ${mode}`, res.output);
    running = false;
  }

  async function start(): Promise<void> {
    if (running) return;
    // After kill() the pid file remains; Postgres removes a stale one itself once the pid is gone.
    const res = await pgCtlStart();
    if (res.code !== 0) await fail(`pg_ctl start (port ${port})`, res.output);
    running = true;
  }

  async function kill(): Promise<void> {
    const pid = killGroupSync(pidFile);
    running = false;
    if (pid === undefined) return;
    const deadline = Date.now() + 60_000;
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }

  async function stopNow(): Promise<void> {
    if (removed) return;
    removed = true;
    if (postmasterPid(pidFile) !== undefined) {
      await run(tool("pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "-t", "60", "stop"], user, dir).catch(() => undefined);
      killGroupSync(pidFile);
    }
    running = false;
    live.delete(entry);
    stopWatchdog(watchdog);
    await rm(dir, { recursive: true, force: true });
  }

  return {
    uri: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async restart(opts = {}) {
      await down(opts.mode ?? "fast");
      if (opts.whileDown) await opts.whileDown();
      await start();
    },
    kill,
    down,
    start,
    stop: stopNow,
  };
}

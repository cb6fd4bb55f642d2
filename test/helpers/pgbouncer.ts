/**
 * A private PgBouncer in transaction mode in front of the test Postgres: what managed Postgres
 * offerings and many deployments put between an application and its database. In transaction
 * mode each transaction (each statement outside one) may run on another server connection, so
 * anything a session keeps — a named prepared statement above all — is not there next time.
 *
 * Debian's package (bookworm: 1.18, which has no `max_prepared_statements`); `.ci/run` installs it.
 * Outside CI the suites that need it are skipped, visibly, when it is missing. PgBouncer refuses to
 * run as root, so under root it runs as the `postgres` user.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { POSTGRES_ADMIN_URI } from "./services.js";
import { freePort } from "./ports.js";

export const PGBOUNCER_BIN = process.env.BERTH_PGBOUNCER ?? "/usr/sbin/pgbouncer";
export const pgbouncerInstalled = () => existsSync(PGBOUNCER_BIN);

export interface PgBouncer {
  /** The same URI through PgBouncer (its database name kept). */
  through(uri: string): string;
  stop(): Promise<void>;
}


export interface PgBouncerOptions {
  /** Server connections per database and user (`default_pool_size`); 4 unless told. */
  poolSize?: number;
}

export async function startPgBouncer(options: PgBouncerOptions = {}): Promise<PgBouncer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "berth-pgbouncer-"));
  await chmod(dir, 0o777); // written by the postgres user when we are root
  const upstream = new URL(POSTGRES_ADMIN_URI);
  const port = await freePort();
  const user = decodeURIComponent(upstream.username || "postgres");
  await writeFile(path.join(dir, "users.txt"), `"${user}" ""\n`);
  await writeFile(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${upstream.hostname} port=${upstream.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =",
      "auth_type = trust",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      // fewer server connections than the app's pool: transactions really do change connections
      `default_pool_size = ${options.poolSize ?? 4}`,
      "max_client_conn = 500",
      // node-postgres sends extra_float_digits; Berth sends `options` (idle_in_transaction_session_timeout)
      "ignore_startup_parameters = extra_float_digits,options",
      `logfile = ${path.join(dir, "pgbouncer.log")}`,
      `pidfile = ${path.join(dir, "pgbouncer.pid")}`,
      "",
    ].join("\n"),
  );
  const ini = path.join(dir, "pgbouncer.ini");
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = asRoot
    ? spawn("runuser", ["-u", "postgres", "--", PGBOUNCER_BIN, ini], { stdio: "ignore" })
    : spawn(PGBOUNCER_BIN, [ini], { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const log = () => readFile(path.join(dir, "pgbouncer.log"), "utf8").catch(() => "");
  const through = (uri: string) => {
    const u = new URL(uri);
    u.hostname = "127.0.0.1";
    u.port = String(port);
    return u.toString();
  };
  // Ready once a query gets through it (bounded; a PgBouncer that exited fails at once).
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited (${child.exitCode}):\n${await log()}`);
    const client = new pg.Client({ connectionString: through(POSTGRES_ADMIN_URI) });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("SELECT 1");
      await client.end();
      break;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`pgbouncer did not answer in 30 s: ${(err as Error).message}\n${await log()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    through,
    async stop() {
      // (the pid file names PgBouncer itself, not runuser)
      const pid = Number(await readFile(path.join(dir, "pgbouncer.pid"), "utf8").catch(() => ""));
      if (pid > 0) {
        try {
          process.kill(pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

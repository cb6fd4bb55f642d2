/**
 * The embedded database: PGlite (Postgres compiled to WASM, in this process) persisted in a
 * directory, exposed on a socket speaking the Postgres wire protocol (embedded-thread.ts) so that
 * the ordinary `pg` driver, our migrations and the official LangGraph Postgres checkpointer run
 * unchanged on it.
 *
 * Access: the socket speaks no authentication (any client is let in as `postgres`), so it does
 * not listen on a TCP port, where every local user and process could connect: it listens on a
 * Unix socket in a directory of its own (mode 0700) that only this process's user can enter. The
 * data directory is 0700 too, its files 0600: PGlite writes files world-writable (0666), so the
 * modes are set when the database opens and when it closes; files made in between sit in the
 * 0700 directory, out of other users' reach.
 *
 * PGlite is one Postgres session: the socket's front runs the statements of all connections one at
 * a time and pins a connection that is inside a transaction until it ends. Keep transactions short.
 *
 * PGlite and its socket front run on a worker thread of their own: Postgres (WASM) executing
 * statements was ~40 % of the process's CPU under load (CPU profile, issue 16), and on the main
 * thread it competed with the graphs and the HTTP server for one core. The main thread talks to it
 * over the Unix socket exactly as before; only the CPU moves.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Worker } from "node:worker_threads";
import { DESCRIBE_ERROR_SOURCE, PGLITE_THREAD_SOURCE } from "./embedded-thread.js";

export interface EmbeddedPostgres {
  connectionString: string;
  close(): Promise<void>;
}

/** Port number in the socket's name (`.s.PGSQL.<port>`, as libpq and `pg` look for it). */
const SOCKET_PORT = 5432;

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await makePrivate(dataDir);
  // A new data directory is initialised by a process of its own, which then exits. PGlite's
  // initdb grows its WASM memory to ~600 MB, and neither that nor the malloc arena its thread used
  // goes back to the OS while the process lives: a first start (every quick start) held ~620 MB of
  // RSS until restarted, a reopen ~130 (an initialising thread that then ends still left ~55 MB).
  if (!(await initialised(dataDir))) await initialise(dataDir);
  const socketDir = await privateSocketDir();
  let thread: PgliteThread;
  try {
    thread = await startPgliteThread(dataDir, path.join(socketDir, SOCKET_NAME));
  } catch (err) {
    await rm(socketDir, { recursive: true, force: true });
    throw err;
  }
  await makePrivate(dataDir);
  return {
    connectionString: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${SOCKET_PORT}&sslmode=disable`,
    async close() {
      await thread.close();
      await rm(socketDir, { recursive: true, force: true });
      await makePrivate(dataDir).catch(() => undefined);
    },
  };
}

/** Whether `dataDir` holds a database already (initdb writes PG_VERSION). */
async function initialised(dataDir: string): Promise<boolean> {
  return (await lstat(path.join(dataDir, "PG_VERSION")).catch(() => undefined)) !== undefined;
}

/** Opened and closed as the thread opens it (same settings, same extensions), in a child process. */
const INIT_SOURCE = `${DESCRIBE_ERROR_SOURCE}
const [dataDir, pglitePath, pgvectorPath, conf] = process.argv.slice(1);
require("node:v8").setFlagsFromString("--liftoff-only");
const { PGlite } = require(pglitePath);
const { vector } = require(pgvectorPath);
PGlite.create(dataDir, { postgresqlconf: JSON.parse(conf), extensions: { vector } })
  .then((db) => db.close())
  .catch((err) => { process.stderr.write(describeError(err)); process.exitCode = 1; });
`;

async function initialise(dataDir: string): Promise<void> {
  const require = createRequire(import.meta.url);
  const args = ["-e", INIT_SOURCE, dataDir, require.resolve("@electric-sql/pglite"), require.resolve("@electric-sql/pglite-pgvector"), JSON.stringify(PGLITE_CONF)];
  try {
    await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new Error(
      `could not create the embedded database in ${dataDir}: ${detail}. ` +
        `Give it an empty directory or one that holds a Berth database (--data-dir or BERTH_DATA_DIR).`,
    );
  }
}

/**
 * Sized for an embedded, single-process database: Postgres' defaults (128 MB of shared buffers)
 * nearly double the process's memory for no gain at this scale. PGlite touches the whole buffer
 * pool when it opens (its WASM memory's resident part is ~14 MB + shared_buffers), so every MB here
 * is a MB of idle RSS: 16 MB → 4 MB took 12 MB off it (issue 16). A page not in the pool is a read
 * of the data file, which the OS page cache answers.
 */
const PGLITE_CONF = ["shared_buffers=4MB", "wal_buffers=1MB", "work_mem=4MB", "maintenance_work_mem=16MB"];

interface PgliteThread {
  close(): Promise<void>;
}

async function startPgliteThread(dataDir: string, listenPath: string): Promise<PgliteThread> {
  const require = createRequire(import.meta.url);
  const worker = new Worker(PGLITE_THREAD_SOURCE, {
    eval: true,
    workerData: {
      dataDir,
      listenPath,
      pglitePath: require.resolve("@electric-sql/pglite"),
      pgvectorPath: require.resolve("@electric-sql/pglite-pgvector"),
      debug: process.env.BERTH_PGLITE_DEBUG === "1",
      // every 2 s under load: units run, their wait for the session, PGlite call time (embedded-thread.ts)
      stats: process.env.BERTH_PGLITE_STATS === "1",
      // statements keep their plans across calls (embedded-thread.ts); 0 turns it off, to compare
      planCache: process.env.BERTH_PGLITE_PLAN_CACHE !== "0",
      // Liftoff-only WASM code (embedded-thread.ts): ~80 MB less idle RSS, same runs/s; 0 turns it off
      liftoffOnly: process.env.BERTH_PGLITE_LIFTOFF_ONLY !== "0",
      conf: PGLITE_CONF,
    },
  });
  // The database thread must not keep the process alive on its own; close() ends it.
  worker.unref();
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  // After start-up, a failure of the thread reaches every query as a broken connection; say why here.
  worker.on("error", (err) => console.error("the embedded database thread failed:", err));
  await new Promise<void>((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the embedded database thread exited (code ${code}) while starting`));
    worker.once("error", reject);
    worker.once("exit", onExit);
    worker.once("message", (m: { type: string; stage?: string; message?: string }) => {
      worker.off("error", reject);
      worker.off("exit", onExit);
      if (m.type === "ready") return resolve();
      void worker.terminate();
      if (m.stage === "open") {
        return reject(
          new Error(
            `could not open the embedded database in ${dataDir}: ${m.message}. ` +
              `Is another Berth process using this data directory? Use --data-dir or BERTH_DATA_DIR to pick another.`,
          ),
        );
      }
      reject(new Error(m.message));
    });
  });
  return {
    async close() {
      // Let PGlite close cleanly (a checkpoint of its data files), then the thread ends.
      const closed = new Promise<void>((resolve) => worker.on("message", (m: { type: string }) => m.type === "closed" && resolve()));
      worker.postMessage("close");
      await Promise.race([closed, exited]);
      await worker.terminate();
    },
  };
}

/** Longest Unix socket path (sun_path is 108 bytes on Linux, 104 on macOS; with its NUL). */
const MAX_SOCKET_PATH = 103;
const SOCKET_NAME = `.s.PGSQL.${SOCKET_PORT}`;

/**
 * A new 0700 directory for the socket, in the temp dir, or in /tmp when the temp dir's path is too
 * long for a socket (a local deployment's TMPDIR is deep in its directory). Never a truncated
 * path: Node would bind a shortened name, which may be another process's socket.
 */
async function privateSocketDir(): Promise<string> {
  const fits = (base: string) => path.join(base, "berth-pg-XXXXXX", SOCKET_NAME).length <= MAX_SOCKET_PATH;
  const base = [os.tmpdir(), "/tmp"].find(fits);
  if (!base) throw new Error(`no directory with a path short enough for the embedded database's socket (TMPDIR ${os.tmpdir()})`);
  const dir = await mkdtemp(path.join(base, "berth-pg-"));
  await chmod(dir, 0o700);
  return dir;
}

/** Directories 0700 and files 0600 under `dir` (symlinks untouched). */
export async function makePrivate(dir: string): Promise<void> {
  await chmod(dir, 0o700);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) await makePrivate(p);
    else if (entry.isFile() && ((await lstat(p)).mode & 0o077) !== 0) await chmod(p, 0o600);
  }
}

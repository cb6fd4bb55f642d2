/**
 * The embedded database: PGlite (Postgres compiled to WASM, in this process) persisted in a
 * directory, exposed through pglite-socket so that the ordinary `pg` driver, our migrations and
 * the official LangGraph Postgres checkpointer run unchanged on it.
 *
 * Access: pglite-socket speaks no authentication (any client is let in as `postgres`), so it does
 * not listen on a TCP port, where every local user and process could connect: it listens on a
 * Unix socket in a directory of its own (mode 0700) that only this process's user can enter. The
 * data directory is 0700 too, its files 0600: PGlite writes files world-writable (0666), so the
 * modes are set when the database opens and when it closes; files made in between sit in the
 * 0700 directory, out of other users' reach.
 *
 * PGlite is one Postgres session: pglite-socket queues queries from all connections and pins a
 * connection that is inside a transaction until it ends. Keep transactions short.
 */
import { chmod, lstat, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  connectionString: string;
  close(): Promise<void>;
}

/** Port number in the socket's name (`.s.PGSQL.<port>`, as libpq and `pg` look for it). */
const SOCKET_PORT = 5432;

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await makePrivate(dataDir);
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir, {
      // Sized for an embedded, single-process database: Postgres' defaults (128 MB of shared
      // buffers) nearly double the process's memory for no gain at this scale.
      postgresqlconf: ["shared_buffers=16MB", "wal_buffers=1MB", "work_mem=4MB", "maintenance_work_mem=16MB"],
      // pgvector, for the store's semantic search (store.index). Always loaded: a data directory
      // where the extension was once created must open with it whatever today's config says.
      extensions: { vector },
    });
  } catch (err) {
    throw new Error(
      `could not open the embedded database in ${dataDir}: ${(err as Error).message}. ` +
        `Is another Berth process using this data directory? Use --data-dir or BERTH_DATA_DIR to pick another.`,
    );
  }
  await makePrivate(dataDir);
  const socketDir = await privateSocketDir();
  const server = new PGLiteSocketServer({ db, path: path.join(socketDir, SOCKET_NAME), maxConnections: 100, debug: process.env.BERTH_PGLITE_DEBUG === "1" });
  try {
    await server.start();
  } catch (err) {
    await db.close().catch(() => undefined);
    await rm(socketDir, { recursive: true, force: true });
    throw err;
  }
  return {
    connectionString: `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}&port=${SOCKET_PORT}&sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
      await rm(socketDir, { recursive: true, force: true });
      await makePrivate(dataDir).catch(() => undefined);
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

/**
 * The embedded database: PGlite (Postgres compiled to WASM, in this process) persisted in a
 * directory, exposed on a private loopback port through pglite-socket so that the ordinary `pg`
 * driver, our migrations and the official LangGraph Postgres checkpointer run unchanged on it.
 *
 * PGlite is one Postgres session: pglite-socket queues queries from all connections and pins a
 * connection that is inside a transaction until it ends. Keep transactions short.
 */
import { mkdir } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  connectionString: string;
  close(): Promise<void>;
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  await mkdir(dataDir, { recursive: true });
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir, {
      // Sized for an embedded, single-process database: Postgres' defaults (128 MB of shared
      // buffers) nearly double the process's memory for no gain at this scale.
      postgresqlconf: ["shared_buffers=16MB", "wal_buffers=1MB", "work_mem=4MB", "maintenance_work_mem=16MB"],
    });
  } catch (err) {
    throw new Error(
      `could not open the embedded database in ${dataDir}: ${(err as Error).message}. ` +
        `Is another Berth process using this data directory? Use --data-dir or BERTH_DATA_DIR to pick another.`,
    );
  }
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port: 0, maxConnections: 100, debug: process.env.BERTH_PGLITE_DEBUG === "1" });
  await server.start();
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    connectionString: `postgresql://postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

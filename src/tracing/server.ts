/** `berth tracing`: the tracing facility alone, on its own port and database. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { openDatabase } from "../shared/db/index.js";
import type { Logger } from "../shared/logging.js";
import { listen } from "../shared/net.js";
import { openTracingFacility, type TracingFacility } from "./facility.js";
import { effectiveAuthMode, type TracingSettings } from "./settings.js";

export interface TracingServerHandle {
  facility: TracingFacility;
  /** Where to point `LANGSMITH_ENDPOINT`. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startTracingServer(settings: TracingSettings, logger: Logger): Promise<TracingServerHandle> {
  const db = await openDatabase({ uri: settings.databaseUri, dataDir: settings.dataDir });
  let server: Server | undefined;
  let facility: TracingFacility | undefined;
  try {
    const authMode = effectiveAuthMode(settings);
    facility = await openTracingFacility(db.pool, { ...settings, authMode, embedded: db.embedded, namedStatements: db.namedStatements }, logger);
    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);
    app.set("query parser", "extended");
    app.use(settings.prefix || "/", facility.router);
    server = createServer(app);
    // SDK uploads of large batches can take a while on slow links
    server.requestTimeout = 5 * 60_000;
    await listen(server, settings.port, settings.host);
    const port = (server.address() as AddressInfo).port;
    const host = settings.host.includes(":") ? `[${settings.host}]` : settings.host;
    const url = `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}${settings.prefix}`;
    logger.info({ url, database: db.embedded ? `pglite:${settings.dataDir}` : "postgres" }, `tracing ready: set LANGSMITH_ENDPOINT=${url}`);
    if (authMode === "loopback-open") {
      logger.warn("embedded dev mode: requests from this machine need no API key (set BERTH_API_KEY or BERTH_AUTH_MODE=required to require one)");
    }
    const s = server;
    const f = facility;
    return {
      facility: f,
      url,
      port,
      async close() {
        await new Promise<void>((resolve) => s.close(() => resolve()));
        s.closeAllConnections();
        await f.close();
        await db.close();
      },
    };
  } catch (err) {
    server?.close();
    await facility?.close().catch(() => undefined);
    await db.close().catch(() => undefined);
    throw err;
  }
}

/**
 * `berth dev`: the control plane, the tracing facility (at /tracing) and the local listener on one
 * port, on one database (embedded under the data directory unless DATABASE_URI is set). Creating
 * a deployment creates its tracing project; deployments trace to it with project = their name.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import express from "express";
import { DEFAULT_TENANT_ID } from "../shared/auth/index.js";
import { openDatabase } from "../shared/db/index.js";
import { ConflictError } from "../shared/errors.js";
import type { Logger } from "../shared/logging.js";
import { listen } from "../shared/net.js";
import { LocalListener } from "../runtime/local/listener.js";
import { DeploymentDatabases } from "../runtime/local/databases.js";
import { openTracingFacility } from "../tracing/facility.js";
import { TRACING_DEFAULTS } from "../tracing/settings.js";
import { openControlPlane, type ControlPlane } from "./facility.js";
import type { ControlPlaneSettings } from "./settings.js";

export interface ControlPlaneServerHandle {
  url: string;
  port: number;
  adminKey: string;
  integrationId: string;
  controlPlane: ControlPlane;
  listener: LocalListener;
  close(): Promise<void>;
}

/** The admin key: configured, or generated once and kept beside the data (printed at first start). */
function adminKeyOf(settings: ControlPlaneSettings): { key: string; generated: boolean } {
  if (settings.apiKey) return { key: settings.apiKey, generated: false };
  const file = path.join(settings.dataDir, "admin.key");
  if (existsSync(file)) return { key: readFileSync(file, "utf8").trim(), generated: false };
  const key = `berth_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")}`;
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, generated: true };
}

export async function startControlPlaneServer(
  settings: ControlPlaneSettings,
  logger: Logger,
  options: { deployer?: ConstructorParameters<typeof LocalListener>[0]["deployer"]; pollMs?: number } = {},
): Promise<ControlPlaneServerHandle> {
  mkdirSync(settings.dataDir, { recursive: true });
  const db = await openDatabase({ uri: settings.databaseUri, dataDir: path.join(settings.dataDir, "db") });
  let server: Server | undefined;
  let listener: LocalListener | undefined;
  try {
    const authMode = settings.authMode ?? (db.embedded ? "loopback-open" : "required");
    const admin = adminKeyOf(settings);
    const tracing = await openTracingFacility(
      db.pool,
      { ...TRACING_DEFAULTS, maxBodyBytes: TRACING_DEFAULTS.maxBodyBytes, apiKey: admin.key, authMode, embedded: db.embedded },
      logger,
    );
    // the listener needs the store and the URL; both exist only after the control plane opens
    const hooks: LocalListener[] = [];
    const cp = await openControlPlane(
      db.pool,
      {
        authMode,
        embedded: db.embedded,
        dataDir: settings.dataDir,
        secretsKeys: settings.secretsKeys?.split(",").map((k) => k.trim()).filter(Boolean),
        hooks: {
          checkDeployable: (c) => hooks[0]!.checkDeployable(c),
          deploymentCreated: async (tenantId, d) => {
            // spec §1.2: a deployment comes with a tracing project of the same name
            await tracing.projects.create(tenantId, { name: d.name, metadata: { deployment_id: d.id } }).catch((err) => {
              if (!(err instanceof ConflictError)) throw err;
            });
          },
          revisionCreated: (d, r, s) => hooks[0]!.revisionCreated(d, r),
          deleteRequested: (d) => hooks[0]!.deleteRequested(d),
        },
      },
      logger,
    );
    await cp.auth.addKey(admin.key, [DEFAULT_TENANT_ID], "admin");
    const integration = await cp.integrations.ensure(DEFAULT_TENANT_ID, { name: "local", kind: "local" });

    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);
    app.set("query parser", "extended");
    app.use("/tracing", tracing.router);
    app.use(cp.router);
    server = createServer(app);
    await listen(server, settings.port, settings.host);
    const port = (server.address() as AddressInfo).port;
    const url = `http://${settings.host === "0.0.0.0" ? "127.0.0.1" : settings.host}:${port}`;

    listener = new LocalListener({
      store: cp.deployments,
      dataDir: settings.dataDir,
      tracing: { endpoint: `${url}/tracing`, apiKey: admin.key },
      deadlineMs: settings.deployDeadlineSeconds * 1000,
      logger,
      deployer: options.deployer,
      pollMs: options.pollMs,
      databases: settings.databaseUri ? new DeploymentDatabases(settings.databaseUri) : undefined,
    });
    hooks.push(listener);
    await listener.resume();
    listener.startPolling();

    logger.info({ url, tracing: `${url}/tracing`, docs: `${url}/docs`, integration_id: integration.id }, "berth dev ready");
    if (admin.generated) logger.warn({ api_key: admin.key }, `admin API key (shown once; kept in ${path.join(settings.dataDir, "admin.key")})`);
    if (authMode === "loopback-open") logger.warn("embedded dev mode: requests from this machine need no API key");
    const s = server;
    const l = listener;
    return {
      url,
      port,
      adminKey: admin.key,
      integrationId: integration.id,
      controlPlane: cp,
      listener: l,
      async close() {
        await new Promise<void>((r) => s.close(() => r()));
        s.closeAllConnections();
        await l.close();
        await db.close();
      },
    };
  } catch (err) {
    server?.close();
    await listener?.close();
    await db.close().catch(() => undefined);
    throw err;
  }
}

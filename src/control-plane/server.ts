/**
 * The control plane server, shared by its two commands:
 * - `berth dev`: the control plane, the tracing facility (at /tracing) and the local runtime on one
 *   port, on one database (embedded under the data directory unless DATABASE_URI is set); with
 *   BERTH_K8S=true also the k8s listener, so one machine can drive a cluster;
 * - `berth control-plane`: the same API and tracing for a cluster, with the k8s listener as its
 *   runtime (no local runtime).
 * Creating a deployment creates its tracing project; deployments trace to it with project = their name.
 */
import { failureLimits } from "../shared/auth/failures.js";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { KubeConfig } from "@kubernetes/client-node";
import express from "express";
import { DEFAULT_TENANT_ID } from "../shared/auth/index.js";
import { openDatabase } from "../shared/db/index.js";
import { ConflictError } from "../shared/errors.js";
import type { Logger } from "../shared/logging.js";
import { listen } from "../shared/net.js";
import { LocalListener } from "../runtime/local/listener.js";
import { DeploymentDatabases } from "../runtime/local/databases.js";
import { K8sListener, type K8sListenerOptions } from "../runtime/k8s/listener.js";
import { KubeRest, loadKubeConfig } from "../operator/kube/index.js";
import { openTracingFacility } from "../tracing/facility.js";
import { TRACING_DEFAULTS } from "../tracing/settings.js";
import { consoleRouter, defaultConsoleDir } from "./console.js";
import { openControlPlane, type ControlPlane } from "./facility.js";
import { Runtimes } from "./runtimes.js";
import type { ControlPlaneSettings } from "./settings.js";

export interface ControlPlaneServerHandle {
  url: string;
  port: number;
  adminKey: string;
  /** The local integration of `berth dev` (none in `berth control-plane`). */
  integrationId: string | undefined;
  controlPlane: ControlPlane;
  runtimes: Runtimes;
  /** The local runtime (`berth dev`). */
  listener: LocalListener | undefined;
  /** The k8s listener, when this server drives a cluster. */
  k8s: K8sListener | undefined;
  close(): Promise<void>;
}

export interface ControlPlaneServerOptions {
  /** Options of each local deployer (tests shorten the grace periods). */
  deployer?: ConstructorParameters<typeof LocalListener>[0]["deployer"];
  /** How often the local runtime polls build_on_push branches. */
  pollMs?: number;
  /** The cluster to drive (tests: a fake API server); else KUBECONFIG / --kubeconfig / the pod's service account. */
  kubeConfig?: KubeConfig;
  /** Overrides of the k8s listener (tests: commit resolution without network, short polls). */
  k8s?: Partial<Pick<K8sListenerOptions, "resolveCommit" | "pollMs" | "sweepMs" | "buildTimeoutSeconds" | "buildTtlSeconds">>;
}

/** Set a mode on a path of ours; one owned by another user (EPERM) is left as it is. */
function tightenMode(file: string, mode: number): void {
  try {
    chmodSync(file, mode);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") throw err;
  }
}

/** The admin key: configured, or generated once and kept beside the data (printed at first start). */
function adminKeyOf(settings: ControlPlaneSettings): { key: string; generated: boolean } {
  if (settings.apiKey) return { key: settings.apiKey, generated: false };
  const file = path.join(settings.dataDir, "admin.key");
  if (existsSync(file)) {
    tightenMode(file, 0o600); // an older version may have left it readable
    return { key: readFileSync(file, "utf8").trim(), generated: false };
  }
  const key = `berth_${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url")}`;
  mkdirSync(settings.dataDir, { recursive: true });
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, generated: true };
}

export async function startControlPlaneServer(settings: ControlPlaneSettings, logger: Logger, options: ControlPlaneServerOptions = {}): Promise<ControlPlaneServerHandle> {
  const mode = settings.mode ?? "dev";
  // 0711: others may pass through to their deployment's directory (local runtime), never list or read
  mkdirSync(settings.dataDir, { recursive: true, mode: 0o711 });
  tightenMode(settings.dataDir, 0o711);
  const db = await openDatabase({ uri: settings.databaseUri, dataDir: path.join(settings.dataDir, "db") });
  let server: Server | undefined;
  let rest: KubeRest | undefined;
  // the runtimes need the stores, and the stores' API needs the runtimes' hooks: the stores are filled in below
  let cp: ControlPlane | undefined;
  const runtimes = new Runtimes({
    listeners: { get: (tenantId, id) => cp!.listeners.get(tenantId, id) },
    defaultType: mode === "control-plane" ? "k8s" : "local",
    logger,
  });
  try {
    const authMode = settings.authMode ?? (db.embedded ? "loopback-open" : "required");
    const admin = adminKeyOf(settings);
    const tracing = await openTracingFacility(
      db.pool,
      { ...TRACING_DEFAULTS, maxBodyBytes: TRACING_DEFAULTS.maxBodyBytes, apiKey: admin.key, authMode, embedded: db.embedded, namedStatements: db.namedStatements, authMaxFailures: settings.authMaxFailures, authFailureWindowSeconds: settings.authFailureWindowSeconds },
      logger,
    );
    cp = await openControlPlane(
      db.pool,
      {
        authMode,
        authFailures: failureLimits(settings),
        embedded: db.embedded,
        dataDir: settings.dataDir,
        secretsKeys: settings.secretsKeys?.split(",").map((k) => k.trim()).filter(Boolean),
        agentProxyKey: admin.key,
        hooks: runtimes.hooks({
          deploymentCreated: async (tenantId, d) => {
            // spec §1.2: a deployment comes with a tracing project of the same name
            await tracing.projects.create(tenantId, { name: d.name, metadata: { deployment_id: d.id } }).catch((err) => {
              if (!(err instanceof ConflictError)) throw err;
            });
          },
        }),
      },
      logger,
    );
    const controlPlane = cp;
    await controlPlane.auth.addKey(admin.key, [DEFAULT_TENANT_ID], "admin", { admin: true });
    const integration = mode === "dev" ? await controlPlane.integrations.ensure(DEFAULT_TENANT_ID, { name: "local", kind: "local" }) : undefined;

    const app = express();
    app.disable("x-powered-by");
    app.set("etag", false);
    app.set("query parser", "extended");
    // the console's pages and assets first: its paths never overlap the APIs' (a browser opening the
    // bare /tracing, which the tracing API has no answer for, is sent to the console's tracing pages)
    app.use(consoleRouter(settings.consoleDir ?? defaultConsoleDir(), logger));
    app.use("/tracing", tracing.router);
    app.use(controlPlane.router);
    server = createServer(app);
    await listen(server, settings.port, settings.host);
    const port = (server.address() as AddressInfo).port;
    const url = `http://${settings.host === "0.0.0.0" ? "127.0.0.1" : settings.host}:${port}`;

    let local: LocalListener | undefined;
    if (mode === "dev") {
      local = new LocalListener({
        store: runtimes.scopedStore(controlPlane.deployments, "local"),
        dataDir: settings.dataDir,
        // each deployment gets a key of its own tenant, for its traces only (never the admin key)
        tracing: { endpoint: `${url}/tracing`, auth: controlPlane.auth },
        // each deployment's agent server requires a key of its tenant, checked against hashes from here
        platformAuth: { auth: controlPlane.auth, controlPlaneUrl: url, refreshSeconds: settings.authRefreshSeconds, jwt: controlPlane.jwt },
        deadlineMs: settings.deployDeadlineSeconds * 1000,
        logger,
        deployer: options.deployer,
        pollMs: options.pollMs,
        databases: settings.databaseUri ? new DeploymentDatabases(settings.databaseUri, path.join(settings.dataDir, "keys")) : undefined,
      });
      runtimes.add("local", local);
    }
    let k8s: K8sListener | undefined;
    if (settings.k8s) {
      const kubeconfig = settings.kubeconfig && !settings.kubeconfig.includes(path.delimiter) ? settings.kubeconfig : undefined;
      rest = new KubeRest(options.kubeConfig ?? loadKubeConfig({ kubeconfig }));
      if (!settings.publicUrl) logger.warn({ url }, "BERTH_PUBLIC_URL is not set: deployments in the cluster send traces to this URL, which they may not reach");
      k8s = new K8sListener({
        store: runtimes.scopedStore(controlPlane.deployments, "k8s"),
        listeners: controlPlane.listeners,
        integrations: controlPlane.integrations,
        auth: controlPlane.auth,
        authRefreshSeconds: settings.authRefreshSeconds,
        jwt: controlPlane.jwt,
        rest,
        defaultNamespace: settings.k8sDefaultNamespace,
        watchNamespaces: settings.k8sNamespaces?.split(",").map((s) => s.trim()).filter(Boolean),
        publicUrl: settings.publicUrl ?? url,
        agentBaseImage: settings.agentBaseImage,
        build: { imageRegistry: settings.imageRegistry, registryPushSecret: settings.registryPushSecret, kanikoImage: settings.kanikoImage },
        deployDeadlineMs: settings.deployDeadlineSeconds * 1000,
        logger,
        ...options.k8s,
      });
      runtimes.add("k8s", k8s);
    }
    await runtimes.resume();
    local?.startPolling();

    const command = mode === "dev" ? "berth dev" : "berth control-plane";
    logger.info({ url, console: `${url}/`, tracing: `${url}/tracing`, docs: `${url}/docs`, runtimes: { default: runtimes.defaultType, local: Boolean(local), k8s: Boolean(k8s) }, ...(integration ? { integration_id: integration.id } : {}) }, `${command} ready`);
    if (admin.generated) logger.warn({ api_key: admin.key }, `admin API key (shown once; kept in ${path.join(settings.dataDir, "admin.key")})`);
    if (authMode === "loopback-open") logger.warn("embedded dev mode: requests from this machine need no API key");
    const s = server;
    const kube = rest;
    return {
      url,
      port,
      adminKey: admin.key,
      integrationId: integration?.id,
      controlPlane,
      runtimes,
      listener: local,
      k8s,
      async close() {
        await new Promise<void>((r) => s.close(() => r()));
        s.closeAllConnections();
        await runtimes.close();
        kube?.close();
        await tracing.close();
        await db.close();
      },
    };
  } catch (err) {
    server?.close();
    await runtimes.close().catch(() => undefined);
    rest?.close();
    await db.close().catch(() => undefined);
    throw err;
  }
}

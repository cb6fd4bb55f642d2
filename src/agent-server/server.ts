/**
 * Assembles one agent server process from its settings: database (Postgres or embedded PGlite),
 * migrations, checkpointer and store, signal bus, graphs, HTTP API and queue workers.
 */
import { createServer, type Server } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { LocalFirstBus, MemoryBus, PostgresBus, RedisBus, type Bus } from "../shared/bus/index.js";
import type { AgentServerSettings } from "../shared/config.js";
import { migrate, openDatabase, survivesServerRestarts, withMigrationLock, type Database } from "../shared/db/index.js";
import type { Logger } from "../shared/logging.js";
import { listen } from "../shared/net.js";
import { A2AService } from "./a2a/service.js";
import express from "express";
import { createAgentServerApp, type AppExtension } from "./api/app.js";
import { loadCustomApp } from "./api/custom-app.js";
import { notFoundHandler } from "../shared/http.js";
import { createAuthenticator, type RequestAuthenticator } from "./auth/index.js";
import { BerthPostgresSaver } from "./checkpointer.js";
import { createStore } from "./store.js";
import { loadLanggraphConfig } from "./config/langgraph-config.js";
import type { AgentServerContext } from "./context.js";
import { GraphRegistry } from "./graphs/registry.js";
import { hasZodState } from "./graphs/schemas.js";
import { registerSdkLogger } from "./graphs/sdk-logger.js";
import { TypeSchemaService } from "./graphs/type-schemas/service.js";
import { CronScheduler } from "./queue/scheduler.js";
import { TtlSweeper, type SweepResult } from "./ttl-sweeper.js";
import { QueueWorker } from "./queue/worker.js";
import { channelsFor } from "./runs/channels.js";
import { listenForReaders } from "./runs/unstored.js";
import { RunService } from "./runs/service.js";
import { StateService } from "./state.js";
import { flushTraces, tracingConfig } from "./tracing.js";
import { AssistantStore } from "./storage/assistants.js";
import { CronStore } from "./storage/crons.js";
import { EventStore } from "./storage/events.js";
import { agentServerMigrations } from "./storage/migrations.js";
import { resolveStoreIndex } from "./storage/store-index/embedder.js";
import { IndexedPostgresStore } from "./storage/store-index/indexed-store.js";
import { RunStore } from "./storage/runs.js";
import { ThreadStore } from "./storage/threads.js";
import { UiBundles } from "./ui/bundles.js";
import { studioEnabled } from "./studio.js";

export interface AgentServerHandle {
  ctx: AgentServerContext;
  runs: RunService;
  worker?: QueueWorker;
  /** Base URL when serving HTTP. */
  url?: string;
  port?: number;
  /** The standalone Studio's page, when this server serves it (src/agent-server/studio.ts). */
  studioUrl?: string;
  /** Delete expired store items and threads now (the worker process does it every sweep interval). */
  sweepExpired(): Promise<SweepResult>;
  /** Graceful stop: no new requests or claims; running runs drain for the grace period. */
  close(graceSeconds?: number): Promise<void>;
}

export interface StartOptions {
  extensions?: AppExtension[];
  /** Replaces the authenticator the settings and langgraph.json choose (embedding, tests). */
  authenticator?: RequestAuthenticator;
}

const VACUUM_EVERY_MS = 5 * 60 * 1000;
/** The first stream event sweep after start (then every sweepEveryMs). */
const FIRST_VACUUM_MS = 5000;
/** The stream event sweep runs every half TTL (at most every VACUUM_EVERY_MS, at least every second), so events never outlive 1.5 × TTL. */
const sweepEveryMs = (ttlSeconds: number) => Math.min(VACUUM_EVERY_MS, Math.max(1000, (ttlSeconds * 1000) / 2));

export async function startAgentServer(settings: AgentServerSettings, logger: Logger, options: StartOptions = {}): Promise<AgentServerHandle> {
  const config = await loadLanggraphConfig(settings.configPath);
  for (const w of config.warnings) logger.warn(w);
  // Variables from the config's `env` never override the real environment.
  for (const [k, v] of Object.entries(config.env)) if (process.env[k] === undefined) process.env[k] = v;

  // Graphs may call the SDK's getLogger() while they are imported: the logger must exist first.
  registerSdkLogger(logger);
  // Import the graphs first: a broken graph fails start-up before any database work.
  const registry = await GraphRegistry.load(config.graphs);
  const customApp = config.raw.http?.app ? await loadCustomApp(config.raw.http.app, config.configDir) : undefined;
  // Semantic search's embedder too: a bad store.index fails start-up before any database work.
  const storeIndex = config.raw.store?.index ? await resolveStoreIndex(config.raw.store.index, config.configDir) : undefined;
  const tracing = tracingConfig();
  if (tracing) logger.info(tracing, "tracing runs (LANGSMITH_TRACING)");
  if (!settings.serveHttp && !settings.databaseUri) {
    throw new Error("a worker-only process needs a shared database: set DATABASE_URI (the embedded database belongs to one process)");
  }
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch((err) => logger.warn({ err }, "cleanup step failed"));
  };
  // Generative UI (langgraph.json `ui`): bundled in the background, for the processes serving HTTP.
  const uiDefs = config.raw.ui ?? {};
  const ui =
    settings.serveHttp && !config.raw.http?.disable_ui && Object.keys(uiDefs).length
      ? UiBundles.start({ defs: uiDefs, shared: config.raw.ui_config?.shared ?? [], projectDir: config.configDir, cacheDir: path.join(settings.dataDir, "ui-cache"), logger })
      : undefined;
  // a stopping server lets running builds finish (they write to the data directory)
  if (ui) cleanups.push(() => ui.settled());
  try {
    const db: Database = await openDatabase({
      uri: settings.databaseUri,
      dataDir: settings.dataDir,
      // a frozen process must not hold row locks longer than it may hold a run
      idleInTransactionTimeoutMs: Math.max(2000, settings.runLeaseSeconds * 1000),
    });
    cleanups.push(() => db.close());
    logger.info({ database: db.embedded ? `pglite:${settings.dataDir}` : "postgres" }, "database ready");
    const checkpointer = new BerthPostgresSaver(db.pool, undefined, { namedStatements: db.namedStatements, writeBehindMs: settings.checkpointWriteBehindMs });
    // The store opens its own pool; on PGlite keep it to one connection (see openDatabase).
    const store = createStore({ connectionString: db.connectionString, max: db.embedded ? 1 : 4 }, config.ttl.store, storeIndex);
    // The store's own pool must outlive a database restart like ours (unhandled, its connection errors crash the process).
    survivesServerRestarts(store.pool);
    cleanups.push(() => store.stop());
    // Processes starting together must not run schema changes at once (the libraries' CREATE TABLE
    // IF NOT EXISTS races); the embedded database belongs to one process, and its single
    // connection would deadlock on the lock.
    // Our migrations come last: some alter the libraries' tables (the store's TTL column).
    const setupSchema = async () => {
      await checkpointer.setup();
      await store.setup();
      await migrate(db.pool, "agent-server", agentServerMigrations);
    };
    await (db.embedded ? setupSchema() : withMigrationLock(db.pool, setupSchema));
    if (store instanceof IndexedPostgresStore) {
      logger.info({ dims: store.index.dims, fields: store.index.fields, vectors: store.vectorMode === "pgvector" ? "pgvector" : "plain SQL (pgvector not available)" }, "store.index: semantic search on");
    }

    let bus: Bus;
    if (settings.redisUri) bus = new LocalFirstBus(await RedisBus.connect(settings.redisUri));
    else if (!db.embedded) bus = new LocalFirstBus(await PostgresBus.connect(db.pool, db.connectionString, logger));
    else bus = new MemoryBus();
    cleanups.push(() => bus.close());

    registry.attach(checkpointer, store);
    const assistants = new AssistantStore(db.pool, (g) => registry.has(g));
    const defaultConfigs = parseDefaultConfigs(process.env.LANGGRAPH_CONFIG, logger);
    for (const spec of config.graphs) {
      const { config: graphConfig, context } = splitDefaultConfig(defaultConfigs[spec.graphId]);
      await assistants.ensureSystemAssistant(spec.graphId, spec.description, graphConfig, context);
    }

    const threads = new ThreadStore(db.pool, config.ttl.threads.defaultTtl);
    const runStore = new RunStore(db.pool, db.namedStatements, config.ttl.threads.defaultTtl);
    const ctx: AgentServerContext = {
      settings,
      config,
      logger,
      pool: db.pool,
      embedded: db.embedded,
      bus,
      channels: channelsFor(settings.redisKeyPrefix),
      registry,
      checkpointer,
      store,
      assistants,
      threads,
      runs: runStore,
      events: new EventStore(db.pool, { usePrepared: db.namedStatements, budgetBytes: settings.streamEventBudgetBytes }),
      crons: new CronStore(db.pool),
      state: new StateService(registry, threads, runStore, assistants),
      auth: options.authenticator ?? (await createAuthenticator(settings, config, logger, db)),
      ui,
    };
    const auth = ctx.auth;
    cleanups.push(async () => auth.close?.());
    const runs = new RunService(ctx);
    const sweeper = new TtlSweeper(db.pool, threads, config.ttl, logger);
    cleanups.push(() => sweeper.stop());

    let server: Server | undefined;
    let port: number | undefined;
    if (settings.serveHttp) {
      const app = mountAt(config.raw.http?.mount_prefix, createAgentServerApp(ctx, runs, options.extensions, customApp));
      server = createServer(app);
      server.keepAliveTimeout = 65_000;
      await listen(server, settings.port, settings.host);
      const s = server;
      cleanups.push(() => new Promise<void>((r) => s.close(() => r())));
      port = (server.address() as AddressInfo).port;
      // Schemas from the graphs' TypeScript types: only now, so the compiler's seconds of CPU
      // never delay serving; graphs zod describes need none.
      const typeSchemas = new TypeSchemaService(logger, settings.schemaCacheDir ?? path.join(settings.dataDir, "schema-cache"));
      ctx.typeSchemas = typeSchemas;
      cleanups.push(() => typeSchemas.close());
      const graph = (id: string) => registry.loadedGraph(id);
      typeSchemas.start(config.graphs.filter((g) => !(graph(g.graphId) && hasZodState(graph(g.graphId)!))).map(({ graphId, file, exportName }) => ({ graphId, file, exportName })));
    }

    // Workers start last: nothing is claimed by a process that then fails to start.
    let worker: QueueWorker | undefined;
    let scheduler: CronScheduler | undefined;
    if (settings.jobsPerWorker > 0) {
      const w = new QueueWorker(ctx);
      if (!config.disableA2a) {
        // A2A push notifications go out when the run behind a task ends.
        const a2a = new A2AService(ctx, runs);
        w.onRunEnded((run) => {
          const taskId = run.metadata?.a2a_task_id;
          if (typeof taskId === "string") void a2a.notify(taskId);
        });
      }
      // Readers in other processes ask for the events of runs executing here (runs/unstored.ts).
      const unlisten = await listenForReaders(bus, ctx.channels);
      cleanups.push(unlisten);
      await w.start();
      runs.attachWorker(w);
      worker = w;
      cleanups.push(() => w.stop(0));
      const sch = new CronScheduler(ctx, runs);
      await sch.start();
      scheduler = sch;
      cleanups.push(() => sch.stop());
      const events = ctx.events;
      const sweepEvents = () => void events.sweep(settings.streamEventTtlSeconds).catch((err) => logger.warn({ err }, "stream event retention sweep failed"));
      const vacuum = setInterval(sweepEvents, sweepEveryMs(settings.streamEventTtlSeconds));
      vacuum.unref();
      // The first sweep soon after start, not an interval later: a process restarted more often
      // than every interval (a crash loop, scaling to zero) would otherwise never sweep.
      const firstSweep = setTimeout(sweepEvents, Math.min(FIRST_VACUUM_MS, sweepEveryMs(settings.streamEventTtlSeconds)));
      firstSweep.unref();
      cleanups.push(async () => {
        clearInterval(vacuum);
        clearTimeout(firstSweep);
      });
      sweeper.start();
    }
    const url = port === undefined ? undefined : `http://${settings.host.includes(":") ? `[${settings.host}]` : settings.host}:${port}`;
    const prefix = config.raw.http?.mount_prefix?.replace(/\/+$/, "") ?? "";
    const studioUrl = url && studioEnabled(settings) ? `${url}${prefix && !prefix.startsWith("/") ? "/" : ""}${prefix}/studio/` : undefined;
    if (port !== undefined) {
      logger.info({ url: `http://${settings.host}:${port}`, studio: studioUrl ?? "off", graphs: registry.graphIds(), workers: settings.jobsPerWorker }, "agent server listening");
    }

    let closing: Promise<void> | undefined;
    return {
      ctx,
      runs,
      worker,
      url,
      port,
      studioUrl,
      sweepExpired: () => sweeper.sweep(),
      close(graceSeconds?: number) {
        closing ??= (async () => {
          // 1. stop accepting connections; 2. stop claiming and drain running runs (the grace
          // period starts now, not after clients hang up); 3. end open streams and waits.
          const serverClosed = server ? new Promise<void>((r) => server!.close(() => r())) : Promise.resolve();
          server?.closeIdleConnections();
          await scheduler?.stop();
          await worker?.stop(graceSeconds);
          if (tracing) await flushTraces(logger);
          server?.closeAllConnections();
          await serverClosed;
          await cleanup(); // stopping twice is harmless: worker and scheduler stop once
        })();
        return closing;
      },
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

/** `http.mount_prefix`: every route under the prefix (as on LangGraph Platform); elsewhere a JSON 404. */
function mountAt(prefix: string | undefined, app: express.Express): express.Express {
  const p = prefix?.replace(/\/+$/, "");
  if (!p) return app;
  const root = express();
  root.disable("x-powered-by");
  const at = p.startsWith("/") ? p : `/${p}`;
  // Routes name their own URLs (Location, Content-Location): they read the prefix from here.
  root.use(
    at,
    (_req: express.Request, res: express.Response, next: express.NextFunction) => {
      res.locals.mountPrefix = at;
      next();
    },
    app,
  );
  root.use(notFoundHandler);
  return root;
}

/**
 * One graph's entry of `LANGGRAPH_CONFIG`: its `context` is the system assistant's context (what
 * runs see as `config.context`), everything else its config — as LangGraph Platform splits it.
 */
export function splitDefaultConfig(entry: Record<string, unknown> | undefined): { config: Record<string, unknown>; context?: Record<string, unknown> } {
  if (!entry || typeof entry !== "object") return { config: {} };
  const { context, ...config } = entry;
  return context && typeof context === "object" && !Array.isArray(context) ? { config, context: context as Record<string, unknown> } : { config };
}

/** `LANGGRAPH_CONFIG`: default configs of the system assistants, `{graphId: {configurable…, context…}}`. */
function parseDefaultConfigs(raw: string | undefined, logger: Logger): Record<string, Record<string, unknown>> {
  if (!raw) return {};
  try {
    return JSON.parse(raw) as Record<string, Record<string, unknown>>;
  } catch {
    logger.warn("LANGGRAPH_CONFIG is not valid JSON; ignored");
    return {};
  }
}

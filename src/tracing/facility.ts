/**
 * The tracing facility on a database: migrations, stores and the router. Hosted by the control
 * plane or run alone by `berth tracing` (server.ts).
 */
import type express from "express";
import type pg from "pg";
import { AuthService, authMigrations, type AuthMode } from "../shared/auth/index.js";
import { migrateComponents } from "../shared/db/index.js";
import type { Logger } from "../shared/logging.js";
import { createTracingRouter } from "./api/app.js";
import { failureLimits } from "../shared/auth/failures.js";
import { IngestService } from "./ingest/service.js";
import { MergeWorker } from "./ingest/merge-worker.js";
import { QueryService } from "./query/service.js";
import { TRACING_DEFAULTS, type TracingSettings } from "./settings.js";
import { startAbandonSweep } from "./ingest/abandon.js";
import { tracingMigrations } from "./storage/migrations.js";
import { PriceStore } from "./storage/prices.js";
import { ProjectStore } from "./storage/projects.js";
import { FeedbackStore } from "./storage/feedback.js";
import { ShareStore } from "./storage/shares.js";
import { DatasetStore } from "./storage/datasets.js";
import { ExampleStore } from "./storage/examples.js";
import { ExampleBlobStore } from "./storage/example-attachments.js";
import { ComparativeStore } from "./storage/comparative.js";

export interface TracingFacility {
  router: express.Router;
  pool: pg.Pool;
  projects: ProjectStore;
  ingest: IngestService;
  query: QueryService;
  prices: PriceStore;
  auth: AuthService;
  /** Stop background work (the abandoned-run sweep, the merge worker: what it holds is merged first); the pool stays open. */
  close(): Promise<void>;
}

export type FacilityOptions = Pick<TracingSettings, "maxBodyBytes" | "maxStringBytes" | "mediaThresholdBytes" | "maxConcurrentIngests" | "apiKey"> &
  Partial<Pick<TracingSettings, "authMaxFailures" | "authFailureWindowSeconds" | "abandonAfterSeconds" | "abandonSweepSeconds" | "recoverAfterSeconds" | "readWaitSeconds" | "maxAttachmentBytes" | "attachmentUrlTtlSeconds">> & {
  authMode: AuthMode;
  /** Skip the advisory lock (the embedded database has one connection, which the lock would hold). */
  embedded: boolean;
  /** The merge's and the staging's statements as named statements (`Database.namedStatements`). */
  namedStatements: boolean;
};

export async function openTracingFacility(pool: pg.Pool, options: FacilityOptions, logger: Logger): Promise<TracingFacility> {
  await migrateComponents(pool, options.embedded, [
    ["auth", authMigrations],
    ["tracing", tracingMigrations],
  ]);
  const auth = new AuthService(pool, { failures: failureLimits(options) });
  await auth.ensureDefaultTenant();
  if (options.apiKey) await auth.addKey(options.apiKey, undefined, "BERTH_API_KEY");
  const projects = new ProjectStore(pool);
  const prices = new PriceStore(pool);
  const query = new QueryService(pool);
  const merger = new MergeWorker(pool, logger, {
    batchOps: 5000,
    usePrepared: options.namedStatements,
    copy: !options.embedded,
    maxPendingOps: 50_000,
    recoverAfterSeconds: options.recoverAfterSeconds ?? TRACING_DEFAULTS.recoverAfterSeconds,
    recoverEverySeconds: Math.max(1, Math.min(10, options.recoverAfterSeconds ?? TRACING_DEFAULTS.recoverAfterSeconds)),
    drainTimeoutMs: 1000 * (options.readWaitSeconds ?? TRACING_DEFAULTS.readWaitSeconds),
    sharedDrain: !options.embedded,
    fault: process.env.BERTH_TRACING_MERGE_FAULT,
  });
  const ingest = new IngestService(pool, projects, merger, { maxStringBytes: options.maxStringBytes, mediaThresholdBytes: options.mediaThresholdBytes }, logger);
  merger.start({
    defaultProject: (tenantId) => ingest.defaultProject(tenantId),
    prices: (tenantId) => prices.tenantPrices(tenantId),
    resolveProjects: (entry) => ingest.resolveProjects(entry),
    forgetProjects: () => projects.forgetAll(),
    recover: (row) => ingest.recover(row),
  });
  const router = createTracingRouter({
    auth,
    authMode: options.authMode,
    ingest,
    projects,
    query,
    prices,
    feedback: new FeedbackStore(pool),
    shares: new ShareStore(pool),
    datasets: new DatasetStore(pool),
    examples: new ExampleStore(pool),
    blobs: new ExampleBlobStore(pool),
    comparative: new ComparativeStore(pool),
    logger,
    options: { maxBodyBytes: options.maxBodyBytes, maxConcurrentIngests: options.maxConcurrentIngests },
    attachments: {
      maxBytes: Math.min(options.maxAttachmentBytes ?? TRACING_DEFAULTS.maxAttachmentBytes, options.maxBodyBytes),
      urlTtlSeconds: options.attachmentUrlTtlSeconds ?? TRACING_DEFAULTS.attachmentUrlTtlSeconds,
    },
    ping: async () => {
      await pool.query("SELECT 1");
    },
  });
  const after = options.abandonAfterSeconds ?? TRACING_DEFAULTS.abandonAfterSeconds;
  const sweep = after > 0 ? startAbandonSweep(pool, { afterSeconds: after, everySeconds: options.abandonSweepSeconds ?? TRACING_DEFAULTS.abandonSweepSeconds }, logger) : undefined;
  return {
    router,
    pool,
    projects,
    ingest,
    query,
    prices,
    auth,
    close: async () => {
      await sweep?.stop();
      await merger.close();
    },
  };
}

/** A control plane for tests: in-process, own database (PGlite or scratch Postgres), random port. */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { afterAll, beforeAll } from "vitest";
import { openControlPlane, type ControlPlane, type ControlPlaneOptions } from "../../src/control-plane/facility.js";
import { generateKey, keyToConfig } from "../../src/control-plane/rules/index.js";
import { openDatabase, type Database } from "../../src/shared/db/index.js";
import { silentLogger } from "../../src/shared/logging.js";
import { createTestDatabase, type Backend, type TestDatabase } from "./server.js";

export const CP_KEY = "berth-cp-test-key-0123456789abcdef";
/** The admin key (as `berth dev` configures its admin.key): may also manage tenants. */
export const CP_ADMIN_KEY = "berth-cp-test-admin-key-0123456789abcdef";

export interface ControlPlaneTestServer {
  url: string;
  cp: ControlPlane;
  db: Database;
  /** JSON request with the default tenant's key. */
  api<T = any>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

export async function startControlPlaneTestServer(backend: Backend, options: Partial<ControlPlaneOptions> = {}): Promise<ControlPlaneTestServer> {
  const tdb: TestDatabase = await createTestDatabase(backend);
  const db = await openDatabase({ uri: tdb.uri, dataDir: tdb.dataDir });
  // Postgres deployments need a configured key (only the embedded mode generates one)
  const secretsKeys = options.secretsKeys ?? (db.embedded ? undefined : [keyToConfig(generateKey())]);
  const cp = await openControlPlane(db.pool, { authMode: "required", embedded: db.embedded, dataDir: tdb.dataDir, ...options, secretsKeys }, silentLogger);
  await cp.auth.addKey(CP_KEY);
  await cp.auth.addKey(CP_ADMIN_KEY, undefined, "admin", { admin: true });
  const app = express();
  app.use(cp.router);
  const server = createServer(app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    cp,
    db,
    async api(method, path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { "x-api-key": CP_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await db.close();
      await tdb.drop();
    },
  };
}

export function controlPlaneForSuite(backend: Backend, onStart: (s: ControlPlaneTestServer) => void, options: Partial<ControlPlaneOptions> = {}): void {
  let s: ControlPlaneTestServer | undefined;
  beforeAll(async () => {
    s = await startControlPlaneTestServer(backend, options);
    onStart(s);
  });
  afterAll(() => s?.close());
}

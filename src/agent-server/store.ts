/**
 * LangGraph's PostgresStore (what graphs' `getStore()` and the HTTP store API use), with LangGraph
 * Platform's TTL rules where the library's differ:
 * - a put's `ttl` of `null` means "never expires" (the library falls back to the default), no `ttl`
 *   means the configured `default_ttl`;
 * - a read refreshes an item by its own TTL (the library extends every item by the default TTL,
 *   and not at all when there is none);
 * - expiries are computed by the database clock, like the `expires_at > now()` checks that hide them;
 * - the periodic sweep is ours (ttl-sweeper.ts): one process at a time, on workers only.
 * The item's TTL lives in `store.ttl_minutes` (our migration adds it).
 */
import type pg from "pg";
import type { TtlSettings } from "./config/ttl-config.js";
import { inTransaction } from "../shared/db/index.js";
import { BerthPostgresStore } from "./storage/postgres-store.js";
import { IndexedPostgresStore, type StoreIndex } from "./storage/store-index/indexed-store.js";

type PutOperation = { namespace: string[]; key: string; value: unknown; options?: { ttl?: number | null } };
interface StoreInternals {
  core: { refreshTtl: (client: pg.PoolClient, namespacePath: string, key: string) => Promise<void> };
  crudOps: { executePut: (client: pg.PoolClient, op: PutOperation) => Promise<void> };
}

/** Set an item's TTL and the expiry it implies, now (null: never expires). */
const SET_TTL = `UPDATE store SET ttl_minutes = $3::float8,
  expires_at = CASE WHEN $3::float8 IS NULL THEN NULL ELSE now() + $3::float8 * interval '1 minute' END
  WHERE namespace_path = $1 AND key = $2`;

/** Push a live item's expiry forward by its own TTL (items without one are left alone). */
export const REFRESH_ONE = `UPDATE store SET expires_at = now() + ttl_minutes * interval '1 minute'
  WHERE namespace_path = $1 AND key = $2 AND ttl_minutes IS NOT NULL AND (expires_at IS NULL OR expires_at > now())`;

/** The store graphs and the HTTP API use: with semantic search when `store.index` is set (see storage/store-index). */
export function createStore(connection: { connectionString: string; max: number }, ttl: TtlSettings["store"], index?: StoreIndex): BerthPostgresStore {
  // The library only calls refreshTtl on reads when refreshOnRead is set; no defaultTtl or
  // sweepIntervalMinutes: both are handled here and in the sweeper.
  const config = { connectionOptions: connection, ensureTables: true, ttl: { refreshOnRead: ttl.refreshOnRead } };
  const store = index ? new IndexedPostgresStore(config, index, ttl.refreshOnRead) : new BerthPostgresStore(config, ttl.refreshOnRead);
  const internals = store as unknown as Partial<StoreInternals>;
  const { core, crudOps } = internals;
  if (typeof core?.refreshTtl !== "function" || typeof crudOps?.executePut !== "function") {
    throw new Error("PostgresStore no longer exposes refreshTtl/executePut: cannot apply the TTL rules");
  }
  core.refreshTtl = async (client, namespacePath, key) => {
    await client.query(REFRESH_ONE, [namespacePath, key]);
  };
  const put = crudOps.executePut.bind(crudOps);
  crudOps.executePut = async (client, op) => {
    if (op.value === null) return put(client, op); // a delete
    const minutes = op.options?.ttl === undefined ? ttl.defaultTtl : op.options.ttl;
    // one transaction (or the indexed put's, which writes the vectors in it too): the item never exists without its TTL
    await inTransaction(client, async () => {
      await put(client, op);
      await client.query(SET_TTL, [op.namespace.join(":"), op.key, minutes]);
    });
  };
  return store;
}

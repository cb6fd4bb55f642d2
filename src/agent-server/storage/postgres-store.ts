/**
 * LangGraph's PostgresStore as Berth runs it: what graphs' `getStore()` (through LangGraph's
 * batching wrapper, i.e. `batch()`) and the HTTP store API use.
 *
 * One change: searches with a `query`. The library runs them (without `store.index`) as a text
 * search that checks out a second pool connection while its batch still holds the first — on the
 * embedded database (a pool of one) every such search waited forever, the run with it; on Postgres
 * as many at once as the pool has connections would. Here a batch runs its operations one at a
 * time, and a query search runs with the HTTP API's own SQL (same matching and ranking, exact
 * namespace prefixes, expired items hidden), refreshing what it finds when `store.ttl.
 * refresh_on_read` says so, as the library's reads do. With `store.index` the subclass
 * (store-index/indexed-store.ts) ranks by meaning instead.
 */
import type { Operation, OperationResults, SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import pg from "pg";
import { refreshItems, searchItems } from "./store-items.js";

type StoreConfig = ConstructorParameters<typeof PostgresStore>[0];

export class BerthPostgresStore extends PostgresStore {
  constructor(
    config: StoreConfig,
    /** `store.ttl.refresh_on_read`: a query search refreshes the items it returns. */
    protected readonly refreshOnRead = false,
  ) {
    super(config);
  }

  /** The library's own pool (it exposes none): our searches and the server's connection guards use it. */
  get pool(): pg.Pool {
    const pool = (this as unknown as { core?: { pool?: unknown } }).core?.pool;
    if (!(pool instanceof pg.Pool)) throw new Error("PostgresStore no longer exposes its pool: cannot run searches or guard its connections");
    return pool;
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.one(op));
    return results as OperationResults<Op>;
  }

  override async search(namespacePrefix: string[], options: Parameters<PostgresStore["search"]>[1] = {}): Promise<SearchItem[]> {
    if (!options.query) return super.search(namespacePrefix, options);
    const items = await searchItems(this.pool, { namespace_prefix: namespacePrefix, filter: options.filter ?? null, query: options.query, limit: options.limit ?? 10, offset: options.offset ?? 0 });
    if (options.refreshTtl ?? this.refreshOnRead) await refreshItems(this.pool, items);
    return items.map((i) => ({
      namespace: i.namespace,
      key: i.key,
      value: i.value as Record<string, unknown>,
      createdAt: i.createdAt!,
      updatedAt: i.updatedAt!,
      ...(i.score !== undefined ? { score: i.score } : {}),
    }));
  }

  /** One operation of a batch; subclasses handle more of them themselves. */
  protected async one(op: Operation): Promise<unknown> {
    if ("namespacePrefix" in op && op.query) {
      const s = op as SearchOperation;
      return this.search(s.namespacePrefix, { query: s.query, filter: s.filter, limit: s.limit ?? 10, offset: s.offset ?? 0 });
    }
    return ((await super.batch([op])) as unknown[])[0];
  }
}

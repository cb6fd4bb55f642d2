/**
 * The store graphs get (`getStore()`, `config.store`): LangGraph's PostgresStore, except searches
 * with a `query` while no `index` is configured. The library runs those as a text search that
 * checks out a second pool connection while its batch still holds the first: on the embedded
 * database (a pool of one) every such search waited forever, the run with it; on Postgres as many
 * at once as the pool has connections would. They run here with the HTTP API's own SQL (same
 * matching and ranking, and exact namespace prefixes), once the library's part of the batch has
 * given its connection back. Within one batch they therefore see that batch's writes, whatever
 * the order; batches gathered from concurrent calls promise no order anyway.
 */
import type { Operation, OperationResults, SearchItem, SearchOperation } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import pg from "pg";
import { searchItems } from "./store-items.js";

type StoreConfig = ConstructorParameters<typeof PostgresStore>[0];

export class GraphStore extends PostgresStore {
  private readonly semantic: boolean;

  constructor(config: StoreConfig) {
    super(config);
    this.semantic = config.index !== undefined;
  }

  /** The library's own pool (it exposes none): our searches and the server's guards use it. */
  get pool(): pg.Pool {
    const pool = (this as unknown as { core?: { pool?: unknown } }).core?.pool;
    if (!(pool instanceof pg.Pool)) throw new Error("PostgresStore no longer exposes its pool: cannot run text searches or guard its connections");
    return pool;
  }

  private isTextSearch(op: Operation): op is SearchOperation {
    return !this.semantic && "namespacePrefix" in op && typeof op.query === "string" && op.query !== "";
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const libraryOps = operations.filter((op) => !this.isTextSearch(op));
    const libraryResults: unknown[] = libraryOps.length ? await super.batch(libraryOps) : [];
    const results: unknown[] = [];
    let next = 0;
    for (const op of operations) results.push(this.isTextSearch(op) ? await this.searchByText(op) : libraryResults[next++]);
    return results as OperationResults<Op>;
  }

  private async searchByText(op: SearchOperation): Promise<SearchItem[]> {
    const items = await searchItems(this.pool, { namespace_prefix: op.namespacePrefix, filter: op.filter ?? null, query: op.query, limit: op.limit ?? 10, offset: op.offset ?? 0 });
    return items.map((i) => ({ namespace: i.namespace, key: i.key, value: i.value as Record<string, unknown>, createdAt: i.createdAt!, updatedAt: i.updatedAt!, ...(i.score !== undefined ? { score: i.score } : {}) }));
  }
}

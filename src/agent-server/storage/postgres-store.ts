/**
 * LangGraph's PostgresStore as Berth runs it. One fix: in `batch()` (how graphs' `getStore()`
 * calls arrive, through LangGraph's batching wrapper) the library runs a text search with a
 * `query` on a second pool connection while the batch holds the first — on the embedded database
 * the store's pool has one connection, so a graph's `store.search(ns, { query })` waited forever
 * (and every store call after it). Such searches run outside the batch's connection here.
 */
import type { Operation, OperationResults, SearchOperation } from "@langchain/langgraph-checkpoint";
import { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";

export class BerthPostgresStore extends PostgresStore {
  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const results: unknown[] = [];
    for (const op of operations) results.push(await this.one(op));
    return results as OperationResults<Op>;
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

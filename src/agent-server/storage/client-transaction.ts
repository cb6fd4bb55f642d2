/**
 * A transaction on one pg client that composes: the store's TTL rule (../store.ts) and its
 * semantic index (store-index/indexed-store.ts) each need "this put is atomic", and the indexed
 * put calls the TTL put inside its own transaction. A second BEGIN on the same connection would
 * only warn, and its COMMIT would end the outer transaction early — the item committed without
 * its vectors. Nested calls therefore join the transaction already open on the client.
 */
import type pg from "pg";

const open = new WeakSet<pg.PoolClient>();

export async function inTransaction<T>(client: pg.PoolClient, work: () => Promise<T>): Promise<T> {
  if (open.has(client)) return work();
  await client.query("BEGIN");
  open.add(client);
  try {
    const result = await work();
    await client.query("COMMIT");
    return result;
  } catch (err) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw err;
  } finally {
    open.delete(client);
  }
}

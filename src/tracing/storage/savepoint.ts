/**
 * One run's writes inside the batch transaction, undone alone when Postgres refuses its data: the
 * ingest tries a batch whole, then run by run (service.ts), so one bad run costs only itself.
 */
import type { Queryable } from "../../shared/db/index.js";

/** Postgres errors caused by one run's data (not by the database): the batch retries run by run. */
const DATA_ERROR_CLASSES = ["22", "23", "54"];
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  if (code === "23503") return false; // a project deleted meanwhile: ingest() retries the batch
  return typeof code === "string" ? DATA_ERROR_CLASSES.includes(code.slice(0, 2)) : !(err instanceof Error && /connect|terminat/i.test(err.message));
}

export async function savepoint(client: Queryable, work: () => Promise<void>): Promise<void> {
  await client.query("SAVEPOINT ingest_run");
  try {
    await work();
  } catch (err) {
    await client.query("ROLLBACK TO SAVEPOINT ingest_run");
    throw err;
  }
  await client.query("RELEASE SAVEPOINT ingest_run");
}

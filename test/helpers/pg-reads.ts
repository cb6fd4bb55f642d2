/**
 * What Postgres' statistics say was read from a table, for tests that check a statement reads about
 * the rows it needs rather than a whole table (a plan that grows with the table).
 */
import type pg from "pg";
import { eventually } from "./server.js";

/** Index entries and rows read by sequential scans from `table`, as the statistics have them. */
export async function tableReads(sql: pg.Pool, table: string): Promise<number> {
  const { rows } = await sql.query<{ idx: string; seq: string }>(
    `SELECT (SELECT coalesce(sum(idx_tup_read), 0) FROM pg_stat_user_indexes WHERE relname = $1) AS idx,
       (SELECT coalesce(seq_tup_read, 0) FROM pg_stat_user_tables WHERE relname = $1) AS seq`,
    [table],
  );
  return Number(rows[0]!.idx) + Number(rows[0]!.seq);
}

/** Every other session on the database is gone, so their statistics are reported (a backend reports as it exits). */
export function otherSessionsGone(sql: pg.Pool): Promise<boolean> {
  return eventually(async () => {
    const { rows } = await sql.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    return rows[0].n === 0;
  });
}

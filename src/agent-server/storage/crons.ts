/** Cron jobs: stored schedules whose due runs the scheduler enqueues. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { Cron } from "croner";
import { NotFoundError, ValidationError } from "../../shared/errors.js";
import type { AuthFilters } from "../auth/filters.js";
import { SqlBuilder, orderBy } from "./sql.js";

export interface CronRecord {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  schedule: string;
  timezone: string | null;
  payload: Record<string, unknown>;
  metadata: Record<string, unknown>;
  on_run_completed: "delete" | "keep";
  enabled: boolean;
  end_time: Date | null;
  next_run_date: Date | null;
  user_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS =
  "cron_id, assistant_id, thread_id, schedule, timezone, payload, metadata, on_run_completed, enabled, end_time, next_run_date, user_id, created_at, updated_at";

/** The next time a schedule fires after `from` (pure). Throws a 422 for an invalid schedule. */
export function nextRunDate(schedule: string, timezone: string | null | undefined, from: Date, endTime?: Date | null): Date | null {
  let cron: Cron;
  try {
    cron = new Cron(schedule, { timezone: timezone ?? undefined, paused: true });
  } catch (err) {
    throw ValidationError.field(["body", "schedule"], `invalid cron schedule "${schedule}": ${(err as Error).message}`);
  }
  const next = cron.nextRun(from);
  if (!next || (endTime && next > endTime)) return null;
  return next;
}

export class CronStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(input: {
    assistantId: string;
    threadId: string | null;
    schedule: string;
    timezone?: string;
    payload: Record<string, unknown>;
    metadata?: Record<string, unknown>;
    onRunCompleted?: "delete" | "keep";
    enabled?: boolean;
    endTime?: string;
  }): Promise<CronRecord> {
    const endTime = input.endTime ? new Date(input.endTime) : null;
    if (input.timezone) {
      try {
        new Intl.DateTimeFormat("en", { timeZone: input.timezone });
      } catch {
        throw ValidationError.field(["body", "timezone"], `unknown time zone "${input.timezone}"`);
      }
    }
    const next = nextRunDate(input.schedule, input.timezone, new Date(), endTime);
    const { rows } = await this.pool.query<CronRecord>(
      `INSERT INTO crons (cron_id, assistant_id, thread_id, schedule, timezone, payload, metadata, on_run_completed, enabled, end_time, next_run_date)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
      [
        randomUUID(),
        input.assistantId,
        input.threadId,
        input.schedule,
        input.timezone ?? null,
        input.payload,
        input.metadata ?? {},
        input.onRunCompleted ?? "delete",
        input.enabled ?? true,
        endTime,
        next,
      ],
    );
    return rows[0]!;
  }

  async get(cronId: string): Promise<CronRecord> {
    const { rows } = await this.pool.query<CronRecord>(`SELECT ${COLUMNS} FROM crons WHERE cron_id = $1`, [cronId]);
    if (!rows[0]) throw new NotFoundError(`Cron ${cronId} not found`);
    return rows[0];
  }

  async update(
    cronId: string,
    patch: {
      schedule?: string;
      timezone?: string;
      end_time?: string | null;
      payload?: Record<string, unknown>;
      metadata?: Record<string, unknown>;
      on_run_completed?: "delete" | "keep";
      enabled?: boolean;
    },
  ): Promise<CronRecord> {
    const current = await this.get(cronId);
    const schedule = patch.schedule ?? current.schedule;
    const timezone = patch.timezone ?? current.timezone;
    const endTime = patch.end_time === undefined ? current.end_time : patch.end_time === null ? null : new Date(patch.end_time);
    const next = nextRunDate(schedule, timezone, new Date(), endTime);
    const { rows } = await this.pool.query<CronRecord>(
      `UPDATE crons SET schedule = $2, timezone = $3, end_time = $4, payload = $5, metadata = metadata || $6,
         on_run_completed = $7, enabled = $8, next_run_date = $9, updated_at = now()
       WHERE cron_id = $1 RETURNING ${COLUMNS}`,
      [
        cronId,
        schedule,
        timezone,
        endTime,
        { ...current.payload, ...(patch.payload ?? {}) },
        patch.metadata ?? {},
        patch.on_run_completed ?? current.on_run_completed,
        patch.enabled ?? current.enabled,
        next,
      ],
    );
    return rows[0]!;
  }

  async delete(cronId: string): Promise<void> {
    const { rowCount } = await this.pool.query("DELETE FROM crons WHERE cron_id = $1", [cronId]);
    if (!rowCount) throw new NotFoundError(`Cron ${cronId} not found`);
  }

  private filters(q: { assistant_id?: string; thread_id?: string; enabled?: boolean; metadata?: Record<string, unknown>; authFilters?: AuthFilters }) {
    const b = new SqlBuilder();
    b.andAuth(q.authFilters);
    if (q.assistant_id) b.and(`assistant_id = ${b.p(q.assistant_id)}`);
    if (q.thread_id) b.and(`thread_id = ${b.p(q.thread_id)}`);
    if (q.enabled !== undefined) b.and(`enabled = ${b.p(q.enabled)}`);
    if (q.metadata && Object.keys(q.metadata).length) b.and(`metadata @> ${b.p(q.metadata)}`);
    return b;
  }

  async search(q: {
    assistant_id?: string;
    thread_id?: string;
    enabled?: boolean;
    metadata?: Record<string, unknown>;
    limit: number;
    offset: number;
    sort_by?: string;
    sort_order?: "asc" | "desc";
    authFilters?: AuthFilters;
  }): Promise<{ items: CronRecord[]; total: number }> {
    const b = this.filters(q);
    const order = orderBy(
      q.sort_by,
      ["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"],
      "created_at",
      q.sort_order,
    );
    const { rows } = await this.pool.query<CronRecord & { total: number }>(
      `SELECT ${COLUMNS}, count(*) OVER () AS total FROM crons ${b.whereSql()} ${order}, cron_id LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
      b.params,
    );
    return { items: rows.map(({ total: _t, ...c }) => c), total: Number(rows[0]?.total ?? 0) };
  }

  async count(q: { assistant_id?: string; thread_id?: string; metadata?: Record<string, unknown>; authFilters?: AuthFilters }): Promise<number> {
    const b = this.filters(q);
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*) AS n FROM crons ${b.whereSql()}`, b.params);
    return Number(rows[0]!.n);
  }

  async nextDue(): Promise<Date | undefined> {
    const { rows } = await this.pool.query<{ at: Date | null }>("SELECT min(next_run_date) AS at FROM crons WHERE enabled");
    return rows[0]?.at ?? undefined;
  }

  /**
   * Take the crons that are due, advance each to its next date, and call `fire` for each inside the
   * same transaction, so a fired run and the advanced schedule commit together (no double firing
   * across processes: SKIP LOCKED).
   */
  async fireDue(fire: (cron: CronRecord, client: pg.PoolClient) => Promise<void>, limit = 20): Promise<number> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const { rows } = await client.query<CronRecord>(
        `SELECT ${COLUMNS} FROM crons WHERE enabled AND next_run_date <= now() ORDER BY next_run_date LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      for (const cron of rows) {
        const next = nextRunDate(cron.schedule, cron.timezone, new Date(), cron.end_time);
        await client.query("UPDATE crons SET next_run_date = $2, updated_at = now() WHERE cron_id = $1", [cron.cron_id, next]);
        await client.query("SAVEPOINT fire");
        try {
          await fire(cron, client);
          await client.query("RELEASE SAVEPOINT fire");
        } catch {
          // A cron whose run cannot be made (assistant deleted, thread gone) skips this tick.
          await client.query("ROLLBACK TO SAVEPOINT fire");
        }
      }
      await client.query("COMMIT");
      return rows.length;
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

/** Threads: the records; their state lives in the checkpointer's tables. */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { withTransaction, type Queryable } from "../../shared/db/index.js";
import { ConflictError, NotFoundError, isUniqueViolation } from "../../shared/errors.js";
import type { ThreadStatus } from "../api/schemas.js";
import type { AuthFilters } from "../auth/filters.js";
import { SqlBuilder, orderBy } from "./sql.js";

export interface Thread {
  thread_id: string;
  created_at: Date;
  updated_at: Date;
  state_updated_at: Date | null;
  metadata: Record<string, unknown>;
  config: Record<string, unknown>;
  status: ThreadStatus;
  values: unknown;
  interrupts: Record<string, unknown>;
  error: unknown;
}

export const THREAD_COLUMNS =
  'thread_id, created_at, updated_at, state_updated_at, metadata, config, status, "values", interrupts, error';

/**
 * A thread no run is using: none pending or running, and none changed since the thread's last
 * update (a run that just ended, whose thread the next statement marks idle and updated).
 */
const IDLE = `NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.thread_id AND (r.status IN ('pending', 'running') OR r.updated_at > t.updated_at))`;

/** The checkpointer's tables, copied or deleted together with a thread. */
const CHECKPOINT_TABLES = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"] as const;

export class ThreadStore {
  /** `defaultTtlMinutes`: checkpointer.ttl.default_ttl, given to threads created without a TTL. */
  constructor(
    private readonly pool: pg.Pool,
    private readonly defaultTtlMinutes: number | null = null,
  ) {}

  async get(threadId: string, db: Queryable = this.pool): Promise<Thread> {
    const { rows } = await db.query<Thread>(`SELECT ${THREAD_COLUMNS} FROM threads WHERE thread_id = $1`, [threadId]);
    if (!rows[0]) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    return rows[0];
  }

  async find(threadId: string, db: Queryable = this.pool): Promise<Thread | undefined> {
    const { rows } = await db.query<Thread>(`SELECT ${THREAD_COLUMNS} FROM threads WHERE thread_id = $1`, [threadId]);
    return rows[0];
  }

  async create(
    input: { thread_id?: string; metadata?: Record<string, unknown>; if_exists?: "raise" | "do_nothing"; temporary?: boolean; ttl_minutes?: number | null },
    db: Queryable = this.pool,
  ): Promise<Thread> {
    const id = input.thread_id ?? randomUUID();
    try {
      const { rows } = await db.query<Thread>(
        `INSERT INTO threads (thread_id, metadata, temporary, ttl_minutes) VALUES ($1, $2, $3, $4) RETURNING ${THREAD_COLUMNS}`,
        [id, input.metadata ?? {}, input.temporary ?? false, input.ttl_minutes ?? this.defaultTtlMinutes],
      );
      return rows[0]!;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (input.if_exists === "do_nothing") return this.get(id, db);
      throw new ConflictError(`Thread ${id} already exists`);
    }
  }

  /** Merge metadata; a `ttlMinutes` replaces the thread's TTL (counted from now, like every update). */
  async patchMetadata(threadId: string, metadata: Record<string, unknown>, ttlMinutes?: number | null): Promise<Thread> {
    const { rows } = await this.pool.query<Thread>(
      `UPDATE threads SET metadata = metadata || $2, ttl_minutes = coalesce($3::float8, ttl_minutes), updated_at = now()
       WHERE thread_id = $1 RETURNING ${THREAD_COLUMNS}`,
      [threadId, metadata, ttlMinutes ?? null],
    );
    if (!rows[0]) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    return rows[0];
  }

  /** Merge metadata into the thread's newest root checkpoint; false when it has none. */
  async patchLatestCheckpointMetadata(threadId: string, metadata: Record<string, unknown>): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE checkpoints SET metadata = metadata || $2::jsonb
       WHERE thread_id = $1 AND checkpoint_ns = '' AND checkpoint_id = (
         SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = '')`,
      [threadId, JSON.stringify(metadata)],
    );
    return (rowCount ?? 0) > 0;
  }

  /** Record values written outside a run (a state update). */
  async setValues(threadId: string, values: unknown, interrupted: boolean): Promise<void> {
    await this.pool.query(
      `UPDATE threads SET "values" = $2, status = CASE WHEN status = 'busy' THEN status WHEN $3 THEN 'interrupted' ELSE 'idle' END,
         updated_at = now(), state_updated_at = now() WHERE thread_id = $1`,
      [threadId, JSON.stringify(values), interrupted],
    );
  }

  /** Delete a thread with its runs, events and checkpoints. */
  async delete(threadId: string): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      const { rowCount } = await c.query("DELETE FROM threads WHERE thread_id = $1", [threadId]);
      if (!rowCount) throw new NotFoundError(`Thread with ID ${threadId} not found`);
      for (const t of CHECKPOINT_TABLES) await c.query(`DELETE FROM ${t} WHERE thread_id = $1`, [threadId]);
    });
  }

  /**
   * Delete up to `limit` threads past their TTL with their runs, events and checkpoints, as a
   * delete does; a busy thread (a run pending or running) waits for a later sweep. Rows are locked
   * first, skipping those another sweeper or a run being created holds; the delete then looks at
   * runs again with a fresh snapshot: a run created before the lock is seen, and one created after
   * waits for it and then finds no thread. Returns the deleted ids.
   */
  async deleteExpired(limit: number): Promise<{ deleted: string[]; more: boolean }> {
    return withTransaction(this.pool, async (c) => {
      const { rows: locked } = await c.query<{ thread_id: string }>(
        `SELECT thread_id FROM threads t WHERE expires_at <= now() AND ${IDLE}
         ORDER BY expires_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (locked.length === 0) return { deleted: [], more: false };
      const { rows } = await c.query<{ thread_id: string }>(
        `DELETE FROM threads t WHERE thread_id = ANY($1::uuid[]) AND expires_at <= now() AND ${IDLE}
         RETURNING thread_id`,
        [locked.map((r) => r.thread_id)],
      );
      const deleted = rows.map((r) => r.thread_id);
      for (const t of CHECKPOINT_TABLES) await c.query(`DELETE FROM ${t} WHERE thread_id = ANY($1::text[])`, [deleted]);
      return { deleted, more: locked.length === limit };
    });
  }

  private filters(q: { metadata?: Record<string, unknown>; values?: Record<string, unknown>; status?: string; ids?: string[]; authFilters?: AuthFilters }) {
    const b = new SqlBuilder();
    b.and("NOT temporary");
    b.andAuth(q.authFilters);
    if (q.metadata && Object.keys(q.metadata).length) b.and(`metadata @> ${b.p(q.metadata)}`);
    if (q.values && Object.keys(q.values).length) b.and(`"values" @> ${b.p(q.values)}`);
    if (q.status) b.and(`status = ${b.p(q.status)}`);
    if (q.ids?.length) b.and(`thread_id = ANY(${b.p(q.ids)}::uuid[])`);
    return b;
  }

  async search(q: {
    metadata?: Record<string, unknown>;
    values?: Record<string, unknown>;
    status?: string;
    ids?: string[];
    limit: number;
    offset: number;
    sort_by?: string;
    sort_order?: "asc" | "desc";
    authFilters?: AuthFilters;
  }): Promise<{ items: Thread[]; total: number }> {
    const b = this.filters(q);
    const order = orderBy(q.sort_by, ["thread_id", "status", "created_at", "updated_at", "state_updated_at"], "created_at", q.sort_order);
    const { rows } = await this.pool.query<Thread & { total: number }>(
      `SELECT ${THREAD_COLUMNS}, count(*) OVER () AS total FROM threads ${b.whereSql()} ${order}, thread_id
       LIMIT ${b.p(q.limit)} OFFSET ${b.p(q.offset)}`,
      b.params,
    );
    const total = rows[0]?.total ?? (q.offset > 0 ? await this.count(q) : 0);
    return { items: rows.map(({ total: _t, ...t }) => t), total: Number(total) };
  }

  async count(q: { metadata?: Record<string, unknown>; values?: Record<string, unknown>; status?: string; authFilters?: AuthFilters }): Promise<number> {
    const b = this.filters(q);
    const { rows } = await this.pool.query<{ n: number }>(`SELECT count(*) AS n FROM threads ${b.whereSql()}`, b.params);
    return Number(rows[0]!.n);
  }

  /**
   * A new thread with the same metadata, values and checkpoints (not its runs). `metadata` replaces
   * the copied metadata (custom auth stamps the copy as the copier's).
   */
  async copy(threadId: string, opts: { id?: string; metadata?: Record<string, unknown> } = {}): Promise<Thread> {
    return withTransaction(this.pool, async (c) => {
      const source = await this.get(threadId, c);
      const id = opts.id ?? randomUUID();
      const { rows } = await c.query<Thread>(
        `INSERT INTO threads (thread_id, metadata, config, status, "values", interrupts, state_updated_at, ttl_minutes)
         SELECT $2, coalesce($3::jsonb, metadata), config, CASE WHEN status = 'busy' THEN 'idle' ELSE status END, "values", interrupts, state_updated_at, ttl_minutes
         FROM threads WHERE thread_id = $1 RETURNING ${THREAD_COLUMNS}`,
        [source.thread_id, id, opts.metadata === undefined ? null : JSON.stringify(opts.metadata)],
      );
      await c.query(
        `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata)
         SELECT $2, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id = $1`,
        [source.thread_id, id],
      );
      await c.query(
        `INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
         SELECT $2, checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs WHERE thread_id = $1`,
        [source.thread_id, id],
      );
      await c.query(
        `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob)
         SELECT $2, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob FROM checkpoint_writes WHERE thread_id = $1`,
        [source.thread_id, id],
      );
      return rows[0]!;
    });
  }

  /** Those of `threadIds` whose metadata passes custom auth's filters. */
  async visibleIds(threadIds: string[], authFilters: AuthFilters | undefined): Promise<string[]> {
    if (!authFilters) return threadIds;
    const b = new SqlBuilder();
    b.and(`thread_id = ANY(${b.p(threadIds)}::uuid[])`).andAuth(authFilters);
    const { rows } = await this.pool.query<{ thread_id: string }>(`SELECT thread_id FROM threads ${b.whereSql()}`, b.params);
    return rows.map((r) => r.thread_id);
  }

  /**
   * Prune threads: `delete` removes them entirely; `keep_latest` keeps each thread and its newest
   * checkpoint (per namespace) and drops older history.
   */
  async prune(threadIds: string[], strategy: "delete" | "keep_latest"): Promise<number> {
    return withTransaction(this.pool, async (c) => {
      if (strategy === "delete") {
        const { rowCount } = await c.query("DELETE FROM threads WHERE thread_id = ANY($1::uuid[])", [threadIds]);
        for (const t of CHECKPOINT_TABLES) await c.query(`DELETE FROM ${t} WHERE thread_id = ANY($1::text[])`, [threadIds]);
        return rowCount ?? 0;
      }
      const { rows } = await c.query<{ n: number }>("SELECT count(*) AS n FROM threads WHERE thread_id = ANY($1::uuid[])", [threadIds]);
      await c.query(
        `DELETE FROM checkpoints c USING (
           SELECT thread_id, checkpoint_ns, max(checkpoint_id) AS keep FROM checkpoints
           WHERE thread_id = ANY($1::text[]) GROUP BY thread_id, checkpoint_ns) k
         WHERE c.thread_id = k.thread_id AND c.checkpoint_ns = k.checkpoint_ns AND c.checkpoint_id <> k.keep`,
        [threadIds],
      );
      await c.query(
        `DELETE FROM checkpoint_writes w WHERE w.thread_id = ANY($1::text[]) AND NOT EXISTS (
           SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)`,
        [threadIds],
      );
      return Number(rows[0]!.n);
    });
  }
}


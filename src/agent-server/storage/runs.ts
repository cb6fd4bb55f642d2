/**
 * Runs, and the queue they form. Every statement here is short: PGlite serialises transactions,
 * and a Postgres queue stays healthy only when nothing holds row locks for long.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { prepared, withTransaction, type Queryable } from "../../shared/db/index.js";
import { ConflictError, NotFoundError, isUniqueViolation } from "../../shared/errors.js";
import type { MultitaskStrategy } from "../../shared/config.js";
import type { RunStatus } from "../api/schemas.js";
import { TERMINAL_RUN_STATUSES, planMultitask, type InflightRun } from "../runs/rules.js";
import { THREAD_COLUMNS, type Thread } from "./threads.js";
import type { EventBlock } from "./events.js";
import { batchCtes, batchValues, type CheckpointWrite } from "../checkpoint-batch.js";

/** A run as the API shows it. */
export interface Run {
  run_id: string;
  thread_id: string;
  assistant_id: string;
  created_at: Date;
  updated_at: Date;
  status: RunStatus;
  metadata: Record<string, unknown>;
  kwargs: RunKwargs;
  multitask_strategy: MultitaskStrategy;
}

/** What a worker needs beyond the API view. */
export interface ClaimedRun extends Run {
  /**
   * Executions of this run that started (this one included once `begin` counted it). A claim that
   * is lost before the worker starts executing — the worker died right after claiming — does not
   * count: only executions can be what keeps killing workers.
   */
  attempt: number;
  max_attempts: number;
  /** '' when the thread had no checkpoint when the run first started. */
  start_checkpoint_id: string;
  /**
   * The newest checkpoint an earlier attempt of this run wrote (its metadata carries the run's id),
   * or null: no attempt got as far as its input checkpoint, so the run starts from its input.
   */
  own_checkpoint_id: string | null;
  /** The run's last stored stream event (-1: none): a resumed run continues the numbering. */
  last_event_seq: number;
  webhook: string | null;
  started_at: Date;
  /** A cancel requested before the run was claimed. */
  cancel_action: string | null;
  /**
   * The statement that gave this run to the worker also counted its attempt (a run started by
   * the process that created it, or handed over as its thread's previous run ended): the worker
   * starts it at once, so no separate `begin` is needed.
   */
  begun?: boolean;
}

export interface RunKwargs {
  input?: unknown;
  command?: Record<string, unknown> | null;
  config: { configurable: Record<string, unknown>; tags?: string[]; recursion_limit?: number; [k: string]: unknown };
  context?: Record<string, unknown>;
  stream_mode: string[];
  subgraphs: boolean;
  resumable: boolean;
  interrupt_before?: "*" | string[];
  interrupt_after?: "*" | string[];
  checkpoint_id?: string;
  checkpoint?: Record<string, unknown>;
  durability?: "exit" | "async" | "sync";
  webhook?: string;
  feedback_keys?: string[];
  temporary: boolean;
  on_completion?: "delete" | "keep";
}

/** The statuses of ended runs, as an SQL list. */
const TERMINAL_SQL = TERMINAL_RUN_STATUSES.map((s) => `'${s}'`).join(", ");

export const RUN_COLUMNS =
  "run_id, thread_id, assistant_id, created_at, updated_at, status, metadata, kwargs, multitask_strategy";
const RUN_KEYS = RUN_COLUMNS.split(",").map((c) => c.trim());
const CLAIM_COLUMNS = `${RUN_COLUMNS}, attempt, max_attempts, start_checkpoint_id, webhook, started_at, cancel_action`;
/** What claiming sets on a run (the owner is $1, the lease length in seconds $2). */
/** The newest root checkpoint of the run's thread, in a statement updating `runs`. */
const NEWEST_CHECKPOINT = `(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = runs.thread_id::text AND checkpoint_ns = '')`;
const CLAIM_SET = `status = 'running', lease_owner = $1,
  lease_expires_at = now() + make_interval(secs => $2), started_at = coalesce(started_at, now()), updated_at = now(),
  -- where the thread stood when the run first started ('' = no checkpoint): rollback and resume start here
  start_checkpoint_id = coalesce(start_checkpoint_id, ${NEWEST_CHECKPOINT}, '')`;
/** What a claim returns: the run, and where an earlier attempt of it got to. */
const CLAIM_RETURNING = `${CLAIM_COLUMNS},
  -- this run's own newest checkpoint from an earlier attempt: checkpoints record the run that
  -- wrote them (BerthPostgresSaver), and only those after the run's start can be its own
  (SELECT max(c.checkpoint_id) FROM checkpoints c
   WHERE c.thread_id = runs.thread_id::text AND c.checkpoint_ns = ''
     AND c.checkpoint_id > runs.start_checkpoint_id AND c.metadata ->> 'run_id' = runs.run_id::text) AS own_checkpoint_id,
  (SELECT coalesce(max(seq), -1) FROM run_events WHERE run_events.run_id = runs.run_id) AS last_event_seq`;
const CLAIMED_KEYS = CLAIM_COLUMNS.split(",").map((c) => c.trim()).concat(["own_checkpoint_id", "last_event_seq"]);

export interface NewRun {
  /** null for a stateless run: a temporary thread is made for it. */
  threadId: string | null;
  assistantId: string;
  graphId: string;
  kwargs: RunKwargs;
  metadata: Record<string, unknown>;
  strategy: MultitaskStrategy;
  ifNotExists: "reject" | "create";
  afterSeconds?: number;
  maxAttempts: number;
  webhook?: string;
  /** The run's id, when the caller needed it before creating the run (custom auth shows it to handlers). */
  runId?: string;
  /** Metadata for a thread this run creates (stateless, if_not_exists=create): custom auth's owner stamp. */
  newThreadMetadata?: Record<string, unknown>;
  /**
   * The row version of the assistant the run was built from, when it came from memory
   * (runs/assistant-cache.ts): the run is created only if the assistant is still that version,
   * otherwise `StaleAssistantError`.
   */
  assistantRowVersion?: string;
  /**
   * Start the run at once for this worker when nothing else on its thread is pending or running
   * (and it is not delayed): the process creating it has a free worker slot, so the insert also
   * claims it (with its lease and its attempt counted) instead of leaving it for a wake-up and a
   * claim round trip.
   */
  startFor?: { owner: string; leaseSeconds: number };
}

/** The assistant changed (or went) since the copy a run was built from was read: read it again. */
export class StaleAssistantError extends Error {
  constructor(readonly assistantId: string) {
    super(`assistant ${assistantId} changed while the run was being created`);
  }
}

export interface CreatedRun {
  run: Run;
  /** Running runs the new one displaced; the caller signals their workers. */
  cancelled: { run_id: string; action: "interrupt" | "rollback" }[];
  /** With `startFor`: the run, claimed for that worker, when it could start at once. */
  started?: ClaimedRun;
  /**
   * The run waits behind a running run on its thread, whose end starts it (`finish` hands the
   * thread over, or settles it when it raced with this creation): no wake-up is needed.
   */
  handedOver?: boolean;
}

/** A thread's status once its run $3 has ended with status $4 ($7: its state has interrupts), as `finish` sees it. */
const FINISHED_THREAD_STATUS = `CASE
  WHEN EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = $6 AND r.status IN ('pending', 'running') AND r.run_id <> $3) THEN 'busy'
  WHEN $4 IN ('error', 'timeout') THEN 'error'
  WHEN $7 THEN 'interrupted'
  ELSE 'idle' END`;

/** What `finish` did besides ending the run. */
export interface FinishResult {
  /** Runs wait that a wake-up could start (other than the one handed over). */
  morePending: boolean;
  /** The thread's next run, claimed for this worker by the same statement. */
  next?: ClaimedRun;
  /** The thread changed after the statement's snapshot (a run may have been created behind the ended one): call `settleThread`. */
  raced: boolean;
}

function claimedFrom(row: Record<string, unknown>): ClaimedRun {
  const run = Object.fromEntries(CLAIMED_KEYS.map((k) => [k, row[k]])) as unknown as ClaimedRun;
  return { ...run, begun: true };
}

type InsertedRow = Omit<ClaimedRun, "own_checkpoint_id" | "last_event_seq" | "begun">;

/**
 * The API's view of an inserted run, and the claimed run when it was started at once. The API
 * answers a run started at once as created, `pending`, as when a worker picks it up a moment later.
 */
function inserted({ handed_over, ...row }: InsertedRow & { handed_over: boolean }): { run: Run; started?: ClaimedRun; handedOver: boolean } {
  const run = Object.fromEntries(RUN_KEYS.map((k) => [k, row[k as keyof InsertedRow]])) as unknown as Run;
  if (row.status !== "running") return { run, handedOver: handed_over };
  return { run: { ...run, status: "pending" }, started: { ...row, own_checkpoint_id: null, last_event_seq: -1, begun: true }, handedOver: false };
}

/** The run's identity in its config, as graphs read it (`config.configurable.run_id`…). */
function withRunIdentity(spec: NewRun, runId: string, threadId: string): RunKwargs {
  return {
    ...spec.kwargs,
    config: {
      ...spec.kwargs.config,
      configurable: { ...spec.kwargs.config.configurable, run_id: runId, thread_id: threadId, graph_id: spec.graphId, assistant_id: spec.assistantId },
    },
  };
}

export class RunStore {
  /** `usePrepared`: named statements for the hot path (not on PGlite; see `prepared`). */
  /** `threadTtlMinutes`: the TTL of threads a run creates (checkpointer.ttl.default_ttl). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly usePrepared = false,
    private readonly threadTtlMinutes: number | null = null,
  ) {}

  /** The finish statement's text: without held checkpoints (""), and with them by the saver's schema. */
  private readonly finishTexts: Record<string, string> = {};

  private q(name: string, text: string, values: unknown[]): pg.QueryConfig {
    return prepared(this.usePrepared, `berth_runs_${name}`, text, values);
  }

  /**
   * Create a run atomically with the multitask decision. The thread row is locked for the
   * transaction, so concurrent creates on one thread are ordered and `seq` is the order received.
   */
  async create(spec: NewRun, client?: pg.PoolClient): Promise<CreatedRun> {
    if (!spec.startFor || client) return this.createOnce({ ...spec, startFor: undefined }, client);
    try {
      return await this.createOnce(spec);
    } catch (err) {
      // Another create on the thread started its run at the same moment (each statement saw the
      // thread idle): one_running_run_per_thread refused this one, which nothing wrote. Queue it.
      if (!isUniqueViolation(err)) throw err;
      return this.createOnce({ ...spec, startFor: undefined });
    }
  }

  private async createOnce(spec: NewRun, client?: pg.PoolClient): Promise<CreatedRun> {
    if (spec.strategy === "enqueue" && spec.threadId !== null && !client) {
      const created = await this.createEnqueued(spec, spec.threadId);
      if (created) return created;
      // no such thread: the general path below answers 404 or creates it (if_not_exists)
    }
    const inTransaction = <T>(fn: (c: pg.PoolClient) => Promise<T>) => (client ? fn(client) : withTransaction(this.pool, fn));
    return inTransaction(async (c) => {
      let thread: (Thread & { inflight: InflightRun[] | null }) | undefined;
      let threadId = spec.threadId;
      // a new thread (stateless run, if_not_exists=create) has nothing in flight
      let inflightKnown: InflightRun[] = [];
      if (threadId === null) {
        threadId = randomUUID();
        await c.query("INSERT INTO threads (thread_id, temporary, metadata, ttl_minutes) VALUES ($1, true, $2, $3)", [
          threadId,
          { graph_id: spec.graphId, assistant_id: spec.assistantId, ...spec.newThreadMetadata },
          this.threadTtlMinutes,
        ]);
      } else {
        // Lock the thread and read its in-flight runs in one round trip.
        const { rows } = await c.query<Thread & { inflight: InflightRun[] | null }>(
          this.q(
            "lock_thread",
            `SELECT ${THREAD_COLUMNS},
               (SELECT json_agg(json_build_object('run_id', r.run_id, 'status', r.status) ORDER BY r.seq) FROM runs r
                WHERE r.thread_id = t.thread_id AND r.status IN ('pending', 'running')) AS inflight
             FROM threads t WHERE thread_id = $1 FOR UPDATE OF t`,
            [threadId],
          ),
        );
        thread = rows[0];
        inflightKnown = thread?.inflight ?? [];
        if (!thread) {
          if (spec.ifNotExists !== "create") throw new NotFoundError(`Thread with ID ${threadId} not found`);
          await c.query("INSERT INTO threads (thread_id, metadata, ttl_minutes) VALUES ($1, $2, $3)", [
            threadId,
            { graph_id: spec.graphId, assistant_id: spec.assistantId, ...spec.newThreadMetadata },
            this.threadTtlMinutes,
          ]);
        }
      }
      const plan = planMultitask(spec.strategy, inflightKnown);
      if (plan.kind === "reject") {
        throw new ConflictError(
          "Thread is already running a task. Wait for it to finish or choose a different multitask strategy.",
        );
      }
      if (plan.interruptPending.length) {
        await c.query("UPDATE runs SET status = 'interrupted', ended_at = now(), updated_at = now() WHERE run_id = ANY($1::uuid[])", [
          plan.interruptPending,
        ]);
      }
      if (plan.deletePending.length) {
        await c.query("DELETE FROM runs WHERE run_id = ANY($1::uuid[])", [plan.deletePending]);
      }
      for (const r of plan.cancelRunning) {
        await c.query("UPDATE runs SET cancel_action = $2, updated_at = now() WHERE run_id = $1", [r.run_id, r.action]);
      }
      const runId = spec.runId ?? randomUUID();
      const kwargs = withRunIdentity(spec, runId, threadId);
      // Insert the run and mark the thread busy in one statement. The thread remembers its graph
      // (state reads need it) and stays busy until its queue drains.
      const { rows } = await c.query<InsertedRow & { handed_over: boolean }>(this.insertStatement(spec, runId, threadId, kwargs));
      // the thread exists (locked or made above): no row means the assistant is not as read
      if (!rows[0]) throw new StaleAssistantError(spec.assistantId);
      return { ...inserted(rows[0]), cancelled: plan.cancelRunning };
    });
  }

  /**
   * Insert a run and mark its thread busy in one statement. The thread remembers its graph (state
   * reads need it) and stays busy until its queue drains. No row when the thread does not exist, or
   * when the assistant is no longer the row version the run was built from ($11, when given).
   *
   * With `startFor` ($12 the owner, $13 the lease; another text), a run that may start now — nothing else on
   * its thread pending or running, not delayed — is inserted already claimed, as `claim` would
   * leave it, with its first attempt counted. Two creates racing on an idle thread may both see
   * it idle: the unique index on running runs refuses the second (`create` queues it instead).
   */
  private insertStatement(spec: NewRun, runId: string, threadId: string, kwargs: RunKwargs): pg.QueryConfig {
    // Two texts, with and without `startFor`: one text for both left the plan depending on the
    // parameters (whether the run may start decides which subqueries run), so Postgres kept planning
    // it anew on every call (its generic plan costs more than the custom ones) — a third of the
    // statement's time. Without `startFor` the run is simply pending.
    const start = spec.startFor !== undefined;
    const now = (expr: string, otherwise = "NULL") => (start ? `CASE WHEN go.now THEN ${expr} ELSE ${otherwise} END` : otherwise);
    const values = [runId, threadId, spec.assistantId, spec.metadata, kwargs, spec.strategy, spec.maxAttempts, spec.webhook ?? null, spec.afterSeconds ?? 0, spec.graphId,
      spec.assistantRowVersion ?? null];
    if (spec.startFor) values.push(spec.startFor.owner, spec.startFor.leaseSeconds);
    return this.q(
      start ? "insert_start" : "insert",
      `WITH locked AS (
         SELECT 1 FROM threads WHERE thread_id = $2 FOR NO KEY UPDATE
       ), ahead AS (
         -- The thread's running run, read once the thread row is locked: locking its row re-reads
         -- it when a change to it committed since this statement's snapshot (a run whose end
         -- committed is no longer running). Never waits (an end under way may be waiting for the
         -- thread row): a row being changed counts as not running.
         SELECT 1 FROM runs WHERE thread_id = $2 AND status = 'running' AND EXISTS (SELECT 1 FROM locked)
         FOR SHARE SKIP LOCKED
       ), thread AS (
         UPDATE threads SET status = 'busy', updated_at = now(),
           metadata = jsonb_build_object('graph_id', $10::text, 'assistant_id', $3::text) || metadata
         WHERE thread_id = $2 AND EXISTS (SELECT 1 FROM locked)
           AND ($11::text IS NULL OR EXISTS (SELECT 1 FROM assistants WHERE assistant_id = $3::text::uuid AND xmin::text = $11::text))
         RETURNING thread_id
       )${start ? `, go AS (
         SELECT $9::float8 <= 0 AND NOT EXISTS (SELECT 1 FROM runs WHERE thread_id = $2 AND status IN ('pending', 'running')) AS now
       )` : ""}, ins AS (
       INSERT INTO runs (run_id, thread_id, assistant_id, metadata, kwargs, multitask_strategy, max_attempts, webhook, available_at,
         status, lease_owner, lease_expires_at, started_at, start_checkpoint_id, attempt)
       SELECT $1, thread_id, $3::text::uuid, $4, $5, $6, $7, $8, now() + make_interval(secs => $9::float8),
         ${now("'running'", "'pending'")},
         ${now("$12::text")},
         ${now("now() + make_interval(secs => $13::float8)")},
         ${now("now()")},
         ${now("coalesce((SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = $2::uuid::text AND checkpoint_ns = ''), '')")},
         ${now("1", "0")}
       FROM thread${start ? ", go" : ""}
       RETURNING ${CLAIM_COLUMNS}
       )
       -- Handed over: queued (not delayed) behind a run still running once the thread row is
       -- locked. Its end writes the thread row (finish, the sweeper's failure; a requeued or
       -- released run is claimed again and ends later), so after this statement's commit: its
       -- finish sees this run, or sees the thread row changed since its snapshot and settles the
       -- thread (\`raced\`). A run whose end committed before the lock may not have seen this
       -- run: then the workers are woken.
       SELECT ins.*, ins.status = 'pending' AND $9::float8 <= 0 AND EXISTS (SELECT 1 FROM ahead) AS handed_over
       FROM ins`,
      values,
    );
  }

  /**
   * The default strategy's fast path: `enqueue` changes no other run, so it needs neither the
   * thread lock nor a look at in-flight runs — one statement, no explicit transaction. Updating the
   * thread row still orders concurrent creates on a thread, and `seq` is the order received.
   */
  private async createEnqueued(spec: NewRun, threadId: string): Promise<CreatedRun | undefined> {
    const runId = spec.runId ?? randomUUID();
    const { rows } = await this.pool.query<InsertedRow & { handed_over: boolean }>(this.insertStatement(spec, runId, threadId, withRunIdentity(spec, runId, threadId)));
    return rows[0] && { ...inserted(rows[0]), cancelled: [] };
  }

  async get(threadId: string | null, runId: string, db: Queryable = this.pool): Promise<Run> {
    const { rows } = threadId
      ? await db.query<Run>(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = $1 AND thread_id = $2`, [runId, threadId])
      : await db.query<Run>(`SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = $1`, [runId]);
    if (!rows[0]) throw new NotFoundError(`Run ${runId} not found`);
    return rows[0];
  }

  async find(runId: string): Promise<Run | undefined> {
    const { rows } = await this.pool.query<Run>(this.q("find", `SELECT ${RUN_COLUMNS} FROM runs WHERE run_id = $1`, [runId]));
    return rows[0];
  }

  /**
   * A run's status with its thread's values and interrupts, in one query (for /wait and /join).
   * The values and interrupts only once the run has ended: a join looks at runs still pending or
   * running too, and the thread's whole state would be sent and parsed for nothing.
   */
  async endState(
    runId: string,
    /** Only if the run is on this thread. */
    threadId?: string,
  ): Promise<{ status: RunStatus; values: unknown; interrupts: Record<string, unknown> | null } | undefined> {
    const { rows } = await this.pool.query<{ status: RunStatus; values: unknown; interrupts: Record<string, unknown> | null }>(
      this.q(
        "end_state",
        `SELECT r.status, CASE WHEN r.status IN (${TERMINAL_SQL}) THEN t."values" END AS "values",
           CASE WHEN r.status IN (${TERMINAL_SQL}) THEN t.interrupts END AS interrupts
         FROM runs r JOIN threads t USING (thread_id)
         WHERE r.run_id = $1 AND ($2::uuid IS NULL OR r.thread_id = $2::uuid)`,
        [runId, threadId ?? null],
      ),
    );
    return rows[0];
  }

  async list(threadId: string, q: { limit: number; offset: number; status?: string }): Promise<Run[]> {
    const params: unknown[] = [threadId, q.limit, q.offset];
    const statusFilter = q.status ? `AND status = $${params.push(q.status)}` : "";
    const { rows } = await this.pool.query<Run>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE thread_id = $1 ${statusFilter} ORDER BY seq DESC LIMIT $2 OFFSET $3`,
      params,
    );
    return rows;
  }

  /** Delete a run that is not executing (cancel it first). */
  async delete(threadId: string, runId: string): Promise<void> {
    const { rows } = await this.pool.query<{ status: string }>(
      `WITH target AS (SELECT run_id, status FROM runs WHERE run_id = $1 AND thread_id = $2),
            deleted AS (DELETE FROM runs r USING target t WHERE r.run_id = t.run_id AND t.status <> 'running' RETURNING r.run_id)
       SELECT t.status, (SELECT count(*) FROM deleted) AS n FROM target t`,
      [runId, threadId],
    );
    if (!rows[0]) throw new NotFoundError(`Run ${runId} not found`);
    if (rows[0].status === "running") throw new ConflictError(`Run ${runId} is running: cancel it before deleting it`);
    await this.refreshThreadStatus(threadId);
  }

  /** Runs of a thread that are pending or running. */
  async inflight(threadId: string, db: Queryable = this.pool): Promise<InflightRun[]> {
    const { rows } = await db.query<InflightRun>(
      "SELECT run_id, status FROM runs WHERE thread_id = $1 AND status IN ('pending', 'running') ORDER BY seq",
      [threadId],
    );
    return rows;
  }

  /**
   * Claim the next runnable run: the oldest pending run that is the head of its thread's queue and
   * whose thread has nothing running. Up to `limit` at once: each candidate heads a different
   * thread's queue, so claiming several never breaks FIFO per thread. SKIP LOCKED lets any number
   * of workers claim concurrently; the partial unique index turns a lost race into an error we
   * treat as "nothing claimed".
   *
   * Claiming does not count an attempt: `begin` does, when the worker starts executing.
   */
  async claim(owner: string, leaseSeconds: number, limit = 1): Promise<ClaimedRun[]> {
    try {
      const { rows } = await this.pool.query<ClaimedRun>(
        this.q(
          "claim",
          `UPDATE runs SET ${CLAIM_SET}
         WHERE run_id IN (
           SELECT r.run_id FROM runs r
           WHERE r.status = 'pending' AND r.available_at <= now()
             AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.thread_id = r.thread_id AND a.status = 'running')
             AND NOT EXISTS (SELECT 1 FROM runs e WHERE e.thread_id = r.thread_id AND e.status = 'pending' AND e.seq < r.seq)
           ORDER BY r.seq
           LIMIT $3
           FOR UPDATE SKIP LOCKED)
         RETURNING ${CLAIM_RETURNING}`,
          [owner, leaseSeconds, limit],
        ),
      );
      return rows.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
    } catch (err) {
      if (isUniqueViolation(err)) return [];
      throw err;
    }
  }

  /** When the next delayed run becomes claimable, if any. */
  async nextAvailableAt(): Promise<Date | undefined> {
    const { rows } = await this.pool.query<{ at: Date | null }>(
      this.q("next_available", "SELECT min(available_at) AS at FROM runs WHERE status = 'pending' AND available_at > now()", []),
    );
    return rows[0]?.at ?? undefined;
  }

  /**
   * Renew the lease. Returns false when the lease is no longer ours (the sweeper gave the run to
   * another worker), and any cancel request made for the run.
   */
  async heartbeat(runIds: string[], owner: string, leaseSeconds: number): Promise<Map<string, { cancel: string | null }>> {
    if (runIds.length === 0) return new Map();
    const { rows } = await this.pool.query<{ run_id: string; cancel_action: string | null }>(
      this.q(
        "heartbeat",
        `UPDATE runs SET lease_expires_at = now() + make_interval(secs => $3)
         WHERE run_id = ANY($1::uuid[]) AND lease_owner = $2 AND status = 'running'
         RETURNING run_id, cancel_action`,
        [runIds, owner, leaseSeconds],
      ),
    );
    return new Map(rows.map((r) => [r.run_id, { cancel: r.cancel_action }]));
  }

  /**
   * End a run and update its thread. Returns undefined when this worker no longer owns the run
   * (its lease was taken over), in which case nothing is written.
   *
   * With `handoff`, the same statement also claims the next run of the thread's queue for this
   * worker (graphile-worker style): a busy thread's next run starts without a wake-up or another
   * claim round trip. The claim also counts the next run's attempt (the worker starts it at once,
   * without `begin`); a worker that dies right after it has the run resumed by another worker once
   * its lease lapses, like any run whose worker died mid-run.
   */
  async finish(args: {
    runId: string;
    threadId: string;
    owner: string;
    status: RunStatus;
    error?: unknown;
    /** The thread's values as JSON text (serialised once by the worker; also the run's output). */
    threadValuesJson?: string;
    threadInterrupts?: Record<string, unknown>;
    stateHasInterrupts: boolean;
    /** Claim the thread's next run for this worker, with a lease of this many seconds. */
    handoff?: { leaseSeconds: number };
    /** The run's last block of stream events (queue/emitter.ts `takeFinal`), stored with its end. */
    events?: EventBlock;
    /**
     * The run's checkpoint writes not yet committed (checkpoint-write-behind.ts): stored with its
     * end, atomically, and not at all when the run is no longer this worker's.
     */
    checkpoints?: { schema: string; writes: CheckpointWrite[] };
  }): Promise<FinishResult | undefined> {
    // One statement (one round trip, atomic): store the run's last checkpoints, end the run if this worker still owns it, update its
    // thread (busy while other runs wait in its queue), and claim the head of that queue.
    //
    // The claim sees the table as it was before this statement (one snapshot), where the ended
    // run still runs: it is found by excluding it ($3 = the ended run), and it cannot collide with
    // one_running_run_per_thread because `next` reads `ended`, so the ended run's row is updated
    // first and unique checks skip row versions this transaction replaced.
    //
    // A run created on the thread after that snapshot was taken is invisible here: its creating
    // statement saw this run still running, so it queued behind it, and its wake-up may have been
    // heard (and found nothing to claim) before this statement commits. Its creation rewrote the
    // thread row, which this statement waits for and then updates in its latest version: a thread
    // row newer than the snapshot's (`raced`) keeps its status, and the caller settles the thread
    // with `settleThread` once this has committed.
    type Row = Record<string, unknown> & { finished_run_id: string; more_pending: boolean; thread_raced: boolean | null; run_id: string | null };
    const held = args.checkpoints?.writes.length ? args.checkpoints : undefined;
    // With checkpoint writes held back (checkpoint-write-behind.ts), the same statement stores them
    // first, only if the run is still this worker's; the claim of the thread's next run cannot see
    // them (one snapshot), so it is told the newest ($14).
    const text = (this.finishTexts[held?.schema ?? ""] ??=
        `WITH ended AS (
         UPDATE runs SET status = $4, error = $5, ended_at = now(), updated_at = now(), lease_owner = NULL, lease_expires_at = NULL
         WHERE run_id = $3 AND lease_owner = $1 AND status = 'running'
         RETURNING run_id, thread_id
       )${held ? `, ${batchCtes(held.schema, 15, "EXISTS (SELECT 1 FROM ended)")}` : ""}, events AS (
         INSERT INTO run_events (run_id, seq, first_seq, event, data)
         SELECT run_id, $11, $12, '', $13 FROM ended WHERE $13::text IS NOT NULL
         ON CONFLICT DO NOTHING
       ), seen AS (
         -- the thread row as this statement's snapshot has it
         SELECT xmin::text AS version FROM threads WHERE thread_id = $6
       ), thread AS (
         UPDATE threads SET
           -- (threads.xmin here is the version being updated: after a wait, the latest one)
           status = CASE WHEN threads.xmin::text IS DISTINCT FROM (SELECT version FROM seen) THEN threads.status ELSE ${FINISHED_THREAD_STATUS} END,
           "values" = coalesce($8::jsonb, "values"), interrupts = coalesce($9::jsonb, interrupts),
           error = CASE WHEN $4 IN ('error', 'timeout') THEN $5::jsonb ELSE NULL END,
           updated_at = now(), state_updated_at = now()
         WHERE thread_id = (SELECT thread_id FROM ended)
         -- (RETURNING sees the new version: a kept status that is not the one computed)
         RETURNING status IS DISTINCT FROM ${FINISHED_THREAD_STATUS} AS raced
       ), next AS (
         -- the head of the thread's queue, if it may start now (a delayed head keeps the rest
         -- waiting); this worker starts it at once, so its attempt is counted here
         UPDATE runs SET ${held ? CLAIM_SET.replace(NEWEST_CHECKPOINT, `greatest(${NEWEST_CHECKPOINT}, $14::text)`) : CLAIM_SET}, attempt = attempt + 1
         WHERE $10::boolean AND run_id = (
           SELECT r.run_id FROM runs r
           WHERE r.thread_id = (SELECT thread_id FROM ended) AND r.status = 'pending' AND r.run_id <> $3
           ORDER BY r.seq LIMIT 1)
           AND status = 'pending' AND available_at <= now()
         RETURNING ${CLAIM_RETURNING}
       )
       -- whether anything else waits that a wake-up could start: if not, nobody needs one (the
       -- rest of this thread's queue waits behind the run handed over, if there is one)
       SELECT ended.run_id AS finished_run_id,
         EXISTS (SELECT 1 FROM runs WHERE status = 'pending' AND run_id <> $3 AND run_id NOT IN (SELECT run_id FROM next)
           AND (thread_id <> $6 OR NOT EXISTS (SELECT 1 FROM next))) AS more_pending,
         (SELECT raced FROM thread) AS thread_raced,
         next.*
       FROM ended LEFT JOIN next ON true`);
    const values: unknown[] = [
      args.owner,
      args.handoff?.leaseSeconds ?? 0,
      args.runId,
      args.status,
      args.error === undefined ? null : JSON.stringify(args.error),
      args.threadId,
      args.stateHasInterrupts,
      args.threadValuesJson ?? null,
      args.threadInterrupts === undefined ? null : JSON.stringify(args.threadInterrupts),
      Boolean(args.handoff),
      args.events?.lastSeq ?? null,
      args.events?.firstSeq ?? null,
      args.events?.data ?? null,
    ];
    if (held) {
      const batch = batchValues(held.writes);
      values.push(batch.newestRootId, ...batch.values);
    }
    const { rows } = await this.pool.query<Row>(this.q(held ? "finish_ckpt" : "finish", text, values));
    const row = rows[0];
    if (!row) return undefined;
    const raced = row.thread_raced === true;
    if (row.run_id === null) return { morePending: row.more_pending, raced };
    return { morePending: row.more_pending, raced, next: claimedFrom(row) };
  }

  /**
   * Settle a thread whose run `finish` ended while a concurrent write (a run created behind it)
   * changed the thread after `finish`'s snapshot (`raced`): with the thread row locked, so every
   * creation that got there first is visible, set its status from what is pending or running and
   * the ended run's outcome, and claim the head of its queue for this worker (as `finish` does).
   * Creations that come later see the ended run gone, mark the thread busy and wake the workers.
   */
  async settleThread(args: {
    threadId: string;
    owner: string;
    /** The ended run's status, and whether the state it left has interrupts. */
    status: RunStatus;
    stateHasInterrupts: boolean;
    handoff?: { leaseSeconds: number };
  }): Promise<ClaimedRun | undefined> {
    try {
      return await withTransaction(this.pool, async (c) => {
        await c.query("SELECT 1 FROM threads WHERE thread_id = $1 FOR UPDATE", [args.threadId]);
        const { rows } = await c.query<Record<string, unknown> & { run_id: string | null }>(
          `WITH next AS (
             UPDATE runs SET ${CLAIM_SET}, attempt = attempt + 1
             WHERE $6::boolean AND run_id = (
               SELECT r.run_id FROM runs r WHERE r.thread_id = $3 AND r.status = 'pending' ORDER BY r.seq LIMIT 1)
               AND status = 'pending' AND available_at <= now()
               AND NOT EXISTS (SELECT 1 FROM runs a WHERE a.thread_id = $3 AND a.status = 'running')
             RETURNING ${CLAIM_RETURNING}
           ), thread AS (
             -- only while still busy: a later run may have ended and set it since
             UPDATE threads SET status = CASE
                 WHEN EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = $3 AND r.status IN ('pending', 'running')) THEN 'busy'
                 WHEN $4 IN ('error', 'timeout') THEN 'error'
                 WHEN $5 THEN 'interrupted'
                 ELSE 'idle' END,
               updated_at = now()
             WHERE thread_id = $3 AND status = 'busy'
           )
           SELECT next.* FROM (SELECT 1) one LEFT JOIN next ON true`,
          [args.owner, args.handoff?.leaseSeconds ?? 0, args.threadId, args.status, args.stateHasInterrupts, Boolean(args.handoff)],
        );
        const row = rows[0];
        return row && row.run_id !== null ? claimedFrom(row) : undefined;
      });
    } catch (err) {
      // another worker claimed the thread's head meanwhile: it is running, nothing to settle
      if (isUniqueViolation(err)) return undefined;
      throw err;
    }
  }

  /**
   * Count an attempt: the worker holding the run's lease starts executing it. Returns the run's
   * attempt number, or undefined when the lease is no longer this worker's (it must not execute).
   */
  async begin(runId: string, owner: string): Promise<number | undefined> {
    const { rows } = await this.pool.query<{ attempt: number }>(
      this.q(
        "begin",
        `UPDATE runs SET attempt = attempt + 1
         WHERE run_id = $1 AND lease_owner = $2 AND status = 'running'
         RETURNING attempt`,
        [runId, owner],
      ),
    );
    return rows[0]?.attempt;
  }

  /**
   * Give a run back to the queue (worker shutting down). The attempt it had begun is not counted:
   * the worker stopped it, the run did nothing wrong.
   */
  async release(runId: string, owner: string, begun: boolean): Promise<void> {
    await this.pool.query(
      `UPDATE runs SET status = 'pending', attempt = attempt - $3::int, lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
       WHERE run_id = $1 AND lease_owner = $2 AND status = 'running'`,
      [runId, owner, begun ? 1 : 0],
    );
  }

  /** Delete a rolled-back run and the checkpoints it wrote. */
  async rollback(runId: string, threadId: string, startCheckpointId: string): Promise<void> {
    await withTransaction(this.pool, async (c) => {
      await c.query("DELETE FROM runs WHERE run_id = $1", [runId]);
      // checkpoint ids are time-ordered (uuid6): everything newer than the start was written by this run
      await c.query("DELETE FROM checkpoint_writes WHERE thread_id = $1 AND checkpoint_id > $2", [threadId, startCheckpointId]);
      await c.query("DELETE FROM checkpoints WHERE thread_id = $1 AND checkpoint_id > $2", [threadId, startCheckpointId]);
      // Drop the channel values no remaining checkpoint refers to. (With plain counter versions the
      // next run would even read them back; BerthPostgresSaver's versions cannot collide, so this
      // is now only reclaiming space.)
      await c.query(
        `DELETE FROM checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
           SELECT 1 FROM checkpoints k WHERE k.thread_id = b.thread_id AND k.checkpoint_ns = b.checkpoint_ns
             AND k.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
        [threadId],
      );
    });
    await this.refreshThreadStatus(threadId);
  }

  /** Recompute a thread's status from its runs (after a run disappeared). */
  async refreshThreadStatus(threadId: string): Promise<void> {
    await this.pool.query(
      `UPDATE threads SET status = CASE
         WHEN EXISTS (SELECT 1 FROM runs WHERE thread_id = $1 AND status IN ('pending', 'running')) THEN 'busy'
         WHEN status = 'busy' THEN CASE WHEN interrupts <> '{}'::jsonb THEN 'interrupted' ELSE 'idle' END
         ELSE status END, updated_at = now()
       WHERE thread_id = $1`,
      [threadId],
    );
  }

  /** Cancel a pending run without a worker: interrupt marks it, rollback deletes it. */
  async cancelPending(runId: string, action: "interrupt" | "rollback"): Promise<boolean> {
    const { rows } =
      action === "rollback"
        ? await this.pool.query<{ thread_id: string }>("DELETE FROM runs WHERE run_id = $1 AND status = 'pending' RETURNING thread_id", [runId])
        : await this.pool.query<{ thread_id: string }>(
            "UPDATE runs SET status = 'interrupted', ended_at = now(), updated_at = now() WHERE run_id = $1 AND status = 'pending' RETURNING thread_id",
            [runId],
          );
    if (rows[0]) await this.refreshThreadStatus(rows[0].thread_id);
    return rows.length > 0;
  }

  async requestCancel(runId: string, action: "interrupt" | "rollback"): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      "UPDATE runs SET cancel_action = $2, updated_at = now() WHERE run_id = $1 AND status = 'running'",
      [runId, action],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Runs whose worker stopped renewing its lease: back to pending while attempts remain, otherwise
   * failed with a clear error. Returns what was done, for logging and wake-ups.
   *
   * `attempt` counts executions that began (`begin`), so a worker lost between claiming a run and
   * starting it costs the run nothing; a run fails here only after `max_attempts` executions each
   * ended with their worker gone.
   */
  async sweepExpiredLeases(): Promise<{ requeued: string[]; failed: { run_id: string; thread_id: string }[] }> {
    return withTransaction(this.pool, async (c) => {
      // The sweep reads one_running_run_per_thread, whose entries outlive their runs: a run that
      // ends leaves its entry until VACUUM, or until a plain index scan finds it dead and marks
      // it so (every later scan, bitmap ones too, then skips it). A bitmap scan never marks, and
      // it is what Postgres picks here on a table without statistics (a new deployment, an
      // autovacuum that is behind): each sweep, on every worker, then read every run that ran
      // since the last VACUUM (in CI once: ~1,500 entries a sweep, for 2 running runs). With
      // bitmap and sequential scans off for this transaction, the sweep walks the index itself
      // and marks what it passes, so it reads the running runs and those that ended since the
      // previous sweep; the heartbeat's bitmap plans then skip the marked entries too.
      await c.query("SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)");
      const { rows } = await c.query<{ run_id: string; thread_id: string; attempt: number; max_attempts: number }>(
        `SELECT run_id, thread_id, attempt, max_attempts FROM runs
         WHERE status = 'running' AND lease_expires_at < now() FOR UPDATE SKIP LOCKED`,
      );
      const requeued = rows.filter((r) => r.attempt < r.max_attempts).map((r) => r.run_id);
      const failed = rows.filter((r) => r.attempt >= r.max_attempts);
      if (requeued.length) {
        await c.query(
          "UPDATE runs SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, updated_at = now() WHERE run_id = ANY($1::uuid[])",
          [requeued],
        );
      }
      for (const r of failed) {
        const error = {
          error: "RunAttemptsExceeded",
          message: `Run ${r.run_id} was attempted ${r.attempt} times (the maximum) and its worker stopped responding each time`,
        };
        await c.query(
          `UPDATE runs SET status = 'error', error = $2, lease_owner = NULL, lease_expires_at = NULL, ended_at = now(), updated_at = now()
           WHERE run_id = $1`,
          [r.run_id, JSON.stringify(error)],
        );
        await c.query(
          `UPDATE threads SET status = CASE WHEN EXISTS (SELECT 1 FROM runs WHERE thread_id = $1 AND status IN ('pending','running'))
             THEN 'busy' ELSE 'error' END, error = $2, updated_at = now() WHERE thread_id = $1`,
          [r.thread_id, JSON.stringify(error)],
        );
      }
      return { requeued, failed: failed.map((f) => ({ run_id: f.run_id, thread_id: f.thread_id })) };
    });
  }

  async runError(runId: string): Promise<unknown> {
    const { rows } = await this.pool.query<{ error: unknown }>("SELECT error FROM runs WHERE run_id = $1", [runId]);
    return rows[0]?.error ?? null;
  }

  async markWebhookSent(runId: string): Promise<void> {
    await this.pool.query("UPDATE runs SET webhook_sent_at = now() WHERE run_id = $1", [runId]);
  }

  /** Remove old events of finished runs and finished temporary threads. */
  async vacuum(eventTtlSeconds: number): Promise<void> {
    await this.pool.query(
      `DELETE FROM run_events e USING runs r
       WHERE e.run_id = r.run_id AND r.ended_at < now() - make_interval(secs => $1)`,
      [eventTtlSeconds],
    );
  }
}

export { isUniqueViolation };

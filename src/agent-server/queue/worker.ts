/**
 * The queue worker: claims runs from Postgres and executes up to `jobsPerWorker` of them at once.
 *
 * Pick-up is event-driven: a bus "wake" (run created, run finished, lease swept) or a local run
 * ending makes the loop claim; a timer covers runs delayed with `after_seconds`, and a slow safety
 * poll covers lost bus messages. Each running run holds a lease renewed by a heartbeat; a worker
 * that dies stops renewing, and the sweeper (any worker) gives the run to another worker, which
 * resumes it from its last checkpoint (runs/resume.ts decides whether the run had in fact finished).
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { AgentServerContext } from "../context.js";
import { type CancelMessage, type DoneMessage } from "../runs/channels.js";
import { executeRun, type ExecutionSummary } from "../runs/execute.js";
import { runStatusFor, withInterrupts, type ExecutionOutcome } from "../runs/rules.js";
import { sendRunWebhook } from "../runs/webhooks.js";
import { serializeError, toPlain, toWireJson } from "../serde.js";
import type { ClaimedRun } from "../storage/runs.js";
import { RunEmitter } from "./emitter.js";
import { BerthPostgresSaver, type WriteFence } from "../checkpointer.js";
import type { TakenWrites } from "../checkpoint-write-behind.js";
import { planExecution } from "../runs/resume.js";
import { isConnectionLoss, poolPort, socketFailure } from "../../shared/db/connection-errors.js";
import { timeline } from "./timeline.js";

type AbortReason = "interrupt" | "rollback" | "timeout" | "shutdown" | "lease-lost";

interface ActiveRun {
  run: ClaimedRun;
  controller: AbortController;
  finished: Promise<void>;
  /** When the database last confirmed this worker holds the run's lease (claim or heartbeat). */
  leaseConfirmedAt: number;
}

/** How long shutdown waits for aborted runs to hand themselves back. */
const ABORT_DEADLINE_MS = 10_000;

export class QueueWorker {
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly active = new Map<string, ActiveRun>();
  private stopping = false;
  private kicked = false;
  private wakeResolve?: () => void;
  private loopDone?: Promise<void>;
  private heartbeatTimer?: NodeJS.Timeout;
  private sweepTimer?: NodeJS.Timeout;
  private unsubscribes: (() => Promise<void>)[] = [];

  private readonly endedListeners: ((run: ClaimedRun) => void)[] = [];
  /** Slots promised to runs being created in this process (see `reserve`). */
  private reserved = 0;
  /** Waiters in this process for the end of a run this worker executes (see `whenEnded`). */
  private readonly doneWaiters = new Map<string, ((m: DoneMessage | undefined) => void)[]>();
  /** Waiters in this process for the end of a run, should this worker end it (see `whenEndsHere`). */
  private readonly endWatchers = new Map<string, Set<{ threadId?: string; resolve: (m: DoneMessage) => void }>>();

  constructor(private readonly ctx: AgentServerContext) {}

  /** Be told when a run this worker executed has ended (after its end is committed and announced). */
  onRunEnded(listener: (run: ClaimedRun) => void): void {
    this.endedListeners.push(listener);
  }

  private ended(run: ClaimedRun): void {
    for (const l of this.endedListeners) {
      try {
        l(run);
      } catch (err) {
        this.ctx.logger.warn({ err, run_id: run.run_id }, "run-ended listener failed");
      }
    }
  }

  get activeCount(): number {
    return this.active.size;
  }

  /** Whether this worker has nothing to do: no run executing, none being created for it. */
  get idle(): boolean {
    return this.active.size + this.reserved === 0;
  }

  /** When this worker last had runs queued behind it (a create found it full, a claim filled it). */
  private fullAt = 0;

  /**
   * Whether runs have been queueing behind this worker lately (within a second): a run not
   * executing here is then most likely waiting for a slot, even when one has just freed (the next
   * claim fills it within milliseconds).
   */
  get backlogged(): boolean {
    return performance.now() - this.fullAt < 1000;
  }

  /** Whether this worker would take a runnable run now (it has a slot free). */
  get hasFreeSlot(): boolean {
    return !this.stopping && this.active.size + this.reserved < this.ctx.settings.jobsPerWorker;
  }

  /**
   * A slot for a run this process is creating: the insert may claim it for this worker at once
   * (storage/runs.ts `startFor`), saving the wake-up and the claim round trip. Give the slot back
   * with `adopt` (the run was started) or `unreserve` (it was queued, or creating it failed).
   */
  reserve(): { owner: string; leaseSeconds: number } | undefined {
    if (this.stopping) return undefined;
    if (this.active.size + this.reserved >= this.ctx.settings.jobsPerWorker) {
      // (slots merely promised to creates under way are not runs queueing: many runs created at
      // once on one thread take them, and only the first runs)
      if (this.active.size >= this.ctx.settings.jobsPerWorker) this.fullAt = performance.now();
      return undefined;
    }
    this.reserved++;
    return { owner: this.owner, leaseSeconds: this.ctx.settings.runLeaseSeconds };
  }

  unreserve(): void {
    this.reserved--;
  }

  /** Execute a run the insert claimed for this worker (after `reserve`). */
  adopt(run: ClaimedRun): void {
    this.reserved--;
    void this.startHandedOver(run);
  }

  /**
   * The end of a run this worker is executing, for a reader in this process (join, wait): the done
   * message as soon as the run's end is committed, without a bus subscription or a look at the
   * database. Undefined when the run is not executing here (or not on `threadId`); resolves to
   * undefined when the run leaves this worker without ending here (handed back, lease lost): the
   * reader then waits the general way.
   */
  whenEnded(runId: string, threadId?: string): Promise<DoneMessage | undefined> | undefined {
    const entry = this.active.get(runId);
    if (!entry || (threadId !== undefined && entry.run.thread_id !== threadId)) return undefined;
    return new Promise((resolve) => {
      const list = this.doneWaiters.get(runId) ?? [];
      list.push(resolve);
      this.doneWaiters.set(runId, list);
    });
  }

  /**
   * Be told the end of a run (on `threadId`) if this worker ends it, whether it is executing here
   * now or not yet: a reader of a run queued behind this worker's full slots gets the done message
   * from here, as `whenEnded` gives it, when this worker is the one that runs it (the reader still
   * needs the bus for the case another process does). A run that leaves this worker without ending
   * keeps its watchers (it may come back). Returns the function that stops watching.
   */
  whenEndsHere(runId: string, threadId: string | undefined, resolve: (m: DoneMessage) => void): () => void {
    const watcher = { threadId, resolve };
    let set = this.endWatchers.get(runId);
    if (!set) this.endWatchers.set(runId, (set = new Set()));
    set.add(watcher);
    return () => {
      const s = this.endWatchers.get(runId);
      if (s?.delete(watcher) && s.size === 0) this.endWatchers.delete(runId);
    };
  }

  private settleWaiters(runId: string, message: DoneMessage | undefined, threadId?: string): void {
    const watchers = message ? this.endWatchers.get(runId) : undefined;
    if (watchers) {
      this.endWatchers.delete(runId);
      for (const w of watchers) if (w.threadId === undefined || w.threadId === threadId) w.resolve({ ...message! });
    }
    const list = this.doneWaiters.get(runId);
    if (!list) return;
    this.doneWaiters.delete(runId);
    for (const resolve of list) resolve(message);
  }

  async start(): Promise<void> {
    const { bus, channels, settings } = this.ctx;
    if (this.ctx.checkpointer instanceof BerthPostgresSaver) this.ctx.checkpointer.setWriteFence(this.fence);
    this.unsubscribes.push(await bus.subscribe(channels.wake, () => this.kick()));
    this.unsubscribes.push(
      await bus.subscribe(channels.cancel, (raw) => {
        const msg = JSON.parse(raw) as CancelMessage;
        this.abort(msg.run_id, msg.action);
      }),
    );
    const heartbeatMs = Math.max(100, (settings.runLeaseSeconds * 1000) / 3);
    this.heartbeatTimer = setInterval(() => void this.heartbeat(), heartbeatMs).unref();
    this.sweepTimer = setInterval(() => void this.sweep(), Math.max(200, (settings.runLeaseSeconds * 1000) / 2)).unref();
    await this.sweep();
    this.loopDone = this.loop();
  }

  /** Ask the loop to try claiming now. */
  kick(): void {
    this.kicked = true;
    this.wakeResolve?.();
  }

  private abort(runId: string, reason: AbortReason): void {
    const a = this.active.get(runId);
    if (a && !a.controller.signal.aborted) a.controller.abort(reason);
  }

  private async loop(): Promise<void> {
    const { runs, settings, logger } = this.ctx;
    while (!this.stopping) {
      this.kicked = false;
      let claimedAny = false;
      try {
        // One claim per wake-up, for every free slot; claim again only if all slots were filled.
        while (!this.stopping && this.active.size + this.reserved < settings.jobsPerWorker) {
          const free = settings.jobsPerWorker - this.active.size - this.reserved;
          const claimed = await runs.claim(this.owner, settings.runLeaseSeconds, free);
          for (const run of claimed) this.startRun(run);
          claimedAny ||= claimed.length > 0;
          if (claimed.length < free) break;
          this.fullAt = performance.now();
        }
      } catch (err) {
        logger.error({ err }, "claiming runs failed; retrying");
        await sleep(1000);
        continue;
      }
      if (this.stopping || this.kicked) continue;
      let delay = settings.queuePollSeconds * 1000;
      if (!claimedAny && this.active.size < settings.jobsPerWorker) {
        const next = await runs.nextAvailableAt().catch(() => undefined);
        if (next) delay = Math.min(delay, Math.max(0, next.getTime() - Date.now()) + 5);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wakeResolve = () => {
          clearTimeout(t);
          resolve();
        };
        if (this.kicked || this.stopping) this.wakeResolve();
      });
      this.wakeResolve = undefined;
    }
  }

  private startRun(run: ClaimedRun): void {
    const { settings } = this.ctx;
    const controller = new AbortController();
    timeline?.mark(run.run_id, "started");
    const entry: ActiveRun = { run, controller, finished: Promise.resolve(), leaseConfirmedAt: Date.now() };
    this.active.set(run.run_id, entry);
    entry.finished = this.execute(run, controller)
      .catch((err) => this.ctx.logger.error({ err, run_id: run.run_id }, "run bookkeeping failed"))
      .finally(() => {
        this.active.delete(run.run_id);
        this.settleWaiters(run.run_id, undefined);
        // the thread's checkpoint stays in memory only while a run of it executes here (the next, handed over)
        const { checkpointer } = this.ctx;
        if (checkpointer instanceof BerthPostgresSaver) {
          // (writes still held back here mean the run's bookkeeping failed: it resumes from what was committed)
          checkpointer.abandonHeldWrites(run.thread_id, run.run_id);
          if (![...this.active.values()].some((a) => a.run.thread_id === run.thread_id)) checkpointer.releaseLatest(run.thread_id);
        }
        if (this.stopping) return;
        // A run that ends with work pending publishes a wake-up, but this worker hears it before the
        // run leaves `active`; if the worker was full, it would skip that wake-up, so claim now.
        if (this.active.size === settings.jobsPerWorker - 1) this.kick();
      });
  }

  private async execute(run: ClaimedRun, controller: AbortController): Promise<void> {
    const { ctx } = this;
    const { logger, settings } = ctx;
    const log = logger.child({ run_id: run.run_id, thread_id: run.thread_id, attempt: run.attempt });
    log.debug("run claimed");
    // An earlier attempt executed (attempts counted before this one) and may have announced events it never stored.
    const earlierAttempts = run.begun ? run.attempt - 1 : run.attempt;
    const emitter = new RunEmitter(run.run_id, ctx.events, ctx.bus, ctx.channels, run.last_event_seq + 1, { retried: earlierAttempts > 0 });
    const timeout = setTimeout(() => controller.abort("timeout"), settings.runTimeoutSeconds * 1000);
    timeout.unref();
    // A cancel may have been requested between creation and claim.
    if (run.cancel_action === "interrupt" || run.cancel_action === "rollback") controller.abort(run.cancel_action);

    const graphId = String(run.kwargs.config.configurable.graph_id);
    let outcome: ExecutionOutcome;
    let graph;
    let summary: ExecutionSummary | undefined;
    /** Whether this execution was counted as an attempt (`runs.begin`). */
    let begun = false;
    /** The attempt being counted: settled before anything is recorded about the run. */
    let counting: Promise<number | undefined> | undefined;
    /** The checkpointer told this run's thread has no checkpoint yet, or which one is its newest. */
    let expectedEmpty: BerthPostgresSaver | undefined;
    let expectedLatest: BerthPostgresSaver | undefined;
    // The thread's newest checkpoint is kept in memory while its runs execute here: a run handed
    // over by the finish of the one before it starts from it without reading the database.
    if (ctx.checkpointer instanceof BerthPostgresSaver) ctx.checkpointer.holdLatest(run.thread_id);
    // Its checkpoint writes are held back briefly and committed together, the last with its end
    // (checkpoint-write-behind.ts), unless the run asked for each step to be stored before the next.
    const saver = ctx.checkpointer instanceof BerthPostgresSaver && run.kwargs.durability !== "sync" ? ctx.checkpointer : undefined;
    const holdsWrites = saver?.holdWrites(run.thread_id, run.run_id, this.owner) ?? false;
    try {
      graph = await ctx.registry.get(graphId, { configurable: run.kwargs.config.configurable });
      timeline?.mark(run.run_id, "graph-loaded");
      // Count the attempt now that execution starts: a claim lost before this point (the worker
      // died, or stalled loading the graph past its lease) costs the run nothing. The count is not
      // waited for before the graph starts (one round trip less per run): the lease was confirmed
      // by the claim just now, so it returns the next attempt number; should it find the lease
      // gone, the run is aborted, and the write fence already refuses checkpoint writes of a run
      // whose lease is in doubt.
      // (A run claimed by the statement that created it or handed it over was counted there.)
      if (run.begun) {
        begun = true;
        counting = Promise.resolve(run.attempt);
      } else {
        counting = ctx.runs.begin(run.run_id, this.owner).then((attempt) => {
          if (attempt === undefined) controller.abort("lease-lost");
          else begun = true;
          return attempt;
        });
        counting.catch(() => undefined); // awaited below; a failure is handled there
        run.attempt += 1;
      }
      // An earlier attempt (a crashed worker, or one that shut down and handed the run back) may
      // have got somewhere, or even finished the run.
      const { resume, done, why } = await planExecution(graph, ctx.checkpointer, run);
      timeline?.mark(run.run_id, "planned");
      if (resume) log.info({ checkpoint_id: run.own_checkpoint_id, done, why }, "resuming run from its last checkpoint");
      if (controller.signal.aborted) throw controller.signal.reason;
      log.debug({ resume }, "executing");
      // A first attempt on a thread its claim found without checkpoints starts from an empty
      // state: the graph's first read of the thread needs no round trip.
      const emptyThread = !resume && run.attempt === 1 && run.start_checkpoint_id === "" && !run.kwargs.checkpoint_id && !run.kwargs.checkpoint;
      if (emptyThread && ctx.checkpointer instanceof BerthPostgresSaver) {
        expectedEmpty = ctx.checkpointer;
        expectedEmpty.expectEmpty(run.thread_id);
      }
      // Likewise, the newest checkpoint its claim found is answered from memory when this process
      // wrote it (the run before on the thread executed here).
      const fromLatest = !resume && run.attempt === 1 && run.start_checkpoint_id !== "" && !run.kwargs.checkpoint_id && !run.kwargs.checkpoint;
      if (fromLatest && ctx.checkpointer instanceof BerthPostgresSaver) {
        expectedLatest = ctx.checkpointer;
        expectedLatest.expectLatest(run.thread_id, run.start_checkpoint_id);
      }
      if (!done) summary = await executeRun({ graph, run, resume, signal: controller.signal, emit: emitter.emit });
      timeline?.mark(run.run_id, "graph-ran");
      // (events still queued are stored with the run's end, below)
      await emitter.settle();
      timeline?.mark(run.run_id, "events-settled");
      if ((await counting) === undefined) throw controller.signal.reason;
      outcome = { kind: "completed" };
    } catch (err) {
      // whatever ended the execution, the attempt's count must be settled before it is recorded
      await counting?.catch(() => undefined);
      if (controller.signal.aborted) {
        outcome = { kind: "aborted", reason: controller.signal.reason as AbortReason };
      } else if (await this.databaseLost(err)) {
        outcome = { kind: "database-lost", error: err };
      } else {
        outcome = { kind: "failed", error: err };
        log.warn({ err }, "run failed");
      }
    } finally {
      clearTimeout(timeout);
      expectedEmpty?.forgetEmpty(run.thread_id);
      expectedLatest?.forgetLatest(run.thread_id);
    }

    // Outcomes recorded by the finish below, which commits the writes still held back with the run's
    // end. A run that does not end here keeps them only when it is handed back (shutdown).
    const endsHere =
      outcome.kind === "completed" || outcome.kind === "failed" || (outcome.kind === "aborted" && (outcome.reason === "interrupt" || outcome.reason === "timeout"));
    if (holdsWrites && !endsHere) await saver!.releaseHeldWrites(run.thread_id, outcome.kind === "aborted" && outcome.reason === "shutdown");

    if (outcome.kind === "database-lost") {
      // Nothing can be recorded while the database is away. Let go of the run: its lease lapses
      // and a worker (maybe this one) resumes it from its last checkpoint once the database is back.
      log.warn({ err: outcome.error }, "database connection lost during the run; it resumes once its lease lapses");
      return;
    }

    if (outcome.kind === "aborted" && outcome.reason === "shutdown") {
      await ctx.runs.release(run.run_id, this.owner, begun);
      await this.publishWake();
      log.info("run released for another worker (shutdown)");
      return;
    }
    if (outcome.kind === "aborted" && outcome.reason === "lease-lost") {
      log.warn("lease lost: another worker owns this run now");
      return;
    }
    if (outcome.kind === "aborted" && outcome.reason === "rollback") {
      await ctx.runs.rollback(run.run_id, run.thread_id, run.start_checkpoint_id);
      await emitter.done({ status: "rollback" }, (message) => this.settleWaiters(run.run_id, message, run.thread_id));
      await this.publishWake();
      log.info("run rolled back");
      this.ended(run);
      return;
    }

    log.debug({ outcome: outcome.kind }, "execution ended");
    let status = runStatusFor(outcome)!;
    let error: { error: string; message: string } | undefined;
    if (outcome.kind === "failed") error = serializeError(outcome.error);
    if (outcome.kind === "aborted" && outcome.reason === "timeout") {
      error = { error: "TimeoutError", message: `Run exceeded its time limit of ${settings.runTimeoutSeconds} s` };
    }
    if (error) await emitter.emit("error", error).catch(() => undefined);
    await emitter.settle().catch((err) => log.warn({ err }, "storing stream events failed"));

    // The thread's values as the API shows them, serialised once: the same text is stored by the
    // finish and is the output of the done message (the state of a long thread is large, and each
    // pass over it costs the server's one thread).
    let valuesJson: string | undefined;
    let interrupts: Record<string, unknown> | undefined;
    let hasNext = false;
    const k = run.kwargs;
    const streamedFinalState =
      outcome.kind === "completed" && summary?.lastValues !== undefined && !summary.sawInterrupt && !k.interrupt_before && !k.interrupt_after;
    if (streamedFinalState) {
      // The last values chunk of a run that completed without interrupts is its final state.
      valuesJson = summary!.lastValuesJson ?? toWireJson(summary!.lastValues);
      interrupts = {};
    } else if (graph) {
      try {
        const snapshot = await graph.getState({ configurable: { thread_id: run.thread_id, checkpoint_ns: "" } });
        valuesJson = toWireJson(snapshot.values ?? {});
        interrupts = Object.fromEntries(
          (snapshot.tasks ?? []).filter((t: any) => t.interrupts?.length).map((t: any) => [t.id, toPlain(t.interrupts)]),
        );
        hasNext = (snapshot.next ?? []).length > 0;
      } catch (err) {
        log.warn({ err }, "could not read the thread state after the run");
      }
    }
    // Checkpoint writes still held back are committed with the run's end (after the state was read
    // above: a read commits them first). One that failed to commit fails the run, as it would
    // have failed the graph; a lost database leaves the run to be resumed once its lease lapses.
    let checkpointWrites: TakenWrites | undefined;
    if (holdsWrites) {
      try {
        checkpointWrites = await saver!.takeHeldWrites(run.thread_id);
      } catch (err) {
        if (await this.databaseLost(err)) {
          log.warn({ err }, "database connection lost storing the run's checkpoints; it resumes once its lease lapses");
          return;
        }
        log.warn({ err }, "storing the run's checkpoints failed");
        status = "error";
        error = serializeError(err);
        valuesJson = undefined;
        interrupts = undefined;
        await emitter.emit("error", error).catch(() => undefined);
      }
    }
    // The last events are stored by the statement that ends the run.
    const events = await emitter.takeFinal();
    timeline?.mark(run.run_id, "final-taken");
    const owned = await ctx.runs.finish({
      runId: run.run_id,
      threadId: run.thread_id,
      owner: this.owner,
      status,
      error,
      threadValuesJson: valuesJson,
      threadInterrupts: interrupts,
      stateHasInterrupts: hasNext,
      // The thread's next run goes to this worker in the same round trip: the slot this run frees.
      handoff: this.stopping ? undefined : { leaseSeconds: settings.runLeaseSeconds },
      events,
      checkpoints: checkpointWrites,
    }).catch((err) => {
      emitter.finalWritten(events, false);
      throw err;
    });
    timeline?.mark(run.run_id, "finish-committed");
    if (owned) checkpointWrites?.committed();
    emitter.finalWritten(events, Boolean(owned));
    if (!owned) {
      log.warn("run finished but its lease had been taken over; result discarded");
      return;
    }
    if (owned.next) await this.startHandedOver(owned.next);
    await emitter.done(
      { status, output: valuesJson === undefined ? undefined : outputJson(valuesJson, interrupts), error },
      (message) => {
        timeline?.mark(run.run_id, "done-local");
        this.settleWaiters(run.run_id, message, run.thread_id);
      },
    );
    let wake = owned.morePending;
    if (owned.raced && !owned.next) {
      // A run may have been created behind this one after the finish's snapshot (its wake-up
      // could not start it: this run was still running): settle the thread now that both are
      // committed, and start that run here; wake the workers if that fails.
      const next = await ctx.runs
        .settleThread({
          threadId: run.thread_id,
          owner: this.owner,
          status,
          stateHasInterrupts: hasNext,
          handoff: this.stopping ? undefined : { leaseSeconds: settings.runLeaseSeconds },
        })
        .catch((err) => {
          log.warn({ err }, "settling the thread after a concurrent change failed");
          wake = true;
          return undefined;
        });
      if (next) await this.startHandedOver(next);
    }
    // Wake workers (here and elsewhere) only when runs are waiting, e.g. the next on this thread.
    if (wake) await this.publishWake();
    log.info({ status }, "run finished");
    this.ended(run);

    if (run.webhook && !ctx.config.raw.http?.disable_webhooks) {
      void sendRunWebhook(ctx, run, status, valuesJson === undefined ? undefined : JSON.parse(valuesJson), error);
    }
    if (run.kwargs.temporary && run.kwargs.on_completion !== "keep") {
      await ctx.threads.delete(run.thread_id).catch(() => undefined);
    }
  }

  /** Start the thread's next run, claimed as this one finished; give it back if shutting down meanwhile. */
  private async startHandedOver(next: ClaimedRun): Promise<void> {
    if (!this.stopping) {
      this.startRun(next);
      return;
    }
    await this.ctx.runs.release(next.run_id, this.owner, Boolean(next.begun)).catch(() => undefined);
    await this.publishWake();
  }

  private async publishWake(): Promise<void> {
    await this.ctx.bus.publish(this.ctx.channels.wake, "1").catch(() => undefined);
  }

  private async heartbeat(): Promise<void> {
    if (this.active.size === 0) return;
    const ids = [...this.active.keys()];
    try {
      const alive = await this.ctx.runs.heartbeat(ids, this.owner, this.ctx.settings.runLeaseSeconds);
      const now = Date.now();
      for (const id of ids) {
        const state = alive.get(id);
        const entry = this.active.get(id);
        if (state && entry) entry.leaseConfirmedAt = now;
        if (!state) {
          // Finished in the meantime, or our lease was taken over.
          const a = this.active.get(id);
          if (a && !(await this.stillOurs(id))) this.abort(id, "lease-lost");
          continue;
        }
        if (state.cancel === "interrupt" || state.cancel === "rollback") this.abort(id, state.cancel);
      }
    } catch (err) {
      this.ctx.logger.warn({ err }, "heartbeat failed");
    }
  }

  /**
   * Refuse checkpoint writes of a run whose lease this worker may have lost: when the lease has not
   * been confirmed for half its length (this process froze, or heartbeats failed), ask the
   * database before writing; if another worker owns the run now, stop this execution.
   */
  private readonly fence: WriteFence = async (config) => {
    const runId = config.configurable?.run_id;
    const entry = typeof runId === "string" ? this.active.get(runId) : undefined;
    if (!entry) return; // not a run this worker executes (e.g. a state update through the API)
    const halfLease = (this.ctx.settings.runLeaseSeconds * 1000) / 2;
    if (Date.now() - entry.leaseConfirmedAt < halfLease) return;
    if (await this.stillOurs(runId as string)) {
      entry.leaseConfirmedAt = Date.now();
      return;
    }
    this.abort(runId as string, "lease-lost");
    throw new Error(`run ${runId} is owned by another worker now: checkpoint write refused`);
  };

  /**
   * Whether a run failed because the database went away (a restart, a failover) rather than by
   * its own fault. A graph's own calls to other servers fail with the same socket errors, so a
   * socket error counts when it was our database's port that refused (or, when the error does not
   * say, when our database is unreachable now).
   */
  private async databaseLost(err: unknown): Promise<boolean> {
    if (isConnectionLoss(err)) return true;
    const failure = socketFailure(err);
    if (!failure) return false;
    const ours = poolPort(this.ctx.pool as never);
    if (failure.port !== undefined && ours !== undefined) return failure.port === ours;
    return this.unreachable();
  }

  private unreachable(): Promise<boolean> {
    return this.ctx.pool.query("SELECT 1").then(
      () => false,
      () => true,
    );
  }

  private async stillOurs(runId: string): Promise<boolean> {
    const { rows } = await this.ctx.pool.query("SELECT 1 FROM runs WHERE run_id = $1 AND lease_owner = $2", [runId, this.owner]);
    return rows.length > 0;
  }

  /** Re-queue runs whose worker died; fail those out of attempts. */
  async sweep(): Promise<void> {
    try {
      const { requeued, failed } = await this.ctx.runs.sweepExpiredLeases();
      if (requeued.length) this.ctx.logger.warn({ runs: requeued }, "re-queued runs whose worker stopped responding");
      for (const f of failed) {
        this.ctx.logger.error({ run_id: f.run_id }, "run failed: attempts exhausted");
        const last = await this.ctx.events.lastSeq(f.run_id);
        await this.ctx.bus.publish(
          this.ctx.channels.run(f.run_id),
          JSON.stringify({ type: "done", status: "error", last_seq: last, error: (await this.ctx.runs.runError(f.run_id)) as any }),
        );
      }
      if (requeued.length || failed.length) await this.publishWake();
    } catch (err) {
      this.ctx.logger.warn({ err }, "lease sweep failed");
    }
  }

  /**
   * Stop: no new claims; running runs get `graceSeconds` to finish, then are stopped and handed
   * back to the queue for another worker.
   */
  private stopped?: Promise<void>;

  stop(graceSeconds = this.ctx.settings.shutdownGraceSeconds): Promise<void> {
    this.stopped ??= this.drain(graceSeconds);
    return this.stopped;
  }

  private async drain(graceSeconds: number): Promise<void> {
    this.stopping = true;
    this.wakeResolve?.();
    clearInterval(this.sweepTimer);
    await this.loopDone;
    for (const u of this.unsubscribes) await u().catch(() => undefined);
    const all = () => Promise.all([...this.active.values()].map((a) => a.finished));
    const graceful = await Promise.race([all().then(() => true), sleep(graceSeconds * 1000).then(() => false)]);
    if (!graceful) {
      for (const id of this.active.keys()) this.abort(id, "shutdown");
      // A run stuck where the abort cannot reach it (a hung call in a node) must not keep the
      // process alive forever: give up after a while; its lease lapses and another worker resumes it.
      const handedBack = await Promise.race([all().then(() => true), sleep(ABORT_DEADLINE_MS).then(() => false)]);
      if (!handedBack) {
        this.ctx.logger.warn({ runs: [...this.active.keys()] }, "runs did not stop after abort; leaving them to lease expiry");
      }
    }
    // Leases are renewed until the last run has finished or been handed back.
    clearInterval(this.heartbeatTimer);
  }
}

/** A run's output (what /join and /wait answer): the thread's values, with its interrupts when it has any. */
function outputJson(valuesJson: string, interrupts: Record<string, unknown> | undefined): string {
  if (Object.values(interrupts ?? {}).flat().length === 0) return valuesJson;
  return toWireJson(withInterrupts(JSON.parse(valuesJson), interrupts));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

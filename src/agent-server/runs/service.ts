/**
 * Runs as the API sees them: creating (with the multitask decision), cancelling, waiting for the
 * end of a run, and reading its result. Shared by the HTTP routes, crons and A2A.
 */
import type pg from "pg";
import type { IncomingHttpHeaders } from "node:http";
import type { AgentServerContext } from "../context.js";
import type { RunCreate, StreamMode } from "../api/schemas.js";
import type { MultitaskStrategy } from "../../shared/config.js";
import { ApiError, NotFoundError } from "../../shared/errors.js";
import type { CancelMessage, DoneMessage, RunMessage } from "./channels.js";
import { isTerminal, withInterrupts } from "./rules.js";
import { toWireJson } from "../serde.js";
import { StaleAssistantError, type Run, type RunKwargs } from "../storage/runs.js";
import { AssistantCache } from "./assistant-cache.js";
import type { Assistant } from "../storage/assistants.js";
import { randomUUID } from "node:crypto";
import { authConfigurable, OPEN_AUTHZ, type Authz } from "../auth/access.js";
import type { QueueWorker } from "../queue/worker.js";
import { matchesAuthFilters } from "../auth/filters.js";
import type { AuthUser } from "../auth/types.js";
import { now, timeline } from "../queue/timeline.js";

/** Request headers copied into `config.configurable`, as the LangGraph servers do. */
const EXCLUDED_HEADERS = new Set(["x-api-key", "x-tenant-id", "x-service-key", "x-auth-scheme"]);
/** Credentials never go into a run's config (it is stored, traced and visible to the graph). */
const NEVER_COPIED = new Set(["x-api-key", "authorization", "cookie", "proxy-authorization", "x-service-key"]);

/** `http.configurable_headers` of langgraph.json: header-name patterns, `*` matching any run of characters. */
export interface HeaderRules {
  includes?: string[];
  excludes?: string[];
}

function matchesAny(name: string, patterns: string[] | undefined): boolean {
  return (patterns ?? []).some((p) => new RegExp(`^${p.toLowerCase().split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`).test(name));
}

/**
 * Which request headers a run's `configurable` gets: by default every `x-*` header (but keys and
 * tenant ids) and `user-agent`; with `includes`, only headers matching them; never those matching
 * `excludes`, nor credentials.
 */
export function headersToConfigurable(headers: IncomingHttpHeaders, rules: HeaderRules = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const n = name.toLowerCase();
    if (typeof value !== "string" || NEVER_COPIED.has(n) || matchesAny(n, rules.excludes)) continue;
    const wanted = rules.includes ? matchesAny(n, rules.includes) : (n.startsWith("x-") && !EXCLUDED_HEADERS.has(n)) || n === "user-agent";
    if (wanted) out[n] = value;
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The user a run acts for, where graphs read it (`config.configurable.langgraph_auth_user`…).
 * Whatever the request, the assistant or the client put under those keys is replaced or removed:
 * only the server says who the user is.
 */
export function withoutAuthKeys(configurable: Record<string, unknown>, user: AuthUser | undefined): Record<string, unknown> {
  const { langgraph_auth_user: _u, langgraph_auth_user_id: _i, langgraph_auth_permissions: _p, ...rest } = configurable;
  return { ...rest, ...authConfigurable(user) };
}

export interface RunResult {
  status: string;
  /** What `/wait` and `/join` answer: final values, or `{__error__}`. */
  body: unknown;
}

export class RunService {
  private readonly assistants: AssistantCache;
  /** This process's queue worker, if it has one: runs created here may start on it at once. */
  private worker?: QueueWorker;

  constructor(private readonly ctx: AgentServerContext) {
    this.assistants = new AssistantCache(ctx.assistants);
  }

  attachWorker(worker: QueueWorker): void {
    this.worker = worker;
  }

  /** Create a run on a thread (`threadId`) or a stateless one (`null`). */
  async create(
    threadId: string | null,
    body: RunCreate,
    headers: IncomingHttpHeaders = {},
    client?: pg.PoolClient,
    /** The assistant, when the caller has already looked it up. */
    resolved?: Assistant,
    /** The caller's authorisation (custom auth): `threads:create_run` and the user graphs see. */
    authz: Authz = OPEN_AUTHZ,
  ): Promise<Run> {
    // Inside a caller's transaction every query must use its client (PGlite runs one transaction at
    // a time), and such callers (crons) are rare: they read the assistant afresh. Others build the
    // run from the assistant kept in memory, which the insert checks is still current; when it is
    // not, the run is built again from a fresh read (custom auth's handler then sees it again).
    if (resolved || client) {
      return this.createFrom(resolved ?? (await this.ctx.assistants.get(body.assistant_id, client)), undefined, threadId, body, headers, client, authz);
    }
    for (let attempt = 1; ; attempt++) {
      const { assistant, rowVersion } = await this.assistants.get(body.assistant_id);
      try {
        return await this.createFrom(assistant, rowVersion, threadId, body, headers, undefined, authz);
      } catch (err) {
        if (!(err instanceof StaleAssistantError) || attempt >= 3) throw err;
        this.assistants.forget(assistant.assistant_id);
      }
    }
  }

  private async createFrom(
    assistant: Assistant,
    assistantRowVersion: string | undefined,
    threadId: string | null,
    body: RunCreate,
    headers: IncomingHttpHeaders,
    client: pg.PoolClient | undefined,
    authz: Authz,
  ): Promise<Run> {
    const { ctx } = this;
    const createIn = timeline ? now() : 0;
    if (!ctx.registry.has(assistant.graph_id)) {
      throw new ApiError(422, `assistant ${assistant.assistant_id} uses graph "${assistant.graph_id}", which this deployment does not have`);
    }
    const aConfig = (assistant.config ?? {}) as { configurable?: Record<string, unknown>; tags?: string[]; recursion_limit?: number };
    const streamMode = body.stream_mode === undefined ? ["values"] : Array.isArray(body.stream_mode) ? body.stream_mode : [body.stream_mode];
    const kwargs: RunKwargs = {
      input: body.input,
      command: body.command ?? null,
      config: {
        ...aConfig,
        ...body.config,
        tags: [...(aConfig.tags ?? []), ...(body.config?.tags ?? [])],
        configurable: withoutAuthKeys({
          ...(aConfig.configurable ?? {}),
          ...headersToConfigurable(headers, (ctx.config.raw.http?.configurable_headers ?? {}) as HeaderRules),
          ...(body.config?.configurable ?? {}),
        }, authz.user),
      },
      context: { ...assistant.context, ...(body.context ?? {}) },
      stream_mode: [...new Set(streamMode as StreamMode[])],
      subgraphs: body.stream_subgraphs ?? false,
      resumable: body.stream_resumable ?? false,
      interrupt_before: body.interrupt_before,
      interrupt_after: body.interrupt_after,
      checkpoint_id: body.checkpoint_id,
      checkpoint: body.checkpoint,
      durability: body.durability ?? (body.checkpoint_during === false ? "exit" : undefined),
      webhook: body.webhook,
      feedback_keys: body.feedback_keys,
      temporary: threadId === null,
      on_completion: body.on_completion,
    };
    const strategy: MultitaskStrategy = body.multitask_strategy ?? ctx.settings.defaultMultitaskStrategy;
    const ifNotExists = body.if_not_exists ?? "reject";
    const auth = await this.authorizeCreate(authz, threadId, assistant.assistant_id, strategy, ifNotExists, body, kwargs, client);
    // A free slot of this process's worker: the insert may claim the run for it (not inside a
    // caller's transaction, whose commit is not ours to wait for).
    const startFor = client ? undefined : this.worker?.reserve();
    let created;
    try {
      created = await ctx.runs.create(
        {
          threadId,
          assistantId: assistant.assistant_id,
          graphId: assistant.graph_id,
          kwargs,
          metadata: auth.metadata,
          strategy,
          ifNotExists,
          afterSeconds: body.after_seconds,
          maxAttempts: ctx.settings.maxAttempts,
          webhook: body.webhook,
          runId: auth.runId,
          newThreadMetadata: auth.newThreadMetadata,
          assistantRowVersion,
          startFor,
        },
        client,
      );
    } catch (err) {
      if (startFor) this.worker!.unreserve();
      throw err;
    }
    if (timeline) {
      timeline.mark(created.run.run_id, "create-in", createIn);
      timeline.mark(created.run.run_id, "inserted");
    }
    if (startFor) {
      if (created.started) this.worker!.adopt(created.started);
      else this.worker!.unreserve();
    }
    // a run started at once needs no wake-up, nor one the end of the run before it starts
    if (!client) await this.afterCommit(created.cancelled, !created.started && !created.handedOver);
    timeline?.mark(created.run.run_id, "create-answered");
    return created.run;
  }

  /**
   * `threads:create_run`, as the platform runs it: the handler sees the run (and may stamp its
   * metadata); an existing thread whose metadata fails its filters is "not found"; a thread the
   * run creates (stateless, if_not_exists=create) carries the stamped metadata, so its owner can
   * read the run back.
   */
  private async authorizeCreate(
    authz: Authz,
    threadId: string | null,
    assistantId: string,
    strategy: MultitaskStrategy,
    ifNotExists: "reject" | "create",
    body: RunCreate,
    kwargs: RunKwargs,
    client?: pg.PoolClient,
  ): Promise<{ metadata: Record<string, unknown>; runId?: string; newThreadMetadata?: Record<string, unknown> }> {
    if (!authz.active) return { metadata: body.metadata ?? {} };
    const runId = randomUUID();
    const value: Record<string, unknown> = {
      thread_id: threadId ?? undefined,
      assistant_id: assistantId,
      run_id: runId,
      status: "pending",
      metadata: { ...(body.metadata ?? {}) },
      prevent_insert_if_inflight: strategy === "reject",
      multitask_strategy: strategy,
      if_not_exists: ifNotExists,
      after_seconds: body.after_seconds ?? 0,
      kwargs,
    };
    const filters = await authz.check("threads", "create_run", value);
    const metadata = isRecord(value.metadata) ? value.metadata : {};
    if (filters && threadId) {
      const thread = await this.ctx.threads.find(threadId, client);
      if (thread && !matchesAuthFilters(thread.metadata, filters)) throw new NotFoundError(`Thread with ID ${threadId} not found`);
    }
    return { metadata, runId, newThreadMetadata: metadata };
  }

  /** Signals to send once a run creation is committed: displaced runs, and a worker wake-up. */
  async afterCommit(cancelled: CancelMessage[], wake = true): Promise<void> {
    const { bus, channels } = this.ctx;
    for (const c of cancelled) await bus.publish(channels.cancel, JSON.stringify(c)).catch(() => undefined);
    if (wake) await bus.publish(channels.wake, "1").catch(() => undefined);
  }

  /**
   * Cancel a run. A pending run is settled here; a running one is signalled to its worker, and
   * with `wait` we return once it has stopped.
   */
  async cancel(threadId: string | null, runId: string, action: "interrupt" | "rollback", wait: boolean): Promise<void> {
    const run = await this.ctx.runs.get(threadId, runId);
    if (isTerminal(run.status)) {
      if (action === "rollback") throw new ApiError(409, `Run ${runId} has already finished (${run.status}) and cannot be rolled back`);
      return;
    }
    if (run.status === "pending" && (await this.ctx.runs.cancelPending(runId, action))) {
      await this.publishDone(runId, action === "rollback" ? "rollback" : "interrupted");
      return;
    }
    const waiting = wait ? this.waitForDone(runId) : undefined;
    if (await this.ctx.runs.requestCancel(runId, action)) {
      await this.ctx.bus.publish(this.ctx.channels.cancel, JSON.stringify({ run_id: runId, action } satisfies CancelMessage));
    }
    if (waiting) await waiting;
  }

  private async publishDone(runId: string, status: string): Promise<void> {
    const last = await this.ctx.events.lastSeq(runId);
    const msg: DoneMessage = { type: "done", status, last_seq: last };
    await this.ctx.bus.publish(this.ctx.channels.run(runId), JSON.stringify(msg)).catch(() => undefined);
  }

  /**
   * Resolve when the run has ended: on its done message, or when a poll finds it finished (or
   * gone). Subscribes before looking, so the end cannot slip between the two. With `threadId`,
   * the run must be on that thread (NotFoundError otherwise).
   */
  waitForDone(runId: string, signal?: AbortSignal, opts: { threadId?: string } = {}): Promise<DoneMessage> {
    // (not async: untraced, the caller gets the wait itself, without a promise hop more)
    const t = timeline;
    if (!t) return this.waitForDoneUntimed(runId, signal, opts);
    t.mark(runId, "join-in");
    return this.waitForDoneUntimed(runId, signal, opts).then((done) => {
      t.mark(runId, "join-done");
      return done;
    });
  }

  private async waitForDoneUntimed(runId: string, signal?: AbortSignal, opts: { threadId?: string } = {}): Promise<DoneMessage> {
    // A run executing in this process: its worker says when it ends, no subscription or query needed.
    const local = this.worker?.whenEnded(runId, opts.threadId);
    if (local) {
      const aborted = new Promise<DoneMessage>((resolve) => {
        const onAbort = () => resolve({ type: "done", status: "aborted", last_seq: -1 });
        if (signal?.aborted) onAbort();
        signal?.addEventListener("abort", onAbort, { once: true });
        void local.finally(() => signal?.removeEventListener("abort", onAbort));
      });
      const message = await Promise.race([local, aborted]);
      if (message) return message;
      // the run left this worker without ending here: wait the general way
    }
    const { bus, channels, runs, settings } = this.ctx;
    // A join names its thread, and may be of a run that has ended (an old run, or one the worker
    // got through before its client asked): one look answers it (and 404s a run not on the
    // thread) before any subscription. A run still going is looked at again once subscribed, so
    // its end cannot slip between the look and the subscription: a query more per join. Whether
    // to look first is a bet on which is more likely (see `looksFirst`).
    let looked = false;
    if (opts.threadId && this.looksFirst()) {
      const ended = await runs.endState(runId, opts.threadId);
      if (!ended) throw new NotFoundError(`Run ${runId} not found`);
      if (isTerminal(ended.status)) return endedMessage(ended);
      looked = true;
    }
    let finish!: (m: DoneMessage) => void;
    const done = new Promise<DoneMessage>((r) => (finish = r));
    // The run may be queued behind this process's worker: if that worker ends it, it says so here
    // at once (the bus covers another process ending it).
    const stopWatching = this.worker?.whenEndsHere(runId, opts.threadId, (m) => finish(m));
    let unsubscribe: () => Promise<void>;
    try {
      unsubscribe = await bus.subscribe(channels.run(runId), (raw) => {
        const msg = JSON.parse(raw) as RunMessage;
        if (msg.type === "done") finish(msg);
      });
    } catch (err) {
      stopWatching?.();
      throw err;
    }
    /** Whether the run is yet to be looked up (a look before the subscription counts). */
    let first = !looked;
    const check = async () => {
      let ended;
      try {
        ended = await runs.endState(runId, opts.threadId);
      } catch (err) {
        if (first && opts.threadId) throw err;
        // A failed look-up says nothing about the run: keep waiting, the next poll retries.
        this.ctx.logger.warn({ err, run_id: runId }, "checking a run's status failed");
        return;
      }
      // With `threadId`, the first look doubles as the run's look-up (404 when not on that thread).
      if (!ended && first && opts.threadId) throw new NotFoundError(`Run ${runId} not found`);
      if (!ended) finish({ type: "done", status: "rollback", last_seq: -1 });
      else if (isTerminal(ended.status)) finish(endedMessage(ended));
    };
    const poll = setInterval(() => void check(), Math.min(2000, settings.heartbeatSeconds * 1000));
    const onAbort = () => finish({ type: "done", status: "aborted", last_seq: -1 });
    signal?.addEventListener("abort", onAbort);
    try {
      await check();
      first = false;
      return await done;
    } finally {
      first = false;
      stopWatching?.();
      clearInterval(poll);
      signal?.removeEventListener("abort", onAbort);
      // Not waited for: the answer need not wait for the bus to confirm (a Redis round trip).
      void unsubscribe().catch(() => undefined);
    }
  }

  /**
   * Whether a join of a run not executing here looks at the run before subscribing to its
   * channel. The look pays when the run has ended (no subscription at all) and costs a query more
   * when it has not (the look, then the check once subscribed). At c=50 on Postgres + Redis, with
   * the look whenever the worker had a free slot, 333 of 405 looks found the run still pending (a
   * slot frees for a moment before the next claim fills it), while a query costs several times a
   * Redis SUBSCRIBE + UNSUBSCRIBE (~0.3 ms with the Postgres backend's, against ~0.04 ms). So with
   * Redis, not while runs queue behind this worker (`backlogged`); runs enqueued on one thread,
   * joined one after another, do not fill it and are mostly found ended. With the in-process bus
   * never (a subscription costs nothing); with LISTEN/NOTIFY, whose subscriptions are statements
   * themselves, when the worker has a free slot; without a worker (an API process), always.
   */
  private looksFirst(): boolean {
    const kind = this.ctx.bus.kind;
    if (kind === "memory") return false;
    const w = this.worker;
    if (!w) return true;
    return kind === "redis" ? w.idle || (w.hasFreeSlot && !w.backlogged) : w.hasFreeSlot;
  }

  /** The answer of `/wait` and `/join` for an ended run. */
  async result(run: Pick<Run, "run_id" | "thread_id">, done: DoneMessage): Promise<RunResult> {
    if (done.status === "error" || done.status === "timeout") {
      const error = done.error ?? ((await this.ctx.runs.runError(run.run_id)) as { error: string; message: string } | null);
      return { status: done.status, body: { __error__: error ?? { error: "Error", message: `run ended with status ${done.status}` } } };
    }
    if (done.output !== undefined) return { status: done.status, body: JSON.parse(done.output) };
    const thread = await this.ctx.threads.find(run.thread_id);
    return { status: done.status, body: thread ? withInterrupts(thread.values ?? null, thread.interrupts) : null };
  }

  /**
   * `result`'s body as the JSON text to answer. A run that ended with an output carries it as text
   * (serialised once, when it ended): it is answered as it is, not parsed to be serialised again.
   */
  async resultJson(run: Pick<Run, "run_id" | "thread_id">, done: DoneMessage): Promise<string> {
    if (done.output !== undefined && done.status !== "error" && done.status !== "timeout") return done.output;
    return JSON.stringify((await this.result(run, done)).body ?? null);
  }

  /** Ensure a run exists (404 otherwise) and belongs to the thread. */
  async get(threadId: string | null, runId: string): Promise<Run> {
    const run = await this.ctx.runs.get(threadId, runId);
    if (threadId && run.thread_id !== threadId) throw new NotFoundError(`Run ${runId} not found`);
    return run;
  }
}

/** The done message of a run found ended: the thread's values come with its status, so the answer needs no further query. */
function endedMessage(ended: { status: string; values: unknown; interrupts: Record<string, unknown> | null }): DoneMessage {
  const output = ended.values === null ? undefined : toWireJson(withInterrupts(ended.values, ended.interrupts ?? undefined));
  return { type: "done", status: ended.status, last_seq: -1, output };
}

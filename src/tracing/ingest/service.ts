/**
 * Ingestion: a batch of posts and patches → merged, accounted run rows, their attachments and the
 * rollup deltas, in one transaction. Runs of one id are serialised with transaction-scoped
 * advisory locks, so a post and a patch uploaded at the same moment by concurrent requests still
 * merge. A bad run is reported and skipped; the rest of the batch is stored.
 */
import type pg from "pg";
import { withTransaction, type Queryable } from "../../shared/db/index.js";
import type { Logger } from "../../shared/logging.js";
import { accountRun } from "../accounting/account.js";
import { identifyModel } from "../accounting/model.js";
import { metadataOf, type RunRecord } from "../run.js";
import { combineDeltas, contribution, type RollupDelta } from "../rollups/contribution.js";
import { applyRollupDeltas } from "../storage/rollups.js";
import { DEFAULT_PROJECT, type ProjectStore } from "../storage/projects.js";
import { choosePrices, type PriceStore } from "../storage/prices.js";
import type { ModelPrice } from "../accounting/cost.js";
import { clientFieldsOf, rowToRecord, selectRuns, writeRuns, type RunRow } from "../storage/runs.js";
import { cleanRun, deriveTree, ignoredByPost, mergeRun, statusOf, type OpKind } from "./merge.js";
import { isAbandoned } from "./abandon.js";
import { lockRuns } from "./locks.js";
import { preparePayload, type ExtractedAttachment, type PayloadLimits } from "./payload.js";
import { indexable, MAX_RUN_DEPTH, storableRun, tokenCount } from "./storable.js";
import { isDataError, savepoint } from "../storage/savepoint.js";
import { epochMicros, normalizeTimestamp } from "./timestamps.js";
import { isUuid } from "../../shared/http.js";
import { fillDottedOrders } from "../otlp/tree.js";
import { replaceUnstorable } from "../../shared/text.js";

export interface IngestOp {
  kind: OpKind;
  /** The run as sent (JSON). */
  raw: unknown;
  /** The id from the multipart part name, when the body lacks one. */
  idHint?: string;
}

/** Where a scoped key's runs go: only this project (by name) of the tenant. */
export interface IngestScope {
  project: string;
}

export interface IngestAttachment extends ExtractedAttachment {
  runId: string;
}

export interface IngestResult {
  accepted: number;
  errors: { run_id?: string; error: string }[];
  warnings: { run_id: string; problems: string[] }[];
}

const PAYLOAD_FIELDS = ["inputs", "outputs", "extra", "serialized", "events"] as const;

export class IngestService {
  constructor(
    private readonly pool: pg.Pool,
    private readonly projects: ProjectStore,
    private readonly prices: PriceStore,
    private readonly limits: PayloadLimits,
    private readonly logger: Logger,
  ) {}

  /**
   * Store runs of a tenant. With `scope` (a deployment's tracing key) every run goes into that one
   * project: a run naming another project, or updating a run stored in another, is refused.
   */
  async ingest(tenantId: string, ops: IngestOp[], uploaded: IngestAttachment[] = [], scope?: IngestScope): Promise<IngestResult> {
    let result: IngestResult;
    try {
      result = await this.ingestOnce(tenantId, ops, uploaded, scope);
    } catch (err) {
      // A project deleted by another process is still in this one's name cache: forget, retry once.
      if ((err as { code?: string }).code !== "23503") throw err;
      this.projects.forgetAll();
      result = await this.ingestOnce(tenantId, ops, uploaded, scope);
    }
    // the SDKs ignore response bodies: the server's log is where a refused run can be found
    for (const e of result.errors) this.logger.warn({ tenantId, runId: e.run_id }, `ingest: run not stored: ${e.error}`);
    return result;
  }

  private async ingestOnce(tenantId: string, ops: IngestOp[], uploaded: IngestAttachment[], scope: IngestScope | undefined): Promise<IngestResult> {
    const result: IngestResult = { accepted: 0, errors: [], warnings: [] };
    const byId = new Map<string, { kind: OpKind; run: RunRecord }[]>();
    const problems = new Map<string, string[]>();
    /** Warnings about the request, not the run (not stored with it). */
    const notices = new Map<string, string[]>();
    const attachments: IngestAttachment[] = [...uploaded];
    for (const op of ops) {
      try {
        // before anything reads it: strings Postgres cannot store, nesting nothing can walk
        const storable = storableRun(op.raw);
        const cleaned = cleanRun(storable.value, op.idHint === undefined ? undefined : replaceUnstorable(op.idHint));
        if (!cleaned.ok) {
          result.errors.push({ ...(cleaned.id ? { run_id: cleaned.id } : {}), error: cleaned.error });
          continue;
        }
        if (storable.replaced) cleaned.problems.push(`${storable.replaced} string(s) held characters Postgres cannot store (NUL, unpaired surrogates): replaced by U+FFFD`);
        if (storable.cut) cleaned.problems.push(`${storable.cut} value(s) nested deeper than ${MAX_RUN_DEPTH} levels: cut`);
        const run = cleaned.run;
        let truncated = 0;
        const own: IngestAttachment[] = [];
        for (const field of PAYLOAD_FIELDS) {
          if (run[field] === undefined) continue;
          const prepared = preparePayload(run[field], this.limits);
          (run as unknown as Record<string, unknown>)[field] = prepared.value;
          truncated += prepared.truncated;
          for (const a of prepared.attachments) own.push({ ...a, runId: run.id });
        }
        attachments.push(...own);
        if (truncated) cleaned.problems.push(`${truncated} oversized string(s) truncated`);
        if (cleaned.problems.length) problems.set(run.id, [...(problems.get(run.id) ?? []), ...cleaned.problems]);
        const list = byId.get(run.id) ?? [];
        list.push({ kind: op.kind, run });
        byId.set(run.id, list);
      } catch (err) {
        // a bug meeting odd input costs this run, not the batch
        this.logger.warn({ err }, "a run could not be prepared for storage");
        const id = (op.raw as { id?: unknown } | null)?.id;
        result.errors.push({ ...(typeof id === "string" ? { run_id: replaceUnstorable(id) } : op.idHint ? { run_id: replaceUnstorable(op.idHint) } : {}), error: `the run could not be stored: ${(err as Error).message}` });
      }
    }
    for (const a of [...attachments]) {
      if (isUuid(a.runId)) {
        a.name = replaceUnstorable(a.name);
        a.contentType = replaceUnstorable(a.contentType);
        continue;
      }
      attachments.splice(attachments.indexOf(a), 1);
      result.errors.push({ error: `attachment ${JSON.stringify(replaceUnstorable(a.name))}: run id ${JSON.stringify(replaceUnstorable(a.runId))} is not a UUID` });
    }
    if (!byId.size && !attachments.length) return result;

    // Projects are created outside the transaction (they outlive it even if it fails).
    const projectOf = new Map<string, string>();
    const pinned = scope ? await this.projects.idForName(tenantId, scope.project) : undefined;
    const refuse = (id: string, error: string) => {
      byId.delete(id);
      result.errors.push({ run_id: id, error });
    };
    for (const [id, list] of byId) {
      if (scope && pinned) {
        const named = [...list].reverse().find((o) => o.run.session_id || o.run.session_name)?.run;
        const elsewhere = named && (named.session_id ? named.session_id !== pinned : named.session_name !== scope.project);
        if (elsewhere) refuse(id, `this API key may write traces only to project "${scope.project}"`);
        else projectOf.set(id, pinned);
        continue;
      }
      try {
        const project = await this.projectFor(tenantId, list.map((o) => o.run), problems, id);
        if (project) projectOf.set(id, project);
      } catch (err) {
        if (!isDataError(err)) throw err;
        // a project name Postgres refuses costs this run only
        result.errors.push({ run_id: id, error: `the run's project could not be stored: ${(err as Error).message}` });
        byId.delete(id);
        problems.delete(id);
      }
    }
    if (scope) {
      for (const a of attachments.splice(0)) {
        if (byId.has(a.runId)) attachments.push(a);
        else result.errors.push({ run_id: a.runId, error: `attachment "${a.name}" is for a run not sent with it: this API key may attach files only to the runs it sends` });
      }
    }
    if (!byId.size && !attachments.length) return result;

    // Everything the transaction needs from other tables is read first: on the embedded database
    // the pool has one connection, which the transaction holds.
    const defaultProject = await this.projects.idForName(tenantId, DEFAULT_PROJECT);
    const ownPrices = await this.prices.tenantPrices(tenantId);

    await withTransaction(this.pool, async (client) => {
      const ids = [...byId.keys()];
      await lockRuns(client, tenantId, ids);
      const stored = new Map((await selectRuns(client, tenantId, ids)).map((r) => [r.id, r]));
      if (pinned) {
        for (const [id, row] of stored) {
          if (row.project_id === pinned) continue;
          refuse(id, `run ${id} belongs to another project: this API key may write traces only to project "${scope!.project}"`);
          stored.delete(id);
        }
        for (let i = attachments.length - 1; i >= 0; i--) if (!byId.has(attachments[i]!.runId)) attachments.splice(i, 1);
      }
      const merged = new Map<string, RunRecord>();
      const derivedOf = new Map<string, string[]>();
      const failed = (id: string, err: unknown) => {
        this.logger.warn({ err, runId: id }, "a run of the batch could not be stored");
        result.errors.push({ run_id: id, error: `the run could not be stored: ${(err as Error).message}` });
        problems.delete(id);
      };
      for (const [id, list] of byId) {
        try {
          const before = stored.get(id);
          let run = before ? rowToRecord(before) : undefined;
          // a run the sweep gave up on completes after all when its end (or its error) arrives
          if (run && isAbandoned(run.error) && list.some((op) => op.run.end_time || op.run.error)) delete run.error;
          for (const op of list) {
            if (op.kind === "post" && run) {
              const ignored = ignoredByPost(run, op.run);
              if (ignored.length) notices.set(id, [...(notices.get(id) ?? []), `run ${id} already exists: this post's ${ignored.join(", ")} ${ignored.length > 1 ? "were" : "was"} ignored (a post never changes a stored run: send a patch to update it)`]);
            }
            run = mergeRun(run, op.run, op.kind);
          }
          const tree = deriveTree(run!);
          merged.set(id, tree.run);
          derivedOf.set(id, tree.derived);
        } catch (err) {
          failed(id, err);
        }
      }
      await this.fillTraceIds(client, tenantId, merged, derivedOf);

      const rows: RunRow[] = [];
      for (const [id, run] of merged) {
        try {
          const before = stored.get(id);
          const list = problems.get(id) ?? [];
          rows.push(this.toRow(tenantId, run, projectOf.get(id) ?? before?.project_id ?? defaultProject, list, before, ownPrices, derivedOf.get(id) ?? []));
          if (list.length) problems.set(id, list);
        } catch (err) {
          failed(id, err);
        }
      }
      const write = async (batch: RunRow[], files: IngestAttachment[]) => {
        await writeRuns(client, batch, new Set(stored.keys()));
        await applyRollupDeltas(client, combineDeltas(batch.flatMap((row) => [...contribution(stored.get(row.id), -1), ...contribution(row, 1)])));
        await insertAttachments(client, tenantId, files);
      };
      // The whole batch in one go (the usual case); if a run's data is refused, run by run, so
      // one bad run costs only itself (each in its own savepoint).
      try {
        await savepoint(client, () => write(rows, attachments));
        result.accepted = rows.length;
        return;
      } catch (err) {
        if (!isDataError(err)) throw err;
      }
      const rowIds = new Set(rows.map((r) => r.id));
      for (const row of rows) {
        try {
          await savepoint(client, () => write([row], attachments.filter((a) => a.runId === row.id)));
          result.accepted++;
        } catch (err) {
          if (!isDataError(err)) throw err;
          failed(row.id, err);
        }
      }
      for (const a of attachments.filter((a) => !rowIds.has(a.runId))) {
        try {
          await savepoint(client, () => insertAttachments(client, tenantId, [a]));
        } catch (err) {
          if (!isDataError(err)) throw err;
          result.errors.push({ run_id: a.runId, error: `attachment ${JSON.stringify(a.name)} could not be stored: ${(err as Error).message}` });
        }
      }
    });
    for (const [id, p] of problems) result.warnings.push({ run_id: id, problems: [...p, ...(notices.get(id) ?? [])] });
    for (const [id, p] of notices) {
      if (!problems.has(id)) result.warnings.push({ run_id: id, problems: p });
      this.logger.warn({ tenantId, runId: id }, `ingest: ${p.join("; ")}`);
    }
    return result;
  }

  /** Fill in the dotted orders of runs sent without one (OTLP spans) once their trace's root is stored. */
  async fillDottedOrders(tenantId: string, traceIds: string[]): Promise<number> {
    return fillDottedOrders(this.pool, tenantId, traceIds);
  }

  /** The project a run's session names; none named → undefined (keep the stored one, or default). */
  private async projectFor(tenantId: string, runs: RunRecord[], problems: Map<string, string[]>, id: string): Promise<string | undefined> {
    // A post names the project authoritatively; take the last op that names one.
    for (const run of [...runs].reverse()) {
      if (run.session_id) {
        if (await this.projects.exists(tenantId, run.session_id)) return run.session_id;
        if (!run.session_name) {
          problems.set(id, [...(problems.get(id) ?? []), `unknown project id ${run.session_id}: stored in "${DEFAULT_PROJECT}"`]);
          return this.projects.idForName(tenantId, DEFAULT_PROJECT);
        }
      }
      if (run.session_name) return this.projects.idForName(tenantId, run.session_name);
    }
    return undefined;
  }

  /** Children sent without trace_id or dotted_order (plain POST /runs) join their parent's trace. */
  private async fillTraceIds(db: Queryable, tenantId: string, runs: Map<string, RunRecord>, derivedOf: Map<string, string[]>): Promise<void> {
    const missing = [...runs.values()].filter((r) => !r.trace_id && r.parent_run_id);
    if (!missing.length) return;
    const parents = missing.map((r) => r.parent_run_id!).filter((p) => !runs.get(p)?.trace_id);
    const { rows } = parents.length
      ? await db.query<{ id: string; trace_id: string }>("SELECT id, trace_id FROM tracing_runs WHERE tenant_id = $1 AND id = ANY($2::uuid[])", [tenantId, parents])
      : { rows: [] };
    const traceOf = new Map(rows.map((r) => [r.id, r.trace_id]));
    // resolve in rounds: a chain of new runs in one batch takes its root's trace
    for (let round = 0; round < 32; round++) {
      let changed = false;
      for (const r of runs.values()) {
        if (r.trace_id || !r.parent_run_id) continue;
        const t = runs.get(r.parent_run_id)?.trace_id ?? traceOf.get(r.parent_run_id);
        if (t) {
          r.trace_id = t;
          derivedOf.get(r.id)?.push("trace_id");
          changed = true;
        }
      }
      if (!changed) break;
    }
    // a parent we have never seen: the parent's id names the trace until it arrives
    for (const r of runs.values()) {
      if (r.trace_id) continue;
      r.trace_id = r.parent_run_id ?? r.id;
      derivedOf.get(r.id)?.push("trace_id");
    }
  }

  private toRow(tenantId: string, run: RunRecord, projectId: string, problems: string[] | undefined, before: RunRow | undefined, ownPrices: ModelPrice[], derived: string[]): RunRow {
    // defaults filled in for a run whose post has not arrived are not the client's values
    if (run.name === undefined) derived = [...derived, "name"];
    if (run.run_type === undefined) derived = [...derived, "run_type"];
    const status = statusOf(run);
    const meta = metadataOf(run);
    const notes = problems ?? [];
    const threadId = indexable("thread_id", meta.thread_id ?? meta.session_id ?? meta.conversation_id, notes);
    const endTime = endNotBeforeStart(run, notes);
    const row: RunRow = {
      tenant_id: tenantId,
      id: run.id,
      project_id: projectId,
      trace_id: run.trace_id!,
      parent_run_id: run.parent_run_id ?? null,
      dotted_order: run.dotted_order ?? null,
      name: run.name ?? "",
      run_type: run.run_type ?? "chain",
      status,
      // unknown until the post arrives (a patch may come first): never guessed, or a late post could not set it
      start_time: run.start_time ?? null,
      end_time: endTime,
      inputs: run.inputs ?? null,
      outputs: run.outputs ?? null,
      error: run.error ?? null,
      extra: run.extra ?? null,
      events: (run.events as RunRow["events"]) ?? null,
      tags: run.tags ?? null,
      serialized: run.serialized ?? null,
      session_name: run.session_name ?? null,
      session_id: run.session_id ?? null,
      reference_example_id: run.reference_example_id ?? null,
      client_fields: clientFieldsOf(run, derived),
      thread_id: threadId,
      model: null,
      provider: null,
      input_tokens: null,
      output_tokens: null,
      total_tokens: null,
      input_token_details: null,
      output_token_details: null,
      usage_estimated: false,
      input_cost: null,
      output_cost: null,
      total_cost: null,
      input_cost_details: null,
      output_cost_details: null,
      cost_source: null,
      cost_reason: null,
      price_id: null,
      first_token_time: null,
      ttft_ms: null,
      problems: [...new Set([...(before?.problems ?? []), ...notes])],
    };
    if (!row.problems!.length) row.problems = null;
    const { model, provider } = identifyModel(run);
    const at = new Date(row.start_time ?? row.end_time ?? Date.now());
    const prices = choosePrices(ownPrices, model, provider, at);
    let acc;
    try {
      acc = accountRun(run, prices);
    } catch (err) {
      // accounting is best effort: the run is stored even if its figures cannot be worked out
      this.logger.warn({ err, runId: run.id }, "accounting failed");
      row.problems = [...(row.problems ?? []), `accounting failed: ${(err as Error).message}`];
      return row;
    }
    const later: string[] = [];
    row.model = indexable("model", acc.model, later);
    row.provider = indexable("provider", acc.provider, later);
    if (acc.usage) {
      row.input_tokens = tokenCount("input_tokens", acc.usage.input_tokens, later);
      row.output_tokens = tokenCount("output_tokens", acc.usage.output_tokens, later);
      row.total_tokens = tokenCount("total_tokens", acc.usage.total_tokens, later);
      row.input_token_details = acc.usage.input_token_details ?? null;
      row.output_token_details = acc.usage.output_token_details ?? null;
    }
    row.usage_estimated = acc.usage_estimated;
    if (acc.cost) {
      row.input_cost = acc.cost.input_cost;
      row.output_cost = acc.cost.output_cost;
      row.total_cost = acc.cost.total_cost;
      row.input_cost_details = acc.cost.input_cost_details ?? null;
      row.output_cost_details = acc.cost.output_cost_details ?? null;
    }
    row.cost_source = acc.cost_source ?? null;
    row.cost_reason = acc.cost_reason ?? null;
    row.price_id = acc.price_id ?? null;
    row.first_token_time = acc.first_token_time ? (normalizeTimestamp(acc.first_token_time) ?? null) : null;
    if (acc.first_token_time && !row.first_token_time) later.push(`first_token_time ${JSON.stringify(acc.first_token_time)} is not a storable timestamp: ignored`);
    row.ttft_ms = row.first_token_time && acc.ttft_ms !== undefined && Number.isFinite(acc.ttft_ms) ? acc.ttft_ms : null;
    for (const n of [row.input_cost, row.output_cost, row.total_cost]) if (n !== null && !Number.isFinite(n)) later.push("a cost is not a finite number: not stored");
    if (![row.input_cost, row.output_cost, row.total_cost].every((n) => n === null || Number.isFinite(n))) row.input_cost = row.output_cost = row.total_cost = null;
    if (later.length) {
      notes.push(...later);
      row.problems = [...new Set([...(row.problems ?? []), ...later])];
    }
    return row;
  }
}

async function insertAttachments(db: Queryable, tenantId: string, attachments: IngestAttachment[]): Promise<void> {
  if (!attachments.length) return;
  // one statement per attachment: bytea travels as a binary parameter, not inside JSON
  for (const a of attachments) {
    await db.query(
      `INSERT INTO tracing_attachments (tenant_id, run_id, name, content_type, data) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, run_id, name) DO UPDATE SET content_type = EXCLUDED.content_type, data = EXCLUDED.data`,
      [tenantId, a.runId, a.name, a.contentType, a.data],
    );
  }
}

/**
 * A run never ends before it starts: the end is clamped to the start, so latency is never negative.
 * A start from the dotted order has microseconds while the JS SDK's end has milliseconds, so a
 * sub-millisecond run can look like that (silently fixed); more than 1 ms early is the client's
 * mistake and is said in the warnings.
 */
function endNotBeforeStart(run: RunRecord, notes: string[]): string | null {
  const [start, end] = [epochMicros(run.start_time), epochMicros(run.end_time)];
  if (start === undefined || end === undefined || end >= start) return run.end_time ?? null;
  if (start - end > 1000) notes.push(`end_time ${run.end_time} is ${((start - end) / 1000).toFixed(3)} ms before start_time ${run.start_time}: stored as the start time`);
  return run.start_time!;
}

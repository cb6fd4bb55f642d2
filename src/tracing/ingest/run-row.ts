/**
 * A merged run → its stored row (pure but for the logger): status, tree fields, thread, model,
 * tokens, cost and time to first token, with every value cut to what its column can hold. Used by
 * the merge (merge-batch.ts).
 */
import type { Queryable } from "../../shared/db/index.js";
import type { Logger } from "../../shared/logging.js";
import { accountRun } from "../accounting/account.js";
import { identifyModel } from "../accounting/model.js";
import type { ModelPrice } from "../accounting/cost.js";
import { metadataOf, type RunRecord } from "../run.js";
import { choosePrices } from "../storage/prices.js";
import { clientFieldsOf, runsByIdSql, type RunRow } from "../storage/runs.js";
import { statusOf } from "./merge.js";
import { indexable, tokenCount } from "./storable.js";
import { epochMicros, normalizeTimestamp } from "./timestamps.js";
import type { IngestAttachment } from "./service.js";

/** Children sent without trace_id or dotted_order (plain POST /runs) join their parent's trace. */
export async function fillTraceIds(db: Queryable, tenantId: string, runs: Map<string, RunRecord>, derivedOf: Map<string, string[]>): Promise<void> {
  const missing = [...runs.values()].filter((r) => !r.trace_id && r.parent_run_id);
  if (!missing.length) return;
  const parents = [...new Set(missing.map((r) => r.parent_run_id!).filter((p) => !runs.get(p)?.trace_id))];
  const { rows } = parents.length
    ? await db.query<{ id: string; trace_id: string }>(runsByIdSql("r.id, r.trace_id"), [tenantId, parents])
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

export function toRow(logger: Logger, tenantId: string, run: RunRecord, projectId: string, problems: string[] | undefined, before: RunRow | undefined, ownPrices: ModelPrice[], derived: string[]): RunRow {
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
    logger.warn({ err, runId: run.id }, "accounting failed");
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

export async function insertAttachments(db: Queryable, tenantId: string, attachments: IngestAttachment[]): Promise<void> {
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

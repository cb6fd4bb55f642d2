/**
 * Posts and patches of one run, in any order and any number of times (pure). A run's create
 * (`post`) and update (`patch`) may arrive merged, separately, out of order or more than once; the
 * stored run is the same whatever the order:
 * - a patch wins over what is stored, field by field, for the fields it sets;
 * - a post fills only what is not stored yet (so a late post never undoes a patch, and a repeated
 *   post changes nothing);
 * - metadata, events and tags are unions.
 */
import { isUuid } from "../../shared/http.js";
import type { Json, RunEvent, RunRecord } from "../run.js";
import { parseDottedOrder } from "./dotted-order.js";
import { normalizeTimestamp } from "./timestamps.js";
import { sameText } from "./raw-json.js";

export type OpKind = "post" | "patch";

/** The longest project name, as `POST /projects` allows. */
export const MAX_PROJECT_NAME = 256;

export type Cleaned = { ok: true; run: RunRecord; problems: string[] } | { ok: false; id?: string; error: string };

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const lowerUuid = (v: unknown) => (typeof v === "string" && isUuid(v) ? v.toLowerCase() : undefined);

/**
 * One run as sent → a `RunRecord` with normalised types. Only a missing or malformed id makes a
 * run unusable; anything else odd is kept as well as it can be and reported as a problem.
 */
export function cleanRun(raw: unknown, idHint?: string): Cleaned {
  if (!isObject(raw)) return { ok: false, id: idHint, error: "a run must be a JSON object" };
  const id = lowerUuid(raw.id ?? idHint);
  if (!id) return { ok: false, id: typeof raw.id === "string" ? raw.id : idHint, error: `run id ${JSON.stringify(raw.id ?? idHint)} is not a UUID` };
  const problems: string[] = [];
  const run: RunRecord = { id };
  const uuidField = (k: "trace_id" | "parent_run_id" | "session_id" | "reference_example_id") => {
    const v = raw[k];
    if (v === undefined || v === null) return;
    const u = lowerUuid(v);
    if (u) (run as Json)[k] = u;
    else problems.push(`${k} ${JSON.stringify(v)} is not a UUID: ignored`);
  };
  uuidField("trace_id");
  uuidField("parent_run_id");
  uuidField("session_id");
  uuidField("reference_example_id");
  for (const k of ["start_time", "end_time", "first_token_time"] as const) {
    const v = raw[k];
    if (v === undefined || v === null) continue;
    const t = normalizeTimestamp(v);
    if (t) run[k] = t;
    else problems.push(`${k} ${JSON.stringify(v)} is not a timestamp: ignored`);
  }
  for (const k of ["name", "run_type", "session_name", "dotted_order"] as const) {
    const v = raw[k];
    if (v !== undefined && v !== null) run[k] = typeof v === "string" ? v : JSON.stringify(v);
  }
  // the project's name is unique per tenant (a btree entry): as long as the API allows, no longer
  if (run.session_name && run.session_name.length > MAX_PROJECT_NAME) {
    problems.push(`session_name is ${run.session_name.length} characters long: cut to ${MAX_PROJECT_NAME}`);
    run.session_name = run.session_name.slice(0, MAX_PROJECT_NAME);
  }
  if (raw.error !== undefined && raw.error !== null) run.error = typeof raw.error === "string" ? raw.error : JSON.stringify(raw.error);
  // Payloads: objects as sent; anything else is wrapped the way traceable wraps return values.
  for (const k of ["inputs", "outputs"] as const) {
    const v = raw[k];
    if (v === undefined || v === null) continue;
    run[k] = isObject(v) ? v : k === "inputs" ? { input: v } : { output: v };
  }
  for (const k of ["extra", "serialized"] as const) {
    const v = raw[k];
    if (v === undefined || v === null) continue;
    if (isObject(v)) run[k] = v;
    else problems.push(`${k} is not an object: kept under ${k}.value`), (run[k] = { value: v });
  }
  if (raw.events !== undefined && raw.events !== null) {
    if (Array.isArray(raw.events)) run.events = raw.events.filter(isObject) as RunEvent[];
    else problems.push("events is not an array: ignored");
  }
  if (raw.tags !== undefined && raw.tags !== null) {
    run.tags = (Array.isArray(raw.tags) ? raw.tags : [raw.tags]).map((t) => (typeof t === "string" ? t : JSON.stringify(t)));
  }
  for (const k of ["prompt_tokens", "completion_tokens", "total_tokens", "prompt_cost", "completion_cost", "total_cost"] as const) {
    const v = raw[k];
    if (typeof v === "number" && Number.isFinite(v)) run[k] = v;
    else if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) run[k] = Number(v);
  }
  if (run.dotted_order) {
    const parts = parseDottedOrder(run.dotted_order);
    if (!parts) problems.push("dotted_order is malformed: ignored for the tree");
    else if (parts.runId !== id) problems.push("dotted_order does not end with the run id: ignored for the tree");
  }
  return { ok: true, run, problems };
}

/**
 * Merge an incoming post or patch into what is stored (see the module comment). Changes neither
 * argument; with nothing stored the result is `incoming` itself (the merge's caller copies the run
 * before it fills anything in: deriveTree).
 */
export function mergeRun(stored: RunRecord | undefined, incoming: RunRecord, kind: OpKind): RunRecord {
  if (!stored) return incoming;
  const [base, over] = kind === "patch" ? [stored, incoming] : [incoming, stored];
  const out: RunRecord = { ...base };
  // a plain loop (no entries array per run) and no `delete` (it turns the object into a slow dictionary)
  for (const k of Object.keys(over) as (keyof RunRecord)[]) {
    const v = over[k];
    if (v !== undefined) (out as Json)[k] = v;
  }
  const extra = mergeExtra(base.extra, over.extra);
  if (extra) out.extra = extra;
  else if ("extra" in out) delete out.extra;
  // (nothing to unite when neither side has any: the spread above already holds what was sent)
  if (stored.events?.length || incoming.events?.length) {
    const events = unionBy([...(stored.events ?? []), ...(incoming.events ?? [])], (e) => JSON.stringify([e.name, e.time, e.kwargs]));
    // sorted, so the result does not depend on the order posts and patches arrived in
    if (events.length) out.events = events.sort((a, b) => eventTime(a) - eventTime(b));
  }
  if (stored.tags?.length || incoming.tags?.length) {
    const tags = [...new Set([...(stored.tags ?? []), ...(incoming.tags ?? [])])].sort();
    if (tags.length) out.tags = tags;
  }
  return out;
}

/**
 * What a post would change in a run that already exists — and is therefore ignored (see the module
 * comment): its fields whose stored value differs, by name (`extra.metadata.<key>` for metadata).
 * Events and tags are unions, so never ignored. Timestamps compare as instants (storage keeps
 * microseconds, the stored run is read back with milliseconds).
 */
export function ignoredByPost(stored: RunRecord, post: RunRecord): string[] {
  const out: string[] = [];
  const differs = (a: unknown, b: unknown, key: string) => {
    if (a === undefined || a === null || b === undefined) return false;
    if (key.endsWith("_time")) return Math.floor(Date.parse(String(a))) !== Math.floor(Date.parse(String(b)));
    return !sameJson(a, b);
  };
  for (const [k, v] of Object.entries(post)) {
    if (k === "id" || k === "events" || k === "tags" || k === "extra") continue;
    if (differs((stored as Json)[k], v, k)) out.push(k);
  }
  const se = stored.extra ?? {};
  for (const [k, v] of Object.entries(post.extra ?? {})) {
    if (k !== "metadata") {
      if (differs(se[k], v, k)) out.push(`extra.${k}`);
      continue;
    }
    if (!isObject(v)) continue;
    for (const [mk, mv] of Object.entries(v)) if (differs(isObject(se.metadata) ? se.metadata[mk] : undefined, mv, mk)) out.push(`extra.metadata.${mk}`);
  }
  return out;
}

/** Deep equality of JSON values, whatever the key order (jsonb reorders keys). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b as object, k) && sameJson((a as Json)[k], (b as Json)[k]));
}

function mergeExtra(base: Json | undefined, over: Json | undefined): Json | undefined {
  if (!base || !over) return over ?? base;
  // the SDKs send the same extra with a run's post and its patch: the merge of two equal objects
  // is either one, and keeping the parsed one keeps its text for the write (raw-json.ts)
  if (sameText(base, over)) return over;
  const out: Json = { ...base, ...over };
  if (isObject(base.metadata) || isObject(over.metadata)) out.metadata = { ...(base.metadata ?? {}), ...(over.metadata ?? {}) };
  return out;
}

function eventTime(e: RunEvent): number {
  const t = typeof e.time === "number" ? e.time : Date.parse(String(e.time));
  return Number.isNaN(t) ? 0 : t;
}

function unionBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = key(i);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export type RunStatus = "pending" | "success" | "error";

export function statusOf(run: Pick<RunRecord, "error" | "end_time">): RunStatus {
  if (run.error) return "error";
  return run.end_time ? "success" : "pending";
}

export type DerivedField = "trace_id" | "parent_run_id" | "start_time";

/**
 * Tree fields from `dotted_order` where the client left them out; root runs are their own trace.
 * Returns which fields were derived: they are stored, but a later post or patch that sends the
 * real value replaces them (the order's start time is only as precise as its encoding).
 */
export function deriveTree(run: RunRecord): { run: RunRecord; derived: DerivedField[] } {
  const parts = parseDottedOrder(run.dotted_order);
  const usable = parts && parts.runId === run.id ? parts : undefined;
  const out = { ...run };
  const derived: DerivedField[] = [];
  if (!out.trace_id && usable) (out.trace_id = usable.traceId), derived.push("trace_id");
  if (out.parent_run_id === undefined && usable) (out.parent_run_id = usable.parentRunId ?? null), derived.push("parent_run_id");
  if (!out.start_time && usable) (out.start_time = usable.startTime), derived.push("start_time");
  if (!out.trace_id && !out.parent_run_id) (out.trace_id = out.id), derived.push("trace_id");
  return { run: out, derived };
}

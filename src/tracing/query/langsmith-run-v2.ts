/**
 * Stored runs in the schema of LangSmith's v2 API (`/api/v2/runs/query`, `/api/v2/traces/...`),
 * which the `langsmith` SDK 0.12's resource clients (`client.runs.*`, `client.traces.*`,
 * `client.public.runs.*`) read. Pure. It differs from the v1 run (langsmith-run.ts): fields are
 * chosen with upper-case `selects` (`TOTAL_TOKENS`), run types and status are upper case, latency
 * is `latency_seconds`, and the project is `project_id`.
 */
import type { FeedbackStats } from "../storage/feedback.js";
import type { RunRow } from "../storage/runs.js";
import { consolePath, parentRunIds } from "./langsmith-run.js";

/** Every field a v2 `selects` may name, upper case, as the SDK sends them. */
export const V2_RUN_FIELDS = [
  "ID", "NAME", "RUN_TYPE", "STATUS", "START_TIME", "END_TIME", "LATENCY_SECONDS", "FIRST_TOKEN_TIME", "ERROR", "ERROR_PREVIEW",
  "EXTRA", "METADATA", "EVENTS", "INPUTS", "INPUTS_PREVIEW", "OUTPUTS", "OUTPUTS_PREVIEW", "MANIFEST", "PARENT_RUN_ID", "PARENT_RUN_IDS",
  "PROJECT_ID", "TRACE_ID", "THREAD_ID", "DOTTED_ORDER", "IS_ROOT", "REFERENCE_EXAMPLE_ID", "REFERENCE_DATASET_ID", "TOTAL_TOKENS",
  "PROMPT_TOKENS", "COMPLETION_TOKENS", "TOTAL_COST", "PROMPT_COST", "COMPLETION_COST", "PROMPT_TOKEN_DETAILS", "COMPLETION_TOKEN_DETAILS",
  "PROMPT_COST_DETAILS", "COMPLETION_COST_DETAILS", "PRICE_MODEL_ID", "TAGS", "APP_PATH", "ATTACHMENTS", "THREAD_EVALUATION_TIME",
  "IS_IN_DATASET", "LAST_QUEUED_AT", "SHARE_URL", "FEEDBACK_STATS", "LS_USER_ID",
] as const;
export type V2RunField = (typeof V2_RUN_FIELDS)[number];

/** Selects that need the payload columns (a list without them reads the light columns only). */
const PAYLOAD_SELECTS: V2RunField[] = ["EXTRA", "EVENTS", "INPUTS", "INPUTS_PREVIEW", "OUTPUTS", "OUTPUTS_PREVIEW", "MANIFEST"];

export function needsPayloads(selects: readonly string[] | undefined): boolean {
  return !selects?.length || selects.some((s) => (PAYLOAD_SELECTS as string[]).includes(s));
}

export interface V2RunExtras {
  feedback_stats?: FeedbackStats;
  /** Set when the run's trace is shared: the public link. */
  share_url?: string | null;
}

const PREVIEW_CHARS = 200;

/** A short text of a payload, as LangSmith's `*_preview`: a lone string value as is, else JSON. */
export function preview(payload: unknown): string | null {
  if (payload === null || payload === undefined) return null;
  let text: string;
  if (typeof payload === "string") text = payload;
  else {
    const values = typeof payload === "object" && !Array.isArray(payload) ? Object.values(payload) : [];
    text = values.length === 1 && typeof values[0] === "string" ? values[0] : JSON.stringify(payload);
  }
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS - 1)}…` : text;
}

const iso = (t: string | null) => (t ? new Date(t).toISOString() : null);
const upperStatus = (r: RunRow) => (r.error || r.status === "error" ? "ERROR" : r.end_time ? "SUCCESS" : "PENDING");
const rawDetails = (d: unknown) => (d && typeof d === "object" ? { raw: d } : null);

/** Every v2 field of a run, by its select name. */
function fieldsOf(r: RunRow, extras: V2RunExtras): Record<V2RunField, unknown> {
  const latency = r.start_time && r.end_time ? Math.max(0, Date.parse(r.end_time) - Date.parse(r.start_time)) / 1000 : null;
  return {
    ID: r.id,
    NAME: r.name,
    RUN_TYPE: r.run_type.toUpperCase(),
    STATUS: upperStatus(r),
    START_TIME: iso(r.start_time),
    END_TIME: iso(r.end_time),
    LATENCY_SECONDS: latency,
    FIRST_TOKEN_TIME: iso(r.first_token_time),
    ERROR: r.error,
    ERROR_PREVIEW: r.error ? r.error.slice(0, PREVIEW_CHARS) : null,
    EXTRA: r.extra ?? {},
    METADATA: (r.extra?.metadata as Record<string, unknown> | undefined) ?? {},
    EVENTS: r.events ?? [],
    INPUTS: r.inputs ?? {},
    INPUTS_PREVIEW: preview(r.inputs),
    OUTPUTS: r.outputs ?? null,
    OUTPUTS_PREVIEW: preview(r.outputs),
    MANIFEST: r.serialized ?? null,
    PARENT_RUN_ID: r.parent_run_id,
    PARENT_RUN_IDS: parentRunIds(r.dotted_order, r.id),
    PROJECT_ID: r.project_id,
    TRACE_ID: r.trace_id,
    THREAD_ID: r.thread_id,
    DOTTED_ORDER: r.dotted_order,
    IS_ROOT: r.parent_run_id === null,
    REFERENCE_EXAMPLE_ID: r.reference_example_id,
    REFERENCE_DATASET_ID: null,
    TOTAL_TOKENS: r.total_tokens,
    PROMPT_TOKENS: r.input_tokens,
    COMPLETION_TOKENS: r.output_tokens,
    TOTAL_COST: r.total_cost,
    PROMPT_COST: r.input_cost,
    COMPLETION_COST: r.output_cost,
    PROMPT_TOKEN_DETAILS: rawDetails(r.input_token_details),
    COMPLETION_TOKEN_DETAILS: rawDetails(r.output_token_details),
    PROMPT_COST_DETAILS: rawDetails(r.input_cost_details),
    COMPLETION_COST_DETAILS: rawDetails(r.output_cost_details),
    PRICE_MODEL_ID: r.price_id,
    TAGS: r.tags ?? [],
    APP_PATH: consolePath(r),
    ATTACHMENTS: {},
    THREAD_EVALUATION_TIME: null,
    IS_IN_DATASET: Boolean(r.reference_example_id),
    LAST_QUEUED_AT: null,
    SHARE_URL: extras.share_url ?? null,
    FEEDBACK_STATS: extras.feedback_stats ?? {},
    LS_USER_ID: null,
  };
}

/**
 * A run as the v2 API answers it: the selected fields (all of them when `selects` is empty), keyed
 * in lower case. Fields that are null are left out, as LangSmith's v2 answers do.
 */
export function langsmithRunV2(r: RunRow, extras: V2RunExtras = {}, selects?: readonly string[]): Record<string, unknown> {
  const all = fieldsOf(r, extras);
  const chosen = selects?.length ? (["ID", ...selects] as V2RunField[]) : V2_RUN_FIELDS;
  const out: Record<string, unknown> = {};
  for (const f of chosen) {
    const v = all[f];
    if (v !== null && v !== undefined) out[f.toLowerCase()] = v;
  }
  return out;
}

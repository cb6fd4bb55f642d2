/**
 * Stored runs in LangSmith's run schema (`POST /runs/query`, public shared runs), pure: Berth's
 * run fields (present.ts) plus the ones the SDK reads — payloads, `app_path` (the console link,
 * which `getRunUrl` appends to the web URL), `parent_run_ids`, `child_run_ids`, `feedback_stats`
 * — cut down to `select` when the client names fields.
 */
import type { FeedbackStats } from "../storage/feedback.js";
import type { RunRow } from "../storage/runs.js";
import { presentRun } from "./present.js";

/** Payload columns: a list selecting none of these reads the light columns only. */
export const PAYLOAD_FIELDS = ["inputs", "outputs", "events", "extra", "serialized", "inputs_preview", "outputs_preview"];

export interface LangSmithRunExtras {
  child_run_ids?: string[] | null;
  feedback_stats?: FeedbackStats | null;
  share_token?: string | null;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Ancestors of a run, root first, from its dotted order (`<time>Z<id>.<time>Z<id>…`). */
export function parentRunIds(dottedOrder: string | null, runId: string): string[] {
  if (!dottedOrder) return [];
  // a segment is `<timestamp>Z<run id>`; a stored order the client made up may hold anything else,
  // which is no ancestor's id: only well-formed ids are named
  const ids = dottedOrder.split(".").map((seg) => seg.slice(seg.indexOf("Z") + 1).toLowerCase());
  return ids.filter((id) => UUID_RE.test(id) && id !== runId);
}

export function consolePath(r: Pick<RunRow, "trace_id" | "id">): string {
  return `/traces/${r.trace_id}?run=${r.id}`;
}

export function langsmithRun(r: RunRow, extras: LangSmithRunExtras = {}, select?: string[]): Record<string, unknown> {
  const full: Record<string, unknown> = {
    ...presentRun(r),
    inputs: r.inputs ?? {},
    outputs: r.outputs ?? null,
    extra: r.extra ?? {},
    events: r.events ?? [],
    serialized: r.serialized ?? null,
    reference_example_id: r.reference_example_id ?? null,
    app_path: consolePath(r),
    parent_run_ids: parentRunIds(r.dotted_order, r.id),
    child_run_ids: extras.child_run_ids ?? null,
    feedback_stats: extras.feedback_stats ?? null,
    share_token: extras.share_token ?? null,
    in_dataset: Boolean(r.reference_example_id),
  };
  if (!select?.length) return full;
  const out: Record<string, unknown> = { id: r.id };
  for (const k of select) if (k in full) out[k] = full[k];
  return out;
}

/**
 * The traces table's filters and their home in the URL (pure), so a filtered view is a link that
 * can be shared or bookmarked. Values that do not parse are dropped rather than sent to the API.
 */
import { isRange, rangeStart, type RangeKey } from "./ranges";

export const STATUSES = ["success", "error", "pending"] as const;
export type RunStatus = (typeof STATUSES)[number];
export const RUN_TYPES = ["chain", "llm", "tool", "retriever", "embedding", "prompt", "parser"] as const;
export type RunType = (typeof RUN_TYPES)[number];

export interface TraceFilters {
  /** Part of the root run's name. */
  name?: string;
  status?: RunStatus;
  runType?: RunType;
  /** A model used anywhere in the trace. */
  model?: string;
  /** Seconds. */
  minLatency?: number;
  maxLatency?: number;
  /** A window ending now (the start of the page's first load); `from` wins over it. */
  range?: RangeKey;
  /** ISO timestamps (UTC in the URL, so a shared link means the same moment everywhere). */
  from?: string;
  to?: string;
}

/** URL parameter of each filter. */
const P = {
  name: "name",
  status: "status",
  runType: "type",
  model: "model",
  minLatency: "min_latency",
  maxLatency: "max_latency",
  range: "range",
  from: "from",
  to: "to",
} as const satisfies Record<keyof TraceFilters, string>;

export const CURSOR_PARAM = "cursor";

const oneOf = <T extends string>(values: readonly T[], v: string | null): T | undefined => (v !== null && (values as readonly string[]).includes(v) ? (v as T) : undefined);
const seconds = (v: string | null): number | undefined => {
  if (v === null || v.trim() === "") return undefined;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};
const text = (v: string | null): string | undefined => (v !== null && v.trim() !== "" ? v.trim() : undefined);
const time = (v: string | null): string | undefined => (v !== null && v !== "" && !Number.isNaN(Date.parse(v)) ? v : undefined);

export function filtersFromParams(p: URLSearchParams): TraceFilters {
  const f: TraceFilters = {
    name: text(p.get(P.name)),
    status: oneOf(STATUSES, p.get(P.status)),
    runType: oneOf(RUN_TYPES, p.get(P.runType)),
    model: text(p.get(P.model)),
    minLatency: seconds(p.get(P.minLatency)),
    maxLatency: seconds(p.get(P.maxLatency)),
    range: isRange(p.get(P.range)) ? (p.get(P.range) as RangeKey) : undefined,
    from: time(p.get(P.from)),
    to: time(p.get(P.to)),
  };
  return prune(f);
}

/** The filters as URL parameters, in a fixed order (no cursor: a new filter starts at page one). */
export function filtersToParams(f: TraceFilters): URLSearchParams {
  const p = new URLSearchParams();
  for (const key of Object.keys(P) as (keyof TraceFilters)[]) {
    const v = f[key];
    if (v !== undefined && v !== "") p.set(P[key], String(v));
  }
  return p;
}

export function hasFilters(f: TraceFilters): boolean {
  return Object.keys(prune(f)).length > 0;
}

/** GET /runs query parameters of one page of the project's traces (root runs, newest first). */
export function traceListQuery(projectId: string, f: TraceFilters, now: number, cursor: string | undefined, limit: number) {
  const start = f.from ?? (f.range ? rangeStart(f.range, now) : undefined);
  return prune({
    project_id: projectId,
    is_root: "true" as const,
    name_contains: f.name,
    status: f.status,
    run_type: f.runType,
    trace_model: f.model,
    min_latency_ms: f.minLatency === undefined ? undefined : Math.round(f.minLatency * 1000),
    max_latency_ms: f.maxLatency === undefined ? undefined : Math.round(f.maxLatency * 1000),
    start_time_gte: start === undefined ? undefined : new Date(start).toISOString(),
    start_time_lte: f.to === undefined ? undefined : new Date(f.to).toISOString(),
    cursor,
    limit,
  });
}

/** `obj` without its undefined values. */
function prune<T extends object>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as T;
}

/** An ISO timestamp as the value of an `<input type="datetime-local">` (the viewer's local time). */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The value of a datetime-local input (local time) as an ISO timestamp; undefined when empty. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value); // no zone in the value: parsed as local time
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

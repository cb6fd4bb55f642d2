/**
 * LangSmith's `dotted_order` (pure): one segment per ancestor from the root down, each
 * `YYYYMMDDTHHMMSSffffffZ` + run id. The first segment names the trace, the penultimate the
 * parent, the last the run itself.
 */

const SEGMENT_RE = /^(\d{8}T\d{6}\d{0,6}Z)([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export interface DottedOrderParts {
  traceId: string;
  parentRunId: string | undefined;
  runId: string;
  /** Start time encoded in the last segment (ISO). */
  startTime: string;
}

/**
 * Recent results: a run's dotted order is read once per op when it is cleaned (a post and its
 * patch carry the same one) and again when its tree is derived. Bounded; results are frozen.
 */
const recent = new Map<string, DottedOrderParts | null>();
const RECENT_MAX = 4096;

export function parseDottedOrder(dotted: string | undefined): DottedOrderParts | undefined {
  if (!dotted) return undefined;
  const hit = recent.get(dotted);
  if (hit !== undefined) return hit ?? undefined;
  const parts = parse(dotted);
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(dotted, parts ? Object.freeze(parts) : null);
  return parts;
}

function parse(dotted: string): DottedOrderParts | undefined {
  const segments = dotted.split(".").map((s) => SEGMENT_RE.exec(s));
  if (!segments.length || segments.some((s) => !s)) return undefined;
  const last = segments.at(-1)!;
  const t = last[1]!;
  const frac = t.slice(15, -1);
  const startTime = `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}${frac ? `.${frac}` : ""}Z`;
  return {
    traceId: segments[0]![2]!.toLowerCase(),
    parentRunId: segments.length > 1 ? segments.at(-2)![2]!.toLowerCase() : undefined,
    runId: last[2]!.toLowerCase(),
    startTime,
  };
}

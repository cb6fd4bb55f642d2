/**
 * The thread search form as a `threads.search` query, and the few facts about a thread the list
 * and header show (pure). Bad input is an error message for the form, never a failed request.
 */
import type { Metadata, Run, ThreadStatus } from "@langchain/langgraph-sdk";

export const STATUSES: ThreadStatus[] = ["idle", "busy", "interrupted", "error"];
export const THREADS_PAGE = 25;

export interface SearchForm {
  status: "" | ThreadStatus;
  /** `key=value` pairs (comma or newline separated) or a JSON object. */
  metadata: string;
  /** Only this graph's threads (metadata.graph_id), the default; off lists every thread. */
  thisGraphOnly: boolean;
}

export const emptyForm: SearchForm = { status: "", metadata: "", thisGraphOnly: true };

export interface SearchQuery {
  metadata?: Record<string, unknown>;
  status?: ThreadStatus;
  limit: number;
  offset: number;
  sortBy: "updated_at";
  sortOrder: "desc";
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** A scalar from `key=value`: JSON when it parses as a number, boolean or null, else the text. */
function scalar(text: string): unknown {
  if (/^(true|false|null|-?\d+(\.\d+)?)$/.test(text)) return JSON.parse(text);
  if (/^".*"$/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

export function parseMetadataFilter(text: string): Parsed<Record<string, unknown>> {
  const t = text.trim();
  if (!t) return { ok: true, value: {} };
  if (t.startsWith("{")) {
    const r = parseJsonObject(t, "Metadata filter");
    return r;
  }
  const out: Record<string, unknown> = {};
  for (const part of t.split(/[,\n]/)) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf("=");
    if (eq <= 0) return { ok: false, error: `Metadata filter: "${p}" is not key=value` };
    out[p.slice(0, eq).trim()] = scalar(p.slice(eq + 1).trim());
  }
  return { ok: true, value: out };
}

export function buildSearchQuery(form: SearchForm, graphId: string, page: number, pageSize = THREADS_PAGE): Parsed<SearchQuery> {
  const md = parseMetadataFilter(form.metadata);
  if (!md.ok) return md;
  const metadata = { ...md.value, ...(form.thisGraphOnly ? { graph_id: graphId } : {}) };
  return {
    ok: true,
    value: {
      ...(Object.keys(metadata).length ? { metadata } : {}),
      ...(form.status ? { status: form.status } : {}),
      limit: pageSize,
      offset: page * pageSize,
      sortBy: "updated_at",
      sortOrder: "desc",
    },
  };
}

/** A JSON object typed into a form; arrays and scalars are refused (state updates are objects). */
export function parseJsonObject(text: string, what: string): Parsed<Record<string, unknown>> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `${what} is not valid JSON: ${(err as Error).message}` };
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return { ok: false, error: `${what} must be a JSON object` };
  return { ok: true, value: v as Record<string, unknown> };
}

/**
 * The A2A context id of a thread: the thread's own metadata when it carries one, else the
 * metadata of its runs (Berth's A2A endpoint stamps `a2a_context_id` on the runs it creates).
 */
export function a2aContextId(threadMetadata: Metadata | undefined, runs: readonly Pick<Run, "metadata">[] = []): string | undefined {
  const own = threadMetadata?.a2a_context_id;
  if (typeof own === "string" && own) return own;
  for (const r of runs) {
    const id = r.metadata?.a2a_context_id;
    if (typeof id === "string" && id) return id;
  }
  return undefined;
}

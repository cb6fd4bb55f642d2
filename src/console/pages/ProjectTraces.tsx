/**
 * A project's traces (root runs), newest first: a filterable table paged by the API's cursor.
 * Filters and the cursor are URL parameters (a filtered page is a shareable link); the cursors of
 * the pages before are kept in the history entry, so "Previous page" needs no server support.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { Link, useLocation, useNavigate, useParams, useSearchParams } from "react-router";
import { data, tracing } from "../api/client";
import type { RunSummary } from "../api/types";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from "../format";
import { paths } from "../routes";
import { ProjectHeader } from "../tracing/ProjectHeader";
import { RANGES, type RangeKey } from "../tracing/ranges";
import {
  CURSOR_PARAM,
  filtersFromParams,
  filtersToParams,
  fromLocalInput,
  hasFilters,
  RUN_TYPES,
  STATUSES,
  toLocalInput,
  traceListQuery,
  type TraceFilters,
} from "../tracing/trace-filters";
import "../tracing/tracing.css";

const PAGE = 50;

interface PageState {
  /** Cursors of the pages before this one ("" for the first). */
  prev?: string[];
}

export default function ProjectTraces() {
  const { projectId = "" } = useParams();
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const filters = useMemo(() => filtersFromParams(params), [params]);
  const filterKey = filtersToParams(filters).toString();
  const cursor = params.get(CURSOR_PARAM) ?? undefined;
  const prev = (location.state as PageState | null)?.prev ?? [];
  // "last 24 hours" is fixed when the filter is applied: paging must not shift the window
  const now = useMemo(() => Date.now(), [filterKey]);

  const page = useQuery({
    queryKey: ["tracing", "traces", projectId, filterKey, now, cursor ?? ""],
    queryFn: async () => data(await tracing.GET("/runs", { params: { query: traceListQuery(projectId, filters, now, cursor, PAGE) } })),
    placeholderData: keepPreviousData,
  });

  const go = (f: TraceFilters, nextCursor: string | undefined, state: PageState) => {
    const p = filtersToParams(f);
    if (nextCursor) p.set(CURSOR_PARAM, nextCursor);
    const search = p.toString();
    navigate({ pathname: location.pathname, search: search ? `?${search}` : "" }, { state });
  };

  const runs = page.data?.runs ?? [];
  const nextCursor = page.data?.next_cursor ?? null;
  return (
    <div className="tracing-page">
      <ProjectHeader projectId={projectId} />
      <TraceFilterForm key={filterKey} projectId={projectId} initial={filters} onApply={(f) => go(f, undefined, {})} />
      {page.error ? <ErrorBox error={page.error} title="Traces" /> : null}
      {page.isLoading ? (
        <Loading what="traces" />
      ) : !runs.length ? (
        <p className="empty">{hasFilters(filters) ? "No trace matches these filters." : cursor ? "No more traces." : "No traces in this project yet."}</p>
      ) : (
        <TraceTable runs={runs} />
      )}
      <nav className="pager" aria-label="Pages">
        {prev.length ? (
          <button type="button" onClick={() => go(filters, prev[prev.length - 1] || undefined, { prev: prev.slice(0, -1) })}>
            Previous page
          </button>
        ) : cursor ? (
          <button type="button" onClick={() => go(filters, undefined, {})}>
            First page
          </button>
        ) : null}
        {nextCursor ? (
          <button type="button" onClick={() => go(filters, nextCursor, { prev: [...prev, cursor ?? ""] })}>
            Next page
          </button>
        ) : null}
        <button type="button" onClick={() => page.refetch()} disabled={page.isFetching}>
          {page.isFetching ? "Loading…" : "Refresh"}
        </button>
        {runs.length ? <span className="muted">{runs.length} traces on this page</span> : null}
      </nav>
    </div>
  );
}

function TraceTable({ runs }: { runs: RunSummary[] }) {
  return (
    <table className="data traces-table">
      <thead>
        <tr>
          <th>Started</th>
          <th>Name</th>
          <th>Status</th>
          <th className="num">Latency</th>
          <th className="num">Tokens</th>
          <th className="num">Cost</th>
          <th className="num">TTFT</th>
          <th>Models</th>
          <th>Runs</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => {
          const t = r.trace ?? null;
          const models = t?.models.length ? t.models : r.model ? [r.model] : [];
          return (
            <tr key={r.id}>
              <td className="nowrap">{fmtTime(r.start_time)}</td>
              <td>
                <Link to={paths.trace(r.trace_id)}>{r.name}</Link>
              </td>
              <td title={r.error ?? undefined}>
                <StatusBadge status={r.status} />
              </td>
              <td className="num">{fmtDuration(r.latency_ms)}</td>
              <td className="num" title={t ? `${t.input_tokens} in / ${t.output_tokens} out` : undefined}>
                {fmtTokens(t?.total_tokens ?? r.total_tokens)}
              </td>
              <td className="num">{fmtCost(t?.total_cost ?? r.total_cost)}</td>
              <td className="num">{fmtDuration(t?.ttft_ms ?? r.ttft_ms)}</td>
              <td>
                <span className="models">
                  {models.map((m) => (
                    <span key={m} className="chip">
                      {m}
                    </span>
                  ))}
                </span>
              </td>
              <td className="num">{t ? fmtTokens(t.run_count) : "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** The filters, edited locally and applied together (selects apply at once). */
function TraceFilterForm({ projectId, initial, onApply }: { projectId: string; initial: TraceFilters; onApply: (f: TraceFilters) => void }) {
  const [draft, setDraft] = useState<TraceFilters>(initial);
  const models = useProjectModels(projectId);
  const set = <K extends keyof TraceFilters>(k: K, v: TraceFilters[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const applyNow = <K extends keyof TraceFilters>(k: K, v: TraceFilters[K]) => onApply({ ...draft, [k]: v });
  const num = (v: string) => (v === "" || !Number.isFinite(Number(v)) ? undefined : Math.max(0, Number(v)));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply({ ...draft, name: draft.name?.trim() || undefined, model: draft.model?.trim() || undefined });
  };
  const listId = `models-${projectId}`;
  return (
    <form className="filters" role="search" aria-label="Filter traces" onSubmit={submit}>
      <label>
        Name contains
        <input type="search" value={draft.name ?? ""} onChange={(e) => set("name", e.target.value || undefined)} />
      </label>
      <AnyOf label="Status" options={STATUSES} value={draft.status} onChange={(v) => applyNow("status", v)} />
      <AnyOf label="Root run type" options={RUN_TYPES} value={draft.runType} onChange={(v) => applyNow("runType", v)} />
      <label>
        Model used
        <input list={listId} value={draft.model ?? ""} onChange={(e) => set("model", e.target.value || undefined)} placeholder="any" />
        <datalist id={listId}>
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
      <label>
        Min latency (s)
        <input type="number" min={0} step="any" value={draft.minLatency ?? ""} onChange={(e) => set("minLatency", num(e.target.value))} />
      </label>
      <label>
        Max latency (s)
        <input type="number" min={0} step="any" value={draft.maxLatency ?? ""} onChange={(e) => set("maxLatency", num(e.target.value))} />
      </label>
      <label>
        Started
        <select value={draft.range ?? ""} onChange={(e) => applyNow("range", (e.target.value || undefined) as RangeKey | undefined)}>
          <option value="">any time</option>
          {(Object.keys(RANGES) as RangeKey[]).map((k) => (
            <option key={k} value={k}>
              {RANGES[k].label.toLowerCase()}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="datetime-local" value={toLocalInput(draft.from)} onChange={(e) => set("from", fromLocalInput(e.target.value))} />
      </label>
      <label>
        To
        <input type="datetime-local" value={toLocalInput(draft.to)} onChange={(e) => set("to", fromLocalInput(e.target.value))} />
      </label>
      <span className="actions">
        <button type="submit" className="primary">
          Apply
        </button>
        {hasFilters(initial) ? (
          <button type="button" onClick={() => onApply({})}>
            Clear filters
          </button>
        ) : null}
      </span>
    </form>
  );
}

/** Models the project used lately (for the model filter's suggestions), from the stats rollups. */
function useProjectModels(projectId: string): string[] {
  const stats = useQuery({
    queryKey: ["tracing", "models", projectId],
    queryFn: async () =>
      data(
        await tracing.GET("/projects/{project_id}/stats", {
          params: { path: { project_id: projectId }, query: { bucket: "day", start_time: new Date(Date.now() - 90 * 86_400_000).toISOString() } },
        }),
      ),
    staleTime: 300_000,
  });
  return (stats.data?.by_model ?? []).map((m) => m.model).filter((m): m is string => !!m);
}

/** A select of fixed values with "any" (= no filter) first. */
function AnyOf<T extends string>({ label, options, value, onChange }: { label: string; options: readonly T[]; value: T | undefined; onChange: (v: T | undefined) => void }) {
  return (
    <label>
      {label}
      <select value={value ?? ""} onChange={(e) => onChange((e.target.value || undefined) as T | undefined)}>
        <option value="">any</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Tracing projects with their stats over a chosen window (runs, tokens, cost, error rate, latency
 * and TTFT percentiles). The name filter, window and page are URL parameters.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { data, tracing } from "../api/client";
import { ErrorBox, Loading } from "../components/common";
import { fmtCost, fmtDuration, fmtPercent, fmtTime, fmtTokens } from "../format";
import { paths } from "../routes";
import { isRange, RANGES, rangeStart, type RangeKey } from "../tracing/ranges";
import { Pager } from "../tracing/Pager";
import "../tracing/tracing.css";

const PAGE = 20;
const WINDOWS: RangeKey[] = ["24h", "7d", "30d"];
const DEFAULT_WINDOW = "7d";

export default function Projects() {
  const [params, setParams] = useSearchParams();
  const name = params.get("name") ?? "";
  const windowParam = params.get("window");
  const statsWindow: RangeKey | "all" = windowParam === "all" ? "all" : isRange(windowParam) ? windowParam : DEFAULT_WINDOW;
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  // "last 7 days" is fixed when the window is chosen, so the query key (and cache) stays put
  const statsStart = useMemo(() => (statsWindow === "all" ? undefined : rangeStart(statsWindow, Date.now())), [statsWindow]);

  const list = useQuery({
    queryKey: ["tracing", "projects", name, statsStart ?? "all", offset],
    queryFn: async () =>
      data(
        await tracing.GET("/projects", {
          params: { query: { limit: PAGE, offset, ...(name ? { name_contains: name } : {}), ...(statsStart ? { stats_start_time: statsStart } : {}) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === "") next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
  };

  const projects = list.data?.projects ?? [];
  return (
    <div className="tracing-page">
      <h1>Tracing projects</h1>
      <div className="toolbar">
        <NameFilter key={name} initial={name} onApply={(v) => update({ name: v, offset: undefined })} />
        <label>
          Stats over
          <select value={statsWindow} onChange={(e) => update({ window: e.target.value === DEFAULT_WINDOW ? undefined : e.target.value })}>
            {WINDOWS.map((w) => (
              <option key={w} value={w}>
                {RANGES[w].label.toLowerCase()}
              </option>
            ))}
            <option value="all">all time</option>
          </select>
        </label>
        {list.isFetching && list.data ? <span className="muted">Refreshing…</span> : null}
      </div>
      {list.error ? <ErrorBox error={list.error} title="Projects" /> : null}
      {list.isLoading ? (
        <Loading what="projects" />
      ) : !projects.length ? (
        <p className="empty">{name || offset ? "No project matches." : "No tracing projects yet: send a trace with a LangSmith SDK to create one."}</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Runs</th>
              <th className="num">Traces</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
              <th className="num">Error rate</th>
              <th className="num">Latency p50</th>
              <th className="num">Latency p99</th>
              <th className="num">TTFT p50</th>
              <th>Last trace</th>
              <th>
                <span className="visually-hidden">Views</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {projects.map((p) => {
              const s = p.stats;
              return (
                <tr key={p.id}>
                  <td>
                    <Link to={paths.project(p.id)}>{p.name}</Link>
                    {p.description ? <div className="muted">{p.description}</div> : null}
                  </td>
                  <td className="num">{fmtTokens(s?.run_count)}</td>
                  <td className="num">{fmtTokens(s?.trace_count)}</td>
                  <td className="num">{fmtTokens(s?.total_tokens)}</td>
                  <td className="num">{fmtCost(s?.total_cost)}</td>
                  <td className={`num${s?.error_rate ? " has-errors" : ""}`}>{fmtPercent(s?.error_rate)}</td>
                  <td className="num">{fmtDuration(s?.latency_p50)}</td>
                  <td className="num">{fmtDuration(s?.latency_p99)}</td>
                  <td className="num">{fmtDuration(s?.first_token_p50)}</td>
                  <td>{fmtTime(s?.last_run_start_time)}</td>
                  <td className="row-links">
                    <Link to={paths.dashboard(p.id)}>Dashboard</Link> <Link to={paths.threads(p.id)}>Threads</Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <Pager
        offset={offset}
        pageSize={PAGE}
        count={projects.length}
        onOffset={(o) => update({ offset: o ? String(o) : undefined })}
      />
    </div>
  );
}

function NameFilter({ initial, onApply }: { initial: string; onApply: (v: string) => void }) {
  const [value, setValue] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(value.trim());
  };
  return (
    <form role="search" onSubmit={submit} className="inline-form">
      <label>
        Name contains
        <input type="search" value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}

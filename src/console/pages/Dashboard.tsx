/**
 * A project's dashboard: volume, tokens, cost, latency, time to first token and error rate over
 * time (hour or day buckets over a chosen range), and cost by model. Range and bucket are URL
 * parameters. Charts are recharts; empty buckets are on the axis (zeros for counts, gaps for
 * percentiles).
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useMemo, useState, type ReactElement } from "react";
import { useParams, useSearchParams } from "react-router";
import { Area, AreaChart, Bar, BarChart, CartesianGrid, ComposedChart, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { data, tracing } from "../api/client";
import type { StatsOverTime } from "../api/types";
import { ErrorBox, Loading } from "../components/common";
import { fmtCost, fmtDuration, fmtPercent, fmtTokens } from "../format";
import {
  chartSeries,
  costByModel,
  DASHBOARD_RANGES,
  defaultBucket,
  hasData,
  hasValues,
  isIsolated,
  statsWindow,
  type Bucket,
  type ChartPoint,
  type DashboardRange,
} from "../tracing/chart-series";
import { fmtAxisDuration } from "../tracing/axis";
import { ProjectHeader } from "../tracing/ProjectHeader";
import { RANGES } from "../tracing/ranges";
import "../tracing/tracing.css";

const COLORS = {
  blue: "#0b63ce",
  purple: "#8250df",
  violet: "#a475f9",
  sky: "#54aeff",
  green: "#1a7f37",
  red: "#cf222e",
  orange: "#d4a72c",
  grey: "#8c959f",
};
const HEIGHT = 220;

export default function Dashboard() {
  const { projectId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const rangeParam = params.get("range");
  const range: DashboardRange = (DASHBOARD_RANGES as readonly string[]).includes(rangeParam ?? "") ? (rangeParam as DashboardRange) : "7d";
  const bucketParam = params.get("bucket");
  const bucket: Bucket = bucketParam === "hour" || bucketParam === "day" ? bucketParam : defaultBucket(range);
  // the window ends when it was chosen (or refreshed), so the query key is stable meanwhile
  const [refreshedAt, setRefreshedAt] = useState(() => Date.now());
  const statsQuery = useMemo(() => statsWindow(range, bucket, refreshedAt), [range, bucket, refreshedAt]);

  const stats = useQuery({
    queryKey: ["tracing", "stats", projectId, statsQuery],
    queryFn: async () => data(await tracing.GET("/projects/{project_id}/stats", { params: { path: { project_id: projectId }, query: statsQuery } })),
    placeholderData: keepPreviousData,
  });

  const set = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined) next.delete(k);
      else next.set(k, v);
    }
    setParams(next, { replace: true });
    setRefreshedAt(Date.now());
  };

  return (
    <div className="tracing-page">
      <ProjectHeader projectId={projectId} />
      <div className="toolbar">
        <label>
          Range
          <select value={range} onChange={(e) => set({ range: e.target.value, bucket: undefined })}>
            {DASHBOARD_RANGES.map((r) => (
              <option key={r} value={r}>
                {RANGES[r].label.toLowerCase()}
              </option>
            ))}
          </select>
        </label>
        <label>
          Buckets
          <select value={bucket} onChange={(e) => set({ bucket: e.target.value === defaultBucket(range) ? undefined : e.target.value })}>
            <option value="hour">hourly</option>
            <option value="day">daily</option>
          </select>
        </label>
        <button type="button" onClick={() => setRefreshedAt(Date.now())} disabled={stats.isFetching}>
          {stats.isFetching ? "Loading…" : "Refresh"}
        </button>
        <span className="muted">{bucket === "day" ? "Days are UTC days." : "Times in your time zone."}</span>
      </div>
      {stats.error ? <ErrorBox error={stats.error} title="Stats" /> : null}
      {stats.data ? <Charts stats={stats.data} /> : stats.isLoading ? <Loading what="stats" /> : null}
    </div>
  );
}

function Charts({ stats }: { stats: StatsOverTime }) {
  const points = useMemo(() => chartSeries(stats), [stats]);
  const models = useMemo(() => costByModel(stats), [stats]);
  const t = stats.totals;
  return (
    <>
      <div className="cards" role="group" aria-label="Totals of the range">
        <Card label="Traces" value={fmtTokens(t.trace_count)} note={`${fmtTokens(t.run_count)} runs`} />
        <Card label="Error rate" value={fmtPercent(t.error_rate)} note={`${fmtTokens(t.error_count)} failed`} />
        <Card label="Tokens" value={fmtTokens(t.total_tokens)} note={`${fmtTokens(t.input_tokens)} in · ${fmtTokens(t.output_tokens)} out`} />
        <Card label="Cost" value={fmtCost(t.total_cost)} note={`${fmtTokens(t.llm_count)} LLM calls`} />
        <Card label="Latency p50 / p99" value={`${fmtDuration(t.latency_p50)} / ${fmtDuration(t.latency_p99)}`} />
        <Card label="TTFT p50 / p99" value={`${fmtDuration(t.first_token_p50)} / ${fmtDuration(t.first_token_p99)}`} />
      </div>
      <div className="charts">
        <Chart
          title="Traces and runs over time"
          has={hasData(points, ["traces", "runs"])}
          legend={[
            ["Traces", COLORS.blue],
            ["Failed traces", COLORS.red],
            ["Runs (right axis)", COLORS.grey],
          ]}
        >
          <ComposedChart data={points}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" fontSize={11} minTickGap={24} />
            <YAxis yAxisId="traces" tickFormatter={(v: number) => fmtTokens(v)} fontSize={11} width={48} allowDecimals={false} />
            <YAxis yAxisId="runs" orientation="right" tickFormatter={(v: number) => fmtTokens(v)} fontSize={11} width={48} allowDecimals={false} />
            <Tooltip formatter={(v) => fmtTokens(Number(v))} />
            <Bar yAxisId="traces" dataKey="ok_traces" name="Traces (not failed)" stackId="traces" fill={COLORS.blue} isAnimationActive={false} />
            <Bar yAxisId="traces" dataKey="errors" name="Failed traces" stackId="traces" fill={COLORS.red} isAnimationActive={false} />
            {line("runs", "Runs", COLORS.grey, points, "runs")}
          </ComposedChart>
        </Chart>
        <Chart
          title="Tokens over time"
          has={hasData(points, ["input_tokens", "output_tokens"])}
          legend={[
            ["Input", COLORS.sky],
            ["Output", COLORS.violet],
          ]}
        >
          <AreaChart data={points}>
            {axes(fmtTokens)}
            <Tooltip formatter={(v) => fmtTokens(Number(v))} />
            <Area type="monotone" dataKey="input_tokens" name="Input" stackId="tokens" stroke={COLORS.sky} fill={COLORS.sky} fillOpacity={0.5} isAnimationActive={false} />
            <Area type="monotone" dataKey="output_tokens" name="Output" stackId="tokens" stroke={COLORS.violet} fill={COLORS.violet} fillOpacity={0.5} isAnimationActive={false} />
          </AreaChart>
        </Chart>
        <Chart title="Cost over time" has={hasData(points, ["cost"])} legend={[["Cost (USD)", COLORS.green]]}>
          <AreaChart data={points}>
            {axes(fmtCost)}
            <Tooltip formatter={(v) => fmtCost(Number(v))} />
            <Area type="monotone" dataKey="cost" name="Cost (USD)" stroke={COLORS.green} fill={COLORS.green} fillOpacity={0.25} isAnimationActive={false} />
          </AreaChart>
        </Chart>
        <Chart
          title="Latency over time"
          has={hasValues(points, ["latency_p50", "latency_p99"])}
          legend={[
            ["p50", COLORS.blue],
            ["p99", COLORS.orange],
          ]}
        >
          <LineChart data={points}>
            {axes(fmtAxisDuration)}
            <Tooltip formatter={(v) => fmtDuration(Number(v))} />
            {line("latency_p50", "p50", COLORS.blue, points)}
            {line("latency_p99", "p99", COLORS.orange, points)}
          </LineChart>
        </Chart>
        <Chart
          title="Time to first token over time"
          has={hasValues(points, ["ttft_p50", "ttft_p99"])}
          empty="No streamed LLM calls in this range."
          legend={[
            ["p50", COLORS.purple],
            ["p99", COLORS.orange],
          ]}
        >
          <LineChart data={points}>
            {axes(fmtAxisDuration)}
            <Tooltip formatter={(v) => fmtDuration(Number(v))} />
            {line("ttft_p50", "p50", COLORS.purple, points)}
            {line("ttft_p99", "p99", COLORS.orange, points)}
          </LineChart>
        </Chart>
        <Chart title="Error rate over time" has={hasValues(points, ["error_rate"])} legend={[["Failed traces (%)", COLORS.red]]}>
          <LineChart data={points}>
            {axes((v) => `${Math.round(v)}%`, [0, (max: number) => Math.max(5, Math.ceil(max))])}
            <Tooltip formatter={(v) => `${Number(v).toFixed(1)}%`} />
            {line("error_rate", "Failed traces (%)", COLORS.red, points)}
          </LineChart>
        </Chart>
        <Chart title="Cost by model" has={models.length > 0} empty="No LLM calls in this range." height={Math.max(HEIGHT, 40 + models.length * 28)}>
          <BarChart data={models} layout="vertical" margin={{ left: 8, right: 16 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} />
            <XAxis type="number" tickFormatter={(v: number) => fmtCost(v)} fontSize={11} />
            <YAxis type="category" dataKey="model" width={150} fontSize={11} interval={0} />
            <Tooltip formatter={(v, _n, item) => [`${fmtCost(Number(v))} · ${fmtTokens((item.payload as { tokens: number }).tokens)} tokens`, "Cost"]} />
            <Bar dataKey="cost" name="Cost (USD)" fill={COLORS.green} isAnimationActive={false} minPointSize={2} maxBarSize={28} />
          </BarChart>
        </Chart>
      </div>
    </>
  );
}

function Card({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div className="card">
      <div className="label">{label}</div>
      <div className="value">{value}</div>
      {note ? <div className="muted">{note}</div> : null}
    </div>
  );
}

/**
 * A chart with a heading in a labelled region, or a note when the range has nothing to draw. The
 * legend is plain HTML: the only SVG in the region is the chart itself.
 */
function Chart({
  title,
  has,
  empty = "No data in this range.",
  height = HEIGHT,
  legend,
  children,
}: {
  title: string;
  has: boolean;
  empty?: string;
  height?: number;
  legend?: [name: string, color: string][];
  children: ReactElement;
}) {
  return (
    <section className="chart" aria-label={title}>
      <h2>{title}</h2>
      {has ? (
        <>
          <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 460, height }}>
            {children}
          </ResponsiveContainer>
          {legend ? (
            <ul className="chart-legend">
              {legend.map(([name, color]) => (
                <li key={name}>
                  <span className="swatch" style={{ background: color }} aria-hidden="true" />
                  {name}
                </li>
              ))}
            </ul>
          ) : null}
        </>
      ) : (
        <p className="empty">{empty}</p>
      )}
    </section>
  );
}

/** The time axis and a value axis (recharts wants them as direct children, hence a fragment). */
function axes(format: (v: number) => string, domain?: [number, (max: number) => number]) {
  return (
    <>
      <CartesianGrid strokeDasharray="3 3" vertical={false} />
      <XAxis dataKey="label" fontSize={11} minTickGap={24} />
      <YAxis tickFormatter={(v: number) => format(v)} fontSize={11} width={64} domain={domain} />
    </>
  );
}

/** A line with gaps where a bucket has no value, and a dot on each lone value (a line alone draws nothing there). */
function line(key: keyof ChartPoint, name: string, color: string, points: readonly ChartPoint[], yAxisId?: string) {
  return (
    <Line
      type="monotone"
      yAxisId={yAxisId}
      dataKey={key}
      name={name}
      stroke={color}
      strokeWidth={2}
      dot={(p: { index: number; cx?: number; cy?: number }) =>
        isIsolated(points, p.index, key) && p.cx !== undefined && p.cy !== undefined ? <circle key={p.index} cx={p.cx} cy={p.cy} r={3} fill={color} /> : <g key={p.index} />
      }
      activeDot={{ r: 4 }}
      connectNulls={false}
      isAnimationActive={false}
    />
  );
}

/**
 * Experiments of one dataset side by side, per example: its inputs and reference outputs, then for
 * each selected experiment its output, its feedback scores per key (coloured better / worse than
 * the baseline experiment's), latency, tokens and cost, and a link to each run's trace. On top, the
 * experiments' aggregate scores with their difference to the baseline and how many examples got
 * better or worse, and the pairwise (comparative) experiments run between them with how often each
 * was preferred. The selection, the baseline and the page live in the URL, so a comparison is a link.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Link, useParams, useSearchParams } from "react-router";
import { data, tracing } from "../api/client";
import type { Project } from "../api/types";
import { ErrorBox, Loading } from "../components/common";
import {
  comparisonsWithin,
  diff,
  diffCounts,
  fmtDelta,
  fmtStat,
  joinRows,
  meanOf,
  mergeFeedback,
  parseSelection,
  rowKeys,
  type CompareRow,
  type ExperimentRun,
} from "../datasets/compare";
import { loadExperimentRuns } from "../datasets/compare-queries";
import { fmtPreference, scoreKeys } from "../datasets/scores";
import { fmtCost, fmtDuration, fmtPercent, fmtTokens } from "../format";
import { paths } from "../routes";
import { Pager } from "../tracing/Pager";
import "../tracing/tracing.css";
import "./compare.css";

const PAGE = 20;
const preview = (v: unknown) => {
  const s = v === null || v === undefined ? "" : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

type Example = { id: string; inputs: Record<string, unknown>; outputs?: Record<string, unknown> | null };

export default function ExperimentCompare() {
  const { datasetId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const { experiments: selected, baseline } = parseSelection(params);
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const onlyExample = params.get("example");

  const update = (changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(params);
    for (const [k, v] of Object.entries(changes)) {
      if (v === undefined || v === "") next.delete(k);
      else next.set(k, v);
    }
    setParams(next);
  };

  const dataset = useQuery({
    queryKey: ["tracing", "dataset", datasetId],
    queryFn: async () => data(await tracing.GET("/datasets/{dataset_id}", { params: { path: { dataset_id: datasetId } } })),
  });
  const experiments = useQuery({
    queryKey: ["tracing", "dataset-experiments", datasetId],
    queryFn: async () => data(await tracing.GET("/datasets/{dataset_id}/experiments", { params: { path: { dataset_id: datasetId }, query: { limit: 100, offset: 0 } } })),
  });
  const comparisons = useQuery({
    queryKey: ["tracing", "dataset-comparative", datasetId],
    queryFn: async () => data(await tracing.GET("/datasets/{dataset_id}/comparative", { params: { path: { dataset_id: datasetId }, query: { limit: 100 } } })),
  });
  const examples = useQuery({
    queryKey: ["tracing", "examples", datasetId, onlyExample ?? offset, PAGE],
    queryFn: async () =>
      data(await tracing.GET("/examples", { params: { query: onlyExample ? { dataset: datasetId, id: [onlyExample] } : { dataset: datasetId, limit: PAGE, offset } } })) as Example[],
    placeholderData: keepPreviousData,
  });
  const exampleIds = (examples.data ?? []).map((x) => x.id);
  const runs = useQuery({
    queryKey: ["tracing", "compare-runs", selected, exampleIds],
    queryFn: () => loadExperimentRuns(selected, exampleIds),
    enabled: selected.length > 0 && exampleIds.length > 0,
    placeholderData: keepPreviousData,
  });

  const all = experiments.data?.experiments ?? [];
  const byId = new Map(all.map((e) => [e.id, e]));
  const shown = selected.filter((id) => byId.has(id));
  const rows = joinRows(examples.data ?? [], runs.data ?? [], shown);
  const keys = [...new Set([...scoreKeys(shown.map((id) => byId.get(id)?.stats?.feedback_stats)), ...rowKeys(rows)])].sort();
  const counts = baseline ? diffCounts(rows, shown, baseline, keys) : {};
  const toggle = (id: string) => {
    const next = selected.includes(id) ? selected.filter((x) => x !== id) : [...selected, id];
    update({ experiments: next.join(","), baseline: baseline && next.includes(baseline) ? baseline : undefined });
  };

  return (
    <div className="tracing-page compare-page">
      <header className="project-header">
        <nav aria-label="Breadcrumb" className="crumbs">
          <Link to={paths.datasets}>Datasets</Link> <span aria-hidden="true">/</span>{" "}
          <Link to={paths.dataset(datasetId)}>{dataset.data?.name ?? "Dataset"}</Link> <span aria-hidden="true">/</span>
        </nav>
        <h1>Compare experiments{dataset.data ? ` on ${dataset.data.name}` : ""}</h1>
      </header>
      {dataset.error ? <ErrorBox error={dataset.error} title="Dataset" /> : null}
      {experiments.error ? <ErrorBox error={experiments.error} title="Experiments" /> : null}

      {experiments.isLoading ? (
        <Loading what="experiments" />
      ) : (
        <fieldset className="compare-pick">
          <legend>Experiments to compare</legend>
          {all.length ? null : <p className="empty">No experiments yet: run evaluate() on this dataset.</p>}
          {all.map((e) => (
            <label key={e.id}>
              <input type="checkbox" checked={selected.includes(e.id)} onChange={() => toggle(e.id)} /> {e.name}
            </label>
          ))}
        </fieldset>
      )}

      {shown.length ? (
        <Aggregates experiments={shown.map((id) => byId.get(id)!)} keys={keys} baseline={baseline} counts={counts} onBaseline={(id) => update({ baseline: id })} />
      ) : !experiments.isLoading ? (
        <p className="empty">Pick the experiments to compare.</p>
      ) : null}

      {comparisons.error ? <ErrorBox error={comparisons.error} title="Comparative experiments" /> : null}
      <Pairwise comparisons={comparisonsWithin(comparisons.data ?? [], shown)} datasetId={datasetId} />

      {shown.length ? (
        <>
          <h2>Examples</h2>
          {onlyExample ? (
            <p className="muted">
              One example. <button onClick={() => update({ example: undefined })}>Show all examples</button>
            </p>
          ) : null}
          {examples.error ? <ErrorBox error={examples.error} title="Examples" /> : null}
          {runs.error ? <ErrorBox error={runs.error} title="Runs" /> : null}
          {examples.isLoading ? (
            <Loading what="examples" />
          ) : !rows.length ? (
            <p className="empty">{offset ? "No more examples." : "No examples."}</p>
          ) : (
            <ExampleTable rows={rows} experiments={shown.map((id) => byId.get(id)!)} keys={keys} baseline={baseline} loadingRuns={runs.isLoading} />
          )}
          {onlyExample ? null : <Pager offset={offset} count={rows.length} pageSize={PAGE} onOffset={(o) => update({ offset: o ? String(o) : undefined })} />}
        </>
      ) : null}
    </div>
  );
}

function Aggregates({
  experiments,
  keys,
  baseline,
  counts,
  onBaseline,
}: {
  experiments: Project[];
  keys: string[];
  baseline: string | null;
  counts: ReturnType<typeof diffCounts>;
  onBaseline: (id: string) => void;
}) {
  const base = experiments.find((e) => e.id === baseline);
  return (
    <>
      <h2>Aggregate scores</h2>
      <p className="muted">Means over every example of each experiment; the difference is to the baseline's, and ▲/▼ count the examples of this page where the score beat / fell behind the baseline's (higher counts as better).</p>
      <table className="data" aria-label="Aggregate scores">
        <thead>
          <tr>
            <th>Experiment</th>
            <th>Baseline</th>
            <th className="num">Traces</th>
            <th className="num">Error rate</th>
            <th className="num">Latency p50</th>
            <th className="num">Tokens</th>
            <th className="num">Cost</th>
            {keys.map((k) => (
              <th key={k} className="num">
                {k}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {experiments.map((e) => {
            const isBase = e.id === baseline;
            return (
              <tr key={e.id} data-experiment={e.id}>
                <td>
                  <Link to={paths.project(e.id)}>{e.name}</Link>
                </td>
                <td>
                  <input type="radio" name="baseline" aria-label={`Baseline: ${e.name}`} checked={isBase} onChange={() => onBaseline(e.id)} />
                </td>
                <td className="num">{e.stats?.trace_count ?? 0}</td>
                <td className="num">{fmtPercent(e.stats?.error_rate)}</td>
                <td className="num">{fmtDuration(e.stats?.latency_p50)}</td>
                <td className="num">{fmtTokens(e.stats?.total_tokens)}</td>
                <td className="num">{fmtCost(e.stats?.total_cost)}</td>
                {keys.map((k) => {
                  const mine = e.stats?.feedback_stats?.[k];
                  const theirs = base?.stats?.feedback_stats?.[k];
                  const d = isBase ? null : diff(mine?.avg, theirs?.avg);
                  const c = counts[e.id]?.[k];
                  return (
                    <td key={k} className={`num ${d ? `diff-${d}` : ""}`} data-key={k} data-diff={d ?? undefined}>
                      <span className="score">{fmtStat(mine)}</span>
                      {mine ? <span className="muted"> ({mine.n})</span> : null}
                      {!isBase && d ? <div className="delta">{fmtDelta(mine?.avg, theirs?.avg)}</div> : null}
                      {c && (c.better || c.worse) ? (
                        <div className="muted" aria-label={`${k}: ${c.better} better, ${c.worse} worse than the baseline`}>
                          ▲{c.better} ▼{c.worse}
                        </div>
                      ) : null}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

type Comparison = { id: string; name: string; experiments_info: { id: string; name: string }[]; preferences: Record<string, { comparisons: number; ties: number; preferred: Record<string, number> }> };

function Pairwise({ comparisons, datasetId }: { comparisons: Comparison[]; datasetId: string }) {
  if (!comparisons.length) return null;
  return (
    <>
      <h2>Pairwise comparisons</h2>
      <p className="muted">Comparative experiments (evaluateComparative) between the selected experiments: per key, how often each one's answer was preferred.</p>
      <table className="data" aria-label="Pairwise comparisons">
        <thead>
          <tr>
            <th>Comparison</th>
            <th>Key</th>
            <th>Preferred</th>
            <th className="num">Comparisons</th>
          </tr>
        </thead>
        <tbody>
          {comparisons.flatMap((c) =>
            Object.keys(c.preferences)
              .sort()
              .map((k, i) => (
                <tr key={`${c.id}|${k}`} data-key={k}>
                  <td>{i === 0 ? <Link to={paths.datasetCompare(datasetId, c.experiments_info.map((e) => e.id))}>{c.name}</Link> : null}</td>
                  <td>{k}</td>
                  <td>{fmtPreference(c.preferences[k], c.experiments_info)}</td>
                  <td className="num">{c.preferences[k]!.comparisons}</td>
                </tr>
              )),
          )}
        </tbody>
      </table>
    </>
  );
}

function ExampleTable({ rows, experiments, keys, baseline, loadingRuns }: { rows: CompareRow<Example>[]; experiments: Project[]; keys: string[]; baseline: string | null; loadingRuns: boolean }) {
  return (
    <table className="data compare-table" aria-label="Examples compared">
      <thead>
        <tr>
          <th>Example</th>
          {experiments.map((e) => (
            <th key={e.id} data-experiment={e.id}>
              {e.name}
              {e.id === baseline ? <span className="muted"> (baseline)</span> : null}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => {
          const base = baseline ? mergeFeedback((row.runs[baseline] ?? []).map((r) => r.feedback)) : {};
          return (
            <tr key={row.example.id} data-example={row.example.id}>
              <td className="example-cell">
                <div className="label">Inputs</div>
                <div className="mono">{preview(row.example.inputs)}</div>
                <div className="label">Reference</div>
                <div className="mono">{preview(row.example.outputs)}</div>
              </td>
              {experiments.map((e) => (
                <RunCell key={e.id} experiment={e} runs={row.runs[e.id] ?? []} keys={keys} baseline={e.id === baseline ? null : base} loading={loadingRuns} />
              ))}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function RunCell({ experiment, runs, keys, baseline, loading }: { experiment: Project; runs: ExperimentRun[]; keys: string[]; baseline: Record<string, { avg: number | null }> | null; loading: boolean }) {
  if (!runs.length) return <td data-experiment={experiment.id} className="muted">{loading ? "…" : "No run"}</td>;
  const fb = mergeFeedback(runs.map((r) => r.feedback));
  return (
    <td data-experiment={experiment.id} aria-label={`${experiment.name} result`}>
      {runs.map((r) => (
        <div key={r.id} className="run-output">
          <div className="mono">{r.error ? <span className="has-errors">{r.error}</span> : preview(r.outputs)}</div>
        </div>
      ))}
      <ul className="scores" aria-label="Scores">
        {keys.map((k) => {
          const s = fb[k];
          const d = baseline ? diff(s?.avg, baseline[k]?.avg) : null;
          return (
            <li key={k} data-key={k} data-diff={d ?? undefined} className={d ? `diff-${d}` : undefined}>
              <span className="key">{k}</span> <span className="score">{fmtStat(s)}</span>
              {d && d !== "same" ? <span className="delta"> {fmtDelta(s?.avg, baseline?.[k]?.avg)}</span> : null}
            </li>
          );
        })}
      </ul>
      <div className="muted run-figures">
        {fmtDuration(meanOf(runs, (r) => r.latency_ms))} · {fmtTokens(meanOf(runs, (r) => r.total_tokens))} tokens · {fmtCost(meanOf(runs, (r) => r.total_cost))}
      </div>
      <div className="row-links">
        {runs.map((r, i) => (
          <Link key={r.id} to={paths.trace(r.trace_id, r.id)}>
            {runs.length > 1 ? `Trace ${i + 1}` : "Trace"}
          </Link>
        ))}
      </div>
    </td>
  );
}

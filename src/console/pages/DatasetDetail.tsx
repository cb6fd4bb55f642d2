/**
 * A dataset: its experiments (projects run against it by evaluate()) with their aggregate scores,
 * each linking to its traces, two or more of them to open side by side in the compare view; its comparative experiments (evaluateComparative) with how often each
 * compared experiment was preferred per key; and its examples (inputs, reference outputs, splits)
 * at the latest version.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import { data, tracing } from "../api/client";
import { ErrorBox, Loading } from "../components/common";
import { fmtPreference, fmtScore, scoreKeys } from "../datasets/scores";
import { fmtTime } from "../format";
import { paths } from "../routes";
import { Pager } from "../tracing/Pager";
import "../tracing/tracing.css";

const PAGE = 50;
const preview = (v: unknown) => {
  const s = v === null || v === undefined ? "" : JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 160)}…` : s;
};

export default function DatasetDetail() {
  const { datasetId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get("offset")) || 0);
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
    queryKey: ["tracing", "examples", datasetId, offset],
    queryFn: async () => data(await tracing.GET("/examples", { params: { query: { dataset: datasetId, limit: PAGE, offset } } })),
    placeholderData: keepPreviousData,
  });
  const exps = experiments.data?.experiments ?? [];
  const keys = scoreKeys(exps.map((e) => e.stats?.feedback_stats));
  const rows = examples.data ?? [];
  const cmps = comparisons.data ?? [];
  const prefKeys = [...new Set(cmps.flatMap((c) => Object.keys(c.preferences)))].sort();
  const [picked, setPicked] = useState<string[]>([]);
  const pick = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : [...p, id]));
  return (
    <div className="tracing-page">
      {dataset.error ? <ErrorBox error={dataset.error} title="Dataset" /> : null}
      {dataset.data ? (
        <header>
          <h1>Dataset {dataset.data.name}</h1>
          <p className="muted">
            {dataset.data.description ? `${dataset.data.description} · ` : ""}
            {dataset.data.example_count} examples · version {fmtTime(dataset.data.modified_at)}
          </p>
        </header>
      ) : null}

      <h2>Experiments</h2>
      {experiments.error ? <ErrorBox error={experiments.error} title="Experiments" /> : null}
      {experiments.isLoading ? (
        <Loading what="experiments" />
      ) : !exps.length ? (
        <p className="empty">No experiments yet: run evaluate() on this dataset.</p>
      ) : (
        <>
        <p className="toolbar">
          {picked.length >= 2 ? (
            <Link to={paths.datasetCompare(datasetId, picked)}>Compare {picked.length} experiments</Link>
          ) : (
            <span className="muted">Tick two or more experiments to compare them example by example.</span>
          )}
        </p>
        <table className="data" aria-label="Experiments">
          <thead>
            <tr>
              <th>
                <span className="visually-hidden">Compare</span>
              </th>
              <th>Experiment</th>
              <th>Started</th>
              <th className="num">Traces</th>
              <th className="num">Error rate</th>
              {keys.map((k) => (
                <th key={k} className="num">
                  {k}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {exps.map((e) => (
              <tr key={e.id}>
                <td>
                  <input type="checkbox" aria-label={`Compare ${e.name}`} checked={picked.includes(e.id)} onChange={() => pick(e.id)} />
                </td>
                <td>
                  <Link to={paths.project(e.id)}>{e.name}</Link>
                </td>
                <td className="nowrap">{fmtTime(e.created_at)}</td>
                <td className="num">{e.stats?.trace_count ?? 0}</td>
                <td className="num">{e.stats?.error_rate === null || e.stats?.error_rate === undefined ? "–" : `${Math.round(e.stats.error_rate * 100)}%`}</td>
                {keys.map((k) => (
                  <td key={k} className="num" data-key={k}>
                    {fmtScore(e.stats?.feedback_stats?.[k])}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
        </>
      )}

      {comparisons.error ? <ErrorBox error={comparisons.error} title="Comparative experiments" /> : null}
      {cmps.length ? (
        <>
          <h2>Comparative experiments</h2>
          <p className="muted">Per feedback key: how often each experiment's answer was preferred, and the ties.</p>
          <table className="data" aria-label="Comparative experiments">
            <thead>
              <tr>
                <th>Comparison</th>
                <th>Created</th>
                <th>Experiments compared</th>
                {prefKeys.map((k) => (
                  <th key={k}>{k}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {cmps.map((c) => (
                <tr key={c.id}>
                  <td>
                    <Link to={paths.datasetCompare(datasetId, c.experiments_info.map((e) => e.id))}>{c.name}</Link>
                    {c.description ? <div className="muted">{c.description}</div> : null}
                  </td>
                  <td className="nowrap">{fmtTime(c.created_at)}</td>
                  <td>
                    {c.experiments_info.map((e, i) => (
                      <span key={e.id}>
                        {i ? " vs " : ""}
                        <Link to={paths.project(e.id)}>{e.name}</Link>
                      </span>
                    ))}
                  </td>
                  {prefKeys.map((k) => (
                    <td key={k} data-key={k}>
                      {fmtPreference(c.preferences[k], c.experiments_info)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : null}

      <h2>Examples</h2>
      {examples.error ? <ErrorBox error={examples.error} title="Examples" /> : null}
      {examples.isLoading ? (
        <Loading what="examples" />
      ) : !rows.length ? (
        <p className="empty">{offset ? "No more examples." : "No examples yet."}</p>
      ) : (
        <table className="data" aria-label="Examples">
          <thead>
            <tr>
              <th>Inputs</th>
              <th>Reference outputs</th>
              <th>Splits</th>
              <th>Modified</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((x) => (
              <tr key={x.id}>
                <td className="mono">{preview(x.inputs)}</td>
                <td className="mono">{preview(x.outputs)}</td>
                <td>{Array.isArray(x.metadata.dataset_split) ? (x.metadata.dataset_split as string[]).join(", ") : ""}</td>
                <td className="nowrap">{fmtTime(x.modified_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager offset={offset} count={rows.length} pageSize={PAGE} onOffset={(o) => setParams(o ? { offset: String(o) } : {})} />
    </div>
  );
}

/**
 * The tenant's datasets (made with the SDK's createDataset or the API): name, examples,
 * experiments run against each and when it last changed, each opening its dataset page. The name
 * filter and the page are URL parameters.
 */
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { data, tracing } from "../api/client";
import { ErrorBox, Loading } from "../components/common";
import { fmtTime } from "../format";
import { paths } from "../routes";
import { Pager } from "../tracing/Pager";
import "../tracing/tracing.css";

const PAGE = 50;

export default function Datasets() {
  const [params, setParams] = useSearchParams();
  const name = params.get("name") ?? "";
  const offset = Math.max(0, Number(params.get("offset")) || 0);
  const list = useQuery({
    queryKey: ["tracing", "datasets", name, offset],
    queryFn: async () => data(await tracing.GET("/datasets", { params: { query: { limit: PAGE, offset, ...(name ? { name_contains: name } : {}) } } })),
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
  const datasets = list.data ?? [];
  return (
    <div className="tracing-page">
      <h1>Datasets</h1>
      <div className="toolbar">
        <NameSearch key={name} initial={name} onApply={(v) => update({ name: v, offset: undefined })} />
        {list.isFetching && list.data ? <span className="muted">Refreshing…</span> : null}
      </div>
      {list.error ? <ErrorBox error={list.error} title="Datasets" /> : null}
      {list.isLoading ? (
        <Loading what="datasets" />
      ) : !datasets.length ? (
        <p className="empty">{name || offset ? "No dataset matches." : "No datasets yet: create one with the LangSmith SDK's createDataset."}</p>
      ) : (
        <table className="data" aria-label="Datasets">
          <thead>
            <tr>
              <th>Name</th>
              <th className="num">Examples</th>
              <th className="num">Experiments</th>
              <th>Last modified</th>
            </tr>
          </thead>
          <tbody>
            {datasets.map((d) => (
              <tr key={d.id}>
                <td>
                  <Link to={paths.dataset(d.id)}>{d.name}</Link>
                  {d.description ? <div className="muted">{d.description}</div> : null}
                </td>
                <td className="num">{d.example_count}</td>
                <td className="num">{d.session_count}</td>
                <td className="nowrap">{fmtTime(d.modified_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager offset={offset} pageSize={PAGE} count={datasets.length} onOffset={(o) => update({ offset: o ? String(o) : undefined })} />
    </div>
  );
}

function NameSearch({ initial, onApply }: { initial: string; onApply: (v: string) => void }) {
  const [value, setValue] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onApply(value.trim());
  };
  return (
    <form role="search" aria-label="Search datasets" onSubmit={submit} className="inline-form">
      <label>
        Name contains
        <input type="search" value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

/** The thread list: search by status and metadata (this graph's threads by default), paged. */
import type { Client, Thread } from "@langchain/langgraph-sdk";
import { useState, type FormEvent } from "react";
import { StatusBadge } from "../../components/common";
import { fmtTime } from "../../format";
import { buildSearchQuery, emptyForm, STATUSES, THREADS_PAGE, type SearchForm } from "./search";
import { errorText, useLoad } from "./useLoad";

export function ThreadList({
  client,
  graphId,
  selected,
  onSelect,
  refreshKey,
}: {
  client: Client;
  graphId: string;
  selected?: string;
  onSelect: (threadId: string) => void;
  refreshKey: number;
}) {
  const [draft, setDraft] = useState<SearchForm>(emptyForm);
  const [form, setForm] = useState<SearchForm>(emptyForm);
  const [page, setPage] = useState(0);
  const query = buildSearchQuery(form, graphId, page);
  const draftQuery = buildSearchQuery(draft, graphId, 0);
  const list = useLoad<Thread[]>(
    (signal) => (query.ok ? client.threads.search({ ...query.value, signal }) : Promise.resolve([])),
    [client, JSON.stringify(query), refreshKey],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!draftQuery.ok) return;
    setForm(draft);
    setPage(0);
  };
  const threads = list.data ?? [];
  return (
    <section className="tt-list" aria-label="Threads">
      <form className="tt-search" onSubmit={submit} role="search" aria-label="Search threads">
        <label>
          Status
          <select value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value as SearchForm["status"] })}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Metadata
          <input
            value={draft.metadata}
            placeholder="key=value, … or {JSON}"
            aria-invalid={!draftQuery.ok}
            onChange={(e) => setDraft({ ...draft, metadata: e.target.value })}
          />
        </label>
        <label>
          <input type="checkbox" checked={draft.thisGraphOnly} onChange={(e) => setDraft({ ...draft, thisGraphOnly: e.target.checked })} />
          only graph {graphId}
        </label>
        <button type="submit" disabled={!draftQuery.ok}>
          Search
        </button>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </form>
      {!draftQuery.ok ? <p className="error" role="alert">{draftQuery.error}</p> : null}
      {list.error ? <p className="error" role="alert">Could not list threads: {errorText(list.error)}</p> : null}
      {list.loading && !list.data ? <p className="loading" role="status">Loading threads…</p> : null}
      {list.data && !threads.length ? <p className="empty">No threads match.</p> : null}
      <ul className="tt-threads">
        {threads.map((t) => (
          <li key={t.thread_id} className={t.thread_id === selected ? "tt-selected" : undefined}>
            <button type="button" className="tt-thread" aria-current={t.thread_id === selected ? "true" : undefined} onClick={() => onSelect(t.thread_id)}>
              <code>{t.thread_id}</code>
              <StatusBadge status={t.status} />
              <span className="muted">{fmtTime(t.updated_at)}</span>
            </button>
          </li>
        ))}
      </ul>
      <div className="pager">
        <button type="button" disabled={page === 0} onClick={() => setPage((p) => p - 1)}>
          Newer
        </button>
        <span className="muted">page {page + 1}</span>
        <button type="button" disabled={threads.length < THREADS_PAGE} onClick={() => setPage((p) => p + 1)}>
          Older
        </button>
      </div>
    </section>
  );
}

/**
 * The deployments of the tenant: status, source, the newest and the serving revision, URL. Polls
 * while any deployment on the page is changing (database being created, teardown, a rollout).
 */
import { useEffect, useRef, useState } from "react";
import { useQueries } from "@tanstack/react-query";
import { Link, useLocation, useSearchParams } from "react-router";
import type { Deployment } from "../api/types";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import { fmtTime } from "../format";
import { paths } from "../routes";
import { fetchRevision, keys, useDeploymentList } from "../deployments/api";
import { NewDeploymentForm } from "../deployments/NewDeploymentForm";
import { RolloutNote } from "../deployments/RolloutNote";
import { CreateSnippet } from "../deployments/CreateSnippet";
import { POLL_MS, deploymentNeedsPolling, deploymentUrl, describeSource, isRevisionInProgress, rolloutOf, shortId } from "../deployments/status";
import "../deployments/deployments.css";

const PAGE = 20;

/** The filter as typed, sent once typing pauses. */
function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export default function Deployments() {
  const [params, setParams] = useSearchParams();
  const offset = Math.max(0, Number(params.get("offset") ?? 0) || 0);
  const [filter, setFilter] = useState(params.get("name") ?? "");
  const name = useDebounced(filter.trim(), 300);
  const [creating, setCreating] = useState(false);
  // e.g. "The deployment was deleted." from the detail page
  const notice = (useLocation().state as { notice?: unknown } | null)?.notice;

  // the filter lives in the URL so a reload or a shared link shows the same page
  useEffect(() => {
    if ((params.get("name") ?? "") === name) return;
    const next = new URLSearchParams(params);
    if (name) next.set("name", name);
    else next.delete("name");
    next.delete("offset");
    setParams(next, { replace: true });
  }, [name, params, setParams]);

  const goTo = (o: number) => {
    const next = new URLSearchParams(params);
    if (o > 0) next.set("offset", String(o));
    else next.delete("offset");
    setParams(next);
  };

  // the newest revision's status, fetched only where it differs from the serving one (a rollout, or a failure)
  const latestRef = useRef<Record<string, string>>({});
  const list = useDeploymentList({ name_contains: name || undefined, limit: PAGE, offset }, (rows) =>
    (rows ?? []).some((d) => deploymentNeedsPolling(d.status, rolloutOf(d, latestRef.current[d.latest_revision_id ?? ""]))),
  );
  const rows = list.data?.resources ?? [];
  const differing = rows.filter((d) => d.latest_revision_id && d.latest_revision_id !== d.active_revision_id);
  const revisions = useQueries({
    queries: differing.map((d) => ({
      queryKey: keys.revision(d.id, d.latest_revision_id!),
      queryFn: () => fetchRevision(d.id, d.latest_revision_id!),
      refetchInterval: (q: { state: { data?: { status: string } } }) => (!q.state.data || isRevisionInProgress(q.state.data.status) ? POLL_MS : false),
    })),
  });
  const latestStatus: Record<string, string> = {};
  for (const r of revisions) if (r.data) latestStatus[r.data.id] = r.data.status;
  latestRef.current = latestStatus;

  return (
    <section aria-labelledby="deployments-title">
      <div className="dep-header">
        <h1 id="deployments-title">Deployments</h1>
        <button type="button" className="primary" onClick={() => setCreating((c) => !c)} aria-expanded={creating}>
          {creating ? "Close form" : "New deployment"}
        </button>
      </div>
      {typeof notice === "string" ? (
        <p className="result-ok" role="status">
          {notice}
        </p>
      ) : null}
      {creating ? <NewDeploymentForm onClose={() => setCreating(false)} /> : null}
      <div className="toolbar">
        <label>
          Name contains
          <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="filter by name" aria-label="Filter by name" />
        </label>
        {list.isFetching ? <span className="muted">refreshing…</span> : null}
      </div>
      {list.error ? <ErrorBox error={list.error} title="Could not list deployments" /> : null}
      {list.isPending ? (
        <Loading what="deployments" />
      ) : rows.length === 0 && offset === 0 && !name ? (
        <EmptyState onCreate={() => setCreating(true)} />
      ) : rows.length === 0 ? (
        <p className="empty">{name ? `No deployment name contains “${name}”.` : "No more deployments."}</p>
      ) : (
        <DeploymentTable rows={rows} latestStatus={latestStatus} />
      )}
      {rows.length > 0 || offset > 0 ? (
        <nav className="pager" aria-label="Pages">
          <button type="button" disabled={offset === 0} onClick={() => goTo(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <span className="muted">
            {rows.length ? `${offset + 1}–${offset + rows.length}` : "none"}
          </span>
          {/* the API gives no total: a full page may be followed by an empty one */}
          <button type="button" disabled={rows.length < PAGE} onClick={() => goTo(list.data?.offset ?? offset + PAGE)}>
            Next
          </button>
        </nav>
      ) : null}
    </section>
  );
}

function DeploymentTable({ rows, latestStatus }: { rows: Deployment[]; latestStatus: Record<string, string> }) {
  return (
    <table className="data">
      <thead>
        <tr>
          <th>Name</th>
          <th>Status</th>
          <th>Source</th>
          <th>Latest revision</th>
          <th>Active revision</th>
          <th>URL</th>
          <th>Updated</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((d) => {
          const url = deploymentUrl(d);
          const rollout = rolloutOf(d, latestStatus[d.latest_revision_id ?? ""]);
          return (
            <tr key={d.id}>
              <td>
                <Link to={paths.deployment(d.id)}>{d.name}</Link>
              </td>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td>
                <div>{d.source}</div>
                <div className="muted">{describeSource(d)}</div>
              </td>
              <td>
                <code title={d.latest_revision_id ?? undefined}>{shortId(d.latest_revision_id)}</code>
                <RolloutNote rollout={rollout} status={latestStatus[d.latest_revision_id ?? ""]} hasActive={d.active_revision_id !== null} />
              </td>
              <td>
                <code title={d.active_revision_id ?? undefined}>{shortId(d.active_revision_id)}</code>
              </td>
              <td>{url ? <a href={url} target="_blank" rel="noreferrer noopener">{url}</a> : <span className="muted">not served yet</span>}</td>
              <td>{fmtTime(d.updated_at)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function EmptyState({ onCreate }: { onCreate: () => void }) {
  return (
    <div className="panel empty-state">
      <h2>No deployments yet</h2>
      <p>
        A deployment runs an agent server built from a git repository (<code>hosted_git</code>) or a container image (
        <code>external_container</code>). Create one with the form (
        <button type="button" onClick={onCreate}>
          New deployment
        </button>
        ) or through the API:
      </p>
      <CreateSnippet />
    </div>
  );
}

/** A revision's build or deploy log, followed live while the revision is in progress. */
import { useCallback } from "react";
import { useQuery } from "@tanstack/react-query";
import { ErrorBox, StatusBadge } from "../components/common";
import { fetchLogs, fetchRevision, keys } from "./api";
import { LogView } from "./LogView";
import { PAGE_SIZE } from "./logs-follow";
import { POLL_MS, isRevisionInProgress, shortId } from "./status";
import type { TimelineRow } from "./timeline";
import { useLogFollow } from "./useLogFollow";

export type LogType = "build" | "deploy";

export function LogsPanel({
  deploymentId,
  revisionId,
  revisions,
  type,
  onPick,
}: {
  deploymentId: string;
  revisionId: string;
  /** The revisions to pick from (newest first). */
  revisions: TimelineRow[];
  type: LogType;
  onPick: (revisionId: string, type: LogType) => void;
}) {
  // the selected revision's own status (it may be older than the revisions listed)
  const revision = useQuery({
    queryKey: keys.revision(deploymentId, revisionId),
    queryFn: () => fetchRevision(deploymentId, revisionId),
    refetchInterval: (q) => (q.state.data && !isRevisionInProgress(q.state.data.status) ? false : POLL_MS),
  });
  const inProgress = revision.data ? isRevisionInProgress(revision.data.status) : true;
  const fetchPage = useCallback((cursor: string | undefined) => fetchLogs(deploymentId, revisionId, type, cursor, PAGE_SIZE), [deploymentId, revisionId, type]);
  const log = useLogFollow(`${deploymentId}/${revisionId}/${type}`, fetchPage, inProgress);
  const known = revisions.some((r) => r.id === revisionId);

  return (
    <div>
      <div className="toolbar">
        <label>
          Revision
          <select value={revisionId} onChange={(e) => onPick(e.target.value, type)}>
            {known ? null : <option value={revisionId}>{shortId(revisionId)}</option>}
            {revisions.map((r) => (
              <option key={r.id} value={r.id}>
                {r.shortId} · {r.status}
                {r.isActive ? " · active" : ""}
                {r.isLatest ? " · latest" : ""}
              </option>
            ))}
          </select>
        </label>
        <div className="tabs" role="tablist" aria-label="Log type" style={{ marginBottom: 0 }}>
          {(["build", "deploy"] as const).map((t) => (
            <button key={t} type="button" role="tab" aria-selected={t === type} onClick={() => onPick(revisionId, t)}>
              {t === "build" ? "Build log" : "Deploy log"}
            </button>
          ))}
        </div>
        {revision.data ? <StatusBadge status={revision.data.status} /> : null}
        <span className="muted" role="status">
          {log.following ? (inProgress ? "following live…" : "reading…") : `${log.buffer.entries.length.toLocaleString("en-US")} lines · complete`}
        </span>
        <button type="button" onClick={log.reload}>
          Reload
        </button>
      </div>
      {log.error ? <ErrorBox error={log.error} title="Could not read the log" /> : null}
      <LogView entries={log.buffer.entries} dropped={log.buffer.dropped} label={`${type} log of revision ${shortId(revisionId)}`} />
    </div>
  );
}

/** Every revision, newest first: the statuses it went through and when, what it was built from, and its actions. */
import { ConfirmButton, StatusBadge } from "../components/common";
import { fmtDuration, fmtTime } from "../format";
import { stepGap, type TimelineRow } from "./timeline";
import "./deployments.css";

export function RevisionTimeline({
  rows,
  selectedId,
  onShowLogs,
  onRedeploy,
}: {
  rows: TimelineRow[];
  selectedId?: string;
  onShowLogs: (revisionId: string) => void;
  onRedeploy: (revisionId: string) => Promise<string>;
}) {
  const incomplete = rows.some((r) => !r.historyComplete);
  return (
    <>
      <table className="data" aria-label="Revisions">
        <thead>
          <tr>
            <th>Revision</th>
            <th>Status</th>
            <th>Timeline</th>
            <th>Built from</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.id} className={r.id === selectedId ? "selected-row" : undefined} data-revision-id={r.id}>
              <td>
                <code title={r.id}>{r.shortId}</code>
                {r.isActive ? <span className="rev-pointer active">active</span> : null}
                {r.isSuperseded ? (
                  <span className="rev-pointer superseded" title="Deployed, then replaced by a newer revision: it no longer serves traffic">
                    superseded
                  </span>
                ) : null}
                {r.isLatest ? <span className="rev-pointer latest">latest</span> : null}
              </td>
              <td>
                <StatusBadge status={r.status} />
                {r.statusReason ? <div className={r.failed ? "reason" : "muted"}>{r.statusReason}</div> : null}
              </td>
              <td>
                <ol className="steps" aria-label={`Status history of ${r.shortId}`}>
                  {r.steps.map((s, i) => {
                    const gap = i > 0 ? stepGap(r.steps[i - 1]!, s) : null;
                    return (
                      <li key={`${s.status}-${s.at}-${i}`}>
                        {s.status === "created" ? <span>created</span> : <StatusBadge status={s.status} />}
                        <time dateTime={s.at} className="muted">
                          {fmtTime(s.at)}
                          {gap !== null && gap > 0 ? ` (+${fmtDuration(gap)})` : ""}
                        </time>
                      </li>
                    );
                  })}
                  {r.inProgress ? <li className="muted">in progress…</li> : null}
                </ol>
              </td>
              <td>
                {r.imageUri ? <code>{r.imageUri}</code> : null}
                {r.repoRef ? (
                  <div>
                    ref <code>{r.repoRef}</code>
                  </div>
                ) : null}
                {r.commitSha ? (
                  <div>
                    commit <code title={r.commitSha}>{r.commitSha.slice(0, 12)}</code>
                  </div>
                ) : r.repoRef ? (
                  <div className="muted">commit not resolved yet</div>
                ) : null}
                {r.agentConfigPath ? <div className="muted">{r.agentConfigPath}</div> : null}
              </td>
              <td>
                <div className="dep-actions">
                  <button type="button" onClick={() => onShowLogs(r.id)}>
                    Logs
                  </button>
                  {r.canRedeploy ? (
                    <ConfirmButton
                      label="Redeploy"
                      question={<>Create a new revision with the configuration of {r.shortId} (its source and secrets)?</>}
                      action={() => onRedeploy(r.id)}
                    />
                  ) : null}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {incomplete ? (
        <p className="muted">
          Some revisions predate the status history: only their creation and latest status are known.
        </p>
      ) : null}
    </>
  );
}

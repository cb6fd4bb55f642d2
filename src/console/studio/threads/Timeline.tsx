/** One page of checkpoints, newest first: step, what wrote it, what runs next, its run's trace. */
import type { ThreadState } from "@langchain/langgraph-sdk";
import { fmtTime } from "../../format";
import { TraceLink } from "./TraceLink";
import { parentsOf, summarizeCheckpoint } from "./timeline";

export function Timeline({
  items,
  pageNumber,
  openId,
  compareIds,
  onOpen,
  onToggleCompare,
  onOpenTrace,
  onNewer,
  onOlder,
}: {
  items: ThreadState[];
  pageNumber: number;
  openId?: string;
  compareIds: string[];
  onOpen: (s: ThreadState) => void;
  onToggleCompare: (s: ThreadState) => void;
  onOpenTrace?: (runId: string) => void;
  onNewer?: () => void;
  onOlder?: () => void;
}) {
  if (!items.length) return <p className="empty">No checkpoints.</p>;
  const parents = parentsOf(items);
  return (
    <>
      <ol className="tt-timeline" aria-label="Checkpoints">
        {items.map((s) => {
          const c = summarizeCheckpoint(s, parents.get(s.checkpoint.checkpoint_id ?? ""));
          const label = `Checkpoint ${c.step ?? "?"} ${c.checkpointId}`;
          return (
            <li key={c.checkpointId} className={`tt-cp${c.checkpointId === openId ? " tt-open" : ""}${c.edited ? " tt-edited" : ""}`} aria-label={label} data-checkpoint={c.checkpointId}>
              <div className="tt-cp-head">
                <span className="tt-step">step {c.step ?? "?"}</span>
                <span className="badge badge-idle">{c.source ?? "?"}</span>
                {c.interrupted ? <span className="badge badge-busy">interrupt</span> : null}
                <span className="muted">{fmtTime(c.createdAt)}</span>
              </div>
              <div className="tt-cp-body">
                {c.writers.length ? <span>{c.writers.join(", ")}</span> : <span className="muted">no writes</span>}
                {c.next.length ? <span className="muted"> → {c.next.join(", ")}</span> : null}
              </div>
              <div className="tt-cp-actions">
                <button type="button" className="link" aria-label={`Open ${label}`} onClick={() => onOpen(s)}>
                  open
                </button>
                <label>
                  <input type="checkbox" aria-label={`Compare ${label}`} checked={compareIds.includes(c.checkpointId)} onChange={() => onToggleCompare(s)} />
                  compare
                </label>
                {c.runId && onOpenTrace ? <TraceLink runId={c.runId} onOpenTrace={onOpenTrace} /> : null}
                <code className="muted tt-cp-id">{c.checkpointId.slice(0, 13)}</code>
              </div>
            </li>
          );
        })}
      </ol>
      <div className="pager" aria-label="History pages">
        <button type="button" disabled={!onNewer} onClick={onNewer}>
          Newer
        </button>
        <span className="muted">page {pageNumber}</span>
        <button type="button" disabled={!onOlder} onClick={onOlder}>
          Older
        </button>
      </div>
    </>
  );
}

/** Two checkpoints side by side as a list of changes, older → newer. */
import type { ThreadState } from "@langchain/langgraph-sdk";
import { useMemo } from "react";
import { JsonView } from "../../messages/JsonView";
import { countChanges, diffValues, formatPath } from "./checkpoint-diff";
import { summarizeCheckpoint } from "./timeline";

/** Which of two checkpoints came first: by creation time, then id (a fork restarts step numbers, time does not). */
export function orderCheckpoints(a: ThreadState, b: ThreadState): [ThreadState, ThreadState] {
  const sa = summarizeCheckpoint(a);
  const sb = summarizeCheckpoint(b);
  const key = (s: typeof sa) => [s.createdAt ?? "", s.checkpointId] as const;
  const [ka, kb] = [key(sa), key(sb)];
  const aFirst = ka[0] !== kb[0] ? ka[0] < kb[0] : ka[1] <= kb[1];
  return aFirst ? [a, b] : [b, a];
}

export function DiffView({ a, b, onClose }: { a: ThreadState; b: ThreadState; onClose: () => void }) {
  const [before, after] = orderCheckpoints(a, b);
  const entries = useMemo(() => diffValues(before.values, after.values), [before, after]);
  const nextBefore = before.next.join(", ");
  const nextAfter = after.next.join(", ");
  const counts = countChanges(entries);
  const sb = summarizeCheckpoint(before);
  const sa = summarizeCheckpoint(after);
  return (
    <section className="tt-diff" aria-label="Checkpoint comparison">
      <header className="tt-head">
        <h4>
          Step {sb.step ?? "?"} <code>{sb.checkpointId.slice(0, 13)}</code> → step {sa.step ?? "?"} <code>{sa.checkpointId.slice(0, 13)}</code>
        </h4>
        <button type="button" onClick={onClose}>
          Close comparison
        </button>
      </header>
      <p className="muted">
        {counts.added} added, {counts.removed} removed, {counts.changed} changed
        {nextBefore !== nextAfter ? ` · next: ${nextBefore || "(end)"} → ${nextAfter || "(end)"}` : ""}
      </p>
      {!entries.length ? <p className="empty">The two checkpoints hold the same values.</p> : null}
      <ul className="tt-diff-list" aria-label="Changes">
        {entries.map((e, i) => (
          <li key={i} className={`tt-diff-${e.change}`} data-change={e.change}>
            <span className="tt-diff-sign">{e.change === "added" ? "+" : e.change === "removed" ? "−" : "~"}</span>
            <code className="tt-diff-path">{formatPath(e.path)}</code>
            <div className="tt-diff-values">
              {e.change !== "added" ? <JsonView value={e.before} label={`before ${formatPath(e.path)}`} limit={2000} className="tt-before" /> : null}
              {e.change !== "removed" ? <JsonView value={e.after} label={`after ${formatPath(e.path)}`} limit={2000} className="tt-after" /> : null}
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

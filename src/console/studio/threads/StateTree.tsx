/**
 * A state's values as a collapsible tree: top-level keys first, containers opened on click, and a
 * `messages` list (any list the message reader understands) shown with the console's message
 * renderer, with the raw tree a click away.
 */
import { useMemo, useState } from "react";
import { MessageList } from "../../messages/MessageList";
import { asMessages } from "./messages";
import { containerIds, flattenState, isMoreRow, toggle, type TreeRow } from "./state-tree";

/** Give it a `key` per checkpoint: what is open is kept only while the same values are shown. */
export function StateTree({ values, label = "State" }: { values: unknown; label?: string }) {
  // top-level containers start open: a state is mostly read at its first level (and messages)
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(() => new Set(containerIds(values, 1)));
  const [shownMore, setShownMore] = useState<ReadonlySet<string>>(() => new Set());
  const [raw, setRaw] = useState<ReadonlySet<string>>(() => new Set());
  const rows = useMemo(
    () => flattenState(values, expanded, { shownMore, opaque: (v, id) => !raw.has(id) && asMessages(v) !== undefined }),
    [values, expanded, shownMore, raw],
  );
  if (values === null || values === undefined || (typeof values === "object" && !Object.keys(values as object).length)) {
    return <p className="empty">Empty state.</p>;
  }
  return (
    <ul className="st-tree" role="tree" aria-label={label}>
      {rows.map((r) =>
        isMoreRow(r) ? (
          <li key={r.id} role="none" style={{ paddingLeft: `${r.depth * 16}px` }}>
            <button type="button" className="link" onClick={() => setShownMore((s) => toggle(s, r.parent))}>
              … {r.more} more
            </button>
          </li>
        ) : (
          <TreeItem
            key={r.id}
            row={r}
            onToggle={() => setExpanded((s) => toggle(s, r.id))}
            raw={raw.has(r.id)}
            onRaw={() => setRaw((s) => toggle(s, r.id))}
          />
        ),
      )}
    </ul>
  );
}

function TreeItem({ row, onToggle, raw, onRaw }: { row: TreeRow; onToggle: () => void; raw: boolean; onRaw: () => void }) {
  // messages render as messages unless asked for raw (flattenState then lists no rows under them)
  const messages = row.opaque ? asMessages(row.value) : undefined;
  const canRender = row.expanded && (row.opaque || (row.kind === "array" && asMessages(row.value) !== undefined));
  return (
    <li role="treeitem" aria-expanded={row.expandable ? row.expanded : undefined} aria-label={row.label} data-path={row.id} style={{ paddingLeft: `${row.depth * 16}px` }}>
      <div className="st-row">
        {row.expandable ? (
          <button type="button" className="st-toggle" aria-label={`${row.expanded ? "Collapse" : "Expand"} ${row.label}`} onClick={onToggle}>
            {row.expanded ? "▾" : "▸"}
          </button>
        ) : (
          <span className="st-toggle-space" />
        )}
        <span className="st-key">{row.label}</span>
        <span className={`st-val st-${row.kind}`}>{row.summary}</span>
        {canRender ? (
          <button type="button" className="link st-raw" onClick={onRaw}>
            {raw ? "show as messages" : "show raw"}
          </button>
        ) : null}
      </div>
      {messages ? (
        <div className="st-messages">
          <MessageList messages={messages} />
        </div>
      ) : null}
    </li>
  );
}

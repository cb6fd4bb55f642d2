/**
 * A trace's run tree as a waterfall: one row per visible run (indented by depth, with its type,
 * status, a bar on the trace's time axis, latency, tokens and cost). Rows are virtualised, so a
 * trace of tens of thousands of runs renders only what is on screen. The tree is keyboard
 * operable: up/down move the selection, left/right collapse and expand, Home/End jump.
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { memo, useEffect, useMemo, useRef, type KeyboardEvent } from "react";
import type { TraceNode } from "../api/types";
import { fmtCost, fmtDuration, fmtTokens } from "../format";
import { fmtAxisDuration } from "./axis";
import { allParents, flattenTree, navigate, revealRun, type FlatRow, type TreeIndex } from "./flatten-tree";
import { axisTicks, barOf, traceSpan, type Span } from "./waterfall";
import "./tracing.css";

const ROW_HEIGHT = 28;
/** Indentation stops growing here: names of very deep runs must stay readable. */
const MAX_INDENT_DEPTH = 24;

export interface WaterfallProps {
  roots: TraceNode[];
  index: TreeIndex<TraceNode>;
  selected: string | undefined;
  onSelect: (id: string) => void;
  collapsed: ReadonlySet<string>;
  onCollapsedChange: (next: ReadonlySet<string>) => void;
  /** The time "now" for runs still going (fixed per load, so bars do not move under the pointer). */
  now: number;
}

export function Waterfall({ roots, index, selected, onSelect, collapsed, onCollapsedChange, now }: WaterfallProps) {
  // the selected run is always visible: a link to a run deep in a collapsed subtree opens it
  const shown = useMemo(() => (selected ? revealRun(index, collapsed, selected) : collapsed), [index, collapsed, selected]);
  const rows = useMemo(() => flattenTree(roots, shown), [roots, shown]);
  const span = useMemo(() => traceSpan(index.order, now), [index, now]);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 15,
    // before the first measurement (and in test DOMs that never measure), assume a screenful
    initialRect: { width: 800, height: 720 },
  });
  const selectedIndex = useMemo(() => rows.findIndex((r) => r.node.id === selected), [rows, selected]);

  // bring the selection into view when it changes (keys, a link with ?run=, the first load)
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);

  const toggle = (id: string) => {
    const next = new Set(shown);
    if (next.has(id)) next.delete(id);
    else {
      next.add(id);
      // collapsing a parent of the selection moves the selection to it, so it stays visible
      if (selected && selected !== id && isBelow(index, selected, id)) onSelect(id);
    }
    onCollapsedChange(next);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const move = navigate(rows, index, selected, e.key);
    if (!move) return;
    e.preventDefault();
    if (move.select) onSelect(move.select);
    if (move.collapse) onCollapsedChange(new Set(shown).add(move.collapse));
    if (move.expand) {
      const next = new Set(shown);
      next.delete(move.expand);
      onCollapsedChange(next);
    }
  };

  const collapseAll = () => {
    onCollapsedChange(allParents(index));
    let top = selected;
    while (top && index.parentOf.has(top)) top = index.parentOf.get(top);
    if (top && top !== selected) onSelect(top);
  };

  return (
    <div className="waterfall">
      <div className="waterfall-tools">
        <button type="button" onClick={() => onCollapsedChange(new Set())} disabled={shown.size === 0}>
          Expand all
        </button>
        <button type="button" onClick={collapseAll}>
          Collapse all
        </button>
        <span className="muted">
          {rows.length === index.order.length ? `${rows.length} runs` : `${rows.length} of ${index.order.length} runs shown`} · ↑↓ to move, ←→ to fold
        </span>
      </div>
      <div className="waterfall-axis" aria-hidden="true">
        <span>Run</span>
        <span className="axis-scale">{span ? axisTicks(span, 2).map((t) => <span key={t.percent} style={{ left: `${t.percent}%` }}>{fmtAxisDuration(t.offsetMs)}</span>) : null}</span>
        <span className="wf-num">Latency</span>
        <span className="wf-num">Tokens</span>
        <span className="wf-num">Cost</span>
      </div>
      <div
        ref={scrollRef}
        className="waterfall-scroll"
        role="tree"
        aria-label="Runs of this trace"
        tabIndex={0}
        aria-activedescendant={selected ? rowDomId(selected) : undefined}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((v) => {
            const row = rows[v.index]!;
            return (
              <WaterfallRow
                key={row.node.id}
                row={row}
                top={v.start}
                selected={row.node.id === selected}
                failedBelow={!row.expanded && index.failedBelow.has(row.node.id)}
                span={span}
                now={now}
                onSelect={onSelect}
                onToggle={toggle}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

const rowDomId = (id: string) => `run-row-${id}`;

function isBelow(index: TreeIndex<unknown>, id: string, ancestor: string): boolean {
  for (let p = index.parentOf.get(id), n = 0; p !== undefined && n < 100_000; p = index.parentOf.get(p), n++) if (p === ancestor) return true;
  return false;
}

interface RowProps {
  row: FlatRow<TraceNode>;
  top: number;
  selected: boolean;
  /** Collapsed with a failed run inside. */
  failedBelow: boolean;
  span: Span | undefined;
  now: number;
  onSelect: (id: string) => void;
  onToggle: (id: string) => void;
}

const WaterfallRow = memo(function WaterfallRow({ row, top, selected, failedBelow, span, now, onSelect, onToggle }: RowProps) {
  const { node, depth, hasChildren, expanded } = row;
  const bar = span ? barOf(node, span, now) : undefined;
  const tokens = node.total_tokens ?? node.usage?.total_tokens ?? null;
  const cost = node.total_cost ?? node.cost?.total_cost ?? null;
  const kind = node.run_type === "llm" || node.run_type === "tool" ? node.run_type : "";
  return (
    <div
      id={rowDomId(node.id)}
      role="treeitem"
      aria-level={depth + 1}
      aria-expanded={hasChildren ? expanded : undefined}
      aria-selected={selected}
      className="wf-row"
      style={{ transform: `translateY(${top}px)` }}
      onClick={() => onSelect(node.id)}
    >
      <span className="wf-name" style={{ paddingLeft: Math.min(depth, MAX_INDENT_DEPTH) * 14 }}>
        {hasChildren ? (
          <button
            type="button"
            className="wf-toggle"
            tabIndex={-1}
            aria-label={`${expanded ? "Collapse" : "Expand"} ${node.name}`}
            onClick={(e) => {
              e.stopPropagation();
              onToggle(node.id);
            }}
          >
            {expanded ? "▾" : "▸"}
          </button>
        ) : (
          <span className="wf-toggle-spacer" />
        )}
        <span className={`wf-type ${kind}`}>{node.run_type}</span>
        <span className="label" title={node.name}>
          {node.name}
        </span>
        {node.status === "error" ? (
          <span className="wf-status-error" title={node.error ?? "error"} aria-label="failed">
            ✕
          </span>
        ) : failedBelow ? (
          <span className="wf-status-error wf-failed-below" title="a run inside failed" aria-label="a run inside failed">
            ●
          </span>
        ) : node.status === "pending" ? (
          <span className="wf-status-pending" title="still running" aria-label="running">
            …
          </span>
        ) : null}
      </span>
      <span className="wf-track">
        {bar ? (
          <span
            className={`wf-bar ${kind}${node.status === "error" ? " error" : ""}${bar.open ? " open" : ""}`}
            style={{ left: `${bar.left}%`, width: `${bar.width}%` }}
            title={`${fmtDuration(node.latency_ms)}${span && node.start_time ? ` from +${fmtDuration(Date.parse(node.start_time) - span.start)}` : ""}`}
          />
        ) : null}
      </span>
      <span className="wf-num">{fmtDuration(node.latency_ms)}</span>
      <span className="wf-num">{tokens === null ? "" : fmtTokens(tokens)}</span>
      <span className="wf-num">{cost === null ? "" : fmtCost(cost)}</span>
    </div>
  );
});

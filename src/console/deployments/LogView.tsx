/**
 * Log lines as plain text in a scrolling box. Messages come from builds of user code: they are
 * rendered as React text nodes only (never HTML), so `<script>` in a line is shown, not run. The box
 * follows new lines only while the reader is at its bottom.
 */
import { useLayoutEffect, useRef } from "react";
import type { LogEntry } from "../api/types";
import { isAtBottom, logTime } from "./logs-follow";
import "./deployments.css";

export function LogView({ entries, dropped = 0, label }: { entries: readonly LogEntry[]; dropped?: number; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useLayoutEffect(() => {
    const el = box.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [entries]);

  return (
    <div
      ref={box}
      className="logview"
      role="log"
      aria-label={label}
      tabIndex={0}
      onScroll={(e) => {
        stick.current = isAtBottom(e.currentTarget);
      }}
    >
      {dropped > 0 ? <div className="muted">… {dropped.toLocaleString("en-US")} earlier lines not kept in the browser</div> : null}
      {entries.length === 0 ? <div className="muted">No log lines yet.</div> : null}
      {entries.map((e) => (
        <div key={e.id} className={`logline level-${e.level.toLowerCase()}`}>
          <span className="logtime" title={e.timestamp}>
            {logTime(e.timestamp)}
          </span>
          <span className="loglevel">{e.level}</span>
          <span className="logmsg">{e.message}</span>
        </div>
      ))}
    </div>
  );
}

/**
 * The Studio's Threads tab: the graph's threads on the left, the chosen one on the right with its
 * state, history and time travel. Talks to the agent server only through the SDK client given.
 */
import type { Client } from "@langchain/langgraph-sdk";
import { useState } from "react";
import { ThreadDetail } from "./ThreadDetail";
import { ThreadList } from "./ThreadList";
import "./threads.css";

export interface ThreadsPanelProps {
  client: Client;
  assistantId: string;
  graphId: string;
  /** Opens a run's trace (the Studio page decides where); without it no trace links are shown. */
  onOpenTrace?: (runId: string) => void;
  /** A thread to open first (for links into a thread). */
  initialThreadId?: string;
  /** Called when the user opens a thread, so the host can keep it in the address. */
  onSelectThread?: (threadId: string) => void;
}

export function ThreadsPanel({ client, assistantId, graphId, onOpenTrace, initialThreadId, onSelectThread }: ThreadsPanelProps) {
  const [selected, setSelected] = useState<string | undefined>(initialThreadId);
  // bumped when a thread changes (edit, fork), so the list shows its new status and order
  const [listKey, setListKey] = useState(0);
  const select = (id: string) => {
    setSelected(id);
    onSelectThread?.(id);
  };
  return (
    <div className="tt-panel">
      <ThreadList client={client} graphId={graphId} selected={selected} onSelect={select} refreshKey={listKey} />
      <div className="tt-main">
        {selected ? (
          <ThreadDetail
            key={selected}
            client={client}
            threadId={selected}
            assistantId={assistantId}
            graphId={graphId}
            onOpenTrace={onOpenTrace}
            onChanged={() => setListKey((k) => k + 1)}
          />
        ) : (
          <p className="muted">Choose a thread.</p>
        )}
      </div>
    </div>
  );
}

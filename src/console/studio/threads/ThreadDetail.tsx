/**
 * One thread: its header (status, A2A context id and agent card, runs with their traces), its current state,
 * and its checkpoint history with time travel.
 */
import type { Client, Run, Thread, ThreadState } from "@langchain/langgraph-sdk";
import { useState } from "react";
import { StatusBadge } from "../../components/common";
import { fmtTime } from "../../format";
import { runPaused, threadRunStatuses } from "../run-events";
import { AgentCardFacts } from "./AgentCardFacts";
import { History } from "./History";
import { a2aContextId } from "./search";
import { StateTree } from "./StateTree";
import { TraceLink } from "./TraceLink";
import { errorText, useLoad } from "./useLoad";

export const RUNS_SHOWN = 20;

interface Detail {
  thread: Thread;
  runs: Run[];
  state: ThreadState;
}

export function ThreadDetail({
  client,
  threadId,
  assistantId,
  graphId,
  onOpenTrace,
  onChanged,
}: {
  client: Client;
  threadId: string;
  assistantId: string;
  graphId: string;
  onOpenTrace?: (runId: string) => void;
  onChanged: () => void;
}) {
  const [tab, setTab] = useState<"state" | "history">("state");
  const detail = useLoad<Detail>(
    async (signal) => {
      const [thread, runs, state] = await Promise.all([
        client.threads.get(threadId, { signal }),
        client.runs.list(threadId, { limit: RUNS_SHOWN, signal }),
        client.threads.getState(threadId, undefined, { signal }),
      ]);
      return { thread, runs, state };
    },
    [client, threadId],
  );
  // which earlier runs stopped at an interrupt (resumed since): each one's newest checkpoint says.
  // Loaded after the thread is shown (one small request per such run), not before it.
  const resumedPauses = useLoad<Set<string>>(
    async (signal) => {
      const d = detail.data;
      if (!d) return new Set();
      const current = stateRunId(d.state);
      const candidates = d.runs.filter((r) => r.status === "success" && r.run_id !== current);
      const paused = await Promise.all(
        candidates.map(async (r) => runPaused((await client.threads.getHistory(threadId, { limit: 1, metadata: { run_id: r.run_id }, signal }))[0])),
      );
      return new Set(candidates.filter((_, i) => paused[i]).map((r) => r.run_id));
    },
    [client, threadId, detail.data],
  );
  const refresh = () => {
    detail.reload();
    onChanged();
  };
  if (detail.error) return <p className="error" role="alert">Could not load thread {threadId}: {errorText(detail.error)}</p>;
  if (!detail.data) return <p className="loading" role="status">Loading thread…</p>;
  const { thread, runs, state } = detail.data;
  const contextId = a2aContextId(thread.metadata, runs);
  return (
    <section className="tt-detail" aria-label={`Thread ${threadId}`}>
      <header className="tt-head">
        <h3>
          Thread <code>{threadId}</code>
        </h3>
        <StatusBadge status={thread.status} />
        <button type="button" onClick={detail.reload}>
          Refresh
        </button>
      </header>
      <dl className="tt-facts">
        <dt>Updated</dt>
        <dd>{fmtTime(thread.updated_at)}</dd>
        {contextId ? (
          <>
            <dt>A2A context</dt>
            <dd>
              <code aria-label="A2A context id">{contextId}</code>
            </dd>
          </>
        ) : null}
        {state.next.length ? (
          <>
            <dt>Next</dt>
            <dd>{state.next.join(", ")}</dd>
          </>
        ) : null}
      </dl>
      <AgentCardFacts client={client} assistantId={threadAssistant(thread) ?? assistantId} />
      <Runs runs={runs} statuses={threadRunStatuses(runs, thread.status, stateRunId(state), resumedPauses.data)} onOpenTrace={onOpenTrace} />
      <div className="tt-tabs" role="tablist">
        <button type="button" role="tab" aria-selected={tab === "state"} onClick={() => setTab("state")}>
          State
        </button>
        <button type="button" role="tab" aria-selected={tab === "history"} onClick={() => setTab("history")}>
          History
        </button>
      </div>
      {tab === "state" ? (
        <div role="tabpanel" aria-label="Current state">
          <StateTree key={state.checkpoint.checkpoint_id ?? "none"} values={state.values} label="Current state" />
        </div>
      ) : (
        <div role="tabpanel" aria-label="History">
          <History client={client} threadId={threadId} assistantId={assistantId} graphId={graphId} onOpenTrace={onOpenTrace} onChanged={refresh} />
        </div>
      )}
    </section>
  );
}

/** The assistant the thread runs (its runs record it in the thread's metadata), if known. */
const threadAssistant = (thread: Thread): string | undefined => {
  const id = (thread.metadata as Record<string, unknown> | null)?.assistant_id;
  return typeof id === "string" && id ? id : undefined;
};

/** The run that wrote the thread's current checkpoint (none after an edit made outside a run). */
const stateRunId = (state: ThreadState): string | undefined => {
  const id = (state.metadata as Record<string, unknown> | undefined)?.run_id;
  return typeof id === "string" ? id : undefined;
};

function Runs({ runs, statuses, onOpenTrace }: { runs: Run[]; statuses: string[]; onOpenTrace?: (runId: string) => void }) {
  if (!runs.length) return <p className="muted">No runs on this thread.</p>;
  return (
    <details className="tt-runs" open>
      <summary>
        Runs ({runs.length}
        {runs.length >= RUNS_SHOWN ? "+, newest first" : ""})
      </summary>
      <ul aria-label="Runs">
        {runs.map((r, i) => (
          <li key={r.run_id} data-status={statuses[i]}>
            <code>{r.run_id}</code> <StatusBadge status={statuses[i] ?? r.status} /> <span className="muted">{fmtTime(r.created_at)}</span>{" "}
            {onOpenTrace ? <TraceLink runId={r.run_id} onOpenTrace={onOpenTrace} /> : null}
          </li>
        ))}
      </ul>
    </details>
  );
}

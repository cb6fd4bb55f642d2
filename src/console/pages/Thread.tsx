/**
 * One conversation, oldest turn first. Each turn is the root run of a trace: its messages when the
 * API rendered them (an LLM call), else its input and output as JSON; with its time, latency,
 * tokens and cost, and a link to the whole trace.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { data, tracing } from "../api/client";
import type { ThreadTurns } from "../api/types";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from "../format";
import { JsonView } from "../messages/JsonView";
import { MessageList } from "../messages/MessageList";
import { paths } from "../routes";
import { ProjectHeader } from "../tracing/ProjectHeader";
import "../tracing/tracing.css";

/** Turns loaded per page; a longer conversation offers the next page. */
const TURN_LIMIT = 500;
/** A turn's payload shows this much before "show all": a thread is many turns on one page. */
const PAYLOAD_PREVIEW = 4_000;

type Turn = ThreadTurns["turns"][number];

export default function Thread() {
  const { projectId = "", threadId = "" } = useParams();
  const thread = useInfiniteQuery({
    queryKey: ["tracing", "thread", projectId, threadId],
    initialPageParam: 0,
    queryFn: async ({ pageParam }) =>
      data(
        await tracing.GET("/projects/{project_id}/threads/{thread_id}", {
          params: { path: { project_id: projectId, thread_id: threadId }, query: { limit: TURN_LIMIT, offset: pageParam } },
        }),
      ),
    // a full page may have more behind it
    getNextPageParam: (last, pages) => (last.turns.length === TURN_LIMIT ? pages.length * TURN_LIMIT : undefined),
  });
  const turns = thread.data?.pages.flatMap((p) => p.turns) ?? [];
  return (
    <div className="tracing-page">
      <ProjectHeader projectId={projectId} />
      <h2>
        Thread <span className="mono">{threadId}</span>
      </h2>
      <p>
        <Link to={paths.threads(projectId)}>← All threads</Link>
      </p>
      {thread.error ? <ErrorBox error={thread.error} title="Thread" /> : null}
      {thread.isLoading ? (
        <Loading what="conversation" />
      ) : !turns.length ? (
        <p className="empty">This thread has no turns.</p>
      ) : (
        <>
          <ol className="turns" aria-label="Turns">
            {turns.map((t, i) => (
              <li key={t.id}>
                <TurnView turn={t} n={i + 1} />
              </li>
            ))}
          </ol>
          {thread.hasNextPage ? (
            <p>
              <button type="button" disabled={thread.isFetchingNextPage} onClick={() => void thread.fetchNextPage()}>
                {thread.isFetchingNextPage ? "Loading…" : `Showing ${turns.length} turns: load more`}
              </button>
            </p>
          ) : null}
        </>
      )}
    </div>
  );
}

function TurnView({ turn, n }: { turn: Turn; n: number }) {
  const trace = turn.trace;
  const messages = turn.messages?.rendered && turn.messages.messages ? turn.messages.messages : undefined;
  return (
    <article className="panel turn" aria-label={`Turn ${n}`}>
      <div className="turn-head">
        <h3>
          Turn {n}: {turn.name}
        </h3>
        <StatusBadge status={turn.status} />
        <span className="muted">{fmtTime(turn.start_time)}</span>
        <span>
          <span className="muted">latency</span> {turn.status === "pending" ? "running" : fmtDuration(turn.latency_ms)}
        </span>
        {trace ? (
          <>
            <span>
              <span className="muted">tokens</span> {fmtTokens(trace.total_tokens)}
            </span>
            <span>
              <span className="muted">cost</span> {fmtCost(trace.total_cost)}
            </span>
            {trace.ttft_ms !== null ? (
              <span>
                <span className="muted">TTFT</span> {fmtDuration(trace.ttft_ms)}
              </span>
            ) : null}
          </>
        ) : null}
        <Link to={paths.trace(turn.trace_id)}>Open trace</Link>
      </div>
      {turn.error ? <pre className="error">{turn.error}</pre> : null}
      {messages ? (
        <MessageList messages={messages} />
      ) : (
        <div className="turn-io">
          <div>
            <h4>Input</h4>
            <JsonView value={turn.inputs ?? null} label={`Input of turn ${n}`} limit={PAYLOAD_PREVIEW} />
          </div>
          <div>
            <h4>Output</h4>
            {turn.outputs === null && turn.status === "pending" ? (
              <p className="muted">Still running.</p>
            ) : (
              <JsonView value={turn.outputs ?? null} label={`Output of turn ${n}`} limit={PAYLOAD_PREVIEW} />
            )}
          </div>
        </div>
      )}
    </article>
  );
}

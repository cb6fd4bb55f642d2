/**
 * The selected run of a trace: for an LLM call, its messages rendered structurally; for any other
 * run, its inputs, outputs, error, metadata and events as pretty JSON in <pre> (text only: trace
 * payloads are untrusted), after the messages of its turn when it was called with messages. What the tree already knows shows while the full run loads.
 */
import type { RunDetail, TraceNode } from "../api/types";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from "../format";
import { JsonView } from "../messages/JsonView";
import { MessageList } from "../messages/MessageList";
import { RunMessages } from "../messages/RunMessages";
import { useQuery } from "@tanstack/react-query";
import { data, tracing } from "../api/client";
import { useRun } from "./queries";
import "./tracing.css";

export function RunDetailPane({ runId, node }: { runId: string; node: TraceNode | undefined }) {
  const run = useRun(runId);
  const detail = run.data;
  const head = detail ?? node;
  return (
    <section className="run-detail panel" aria-label="Selected run">
      {head ? (
        <h2>
          <span>{head.name}</span>
          <span className={`wf-type ${head.run_type}`}>{head.run_type}</span>
          <StatusBadge status={head.status} />
        </h2>
      ) : null}
      {run.error ? <ErrorBox error={run.error} title="Run" /> : null}
      {detail ? <FeedbackSummary stats={detail.feedback_stats} /> : null}
      {detail && Object.keys(detail.feedback_stats ?? {}).length ? <FeedbackComments runId={detail.id} /> : null}
      {!detail ? (
        run.isLoading ? <Loading what="run" /> : null
      ) : detail.run_type === "llm" ? (
        <>
          {detail.error ? <RunError error={detail.error} /> : null}
          <RunMessages run={detail} />
          <Extras run={detail} />
        </>
      ) : (
        <>
          <RunFields run={detail} />
          {detail.error ? <RunError error={detail.error} /> : null}
          {detail.messages?.rendered && detail.messages.messages?.length ? (
            // a graph turn called with messages: the conversation step it made, then the raw payloads
            <section aria-label="Messages of this turn">
              <h3>Messages</h3>
              <MessageList messages={detail.messages.messages} />
            </section>
          ) : null}
          <h3>Inputs</h3>
          <JsonView value={detail.inputs ?? null} label="Inputs" />
          <h3>Outputs</h3>
          {detail.outputs === null && detail.status === "pending" ? <p className="muted">Still running.</p> : <JsonView value={detail.outputs ?? null} label="Outputs" />}
          <Extras run={detail} />
        </>
      )}
    </section>
  );
}

function RunError({ error }: { error: string }) {
  return (
    <section aria-label="Error">
      <h3>Error</h3>
      <pre className="error">{error}</pre>
    </section>
  );
}

function RunFields({ run }: { run: RunDetail }) {
  return (
    <dl className="fields">
      <dt>Started</dt>
      <dd>{fmtTime(run.start_time)}</dd>
      <dt>Latency</dt>
      <dd>{run.status === "pending" ? "running" : fmtDuration(run.latency_ms)}</dd>
      {run.usage ? (
        <>
          <dt>Tokens</dt>
          <dd>
            {fmtTokens(run.usage.total_tokens)} ({fmtTokens(run.usage.input_tokens)} in, {fmtTokens(run.usage.output_tokens)} out)
          </dd>
        </>
      ) : null}
      {run.cost ? (
        <>
          <dt>Cost</dt>
          <dd>{fmtCost(run.cost.total_cost)}</dd>
        </>
      ) : null}
      {run.model ? (
        <>
          <dt>Model</dt>
          <dd>{run.model}</dd>
        </>
      ) : null}
      {run.tags.length ? (
        <>
          <dt>Tags</dt>
          <dd>{run.tags.join(", ")}</dd>
        </>
      ) : null}
      {run.thread_id ? (
        <>
          <dt>Thread</dt>
          <dd className="mono">{run.thread_id}</dd>
        </>
      ) : null}
    </dl>
  );
}

/** The rest, folded: metadata, events, ingestion problems, attachments. */
function Extras({ run }: { run: RunDetail }) {
  const metadata = run.metadata && Object.keys(run.metadata).length ? run.metadata : null;
  return (
    <>
      {run.problems.length ? (
        <div className="warning" role="note">
          <strong>Fixed up at ingestion:</strong> {run.problems.join("; ")}
        </div>
      ) : null}
      {metadata ? (
        <details>
          <summary>Metadata</summary>
          <JsonView value={metadata} label="Metadata" />
        </details>
      ) : null}
      {run.events.length ? (
        <details>
          <summary>Events ({run.events.length})</summary>
          <JsonView value={run.events} label="Events" />
        </details>
      ) : null}
      {run.attachments.length ? (
        <details>
          <summary>Attachments ({run.attachments.length})</summary>
          <ul>
            {run.attachments.map((a) => (
              <li key={a.name}>
                <span className="mono">{a.name}</span> <span className="muted">({a.content_type}, {fmtTokens(a.size)} bytes)</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <details>
        <summary>Ids</summary>
        <dl className="fields">
          <dt>Run</dt>
          <dd className="mono">{run.id}</dd>
          <dt>Trace</dt>
          <dd className="mono">{run.trace_id}</dd>
          <dt>Parent</dt>
          <dd className="mono">{run.parent_run_id ?? "—"}</dd>
        </dl>
      </details>
    </>
  );
}

/** Feedback given on the run (evaluators, users, the SDK's createFeedback): per key, count and mean score. */
function FeedbackSummary({ stats }: { stats: RunDetail["feedback_stats"] }) {
  if (!stats) return null;
  const keys = Object.keys(stats).sort();
  if (!keys.length) return null;
  return (
    <section aria-label="Feedback">
      <h3>Feedback</h3>
      <table className="feedback-table">
        <tbody>
          {keys.map((k) => (
            <tr key={k}>
              <th scope="row">{k}</th>
              <td>{stats[k]!.avg === null ? "—" : Math.round(stats[k]!.avg! * 1000) / 1000}</td>
              <td className="muted">
                {stats[k]!.n} {stats[k]!.n === 1 ? "score" : "scores"}
                {Object.keys(stats[k]!.values).length ? ` · ${Object.entries(stats[k]!.values).map(([v, n]) => `${v} ×${n}`).join(", ")}` : ""}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/**
 * The feedback that says why (an evaluator's comment, a correction): the scores above do not. Only
 * fetched when the run has feedback; pairwise verdicts name their comparison.
 */
function FeedbackComments({ runId }: { runId: string }) {
  const list = useQuery({
    queryKey: ["tracing", "run-feedback", runId],
    queryFn: async () => data(await tracing.GET("/feedback", { params: { query: { run: runId, limit: 100 } } })),
    staleTime: 60_000,
  });
  const said = (list.data ?? []).filter((f) => f.comment || f.correction);
  if (list.error) return <ErrorBox error={list.error} title="Feedback" />;
  if (!said.length) return null;
  return (
    <ul className="feedback-comments" aria-label="Feedback comments">
      {said.map((f) => (
        <li key={f.id}>
          <strong>{f.key}</strong>
          {f.comment ? `: ${f.comment}` : ""}
          {f.correction !== null && f.correction !== undefined ? <span className="muted"> · correction {JSON.stringify(f.correction)}</span> : null}
        </li>
      ))}
    </ul>
  );
}

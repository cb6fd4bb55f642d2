/**
 * One LLM call of a trace: its header (model, tokens, cost, TTFT, latency), the normaliser's
 * warnings, and its messages rendered structurally — or, for payloads in a format Berth does not
 * read, the raw inputs and outputs with the reason. A "Raw JSON" toggle shows the payloads as sent.
 */
import { useState } from "react";
import type { RunDetail } from "../api/types";
import { JsonView } from "./JsonView";
import { MessageList } from "./MessageList";
import { callSummary } from "./labels";
import "./messages.css";

export function RunMessages({ run }: { run: RunDetail }) {
  const [raw, setRaw] = useState(false);
  const m = run?.messages;
  const messages = m?.rendered === true && Array.isArray(m.messages) ? m.messages : undefined;
  const rendered = messages !== undefined;
  const warnings: string[] = Array.isArray(m?.warnings) ? m.warnings.filter((w: unknown): w is string => typeof w === "string") : [];
  const note = !m
    ? run?.run_type === "llm"
      ? "This LLM run has no rendered messages; its inputs and outputs are shown raw."
      : "Not an LLM call: its inputs and outputs are shown raw."
    : typeof m.reason === "string" && m.reason !== ""
      ? m.reason
      : "The inputs and outputs are in a format Berth does not render; shown raw.";
  return (
    <section className="run-messages" aria-label="LLM call">
      <CallSummary run={run} />
      {rendered ? (
        <>
          {warnings.length ? (
            <div className="warning run-warnings" role="note" aria-label="Warnings">
              <strong>Warnings</strong>
              <ul>
                {warnings.map((w, i) => (
                  <li key={i}>{w}</li>
                ))}
              </ul>
            </div>
          ) : null}
          <div className="toolbar run-messages-toolbar">
            <button type="button" aria-pressed={raw} onClick={() => setRaw(!raw)}>
              Raw JSON
            </button>
            {typeof m?.format === "string" ? <span className="muted">read as {m.format}</span> : null}
          </div>
          {raw ? <RawPayloads run={run} /> : <MessageList messages={messages} />}
        </>
      ) : (
        <>
          <p className="warning run-unrendered" role="note">
            {note}
          </p>
          <RawPayloads run={run} />
        </>
      )}
    </section>
  );
}

function CallSummary({ run }: { run: RunDetail }) {
  return (
    <dl className="fields call-summary" aria-label="Call summary">
      {callSummary(run).map((item) => (
        <div key={item.label} className="call-summary-item">
          <dt>{item.label}</dt>
          <dd>
            <span className="call-summary-value">{item.value}</span>
            {item.marker ? (
              <span className="badge badge-idle marker" title="Counted by Berth: the client sent no token usage">
                {item.marker}
              </span>
            ) : null}
            {item.note ? <span className="muted call-summary-note"> ({item.note})</span> : null}
          </dd>
        </div>
      ))}
    </dl>
  );
}

function RawPayloads({ run }: { run: RunDetail }) {
  return (
    <div className="raw-payloads">
      <h4>Inputs</h4>
      <JsonView value={run?.inputs ?? null} label="Inputs" />
      <h4>Outputs</h4>
      <JsonView value={run?.outputs ?? null} label="Outputs" />
    </div>
  );
}

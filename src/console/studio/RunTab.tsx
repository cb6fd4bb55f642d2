/**
 * Run a graph: a chat input when its input has `messages`, a form from the input schema
 * otherwise. The run streams in `messages-tuple`, `updates`, `values` and `tasks` modes and is
 * shown as it arrives (messages with the console's renderer, the graph beside it with the running
 * node lit). An interrupt shows its value and is resumed with `Command({resume})`. Sending while a
 * run is busy queues the new run on the thread (`enqueue`), shown as queued until its turn, when
 * its stream is joined. Runs can be cancelled (interrupt or rollback); each links to its trace.
 */
import { useQuery } from "@tanstack/react-query";
import type { Assistant, Client, StreamMode } from "@langchain/langgraph-sdk";
import { useEffect, useMemo, useRef, useState } from "react";
import { ErrorBox } from "../components/common";
import { JsonView } from "../messages/JsonView";
import { MessageList } from "../messages/MessageList";
import { clientKey } from "./client";
import { GraphPanel } from "./GraphView";
import { toNative } from "./lc-messages";
import { applyEvent, EMPTY_RUN, ROLLED_BACK, settledRunStatus, type RunLookup, type RunView } from "./run-events";
import { hasMessagesInput } from "./schema-form";
import { SchemaForm } from "./SchemaForm";

const STREAM_MODES: StreamMode[] = ["messages-tuple", "updates", "values", "tasks"];

interface RunRow {
  run_id: string;
  status: string;
}

/** Marks for the benchmark (bench/console.ts): when the first token arrived and when it was on screen. */
function markFirstToken(kind: "received" | "shown"): void {
  if (performance.getEntriesByName(`studio:first-token-${kind}`).length === 0) performance.mark(`studio:first-token-${kind}`);
}

/**
 * The run as the server knows it now. After this page asked for a rollback the run is expected to
 * be gone: it is looked for in the thread's run list rather than asked for by id, so the expected
 * outcome is not a 404 the browser reports as a failed request.
 */
async function lookUpRun(client: Client, thread: string, runId: string, rolledBack: boolean): Promise<RunLookup> {
  if (rolledBack) {
    return client.runs.list(thread, { limit: 100 }).then(
      (runs): RunLookup => {
        const run = runs.find((r) => r.run_id === runId);
        return run ? { status: run.status } : "gone";
      },
      (): RunLookup => "failed",
    );
  }
  return client.runs.get(thread, runId).then(
    (run): RunLookup => ({ status: run.status }),
    (err: { status?: number }): RunLookup => (err?.status === 404 ? "gone" : "failed"),
  );
}

export function RunTab({ client, assistant, onOpenTrace }: { client: Client; assistant: Assistant; onOpenTrace?: (runId: string) => void }) {
  const k = clientKey(client);
  const schemas = useQuery({ queryKey: ["studio", k, "schemas", assistant.assistant_id], queryFn: () => client.assistants.getSchemas(assistant.assistant_id) });
  const chat = hasMessagesInput(schemas.data?.input_schema);
  const [threadId, setThreadId] = useState<string>();
  const [view, setView] = useState<RunView>(EMPTY_RUN);
  const [active, setActive] = useState<RunRow>();
  const [runs, setRuns] = useState<RunRow[]>([]);
  const [text, setText] = useState("");
  const [formInput, setFormInput] = useState<Record<string, unknown>>({});
  const [formProblem, setFormProblem] = useState<string>();
  const [resume, setResume] = useState("");
  const [error, setError] = useState<unknown>();
  const queue = useRef<string[]>([]);
  const streaming = useRef(false);
  const abort = useRef<AbortController | undefined>(undefined);
  /** How this page cancelled a run (by run id): a rolled-back run is deleted, the server can't say. */
  const cancelled = useRef(new Map<string, "interrupt" | "rollback">());
  useEffect(() => () => abort.current?.abort(), []);

  const setStatus = (run_id: string, status: string) => setRuns((rs) => (rs.some((r) => r.run_id === run_id) ? rs.map((r) => (r.run_id === run_id ? { ...r, status } : r)) : [...rs, { run_id, status }]));

  /** Read one run's events into the view; then the next queued run's, if any. */
  const consume = async (thread: string, events: AsyncIterable<{ event: string; data: unknown }>, known?: string) => {
    streaming.current = true;
    let runId = known;
    // whether this run stopped to wait (the reducer read on its own: the view is React state)
    let paused = false;
    try {
      for await (const { event, data } of events) {
        if (event === "metadata") {
          runId = (data as { run_id?: string }).run_id ?? runId;
          if (runId) {
            setActive({ run_id: runId, status: "running" });
            setStatus(runId, "running");
          }
          continue;
        }
        if (event.startsWith("messages")) markFirstToken("received");
        else paused ||= applyEvent(EMPTY_RUN, event, data).paused;
        setView((v) => applyEvent(v, event, data));
      }
      if (runId) {
        const lookup = await lookUpRun(client, thread, runId, cancelled.current.get(runId) === "rollback");
        const status = settledRunStatus(lookup, paused, cancelled.current.get(runId));
        setStatus(runId, status);
        if (status === ROLLED_BACK) {
          // rolled back: what the run wrote is gone from the thread; show the state it went back to
          const state = await client.threads.getState(thread).catch(() => undefined);
          if (state) setView((v) => ({ ...applyEvent({ ...v, messages: [], partial: [] }, "values", state.values), interrupts: [], waiting: [], paused: false }));
        }
      }
    } catch (err) {
      if ((err as Error).name !== "AbortError") setError(err);
    } finally {
      streaming.current = false;
      setActive(undefined);
      setView((v) => ({ ...v, running: [] }));
    }
    const next = queue.current.shift();
    if (next) {
      setView((v) => ({ ...v, interrupts: [], paused: false, error: undefined }));
      abort.current = new AbortController();
      // from its first event ("-1"): a join is live-only otherwise, and the queued run starts the moment
      // the one before it ends, before this join reaches the server — its first events (often all) were lost
      await consume(
        thread,
        client.runs.joinStream(thread, next, { streamMode: STREAM_MODES, lastEventId: "-1", signal: abort.current.signal }) as AsyncIterable<{ event: string; data: unknown }>,
        next,
      );
    }
  };

  const ensureThread = async () => {
    if (threadId) return threadId;
    const t = await client.threads.create({ graphId: assistant.graph_id });
    setThreadId(t.thread_id);
    return t.thread_id;
  };

  const start = async (payload: { input?: Record<string, unknown> | null; command?: { resume: unknown } }) => {
    setError(undefined);
    try {
      const thread = await ensureThread();
      if (streaming.current) {
        // the thread is busy: the run waits its turn on the server (enqueue) and is shown as queued
        const run = await client.runs.create(thread, assistant.assistant_id, { ...payload, multitaskStrategy: "enqueue" });
        queue.current.push(run.run_id);
        setStatus(run.run_id, "queued");
        return;
      }
      setView((v) => ({ ...EMPTY_RUN, messages: v.messages, values: v.values, events: 0 }));
      abort.current = new AbortController();
      const events = client.runs.stream(thread, assistant.assistant_id, {
        ...payload,
        streamMode: STREAM_MODES,
        streamSubgraphs: true,
        multitaskStrategy: "enqueue",
        signal: abort.current.signal,
      }) as AsyncIterable<{ event: string; data: unknown }>;
      await consume(thread, events);
    } catch (err) {
      setError(err);
    }
  };

  const send = () => {
    if (chat) {
      if (!text.trim()) return;
      void start({ input: { messages: [{ role: "user", content: text }] } });
      setText("");
    } else if (!formProblem) void start({ input: formInput });
  };

  const cancel = async (action: "interrupt" | "rollback") => {
    if (!active || !threadId) return;
    try {
      cancelled.current.set(active.run_id, action);
      await client.runs.cancel(threadId, active.run_id, false, action);
      setStatus(active.run_id, action === "rollback" ? ROLLED_BACK : "interrupted");
    } catch (err) {
      setError(err);
    }
  };

  const doResume = () => {
    let value: unknown = resume;
    try {
      value = JSON.parse(resume);
    } catch {
      // plain text is a string resume value
    }
    setResume("");
    void start({ command: { resume: value } });
  };

  const native = useMemo(() => view.messages.map(toNative), [view.messages]);
  const hasAssistantText = native.some((m) => m.role === "assistant" && m.content.length > 0);
  useEffect(() => {
    if (!hasAssistantText) return;
    requestAnimationFrame(() => markFirstToken("shown"));
  }, [hasAssistantText]);

  const interrupted = [...new Set([...view.waiting, ...view.interrupts.map((i) => i.node).filter((n): n is string => !!n)])];
  return (
    <div className="studio-run">
      <div className="studio-run-main">
        <div className="studio-thread-line">
          Thread: <code>{threadId ?? "new (created on first send)"}</code>{" "}
          <button type="button" disabled={!!active} onClick={() => (setThreadId(undefined), setView(EMPTY_RUN), setRuns([]))}>
            New thread
          </button>
        </div>
        <section aria-label="Conversation" className="studio-conversation">
          {native.length ? <MessageList messages={native} /> : !chat && view.values !== undefined ? <JsonView value={view.values} /> : <p className="empty">Nothing yet: send something.</p>}
          {!chat && view.values !== undefined && native.length ? <JsonView value={view.values} /> : null}
        </section>
        {view.error ? <p role="alert" className="field-error">Run failed: {view.error}</p> : null}
        {view.paused && !view.interrupts.length && !active ? (
          <section aria-label="Interrupt" className="studio-interrupt">
            {/* a breakpoint (interrupt_before/after): nothing to answer; the run goes on from the checkpoint */}
            <h4>Paused at a breakpoint</h4>
            <button type="button" onClick={() => void start({ input: null })}>Continue</button>
          </section>
        ) : null}
        {view.interrupts.length && !active ? (
          <section aria-label="Interrupt" className="studio-interrupt">
            <h4>Interrupted{view.interrupts[0]?.node ? ` in ${view.interrupts[0].node}` : ""}</h4>
            {view.interrupts.map((i, n) => (
              <JsonView key={i.id ?? n} value={i.value} />
            ))}
            <form
              onSubmit={(e) => {
                e.preventDefault();
                doResume();
              }}
            >
              <label>
                Resume value (JSON or text)
                <input aria-label="Resume value" value={resume} onChange={(e) => setResume(e.target.value)} placeholder='"approve"' />
              </label>
              <button type="submit">Resume</button>
            </form>
          </section>
        ) : null}
        <form
          className="studio-input"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          {chat ? (
            <textarea aria-label="Message" rows={2} value={text} onChange={(e) => setText(e.target.value)} onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                send();
              }
            }} placeholder="Message the graph (Enter sends)" />
          ) : schemas.data ? (
            <SchemaForm label="Input" schema={schemas.data.input_schema} value={formInput} onChange={(v, err) => (setFormInput(v), setFormProblem(err))} />
          ) : null}
          <div className="studio-actions">
            <button type="submit">{active ? "Send (queued)" : "Send"}</button>
            <button type="button" disabled={!active} onClick={() => void cancel("interrupt")}>Cancel</button>
            <button type="button" disabled={!active} onClick={() => void cancel("rollback")}>Cancel and roll back</button>
          </div>
        </form>
        {error ? <ErrorBox error={error} /> : null}
        <table aria-label="Runs" className="studio-runs">
          <tbody>
            {runs.map((r) => (
              <tr key={r.run_id} data-status={r.status}>
                <td><code>{r.run_id.slice(0, 8)}</code></td>
                <td>{r.status}</td>
                <td>
                  {onOpenTrace ? <button type="button" className="link" onClick={() => onOpenTrace(r.run_id)}>Trace</button> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <GraphPanel client={client} assistantId={assistant.assistant_id} highlights={{ running: view.running, done: view.done, interrupted }} />
    </div>
  );
}

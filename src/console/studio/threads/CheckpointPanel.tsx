/**
 * Time travel at one checkpoint: its state, an edit written as a new checkpoint after it
 * (`update_state` with the checkpoint and `as_node`), and a new run forked from it.
 */
import type { Client, Run, ThreadState } from "@langchain/langgraph-sdk";
import { useState } from "react";
import { StatusBadge } from "../../components/common";
import { parseJsonObject } from "./search";
import { StateTree } from "./StateTree";
import { summarizeCheckpoint } from "./timeline";
import { TraceLink } from "./TraceLink";
import { errorText, useLoad } from "./useLoad";

/** Graph nodes a state update can be written as (the graph's own nodes, not its start/end). */
function useNodeNames(client: Client, assistantId: string): string[] {
  const graph = useLoad((signal) => client.assistants.getGraph(assistantId, { signal }), [client, assistantId]);
  return (graph.data?.nodes ?? []).map((n) => String(n.id)).filter((id) => id !== "__end__");
}

export function CheckpointPanel({
  client,
  threadId,
  assistantId,
  graphId,
  state,
  parent,
  onOpenTrace,
  onChanged,
}: {
  client: Client;
  threadId: string;
  assistantId: string;
  graphId: string;
  state: ThreadState;
  /** Its parent checkpoint when known (it tells which nodes wrote this one). */
  parent?: ThreadState;
  onOpenTrace?: (runId: string) => void;
  /** Something new was written: the new checkpoint's id, when there is one to open. */
  onChanged: (newCheckpointId?: string) => void;
}) {
  const c = summarizeCheckpoint(state, parent);
  const nodes = useNodeNames(client, assistantId);
  const [edit, setEdit] = useState(() => JSON.stringify(state.values ?? {}, null, 2));
  const [asNode, setAsNode] = useState(c.writers[0] ?? "");
  const [input, setInput] = useState("");
  const [busy, setBusy] = useState<"edit" | "fork">();
  const [error, setError] = useState<string>();
  const [forked, setForked] = useState<Run>();
  const editParsed = parseJsonObject(edit, "The edited state");
  const inputParsed = input.trim() ? parseJsonObject(input, "The fork's input") : undefined;

  const saveEdit = async () => {
    if (!editParsed.ok) return;
    setBusy("edit");
    setError(undefined);
    try {
      const res = await client.threads.updateState(threadId, {
        values: editParsed.value,
        checkpoint: state.checkpoint,
        ...(asNode ? { asNode } : {}),
      });
      const id = res.configurable?.checkpoint_id;
      onChanged(typeof id === "string" ? id : undefined);
    } catch (err) {
      setError(`Edit failed: ${errorText(err)}`);
    } finally {
      setBusy(undefined);
    }
  };

  const fork = async () => {
    if (inputParsed && !inputParsed.ok) return;
    setBusy("fork");
    setError(undefined);
    try {
      const { thread_id: _t, ...checkpoint } = state.checkpoint;
      const run = await client.runs.create(threadId, assistantId, {
        checkpoint,
        input: inputParsed?.ok ? inputParsed.value : null,
        metadata: { studio_fork_of: c.checkpointId },
        multitaskStrategy: "enqueue",
      });
      setForked(run);
      // the run's result is what the user came for: wait for it, then show the new history
      const done = await client.runs.join(threadId, run.run_id).then(
        () => client.runs.get(threadId, run.run_id),
        () => run,
      );
      setForked(done);
      onChanged();
    } catch (err) {
      setError(`Fork failed: ${errorText(err)}`);
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <section className="tt-checkpoint" aria-label={`Checkpoint ${c.checkpointId}`}>
      <h4>
        Checkpoint <code>{c.checkpointId}</code> <span className="muted">step {c.step ?? "?"}</span>
      </h4>
      {c.next.length ? <p className="muted">Next: {c.next.join(", ")}</p> : <p className="muted">Nothing runs next from here (the graph had finished).</p>}
      <StateTree values={state.values} label={`State at checkpoint ${c.checkpointId}`} />

      <details className="tt-edit">
        <summary>Edit state</summary>
        <p className="hint">
          Written as a new checkpoint after this one, as if the node below had returned it (reducers apply: a message with an existing id replaces it).
        </p>
        <textarea aria-label="Edited state (JSON)" rows={10} value={edit} onChange={(e) => setEdit(e.target.value)} spellCheck={false} />
        {!editParsed.ok ? <p className="error" role="alert">{editParsed.error}</p> : null}
        <label>
          as node
          <select aria-label="As node" value={asNode} onChange={(e) => setAsNode(e.target.value)}>
            <option value="">(the server decides)</option>
            {[...new Set([...nodes, ...c.writers])].map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>{" "}
        <button type="button" className="primary" disabled={!editParsed.ok || !!busy} onClick={saveEdit}>
          {busy === "edit" ? "Saving…" : "Save as new checkpoint"}
        </button>
      </details>

      <details className="tt-fork" open>
        <summary>Fork a run from here</summary>
        <p className="hint">
          Runs graph {graphId} again from this checkpoint; the thread's history keeps the old branch. Input is optional (empty: continue with the next nodes).
        </p>
        <textarea aria-label="Fork input (JSON)" rows={3} value={input} placeholder='{"messages": [{"role": "user", "content": "…"}]}' onChange={(e) => setInput(e.target.value)} spellCheck={false} />
        {inputParsed && !inputParsed.ok ? <p className="error" role="alert">{inputParsed.error}</p> : null}
        <button type="button" className="primary" disabled={(inputParsed && !inputParsed.ok) || !!busy} onClick={fork}>
          {busy === "fork" ? "Running…" : "Fork run"}
        </button>
        {forked ? (
          <p className="tt-forked" role="status">
            Forked run <code>{forked.run_id}</code> <StatusBadge status={forked.status} />{" "}
            {onOpenTrace ? <TraceLink runId={forked.run_id} onOpenTrace={onOpenTrace} /> : null}
          </p>
        ) : null}
      </details>
      {error ? <p className="error" role="alert">{error}</p> : null}
    </section>
  );
}

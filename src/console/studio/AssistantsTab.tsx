/**
 * Assistants of the deployment: the list, the selected one's versions (set any as latest), and
 * create / edit of config and context through forms from `/assistants/{id}/schemas` (raw JSON when
 * a schema gives no form). Saving an edit makes a new version, as the agent server does.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Assistant, Client } from "@langchain/langgraph-sdk";
import { useState } from "react";
import { ErrorBox, Loading } from "../components/common";
import { clientKey } from "./client";
import { SchemaForm } from "./SchemaForm";

type Obj = Record<string, unknown>;

export function AssistantsTab({ client, assistant, onSelect }: { client: Client; assistant: Assistant; onSelect: (id: string) => void }) {
  const k = clientKey(client);
  const queries = useQueryClient();
  const versions = useQuery({ queryKey: ["studio", k, "versions", assistant.assistant_id], queryFn: () => client.assistants.getVersions(assistant.assistant_id, { limit: 50 }) });
  const setLatest = useMutation({
    mutationFn: (version: number) => client.assistants.setLatest(assistant.assistant_id, version),
    onSuccess: () => queries.invalidateQueries({ queryKey: ["studio", k] }),
  });
  const [editing, setEditing] = useState<"edit" | "create" | undefined>();
  return (
    <section className="studio-assistants" aria-label="Assistants">
      <header className="studio-assistant-head">
        <h3>
          {assistant.name} <small>({assistant.graph_id}, version {assistant.version})</small>
        </h3>
        <button type="button" onClick={() => setEditing("edit")}>Edit</button>
        <button type="button" onClick={() => setEditing("create")}>New assistant</button>
      </header>
      {editing ? (
        <AssistantEditor
          key={`${editing}-${assistant.assistant_id}-${assistant.version}`}
          client={client}
          assistant={assistant}
          mode={editing}
          onDone={(saved) => {
            setEditing(undefined);
            void queries.invalidateQueries({ queryKey: ["studio", k] });
            if (saved) onSelect(saved.assistant_id);
          }}
        />
      ) : null}
      <h4>Versions</h4>
      {versions.isPending ? <Loading what="versions" /> : versions.error ? <ErrorBox error={versions.error} /> : (
        <table aria-label="Versions">
          <thead>
            <tr>
              <th>Version</th>
              <th>Created</th>
              <th>Config</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {versions.data.map((v) => (
              <tr key={v.version}>
                <td>{v.version}</td>
                <td>{new Date(v.created_at).toLocaleString()}</td>
                <td>
                  <code>{JSON.stringify({ ...(v.config?.configurable ? { configurable: v.config.configurable } : {}), ...(v.context ? { context: v.context } : {}) })}</code>
                </td>
                <td>
                  {v.version === assistant.version ? (
                    <span className="badge">latest</span>
                  ) : (
                    <button type="button" disabled={setLatest.isPending} onClick={() => setLatest.mutate(v.version)}>
                      Set as latest
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {setLatest.error ? <ErrorBox error={setLatest.error} /> : null}
    </section>
  );
}

function AssistantEditor({ client, assistant, mode, onDone }: { client: Client; assistant: Assistant; mode: "edit" | "create"; onDone: (saved?: Assistant) => void }) {
  const schemas = useQuery({ queryKey: ["studio", clientKey(client), "schemas", assistant.assistant_id], queryFn: () => client.assistants.getSchemas(assistant.assistant_id) });
  const [name, setName] = useState(mode === "edit" ? assistant.name : `${assistant.graph_id} (copy)`);
  const [configurable, setConfigurable] = useState<Obj>(((assistant.config?.configurable as Obj | undefined) ?? {}) as Obj);
  const [context, setContext] = useState<Obj>(((assistant as { context?: Obj }).context ?? {}) as Obj);
  const [problems, setProblems] = useState<Record<string, string | undefined>>({});
  const save = useMutation({
    mutationFn: () => {
      const config = { ...assistant.config, configurable };
      return mode === "edit"
        ? client.assistants.update(assistant.assistant_id, { name, config, context })
        : client.assistants.create({ graphId: assistant.graph_id, name, config, context });
    },
    onSuccess: (saved) => onDone(saved),
  });
  if (schemas.isPending) return <Loading what="schemas" />;
  const blocked = Object.values(problems).find(Boolean);
  return (
    <form
      className="studio-editor"
      aria-label={mode === "edit" ? "Edit assistant" : "New assistant"}
      onSubmit={(e) => {
        e.preventDefault();
        if (!blocked) save.mutate();
      }}
    >
      {schemas.error ? <ErrorBox error={schemas.error} title="No schemas: raw JSON only" /> : null}
      <label className="studio-field">
        <span>Name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} required />
      </label>
      <SchemaForm label="Config" schema={schemas.data?.config_schema} value={configurable} onChange={(v, err) => (setConfigurable(v), setProblems((p) => ({ ...p, config: err })))} />
      <SchemaForm label="Context" schema={(schemas.data as { context_schema?: unknown } | undefined)?.context_schema} value={context} onChange={(v, err) => (setContext(v), setProblems((p) => ({ ...p, context: err })))} />
      {blocked ? <p className="field-error">{blocked}</p> : null}
      {save.error ? <ErrorBox error={save.error} /> : null}
      <div className="studio-actions">
        <button type="submit" disabled={save.isPending || !!blocked}>
          {mode === "edit" ? "Save new version" : "Create"}
        </button>
        <button type="button" onClick={() => onDone()}>Cancel</button>
      </div>
    </form>
  );
}

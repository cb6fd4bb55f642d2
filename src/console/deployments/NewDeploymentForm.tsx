/**
 * The smallest useful create form: a name and where the agent comes from. Everything else (secrets,
 * resources) is changed afterwards on the deployment's page; the API's 400/422 answers are shown
 * as they come.
 */
import { useState, type FormEvent } from "react";
import { useNavigate } from "react-router";
import { ErrorBox } from "../components/common";
import { paths } from "../routes";
import { useCreateDeployment, useIntegrations } from "./api";
import { createBody, type NewDeploymentFields } from "./bodies";
import "./deployments.css";

export function NewDeploymentForm({ onClose }: { onClose: () => void }) {
  const navigate = useNavigate();
  const create = useCreateDeployment();
  const [f, setF] = useState<NewDeploymentFields>({
    name: "",
    source: "hosted_git",
    integrationId: "",
    repoUrl: "",
    repoRef: "main",
    agentConfigPath: "langgraph.json",
    installCommand: "",
    imageUri: "",
  });
  const integrations = useIntegrations(f.source === "hosted_git");
  const set = (k: keyof NewDeploymentFields) => (e: { target: { value: string } }) => setF((prev) => ({ ...prev, [k]: e.target.value }));
  // the first integration is the obvious choice (berth dev makes exactly one)
  const integrationId = f.integrationId || integrations.data?.[0]?.id || "";

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(createBody({ ...f, integrationId }), { onSuccess: (d) => navigate(paths.deployment(d.id)) });
  };

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="new-deployment-title">
      <h2 id="new-deployment-title">New deployment</h2>
      <div className="form-grid">
        <label>
          <span>Name</span>
          <input required value={f.name} onChange={set("name")} placeholder="lowercase letters, digits, hyphens" pattern="[a-z]([a-z0-9-]*[a-z0-9])?" maxLength={63} />
        </label>
        <label>
          <span>Source</span>
          <select value={f.source} onChange={set("source")}>
            <option value="hosted_git">hosted_git (build from a git repository)</option>
            <option value="external_container">external_container (run a container image)</option>
          </select>
        </label>
        {f.source === "hosted_git" ? (
          <>
            <label>
              <span>Integration</span>
              <select value={integrationId} onChange={set("integrationId")} required>
                {(integrations.data ?? []).length === 0 ? <option value="">no integration: add one with POST /v1/integrations/hosted_git</option> : null}
                {(integrations.data ?? []).map((i) => (
                  <option key={i.id} value={i.id}>
                    {i.name} ({i.kind})
                  </option>
                ))}
              </select>
            </label>
            <label>
              <span>Repository URL</span>
              <input required value={f.repoUrl} onChange={set("repoUrl")} placeholder="file:///path/to/repo or https://…" />
            </label>
            <label>
              <span>Ref</span>
              <input required value={f.repoRef} onChange={set("repoRef")} placeholder="branch name, or refs/tags/v1" />
            </label>
            <label>
              <span>Agent config path</span>
              <input required value={f.agentConfigPath} onChange={set("agentConfigPath")} />
            </label>
            <label>
              <span>Install command</span>
              <input value={f.installCommand} onChange={set("installCommand")} placeholder="optional (detected from the lockfile)" />
            </label>
          </>
        ) : (
          <label>
            <span>Image URI</span>
            <input required value={f.imageUri} onChange={set("imageUri")} placeholder="registry.example.com/agent:1.0" />
          </label>
        )}
      </div>
      <p className="muted">Secrets and resources can be set on the deployment's page once it exists (each change makes a new revision).</p>
      {create.error ? <ErrorBox error={create.error} title="Not created" /> : null}
      <div className="toolbar">
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create deployment"}
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}

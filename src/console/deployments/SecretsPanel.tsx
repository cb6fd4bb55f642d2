/**
 * The deployment's secrets by name; values are never shown (the API masks them, and this page never
 * renders even the mask). Editing replaces the list with one PATCH, which creates a new revision.
 */
import { useState } from "react";
import type { Deployment } from "../api/types";
import { ConfirmButton } from "../components/common";
import { describeSecretChanges, draftsFrom, patchSecrets, secretProblems, type SecretDraft } from "./secrets";
import "./deployments.css";

let nextKey = 0;

export function SecretsPanel({ deployment, onSave }: { deployment: Deployment; onSave: (secrets: { name: string; value: string }[]) => Promise<string> }) {
  const [drafts, setDrafts] = useState<SecretDraft[] | null>(null);
  // the form (and its confirm button's result line) closes on success: the result is shown here
  const [saved, setSaved] = useState<string>();
  const stored = deployment.secrets ?? [];

  if (!drafts) {
    return (
      <div>
        {stored.length === 0 ? (
          <p className="empty">No secrets. Secrets become environment variables of the agent server.</p>
        ) : (
          <table className="data" aria-label="Secrets">
            <thead>
              <tr>
                <th>Name</th>
                <th>Value</th>
              </tr>
            </thead>
            <tbody>
              {stored.map((s) => (
                <tr key={s.name}>
                  <td>
                    <code>{s.name}</code>
                  </td>
                  <td className="muted" aria-label="hidden value">
                    •••••••• (hidden)
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <div className="toolbar" style={{ marginTop: 8 }}>
          <button
            type="button"
            onClick={() => {
              setSaved(undefined);
              setDrafts(draftsFrom(stored));
            }}
          >
            Edit secrets
          </button>
          {saved ? (
            <span className="result-ok" role="status">
              {saved}
            </span>
          ) : null}
        </div>
      </div>
    );
  }

  const update = (key: string, patch: Partial<SecretDraft>) => setDrafts((ds) => ds!.map((d) => (d.key === key ? { ...d, ...patch } : d)));
  const problems = secretProblems(drafts);
  return (
    <form onSubmit={(e) => e.preventDefault()} aria-label="Edit secrets">
      {drafts.map((d) => (
        <div key={d.key} className="secret-row">
          <input aria-label="Secret name" value={d.name} onChange={(e) => update(d.key, { name: e.target.value })} placeholder="NAME" autoComplete="off" spellCheck={false} />
          {d.value === null ? (
            <>
              <span className="muted">stored value kept</span>
              <button type="button" onClick={() => update(d.key, { value: "" })}>
                Replace value
              </button>
            </>
          ) : (
            <>
              <input
                aria-label={`New value of ${d.name || "secret"}`}
                type="password"
                autoComplete="new-password"
                value={d.value}
                onChange={(e) => update(d.key, { value: e.target.value })}
                placeholder="new value"
              />
              {d.storedName !== undefined ? (
                <button type="button" onClick={() => update(d.key, { value: null, name: d.storedName! })}>
                  Keep stored value
                </button>
              ) : null}
            </>
          )}
          <button type="button" onClick={() => setDrafts((ds) => ds!.filter((x) => x.key !== d.key))}>
            Remove
          </button>
        </div>
      ))}
      <div className="toolbar" style={{ marginTop: 8 }}>
        <button type="button" onClick={() => setDrafts((ds) => [...ds!, { key: `new-${nextKey++}`, name: "", value: "" }])}>
          Add secret
        </button>
        <ConfirmButton
          label="Save secrets"
          disabled={problems.length > 0}
          question={<>This creates a new revision ({describeSecretChanges(drafts, stored)}). Continue?</>}
          action={async () => {
            const text = await onSave(patchSecrets(drafts, stored));
            setSaved(text);
            setDrafts(null);
            return text;
          }}
        />
        <button type="button" onClick={() => setDrafts(null)}>
          Discard changes
        </button>
      </div>
      {problems.length ? (
        <p className="warning" role="alert">
          {problems.join("; ")}
        </p>
      ) : null}
    </form>
  );
}

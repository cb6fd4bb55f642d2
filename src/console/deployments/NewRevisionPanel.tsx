/**
 * A new revision: the same configuration again (POST …/revisions: a moving ref or tag is fetched
 * anew), or with changed source fields (PATCH: a non-null source_revision_config field always makes
 * a revision).
 */
import { useState } from "react";
import type { Deployment } from "../api/types";
import { ConfirmButton } from "../components/common";
import type { PatchBody } from "./api";
import { revisionFields, revisionPatch, type RevisionConfig } from "./bodies";
import "./deployments.css";

export function NewRevisionPanel({
  deployment,
  onSameAgain,
  onPatch,
}: {
  deployment: Deployment;
  onSameAgain: () => Promise<string>;
  onPatch: (body: PatchBody) => Promise<string>;
}) {
  const [fields, setFields] = useState<RevisionConfig>(() => revisionFields(deployment));
  const labels: Record<string, string> = { image_uri: "Image URI", repo_ref: "Ref (branch, or refs/tags/…)", agent_config_path: "Agent config path" };
  return (
    <div className="panel">
      <h3>New revision</h3>
      <div className="dep-actions">
        <ConfirmButton
          label="Redeploy current configuration"
          question="Build and deploy the current configuration again as a new revision?"
          action={onSameAgain}
        />
      </div>
      <form onSubmit={(e) => e.preventDefault()} aria-label="New revision with changed source">
        <div className="form-grid">
          {Object.keys(fields).map((k) => (
            <label key={k}>
              <span>{labels[k] ?? k}</span>
              <input value={fields[k as keyof RevisionConfig] ?? ""} onChange={(e) => setFields((f) => ({ ...f, [k]: e.target.value }))} />
            </label>
          ))}
        </div>
        <ConfirmButton
          label="Create revision"
          question="Create a new revision with these source values?"
          disabled={Object.values(fields).every((v) => !v || !v.trim())}
          action={() => onPatch(revisionPatch(fields))}
        />
      </form>
    </div>
  );
}

/** The effective resource spec: every value the runtime applies, marked as set by the user or defaulted. */
import type { Deployment } from "../api/types";
import { defaultsBasis, effectiveSpecGroups } from "./resources";
import "./deployments.css";

export function ResourcesPanel({ deployment }: { deployment: Deployment }) {
  const groups = effectiveSpecGroups(deployment);
  return (
    <div>
      <p className="muted">
        Values in bold were set in <code>source_config.resource_spec</code>; the others are the defaults (base values of a{" "}
        <code>{defaultsBasis(deployment)}</code> deployment, limits twice the request, queue values those of the server), computed by the
        control plane's own rules. They describe the deployment's current configuration, i.e. its latest revision.
      </p>
      {groups.map((g) => (
        <table key={g.title} className="data" aria-label={`${g.title} resources`} style={{ marginBottom: 12 }}>
          <thead>
            <tr>
              <th style={{ width: "30%" }}>{g.title}</th>
              <th>Value</th>
              <th>From</th>
            </tr>
          </thead>
          <tbody>
            {g.rows.map((r) => (
              <tr key={r.field}>
                <td>
                  <code>{r.field}</code>
                </td>
                <td className={r.given ? "spec-given" : "spec-default"}>{r.value === null ? "none" : String(r.value)}</td>
                <td className="muted">{r.given ? "set" : "default"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ))}
    </div>
  );
}

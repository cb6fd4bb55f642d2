/**
 * A deployment's Studio in the console (reached from the deployment's page): the Studio over the
 * control plane's proxy of the deployment's agent server, with the session's key. A run's trace
 * opens in the tracing view (the agent server traces each run with the run id as its root).
 */
import { useMemo } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { useDeployment } from "../deployments/api";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import { paths } from "../routes";
import { useSession } from "../session";
import { deploymentAgentUrl, sessionHeaders, studioClient } from "./client";
import { isStudioTab, Studio } from "./Studio";

export default function DeploymentStudio() {
  const { deploymentId = "", tab } = useParams();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const { session } = useSession();
  const deployment = useDeployment(deploymentId);
  const client = useMemo(() => studioClient({ apiUrl: deploymentAgentUrl(window.location.origin, deploymentId), headers: sessionHeaders(session) }), [deploymentId, session]);
  const d = deployment.data;
  if (deployment.isPending) return <Loading what="deployment" />;
  if (!d) return <ErrorBox error={deployment.error} title="No such deployment" />;
  const assistantId = params.get("assistant") ?? undefined;
  const threadId = params.get("thread") ?? undefined;
  return (
    <section aria-labelledby="studio-title">
      <p className="muted">
        <Link to={paths.deployments}>Deployments</Link> / <Link to={paths.deployment(d.id)}>{d.name}</Link> /
      </p>
      <div className="dep-header">
        <h1 id="studio-title">Studio · {d.name}</h1>
        <StatusBadge status={d.status} />
      </div>
      {d.source_config?.custom_url ? (
        <Studio
          client={client}
          tab={isStudioTab(tab) ? tab : "graph"}
          assistantId={assistantId}
          threadId={threadId}
          onNavigate={(to) => {
            const nextTab = to.tab ?? (isStudioTab(tab) ? tab : "graph");
            // the opened thread stays in the address while on the Threads tab; another assistant's list starts afresh
            const thread = to.threadId ?? (nextTab === "threads" && !to.assistantId ? threadId : undefined);
            // opening a thread replaces the address (Back leaves the Threads tab, not each thread looked at)
            navigate(paths.studio(d.id, nextTab, to.assistantId ?? assistantId, thread), { replace: to.threadId !== undefined });
          }}
          onOpenTrace={(runId) => navigate(paths.trace(runId))}
        />
      ) : (
        <p className="empty">This deployment is not served yet: its Studio opens once a revision is DEPLOYED.</p>
      )}
    </section>
  );
}

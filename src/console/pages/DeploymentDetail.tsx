/**
 * One deployment: what it runs and where, its revisions (timeline, logs), the effective resource
 * spec and its secrets, and the actions that change it. Follows a rollout without reload: the
 * deployment and its revisions poll while anything is in progress.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Link, useNavigate, useParams, useSearchParams } from "react-router";
import { ApiError } from "../api/client";
import type { Deployment } from "../api/types";
import { ConfirmButton, ErrorBox, Loading, StatusBadge } from "../components/common";
import { fmtTime } from "../format";
import { paths } from "../routes";
import { keys, useCreateRevision, useDeleteDeployment, useDeployment, usePatchDeployment, useRedeploy, useRevisions, type PatchBody } from "../deployments/api";
import { LogsPanel, type LogType } from "../deployments/LogsPanel";
import { NewRevisionPanel } from "../deployments/NewRevisionPanel";
import { ResourcesPanel } from "../deployments/ResourcesPanel";
import { RevisionTimeline } from "../deployments/RevisionTimeline";
import { RolloutNote } from "../deployments/RolloutNote";
import { SecretsPanel } from "../deployments/SecretsPanel";
import { deploymentUrl, describeSource, isRevisionInProgress, rolloutOf, shortId } from "../deployments/status";
import { revisionTimeline } from "../deployments/timeline";
import "../deployments/deployments.css";

const TABS = [
  { id: "revisions", label: "Revisions" },
  { id: "logs", label: "Logs" },
  { id: "resources", label: "Resources" },
  { id: "secrets", label: "Secrets" },
] as const;
type Tab = (typeof TABS)[number]["id"];

const REVISION_PAGE = 20;

export default function DeploymentDetail() {
  const { deploymentId = "" } = useParams();
  const [params, setParams] = useSearchParams();
  const tab = (TABS.some((t) => t.id === params.get("tab")) ? params.get("tab") : "revisions") as Tab;
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [revisionLimit, setRevisionLimit] = useState(REVISION_PAGE);
  const [deleting, setDeleting] = useState(false);

  const anyInProgress = useRef(false);
  const deployment = useDeployment(deploymentId, { pollWhile: () => anyInProgress.current || deleting });
  const revisions = useRevisions(deploymentId, revisionLimit);
  const revisionList = revisions.data?.resources ?? [];
  anyInProgress.current = revisionList.some((r) => isRevisionInProgress(r.status));

  // a revision that settles moves the deployment's active revision: read the deployment again then
  const statusSignature = revisionList.map((r) => `${r.id}:${r.status}`).join(",");
  useEffect(() => {
    if (statusSignature) void qc.invalidateQueries({ queryKey: keys.one(deploymentId) });
  }, [statusSignature, deploymentId, qc]);

  // after DELETE the deployment stays AWAITING_DELETE until torn down; once it is gone, back to the list
  const gone = deployment.error instanceof ApiError && deployment.error.status === 404;
  useEffect(() => {
    if (deleting && gone) navigate(paths.deployments, { replace: true, state: { notice: "The deployment was deleted." } });
  }, [deleting, gone, navigate]);

  const d = deployment.data;
  const rows = useMemo(() => revisionTimeline(revisionList, d), [revisionList, d]);

  const patch = usePatchDeployment(deploymentId);
  const createRevision = useCreateRevision(deploymentId);
  const redeploy = useRedeploy(deploymentId);
  const remove = useDeleteDeployment(deploymentId);

  const setTab = (t: Tab, extra: Record<string, string> = {}) => {
    const next = new URLSearchParams(params);
    next.set("tab", t);
    for (const [k, v] of Object.entries(extra)) next.set(k, v);
    setParams(next);
  };
  const showLogs = (revisionId: string, type?: LogType) => setTab("logs", { revision: revisionId, log: type ?? params.get("log") ?? defaultLogType(d) });
  const created = (what: string, revisionId: string | null | undefined) => `${what}: revision ${shortId(revisionId)} created`;

  if (deployment.isPending) return <Loading what="the deployment" />;
  if (!d) {
    if (gone && deleting) return <p role="status">The deployment was deleted. Back to the list…</p>;
    return (
      <>
        <ErrorBox error={deployment.error} title={gone ? "No such deployment" : "Could not read the deployment"} />
        <p>
          <Link to={paths.deployments}>All deployments</Link>
        </p>
      </>
    );
  }

  const url = deploymentUrl(d);
  const latest = revisionList.find((r) => r.id === d.latest_revision_id);
  const logRevision = params.get("revision") ?? d.latest_revision_id ?? undefined;
  const logType = (params.get("log") === "build" || params.get("log") === "deploy" ? params.get("log") : defaultLogType(d)) as LogType;

  return (
    <section aria-labelledby="deployment-title">
      <p className="muted">
        <Link to={paths.deployments}>Deployments</Link> /
      </p>
      <div className="dep-header">
        <h1 id="deployment-title">{d.name}</h1>
        <StatusBadge status={d.status} />
        {deployment.isFetching ? <span className="muted">refreshing…</span> : null}
      </div>
      {deployment.error ? <ErrorBox error={deployment.error} title="Could not refresh" /> : null}
      <dl className="fields">
        <dt>URL</dt>
        <dd>{url ? <a href={url} target="_blank" rel="noreferrer noopener">{url}</a> : <span className="muted">not served yet</span>}</dd>
        <dt>Studio</dt>
        <dd>{url ? <Link to={paths.studio(d.id)}>Open Studio</Link> : <span className="muted">once served</span>}</dd>
        <dt>Source</dt>
        <dd>
          {d.source} · <code>{describeSource(d)}</code>
          {d.source_revision_config?.repo_commit_sha ? (
            <>
              {" "}
              · commit <code title={d.source_revision_config.repo_commit_sha}>{d.source_revision_config.repo_commit_sha.slice(0, 12)}</code>
            </>
          ) : null}
        </dd>
        <dt>Latest revision</dt>
        <dd>
          <code title={d.latest_revision_id ?? undefined}>{shortId(d.latest_revision_id)}</code>
          {latest ? (
            <>
              {" "}
              <StatusBadge status={latest.status} />
            </>
          ) : null}
          <RolloutNote rollout={rolloutOf(d, latest?.status)} status={latest?.status} hasActive={d.active_revision_id !== null} />
        </dd>
        <dt>Active revision</dt>
        <dd>
          <code title={d.active_revision_id ?? undefined}>{shortId(d.active_revision_id)}</code>
          {d.active_revision_id ? null : <span className="muted"> none serving traffic</span>}
        </dd>
        <dt>Id</dt>
        <dd>
          <code>{d.id}</code>
        </dd>
        <dt>Created / updated</dt>
        <dd>
          {fmtTime(d.created_at)} / {fmtTime(d.updated_at)}
        </dd>
      </dl>

      <div className="dep-actions">
        <ConfirmButton
          label="Delete deployment"
          danger
          disabled={d.status === "AWAITING_DELETE"}
          question={<>Delete {d.name}? Its agent server and database are torn down; its traces are kept.</>}
          action={async () => {
            await remove.mutateAsync();
            setDeleting(true);
            return "Deletion started: AWAITING_DELETE until it is torn down";
          }}
        />
        {d.status === "AWAITING_DELETE" ? <span className="muted">Being torn down…</span> : null}
      </div>

      <div className="tabs" role="tablist" aria-label="Deployment sections">
        {TABS.map((t) => (
          <button key={t.id} type="button" role="tab" aria-selected={t.id === tab} onClick={() => setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </div>

      <div role="tabpanel" aria-label={TABS.find((t) => t.id === tab)!.label}>
        {tab === "revisions" ? (
          <>
            {/* not keyed by the latest revision: remounting on the new revision would hide the action's result */}
            <NewRevisionPanel
              deployment={d}
              onSameAgain={async () => created("New revision", (await createRevision.mutateAsync({})).id)}
              onPatch={async (body: PatchBody) => created("New revision", (await patch.mutateAsync(body)).latest_revision_id)}
            />
            {revisions.error ? <ErrorBox error={revisions.error} title="Could not list revisions" /> : null}
            {revisions.isPending ? (
              <Loading what="revisions" />
            ) : (
              <RevisionTimeline
                rows={rows}
                selectedId={params.get("revision") ?? undefined}
                onShowLogs={(rid) => showLogs(rid)}
                onRedeploy={async (rid) => created(`Redeployed ${shortId(rid)}`, (await redeploy.mutateAsync(rid)).latest_revision_id)}
              />
            )}
            {revisionList.length >= revisionLimit ? (
              <div className="pager">
                <button type="button" onClick={() => setRevisionLimit((l) => Math.min(100, l + REVISION_PAGE))} disabled={revisionLimit >= 100}>
                  Show older revisions
                </button>
                {revisionLimit >= 100 ? <span className="muted">The newest 100 revisions are shown.</span> : null}
              </div>
            ) : null}
          </>
        ) : null}
        {tab === "logs" ? (
          logRevision ? (
            <LogsPanel deploymentId={d.id} revisionId={logRevision} revisions={rows} type={logType} onPick={(rid, t) => showLogs(rid, t)} />
          ) : (
            <p className="empty">This deployment has no revision yet.</p>
          )
        ) : null}
        {tab === "resources" ? <ResourcesPanel deployment={d} /> : null}
        {tab === "secrets" ? (
          <SecretsPanel deployment={d} onSave={async (secrets) => created("Secrets saved", (await patch.mutateAsync({ secrets })).latest_revision_id)} />
        ) : null}
      </div>
    </section>
  );
}

/** A hosted_git revision is built first; a container image only deployed. */
function defaultLogType(d: Pick<Deployment, "source"> | undefined): LogType {
  return d?.source === "external_container" ? "deploy" : "build";
}

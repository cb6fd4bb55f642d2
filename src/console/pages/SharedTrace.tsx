/**
 * A shared trace, opened from its public link (`/public/<token>/r`, what the LangSmith SDK's
 * shareRun returns): the run tree as a waterfall and the selected run's messages rendered as in the
 * trace view (or its raw payloads), read through the token alone — no session, no key, nothing
 * else of the tenant.
 */
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useParams } from "react-router";
import { data, tracing } from "../api/client";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import type { RunDetail } from "../api/types";
import { JsonView } from "../messages/JsonView";
import { RunMessages } from "../messages/RunMessages";
import { defaultSelection, indexTree } from "../tracing/flatten-tree";
import { Waterfall } from "../tracing/Waterfall";
import "../tracing/tracing.css";

export default function SharedTrace() {
  const { token = "" } = useParams();
  const path = { params: { path: { share_token: token } } };
  const tree = useQuery({ queryKey: ["public", "trace", token], queryFn: async () => data(await tracing.GET("/public/{share_token}/trace", path)) });
  const run = useQuery({ queryKey: ["public", "run", token], queryFn: async () => data(await tracing.GET("/public/{share_token}/run", path)) });
  const index = useMemo(() => (tree.data ? indexTree(tree.data.runs) : undefined), [tree.data]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const [picked, setPicked] = useState<string>();
  const now = useMemo(() => Date.now(), [tree.data]);
  const selectedId = picked ?? tree.data?.shared_run_id;
  const detail = useQuery({
    queryKey: ["public", "run-detail", token, selectedId],
    enabled: Boolean(selectedId),
    queryFn: async () => data(await tracing.GET("/public/{share_token}/runs/{run_id}", { params: { path: { share_token: token, run_id: selectedId! } } })),
  });
  if (tree.error) return <ErrorBox error={tree.error} title="Shared trace" />;
  if (!tree.data || !index) return <Loading what="shared trace" />;
  const selected = picked ?? tree.data.shared_run_id ?? defaultSelection(index);
  const node = index.byId.get(selected);
  const shared = run.data as { inputs?: unknown; outputs?: unknown } | undefined;
  return (
    <div className="tracing-page">
      <header className="project-header">
        <div className="trace-head">
          <h1>{index.byId.get(tree.data.root_run_id)?.name ?? "Trace"}</h1>
          <StatusBadge status={index.byId.get(tree.data.root_run_id)?.status} />
          <span className="muted">shared, read-only</span>
        </div>
      </header>
      <div className="trace-view">
        <Waterfall roots={tree.data.runs} index={index} selected={selected} onSelect={setPicked} collapsed={collapsed} onCollapsedChange={setCollapsed} now={now} />
        <section className="run-detail panel" aria-label="Selected run">
          <h2>
            <span>{node?.name}</span>
            <span className={`wf-type ${node?.run_type}`}>{node?.run_type}</span>
            <StatusBadge status={node?.status} />
          </h2>
          {detail.data && detail.data.id === selected ? (
            <RunMessages run={detail.data as RunDetail} />
          ) : selected === tree.data.shared_run_id && shared ? (
            <>
              <h3>Inputs</h3>
              <JsonView value={shared.inputs ?? null} label="Inputs" />
              <h3>Outputs</h3>
              <JsonView value={shared.outputs ?? null} label="Outputs" />
            </>
          ) : (
            <p className="muted">Only the shared run's payloads are part of the link.</p>
          )}
        </section>
      </div>
    </div>
  );
}

/**
 * One trace: its totals on top, the run tree as a waterfall on the left, the selected run on the
 * right. `?run=<id>` is the selection (a link to one run of a trace); without it, the first LLM
 * call is shown, else the root.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router";
import type { TraceTree } from "../api/types";
import { ErrorBox, Loading, StatusBadge } from "../components/common";
import { fmtCost, fmtDuration, fmtTime, fmtTokens } from "../format";
import { paths } from "../routes";
import { defaultSelection, indexTree } from "../tracing/flatten-tree";
import { fetchDeployments } from "../deployments/api";
import { useProject, useRun, useTrace } from "../tracing/queries";
import { studioPathFor, studioThreadOf } from "../tracing/studio-link";
import { RunDetailPane } from "../tracing/RunDetailPane";
import { Waterfall } from "../tracing/Waterfall";
import "../tracing/tracing.css";

export default function TraceView() {
  const { traceId = "" } = useParams();
  const trace = useTrace(traceId);
  if (trace.error) return <ErrorBox error={trace.error} title="Trace" />;
  if (!trace.data) return <Loading what="trace" />;
  return <LoadedTrace key={traceId} tree={trace.data} />;
}

function LoadedTrace({ tree }: { tree: TraceTree }) {
  const [params, setParams] = useSearchParams();
  const index = useMemo(() => indexTree(tree.runs), [tree]);
  const now = useMemo(() => Date.now(), [tree]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  const asked = params.get("run");
  const selected = asked && index.byId.has(asked) ? asked : defaultSelection(index);
  const root = index.byId.get(tree.root_run_id) ?? tree.runs[0];
  // arrow keys move through runs faster than they load: fetch the one the selection settles on
  const shownRun = useSettled(selected, 120);

  const select = (id: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        next.set("run", id);
        return next;
      },
      { replace: true },
    );

  return (
    <div className="tracing-page">
      <TraceHeader tree={tree} rootId={root?.id} rootName={root?.name} rootStatus={root?.status} rootMetadata={root?.metadata} />
      <TraceTotals tree={tree} loaded={index.order.length} root={root} />
      <div className="trace-view">
        <Waterfall roots={tree.runs} index={index} selected={selected} onSelect={select} collapsed={collapsed} onCollapsedChange={setCollapsed} now={now} />
        {shownRun ? <RunDetailPane key={shownRun} runId={shownRun} node={index.byId.get(shownRun)} /> : <p className="empty">This trace has no runs.</p>}
      </div>
    </div>
  );
}

function TraceHeader({ tree, rootId, rootName, rootStatus, rootMetadata }: { tree: TraceTree; rootId: string | undefined; rootName: string | undefined; rootStatus: string | undefined; rootMetadata?: Record<string, unknown> | null }) {
  const project = useProject(tree.project_id);
  const datasetId = project.data?.reference_dataset_id;
  const studioPath = useStudioPath(rootMetadata, project.data?.name);
  return (
    <header className="project-header">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link to={paths.projects}>Projects</Link> <span aria-hidden="true">/</span>{" "}
        <Link to={paths.project(tree.project_id)}>{project.data?.name ?? "Project"}</Link> <span aria-hidden="true">/</span>
      </nav>
      {datasetId && rootId ? <ExperimentLinks datasetId={datasetId} experimentId={tree.project_id} rootId={rootId} /> : null}
      <div className="trace-head">
        <h1>{rootName ?? "Trace"}</h1>
        <StatusBadge status={rootStatus} />
        <span className="muted mono">{tree.trace_id}</span>
        {studioPath ? <Link to={studioPath}>Open thread in Studio</Link> : null}
      </div>
    </header>
  );
}

/**
 * A trace of an experiment (a project run against a dataset by evaluate()): links back to the
 * dataset and to its example in the compare view, where the other experiments' answers sit beside it.
 */
function ExperimentLinks({ datasetId, experimentId, rootId }: { datasetId: string; experimentId: string; rootId: string }) {
  const root = useRun(rootId);
  const exampleId = root.data?.reference_example_id ?? undefined;
  return (
    <p className="muted" role="note" aria-label="Experiment">
      A trace of an experiment on <Link to={paths.dataset(datasetId)}>its dataset</Link>
      {exampleId ? (
        <>
          {" "}
          · <Link to={paths.datasetCompare(datasetId, [experimentId], { example: exampleId })}>this example in the compare view</Link>
        </>
      ) : null}
    </p>
  );
}

/**
 * Back from a traced run to its thread in the deployment's Studio (tracing/studio-link.ts). The
 * deployment is the one named as the trace's project; asked for only when the trace is a thread's.
 */
function useStudioPath(metadata: Record<string, unknown> | null | undefined, projectName: string | undefined): string | undefined {
  const ref = studioThreadOf(metadata);
  const deployments = useQuery({
    queryKey: ["deployments", "by-name", projectName],
    queryFn: () => fetchDeployments({ name_contains: projectName!, limit: 50, offset: 0 }),
    enabled: !!ref && !!projectName,
    staleTime: 60_000,
    retry: false,
  });
  return studioPathFor(ref, projectName, deployments.data?.resources ?? []);
}

function TraceTotals({ tree, loaded, root }: { tree: TraceTree; loaded: number; root: TraceTree["runs"][number] | undefined }) {
  const t = tree.totals;
  const cards: [string, string, string?][] = [
    ["Started", fmtTime(root?.start_time)],
    ["Latency", root?.status === "pending" ? "running" : fmtDuration(root?.latency_ms)],
    ["Runs", fmtTokens(t?.run_count ?? loaded), t ? `${fmtTokens(t.llm_count)} LLM calls` : undefined],
    ["Tokens", fmtTokens(t?.total_tokens), t ? `${fmtTokens(t.input_tokens)} in · ${fmtTokens(t.output_tokens)} out` : undefined],
    ["Cost", fmtCost(t?.total_cost)],
    ["TTFT", fmtDuration(t?.ttft_ms), "first token − trace start"],
  ];
  return (
    <>
      <div className="cards" role="group" aria-label="Trace totals">
        {cards.map(([label, value, note]) => (
          <div className="card" key={label}>
            <div className="label">{label}</div>
            <div className="value">{value}</div>
            {note ? <div className="muted">{note}</div> : null}
          </div>
        ))}
        {t?.models.length ? (
          <div className="card">
            <div className="label">Models</div>
            <div className="models">
              {t.models.map((m) => (
                <span key={m} className="chip">
                  {m}
                </span>
              ))}
            </div>
          </div>
        ) : null}
      </div>
      {t && t.run_count > loaded ? (
        <p className="warning" role="note">
          Showing the first {fmtTokens(loaded)} of {fmtTokens(t.run_count)} runs of this trace.
        </p>
      ) : null}
      {tree.runs.length > 1 ? (
        <p className="muted" role="note">
          {tree.runs.length - 1} run(s) whose parent has not arrived are shown at the top level.
        </p>
      ) : null}
    </>
  );
}

/** `value`, once it has stayed the same for `ms` (the first value at once). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (Object.is(value, settled)) return;
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, settled, ms]);
  return settled;
}

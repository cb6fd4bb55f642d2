/**
 * The graph drawn from `GET /assistants/{id}/graph` (xray: subgraphs drawn as clusters), laid out
 * by dagre (graph-layout.ts). Conditional edges are dashed; the running node is highlighted while
 * a run streams, finished nodes are tinted, and a node waiting at an interrupt is marked as such (not done).
 */
import { useQuery } from "@tanstack/react-query";
import type { Client } from "@langchain/langgraph-sdk";
import { useMemo, useState } from "react";
import { ErrorBox, Loading } from "../components/common";
import { clientKey } from "./client";
import { layoutGraph, layoutInput, type GraphJson, type PlacedEdge } from "./graph-layout";

export interface GraphHighlights {
  running: string[];
  done: string[];
  /** Nodes waiting at an interrupt (or that raised the interrupts shown). */
  interrupted: string[];
}

export type NodeState = "running" | "interrupted" | "done" | "idle";

/**
 * What a node is shown as (pure). A node waiting at an interrupt is not done — resumed, it runs
 * again from its start — so `interrupted` wins over `done` (a node may also have finished earlier
 * in the same run, round a loop); only running again (resumed) takes it over.
 */
export function nodeState(id: string, h: GraphHighlights | undefined): NodeState {
  if (!h) return "idle";
  if (h.running.includes(id)) return "running";
  if (h.interrupted.includes(id)) return "interrupted";
  if (h.done.includes(id)) return "done";
  return "idle";
}

export function GraphPanel({ client, assistantId, highlights }: { client: Client; assistantId: string; highlights?: GraphHighlights }) {
  const [xray, setXray] = useState(false);
  const graph = useQuery({
    queryKey: ["studio", "graph", clientKey(client), assistantId, xray],
    queryFn: () => client.assistants.getGraph(assistantId, { xray }) as Promise<GraphJson>,
  });
  return (
    <section className="studio-graph" aria-label="Graph">
      <label className="studio-xray">
        <input type="checkbox" checked={xray} onChange={(e) => setXray(e.target.checked)} /> Show subgraphs (xray)
      </label>
      {graph.isPending ? <Loading what="graph" /> : graph.error ? <ErrorBox error={graph.error} title="Could not load the graph" /> : <GraphDrawing graph={graph.data} highlights={highlights} />}
    </section>
  );
}

function edgePath(e: PlacedEdge): string {
  const [first, ...rest] = e.points;
  if (!first) return "";
  return `M${first.x},${first.y}` + rest.map((p) => ` L${p.x},${p.y}`).join("");
}

export function GraphDrawing({ graph, highlights }: { graph: GraphJson; highlights?: GraphHighlights }) {
  const layout = useMemo(() => layoutGraph(layoutInput(graph)), [graph]);
  if (!layout.nodes.length) return <p className="empty">This graph has no nodes to draw.</p>;
  return (
    <svg className="studio-graph-svg" role="img" aria-label="Graph drawing" width={layout.width} height={layout.height} viewBox={`0 0 ${layout.width} ${layout.height}`}>
      <defs>
        <marker id="studio-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" className="studio-arrowhead" />
        </marker>
      </defs>
      {layout.clusters.map((c) => (
        <g key={c.id} className="studio-cluster" data-cluster={c.label}>
          <rect x={c.x - c.width / 2} y={c.y - c.height / 2} width={c.width} height={c.height} rx={8} />
          <text x={c.x - c.width / 2 + 8} y={c.y - c.height / 2 + 14}>
            {c.label}
          </text>
        </g>
      ))}
      {layout.edges.map((e) => (
        <g key={e.id} className={e.conditional ? "studio-edge conditional" : "studio-edge"} data-edge={`${e.source}->${e.target}`} data-conditional={e.conditional ? "true" : "false"}>
          <path d={edgePath(e)} markerEnd="url(#studio-arrow)" />
          {e.label && e.points.length ? (
            <text x={e.points[Math.floor(e.points.length / 2)]!.x + 4} y={e.points[Math.floor(e.points.length / 2)]!.y}>
              {e.label}
            </text>
          ) : null}
        </g>
      ))}
      {layout.nodes.map((n) => {
        const s = nodeState(n.id, highlights);
        const interrupted = s === "interrupted";
        const shown = s === "interrupted" ? "waiting at an interrupt" : s;
        return (
          <g key={n.id} className={`studio-node ${n.kind}${s !== "idle" ? ` ${s}` : ""}`} data-node={n.id} data-state={s} aria-label={`${n.label}${s !== "idle" ? ` (${shown})` : ""}`}>
            <rect x={n.x - n.width / 2} y={n.y - n.height / 2} width={n.width} height={n.height} rx={n.kind === "node" ? 6 : n.height / 2} />
            <text x={n.x} y={n.y + 4} textAnchor="middle">
              {n.label}
            </text>
            {interrupted ? (
              // a drawn mark, not a glyph: the page may have no font with a pause sign
              <g className="studio-interrupt-mark" aria-hidden="true">
                <circle cx={n.x + n.width / 2} cy={n.y - n.height / 2} r={8} />
                <rect x={n.x + n.width / 2 - 3.5} y={n.y - n.height / 2 - 4} width={2.5} height={8} />
                <rect x={n.x + n.width / 2 + 1} y={n.y - n.height / 2 - 4} width={2.5} height={8} />
              </g>
            ) : null}
          </g>
        );
      })}
    </svg>
  );
}

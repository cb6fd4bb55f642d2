/**
 * The graph view's geometry (pure): the JSON of `GET /assistants/{id}/graph` (with `xray`, a
 * subgraph's nodes arrive as `parent:child`) turned into the input of the layout library, and the
 * library's answer into boxes and edge paths the view draws.
 *
 * Layout by dagre (@dagrejs/dagre): a maintained layered (Sugiyama) layout, synchronous and ~60 KB,
 * which suits LangGraph graphs (tens of nodes, mostly a top-down flow with loops back). elkjs lays
 * out as well but is ~1.5 MB of transpiled Java and asynchronous, for no gain at this size.
 */
import dagre from "@dagrejs/dagre";

export interface GraphJsonNode {
  id: string | number;
  type?: string;
  data?: unknown;
  metadata?: Record<string, unknown> | null;
}
export interface GraphJsonEdge {
  source: string | number;
  target: string | number;
  conditional?: boolean;
  data?: unknown;
}
export interface GraphJson {
  nodes?: GraphJsonNode[];
  edges?: GraphJsonEdge[];
}

export type NodeKind = "start" | "end" | "node";

/** What the layout library is given: the graph as boxes, edges and subgraph clusters. */
export interface LayoutInput {
  nodes: { id: string; label: string; kind: NodeKind; width: number; height: number; parent?: string }[];
  edges: { id: string; source: string; target: string; conditional: boolean; label?: string }[];
  /** Subgraphs (xray): each a cluster around its nodes. */
  clusters: { id: string; label: string; parent?: string }[];
}

const CHAR_WIDTH = 7.5;
const NODE_HEIGHT = 36;

/** The node's own name, without the subgraph path an xray id carries (`outer:inner:node` → `node`). */
function ownName(id: string): string {
  const i = id.lastIndexOf(":");
  return i >= 0 ? id.slice(i + 1) : id;
}

function kindOf(id: string): NodeKind {
  const name = ownName(id);
  return name === "__start__" ? "start" : name === "__end__" ? "end" : "node";
}

function labelOf(n: GraphJsonNode, id: string): string {
  const kind = kindOf(id);
  if (kind === "start") return "start";
  if (kind === "end") return "end";
  // a runnable's data names its class or its own name; the id is what runs report, so it leads
  return ownName(id);
}

/** The graph JSON as layout input (pure). Unknown shapes give an empty graph, never a throw. */
export function layoutInput(graph: GraphJson | null | undefined): LayoutInput {
  const nodes: LayoutInput["nodes"] = [];
  const clusters = new Map<string, LayoutInput["clusters"][number]>();
  const ids = new Set<string>();
  for (const n of Array.isArray(graph?.nodes) ? graph.nodes : []) {
    if (n == null || (typeof n.id !== "string" && typeof n.id !== "number")) continue;
    const id = String(n.id);
    if (ids.has(id)) continue;
    ids.add(id);
    const path = id.split(":").slice(0, -1);
    // every prefix of the path is a (nested) subgraph cluster
    for (let i = 0; i < path.length; i++) {
      const cid = `cluster:${path.slice(0, i + 1).join(":")}`;
      if (!clusters.has(cid)) clusters.set(cid, { id: cid, label: path[i]!, ...(i > 0 ? { parent: `cluster:${path.slice(0, i).join(":")}` } : {}) });
    }
    const label = labelOf(n, id);
    const kind = kindOf(id);
    nodes.push({
      id,
      label,
      kind,
      width: kind === "node" ? Math.max(80, Math.round(label.length * CHAR_WIDTH) + 28) : 64,
      height: NODE_HEIGHT,
      ...(path.length ? { parent: `cluster:${path.join(":")}` } : {}),
    });
  }
  const edges: LayoutInput["edges"] = [];
  for (const e of Array.isArray(graph?.edges) ? graph.edges : []) {
    if (e == null) continue;
    const source = String(e.source);
    const target = String(e.target);
    // an edge to a node the graph does not list would make the library invent one
    if (!ids.has(source) || !ids.has(target)) continue;
    const label = typeof e.data === "string" && e.data !== "" ? e.data : undefined;
    edges.push({ id: `${source}->${target}#${edges.length}`, source, target, conditional: e.conditional === true, ...(label ? { label } : {}) });
  }
  return { nodes, edges, clusters: [...clusters.values()] };
}

export interface PlacedNode {
  id: string;
  label: string;
  kind: NodeKind;
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface PlacedEdge {
  id: string;
  source: string;
  target: string;
  conditional: boolean;
  label?: string;
  points: { x: number; y: number }[];
}
export interface PlacedCluster {
  id: string;
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
}
export interface GraphLayout {
  nodes: PlacedNode[];
  edges: PlacedEdge[];
  clusters: PlacedCluster[];
  width: number;
  height: number;
}

/** Positions from the layout library (top to bottom); x/y are box centres as dagre gives them. */
export function layoutGraph(input: LayoutInput): GraphLayout {
  const g = new dagre.graphlib.Graph({ multigraph: true, compound: true });
  g.setGraph({ rankdir: "TB", nodesep: 36, ranksep: 48, edgesep: 16, marginx: 16, marginy: 16 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of input.clusters) g.setNode(c.id, { label: c.label, clusterLabelPos: "top", paddingTop: 24 } as never);
  for (const c of input.clusters) if (c.parent) g.setParent(c.id, c.parent);
  for (const n of input.nodes) {
    g.setNode(n.id, { label: n.label, width: n.width, height: n.height });
    if (n.parent) g.setParent(n.id, n.parent);
  }
  for (const e of input.edges) g.setEdge(e.source, e.target, { label: e.label, width: e.label ? e.label.length * 6 : 0, height: e.label ? 14 : 0 }, e.id);
  dagre.layout(g);
  const box = (id: string) => g.node(id) as unknown as { x: number; y: number; width: number; height: number };
  const info = g.graph() as { width?: number; height?: number };
  return {
    nodes: input.nodes.map((n) => {
      const b = box(n.id);
      return { id: n.id, label: n.label, kind: n.kind, x: b.x, y: b.y, width: n.width, height: n.height };
    }),
    clusters: input.clusters.map((c) => {
      const b = box(c.id);
      return { id: c.id, label: c.label, x: b.x, y: b.y, width: b.width, height: b.height };
    }),
    edges: input.edges.map((e) => {
      const placed = g.edge({ v: e.source, w: e.target, name: e.id }) as unknown as { points?: { x: number; y: number }[] };
      return { ...e, points: placed?.points ?? [] };
    }),
    width: info.width ?? 0,
    height: info.height ?? 0,
  };
}

/** The node a streamed `updates` chunk names (its keys are node ids; a subgraph's come namespaced). */
export function nodesOfUpdate(chunk: unknown, namespace?: string): string[] {
  if (!chunk || typeof chunk !== "object") return [];
  const prefix = namespace ? namespace.split("|").map((p) => p.split(":")[0]).join(":") + ":" : "";
  return Object.keys(chunk)
    .filter((k) => k !== "__interrupt__" && k !== "__metadata__")
    .map((k) => prefix + k);
}

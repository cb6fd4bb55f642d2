/**
 * The Studio of one agent server: an assistant picker and the tabs Graph, Assistants, Threads and
 * Run, over one SDK `client` (passed down as a prop, so the same page serves a deployment through
 * the control plane's proxy or a bare `berth serve`). The tab and assistant are in the URL.
 */
import { useQuery } from "@tanstack/react-query";
import type { Client } from "@langchain/langgraph-sdk";
import { ErrorBox, Loading } from "../components/common";
import { AssistantsTab } from "./AssistantsTab";
import { clientKey } from "./client";
import { GraphPanel } from "./GraphView";
import { RunTab } from "./RunTab";
import { ThreadsPanel } from "./threads";
import "./studio.css";

export const STUDIO_TABS = ["graph", "assistants", "threads", "run"] as const;
export type StudioTab = (typeof STUDIO_TABS)[number];
const TAB_LABELS: Record<StudioTab, string> = { graph: "Graph", assistants: "Assistants", threads: "Threads", run: "Run" };

export function isStudioTab(t: string | undefined): t is StudioTab {
  return (STUDIO_TABS as readonly string[]).includes(t ?? "");
}

export function Studio({
  client,
  tab,
  assistantId,
  threadId,
  onNavigate,
  onOpenTrace,
}: {
  client: Client;
  tab: StudioTab;
  assistantId: string | undefined;
  /** The thread opened in the Threads tab (from the address, so a thread can be linked to). */
  threadId?: string;
  onNavigate: (to: { tab?: StudioTab; assistantId?: string; threadId?: string }) => void;
  /** Where a run's trace opens; absent (a bare agent server has no tracing view), no trace links. */
  onOpenTrace?: (runId: string) => void;
}) {
  const assistants = useQuery({
    queryKey: ["studio", clientKey(client), "assistants"],
    queryFn: () => client.assistants.search({ limit: 100, sortBy: "created_at", sortOrder: "asc" }),
  });
  if (assistants.isPending) return <Loading what="assistants" />;
  if (assistants.error) return <ErrorBox error={assistants.error} title="Could not reach the agent server" />;
  const list = assistants.data;
  const assistant = list.find((a) => a.assistant_id === assistantId) ?? list[0];
  if (!assistant) return <p className="empty">This agent server has no assistants.</p>;
  return (
    <div className="studio">
      <div className="studio-bar">
        <label>
          Assistant{" "}
          <select aria-label="Assistant" value={assistant.assistant_id} onChange={(e) => onNavigate({ assistantId: e.target.value })}>
            {list.map((a) => (
              <option key={a.assistant_id} value={a.assistant_id}>
                {a.name} ({a.graph_id})
              </option>
            ))}
          </select>
        </label>
        <nav role="tablist" aria-label="Studio">
          {STUDIO_TABS.map((t) => (
            <button key={t} type="button" role="tab" aria-selected={t === tab} className={t === tab ? "active" : ""} onClick={() => onNavigate({ tab: t })}>
              {TAB_LABELS[t]}
            </button>
          ))}
        </nav>
      </div>
      <div role="tabpanel" aria-label={TAB_LABELS[tab]}>
        {tab === "graph" ? (
          <GraphPanel client={client} assistantId={assistant.assistant_id} />
        ) : tab === "assistants" ? (
          <AssistantsTab client={client} assistant={assistant} onSelect={(id) => onNavigate({ assistantId: id })} />
        ) : tab === "threads" ? (
          <ThreadsPanel
            client={client}
            assistantId={assistant.assistant_id}
            graphId={assistant.graph_id}
            onOpenTrace={onOpenTrace}
            initialThreadId={threadId}
            onSelectThread={(id) => onNavigate({ threadId: id })}
          />
        ) : (
          <RunTab key={assistant.assistant_id} client={client} assistant={assistant} onOpenTrace={onOpenTrace} />
        )}
      </div>
    </div>
  );
}

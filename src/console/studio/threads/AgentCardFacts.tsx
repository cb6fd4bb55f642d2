/**
 * The thread's A2A agent card, when the server has A2A on: the card of the assistant the thread
 * runs (other agents reach this conversation at its URL, with the thread's context id). Nothing
 * is shown when A2A is off (the card is a 404 there).
 */
import type { Client } from "@langchain/langgraph-sdk";
import { JsonView } from "../../messages/JsonView";
import { fetchAgentCard } from "../client";
import { errorText, useLoad } from "./useLoad";

export function AgentCardFacts({ client, assistantId }: { client: Client; assistantId: string }) {
  const card = useLoad((signal) => fetchAgentCard(client, assistantId, signal), [client, assistantId]);
  if (card.error) return <p className="muted">A2A agent card unavailable: {errorText(card.error)}</p>;
  const c = card.data;
  if (!c) return null;
  return (
    <details className="tt-agent-card" aria-label="A2A agent card">
      <summary>
        A2A agent card: <strong>{c.name ?? assistantId}</strong>
        {c.url ? (
          <>
            {" "}
            at <code aria-label="A2A endpoint">{c.url}</code>
          </>
        ) : null}
      </summary>
      {c.description ? <p className="muted">{c.description}</p> : null}
      {c.skills?.length ? <p>Skills: {c.skills.map((s) => s.name ?? s.id).join(", ")}</p> : null}
      <JsonView value={c} label="Agent card" />
    </details>
  );
}

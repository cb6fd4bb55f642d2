/**
 * The LangGraph SDK client the Studio talks through. In the console it goes to the control
 * plane's proxy of the deployment's agent server (`/v2/deployments/{id}/agent`, see
 * src/control-plane/api/agent-proxy.ts): same origin, the session's key and tenant as headers,
 * nothing else kept in the page. Served by a bare agent server (`berth serve`, at /studio), the
 * agent server is the origin itself.
 */
import { Client } from "@langchain/langgraph-sdk";
import type { Session } from "../api/session-store";

export function sessionHeaders(session: Session | null): Record<string, string> {
  const h: Record<string, string> = {};
  if (session?.apiKey) h["X-Api-Key"] = session.apiKey;
  if (session?.tenantId) h["X-Tenant-Id"] = session.tenantId;
  return h;
}

/** The agent server's base URL through the control plane (pure). */
export function deploymentAgentUrl(origin: string, deploymentId: string): string {
  return `${origin}/v2/deployments/${encodeURIComponent(deploymentId)}/agent`;
}

/**
 * What the Studio talks through, in either mode: the agent server's base URL and the headers
 * that authenticate (the console session's, or the key the standalone page asked for).
 */
export interface StudioTransport {
  apiUrl: string;
  headers: Record<string, string>;
}

export function studioClient({ apiUrl, headers }: StudioTransport): Client {
  // apiKey null: the SDK would otherwise look for one in the environment
  return new Client({ apiUrl, apiKey: null, defaultHeaders: headers, callerOptions: { maxRetries: 1 } });
}

const ids = new WeakMap<object, number>();
let nextId = 0;
/** A stable key of one client object, for query caches (two deployments' answers never mix). */
export function clientKey(client: object): number {
  let id = ids.get(client);
  if (id === undefined) ids.set(client, (id = ++nextId));
  return id;
}

/** What the Studio shows of an A2A agent card (the rest is in the raw card). */
export interface AgentCard {
  name?: string;
  description?: string;
  url?: string;
  protocolVersion?: string;
  skills?: { id?: string; name?: string }[];
  [k: string]: unknown;
}

/**
 * An assistant's A2A agent card (`/a2a/{assistant_id}/.well-known/agent-card.json`), or undefined
 * when the server answers 404 (A2A is off: `http.disable_a2a`). The SDK has no call for it; its
 * client's own request (protected `fetch`) is used so the card comes with the same base URL,
 * headers and errors as every other Studio request.
 */
export async function fetchAgentCard(client: Client, assistantId: string, signal?: AbortSignal): Promise<AgentCard | undefined> {
  const sdk = client.assistants as unknown as { fetch(path: string, init: { signal?: AbortSignal }): Promise<AgentCard> };
  try {
    return await sdk.fetch.call(client.assistants, `/a2a/${encodeURIComponent(assistantId)}/.well-known/agent-card.json`, { signal });
  } catch (err) {
    if ((err as { status?: number }).status === 404) return undefined;
    throw err;
  }
}

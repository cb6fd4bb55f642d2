/**
 * The A2A agent card of an assistant (pure), per the v0.3 schema: protocol version, absolute
 * endpoint URL, JSON-RPC transport, capabilities, input/output modes and at least one skill.
 */

export interface CardInput {
  assistantId: string;
  name: string;
  description?: string | null;
  graphId: string;
  graphDescription?: string;
  /** Absolute base URL of the deployment (from a configured public URL or the request). */
  baseUrl: string;
  version: string;
  streaming: boolean;
  pushNotifications: boolean;
  /** Media types the assistant takes (its `metadata.a2a.input_modes`). */
  inputModes?: string[];
}

export function buildAgentCard(input: CardInput) {
  const description = input.description || input.graphDescription || `${input.name} assistant (LangGraph graph "${input.graphId}")`;
  const url = `${input.baseUrl.replace(/\/+$/, "")}/a2a/${encodeURIComponent(input.assistantId)}`;
  return {
    protocolVersion: "0.3.0",
    name: input.name,
    description,
    url,
    // v1.0 clients look here: the same endpoint answers v1.0 method names in v1.0 shapes
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    preferredTransport: "JSONRPC",
    version: input.version,
    capabilities: { streaming: input.streaming, pushNotifications: input.pushNotifications, stateTransitionHistory: false },
    defaultInputModes: input.inputModes ?? ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [
      {
        id: `${input.assistantId}-main`,
        name: `${input.name} capabilities`,
        description,
        tags: ["assistant", "langgraph", input.graphId],
      },
    ],
  };
}

/**
 * The public base URL for links in the card: a configured URL wins; otherwise the request's own,
 * honouring a proxy's X-Forwarded-Proto / X-Forwarded-Host (first value of each).
 */
export function publicBaseUrl(configured: string | undefined, req: { protocol: string; host: string | undefined; forwardedProto?: string; forwardedHost?: string }): string {
  if (configured) return configured.replace(/\/+$/, "");
  const proto = req.forwardedProto?.split(",")[0]?.trim() || req.protocol;
  const host = req.forwardedHost?.split(",")[0]?.trim() || req.host || "localhost";
  return `${proto}://${host}`;
}

/**
 * The A2A agent card of an assistant (pure: a function of the assistant, the server's auth
 * description and the base URL), in two shapes:
 * - v0.3 (the default): protocol version, absolute endpoint URL, JSON-RPC transport, capabilities,
 *   input/output modes, at least one skill, and `supportedInterfaces` so that v1.0 clients that do
 *   not ask for a version still find the endpoint; security as OpenAPI-style `securitySchemes`
 *   (`type` discriminator) + `security`, and `supportsAuthenticatedExtendedCard`;
 * - v1.0 (for a client that sends `A2A-Version: 1.x`): `supportedInterfaces` only, security as the
 *   proto JSON of `SecurityScheme` (`apiKeySecurityScheme` …) + `securityRequirements`, and
 *   `capabilities.extendedAgentCard`.
 * The two security shapes share the name `securitySchemes`, so one card cannot carry both.
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
  /** The server's `RequestAuthenticator.describe()`: `mode` none | platform | custom, and what it accepts. */
  auth: Record<string, unknown>;
}

export type CardDialect = "v0.3" | "v1";

/** One way to authenticate, independent of how a card version spells it. */
type Scheme =
  | { name: string; kind: "apiKey"; header: string; description: string }
  | { name: string; kind: "http"; scheme: "bearer"; bearerFormat?: string; description: string };

/**
 * What the card says about authentication, read from the authenticator's description:
 * - `none`: nothing (no requirement);
 * - `platform`: an API key in `X-Api-Key` (or `describe().apiKeyHeader`), plus HTTP bearer when
 *   `describe().bearer` (or `jwt`) is true — the control plane's JWTs;
 * - `custom`: the project's own auth (`langgraph.json` `auth.path`), which reads whatever headers it
 *   wants: one generic bearer scheme saying so (the LangGraph convention is `Authorization`).
 * Any one scheme is enough (each is its own requirement: requirements are alternatives).
 */
export function authSchemes(auth: Record<string, unknown>): Scheme[] {
  if (auth.mode === "platform") {
    const header = typeof auth.apiKeyHeader === "string" && auth.apiKeyHeader ? auth.apiKeyHeader : "X-Api-Key";
    const schemes: Scheme[] = [{ name: "apiKey", kind: "apiKey", header, description: "An API key of the deployment's workspace." }];
    if (auth.bearer === true || auth.jwt === true) {
      schemes.push({ name: "bearer", kind: "http", scheme: "bearer", bearerFormat: "JWT", description: "A token issued by the Berth control plane." });
    }
    return schemes;
  }
  if (auth.mode === "custom") {
    return [{ name: "custom", kind: "http", scheme: "bearer", description: "The deployment's own authentication (langgraph.json auth.path): send the credentials it expects." }];
  }
  return [];
}

function schemeV03(s: Scheme) {
  return s.kind === "apiKey"
    ? { type: "apiKey", in: "header", name: s.header, description: s.description }
    : { type: "http", scheme: s.scheme, ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}), description: s.description };
}

function schemeV1(s: Scheme) {
  return s.kind === "apiKey"
    ? { apiKeySecurityScheme: { location: "header", name: s.header, description: s.description } }
    : { httpAuthSecurityScheme: { scheme: s.scheme, ...(s.bearerFormat ? { bearerFormat: s.bearerFormat } : {}), description: s.description } };
}

/** The parts both card versions share. */
function cardParts(input: CardInput) {
  const description = input.description || input.graphDescription || `${input.name} assistant (LangGraph graph "${input.graphId}")`;
  const url = `${input.baseUrl.replace(/\/+$/, "")}/a2a/${encodeURIComponent(input.assistantId)}`;
  const schemes = authSchemes(input.auth);
  // with authentication there is an extended card: the card, for callers who proved who they are
  const extendedCard = schemes.length > 0;
  const common = {
    name: input.name,
    description,
    // v1.0 clients look here: the same endpoint answers v1.0 method names in v1.0 shapes
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    version: input.version,
  };
  const rest = {
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
  return { url, schemes, extendedCard, common, rest };
}

/** The v1.0 card (proto JSON field names). */
export function buildAgentCardV1(input: CardInput) {
  const { schemes, extendedCard, common, rest } = cardParts(input);
  return {
    ...common,
    capabilities: { streaming: input.streaming, pushNotifications: input.pushNotifications, extendedAgentCard: extendedCard },
    ...(extendedCard
      ? {
          securitySchemes: Object.fromEntries(schemes.map((s) => [s.name, schemeV1(s)])),
          securityRequirements: schemes.map((s) => ({ schemes: { [s.name]: { list: [] } } })),
        }
      : {}),
    ...rest,
  };
}

/** The v0.3 card (plus `supportedInterfaces`, as a2a-js's compat server answers). */
export function buildAgentCard(input: CardInput) {
  const { url, schemes, extendedCard, common, rest } = cardParts(input);
  return {
    protocolVersion: "0.3.0",
    ...common,
    url,
    preferredTransport: "JSONRPC",
    capabilities: { streaming: input.streaming, pushNotifications: input.pushNotifications, stateTransitionHistory: false },
    ...(extendedCard
      ? {
          securitySchemes: Object.fromEntries(schemes.map((s) => [s.name, schemeV03(s)])),
          security: schemes.map((s) => ({ [s.name]: [] })),
        }
      : {}),
    supportsAuthenticatedExtendedCard: extendedCard,
    ...rest,
  };
}

/** The card dialect a client asks for with `A2A-Version` (v1.0 clients send "1.0"; none → v0.3). */
export function cardDialectOf(a2aVersion: string | undefined): CardDialect {
  const major = Number.parseInt(a2aVersion?.trim().split(".")[0] ?? "", 10);
  return major >= 1 ? "v1" : "v0.3";
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

export function agentCardFor(input: CardInput, dialect: CardDialect) {
  return dialect === "v1" ? buildAgentCardV1(input) : buildAgentCard(input);
}

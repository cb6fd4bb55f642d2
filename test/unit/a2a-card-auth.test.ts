/**
 * The agent card's security for each auth mode, in both card versions (the card builder is pure),
 * checked against the v0.3 JSON Schema and read back by the @a2a-js/sdk 1.x proto types; and the
 * generic proto-name normalisation of v1.0 request params.
 */
import { AgentCard } from "@a2a-js/sdk";
import { describe, expect, it } from "vitest";
import { buildAgentCard, buildAgentCardV1, cardDialectOf, type CardInput } from "../../src/agent-server/a2a/card.js";
import { normalizeV1Params } from "../../src/agent-server/a2a/v1.js";
import { a2aSchemaErrors } from "../helpers/a2a-schema.js";

const input = (auth: Record<string, unknown>): CardInput => ({
  assistantId: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
  name: "agent",
  graphId: "agent",
  baseUrl: "https://agents.example.com",
  version: "0.1.0",
  streaming: true,
  pushNotifications: true,
  auth,
});

describe("A2A agent card security", () => {
  it("platform auth: an API key in X-Api-Key (and bearer JWTs when accepted), with an extended card, in both shapes", () => {
    const keyOnly = buildAgentCard(input({ mode: "platform" })) as any;
    expect(a2aSchemaErrors("AgentCard", keyOnly)).toEqual([]);
    expect(keyOnly.securitySchemes).toEqual({ apiKey: expect.objectContaining({ type: "apiKey", in: "header", name: "X-Api-Key" }) });
    expect(keyOnly.security).toEqual([{ apiKey: [] }]);
    expect(keyOnly.supportsAuthenticatedExtendedCard).toBe(true);

    const withJwt = buildAgentCard(input({ mode: "platform", bearer: true })) as any;
    expect(a2aSchemaErrors("AgentCard", withJwt)).toEqual([]);
    expect(withJwt.securitySchemes.bearer).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    // either one is enough: requirements are alternatives
    expect(withJwt.security).toEqual([{ apiKey: [] }, { bearer: [] }]);

    const v1 = buildAgentCardV1(input({ mode: "platform", jwt: true })) as any;
    expect(v1.capabilities.extendedAgentCard).toBe(true);
    expect(v1.protocolVersion).toBeUndefined();
    expect(v1.security).toBeUndefined();
    // the 1.x SDK's proto types read it as an API key scheme and an HTTP bearer scheme
    const parsed = AgentCard.fromJSON(v1);
    expect(parsed.securitySchemes.apiKey?.scheme).toEqual({ $case: "apiKeySecurityScheme", value: expect.objectContaining({ location: "header", name: "X-Api-Key" }) });
    expect(parsed.securitySchemes.bearer?.scheme).toEqual({ $case: "httpAuthSecurityScheme", value: expect.objectContaining({ scheme: "bearer", bearerFormat: "JWT" }) });
    expect(parsed.securityRequirements.map((r) => Object.keys(r.schemes))).toEqual([["apiKey"], ["bearer"]]);
    expect(parsed.capabilities?.extendedAgentCard).toBe(true);
    expect(parsed.supportedInterfaces.map((i) => i.protocolVersion)).toEqual(["1.0", "0.3"]);
  });

  it("custom auth: one generic bearer scheme naming the project's own auth", () => {
    const v03 = buildAgentCard(input({ mode: "custom" })) as any;
    expect(a2aSchemaErrors("AgentCard", v03)).toEqual([]);
    expect(Object.values(v03.securitySchemes)).toEqual([expect.objectContaining({ type: "http", scheme: "bearer", description: expect.stringMatching(/auth\.path/) })]);
    expect(v03.supportsAuthenticatedExtendedCard).toBe(true);
    const v1 = AgentCard.fromJSON(buildAgentCardV1(input({ mode: "custom" })));
    expect(Object.values(v1.securitySchemes).map((s) => s.scheme?.$case)).toEqual(["httpAuthSecurityScheme"]);
    expect(v1.securityRequirements).toHaveLength(1);
  });

  it("no auth: no security requirement and no extended card", () => {
    const v03 = buildAgentCard(input({ mode: "none" })) as any;
    expect(a2aSchemaErrors("AgentCard", v03)).toEqual([]);
    expect(v03.securitySchemes).toBeUndefined();
    expect(v03.security).toBeUndefined();
    expect(v03.supportsAuthenticatedExtendedCard).toBe(false);
    const v1 = buildAgentCardV1(input({ mode: "none" })) as any;
    expect(v1.securitySchemes).toBeUndefined();
    expect(v1.securityRequirements).toBeUndefined();
    expect(v1.capabilities.extendedAgentCard).toBe(false);
    // an unknown mode is not taken for "secured"
    expect((buildAgentCard(input({ mode: "something" })) as any).securitySchemes).toBeUndefined();
  });

  it("the card version follows A2A-Version", () => {
    expect(cardDialectOf("1.0")).toBe("v1");
    expect(cardDialectOf(" 1.1")).toBe("v1");
    expect(cardDialectOf("0.3")).toBe("v0.3");
    expect(cardDialectOf(undefined)).toBe("v0.3");
    expect(cardDialectOf("garbage")).toBe("v0.3");
  });
});

describe("v1.0 params under their JSON names", () => {
  it("renames proto field names at every depth but leaves free-form Struct/Value contents alone", () => {
    expect(
      normalizeV1Params({
        message: { message_id: "m", task_id: "t", parts: [{ text: "x", media_type: "text/plain", data: { keep_this: 1 } }], metadata: { my_key: { inner_key: 1 } } },
        configuration: { history_length: 2, task_push_notification_config: { task_id: "t", url: "u" } },
      }),
    ).toEqual({
      message: { messageId: "m", taskId: "t", parts: [{ text: "x", mediaType: "text/plain", data: { keep_this: 1 } }], metadata: { my_key: { inner_key: 1 } } },
      configuration: { historyLength: 2, taskPushNotificationConfig: { taskId: "t", url: "u" } },
    });
  });

  it("refuses one field given under both names", () => {
    expect(() => normalizeV1Params({ task_id: "a", taskId: "b" })).toThrow(/taskId: given twice/);
  });
});

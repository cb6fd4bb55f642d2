import { describe, expect, it } from "vitest";
import { buildAgentCard, publicBaseUrl } from "../../src/agent-server/a2a/card.js";
import { buildTask, contentText, lastAgentReply, limitHistory, taskStateOf } from "../../src/agent-server/a2a/tasks.js";
import { a2aSchemaErrors } from "../helpers/a2a-schema.js";

const turn = [
  { type: "human", content: "What is 2+2?", id: "m-user" },
  { type: "ai", content: [{ type: "text", text: "It is " }, { type: "text", text: "4." }], id: "m-ai" },
];
const base = { taskId: "t-1", contextId: "c-1", timestamp: "2026-11-21T10:00:00.000Z", turn };

describe("A2A task mapping", () => {
  it("maps run and thread states to task states", () => {
    expect(taskStateOf("pending", false)).toBe("submitted");
    expect(taskStateOf("running", false)).toBe("working");
    expect(taskStateOf("success", false)).toBe("completed");
    expect(taskStateOf("success", true)).toBe("input-required");
    expect(taskStateOf("error", false)).toBe("failed");
    expect(taskStateOf("timeout", false)).toBe("failed");
    expect(taskStateOf("interrupted", false)).toBe("canceled");
  });

  it("reads text from string and block content, and finds the last agent reply", () => {
    expect(contentText("hi")).toBe("hi");
    expect(contentText([{ type: "text", text: "a" }, { type: "image", url: "x" }, "b"])).toBe("ab");
    expect(lastAgentReply({ messages: turn })?.id).toBe("m-ai");
    expect(lastAgentReply({ messages: [turn[0]] })).toBeUndefined();
    expect(lastAgentReply({ nothing: true })).toBeUndefined();
  });

  it("limits history: absent → all, 0 → none, n → the n most recent", () => {
    expect(limitHistory([1, 2, 3], undefined)).toEqual([1, 2, 3]);
    expect(limitHistory([1, 2, 3], 0)).toEqual([]);
    expect(limitHistory([1, 2, 3], 2)).toEqual([2, 3]);
  });

  it("builds a completed task with the reply as artifact and status message, valid against the v0.3 schema", () => {
    const task = buildTask({ ...base, state: "completed" });
    expect(a2aSchemaErrors("Task", task)).toEqual([]);
    expect(task.status.message?.parts).toEqual([{ kind: "text", text: "It is 4." }]);
    expect(task.artifacts?.[0]?.parts).toEqual([{ kind: "text", text: "It is 4." }]);
    expect(task.history.map((m) => m.role)).toEqual(["user", "agent"]);
    expect(buildTask({ ...base, state: "completed", historyLength: 0 }).history).toEqual([]);
  });

  it("builds waiting and failed tasks with a status message and no artifact", () => {
    for (const state of ["input-required", "failed", "working", "submitted"] as const) {
      const task = buildTask({ ...base, state, statusText: state === "working" ? undefined : `state ${state}` });
      expect(a2aSchemaErrors("Task", task), state).toEqual([]);
      expect(task.artifacts).toBeUndefined();
    }
  });

  it("the schema check itself rejects a malformed task", () => {
    expect(a2aSchemaErrors("Task", { kind: "task", id: "x" }).length).toBeGreaterThan(0);
  });
});

describe("A2A agent card", () => {
  const card = buildAgentCard({
    assistantId: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
    name: "agent",
    graphId: "agent",
    baseUrl: "https://agents.example.com/",
    version: "0.1.0",
    streaming: true,
    pushNotifications: true,
    auth: { mode: "none" },
  });

  it("is valid against the v0.3 schema, with an absolute JSON-RPC url and a non-empty skill list", () => {
    expect(a2aSchemaErrors("AgentCard", card)).toEqual([]);
    expect(card.url).toBe("https://agents.example.com/a2a/fe096781-5601-53d2-b2f6-0d3403f7e9ca");
    expect(card.preferredTransport).toBe("JSONRPC");
    expect(card.skills[0]!.tags).toContain("agent");
  });

  it("takes its base URL from configuration, else from forwarded headers, else from the request", () => {
    expect(publicBaseUrl("https://public.example/", { protocol: "http", host: "internal:8000" })).toBe("https://public.example");
    expect(publicBaseUrl(undefined, { protocol: "http", host: "internal:8000", forwardedProto: "https, http", forwardedHost: "edge.example" })).toBe(
      "https://edge.example",
    );
    expect(publicBaseUrl(undefined, { protocol: "http", host: "127.0.0.1:8123" })).toBe("http://127.0.0.1:8123");
  });
});

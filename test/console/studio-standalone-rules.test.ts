/**
 * The standalone Studio's pure parts and the run panel's status: where the page finds its agent
 * server (under a mount prefix too), the credential's headers and the auth mode from /info, and a
 * run that stopped to wait shown as `interrupted` although the server (like LangGraph Platform)
 * reports it `success` and only the thread `interrupted`.
 */
import { describe, expect, it } from "vitest";
import { applyEvent, EMPTY_RUN, shownRunStatus, type RunView } from "../../src/console/studio/run-events";
import { studioLocation } from "../../src/console/studio/standalone/location";
import { authModeOf, credentialHeaders } from "../../src/console/studio/standalone/auth";

const run = (events: [string, unknown][]): RunView => events.reduce((v, [e, d]) => applyEvent(v, e, d), EMPTY_RUN);

describe("a run that stopped to wait", () => {
  it("at interrupt(): the stream's interrupts make the panel say interrupted, not success", () => {
    const v = run([
      ["tasks", { id: "t", name: "review", input: {} }],
      ["updates", { __interrupt__: [{ value: { question: "Send?" }, id: "i1" }] }],
      ["values", { messages: [], __interrupt__: [{ value: { question: "Send?" }, id: "i1" }] }],
    ]);
    expect(v.paused).toBe(true);
    expect(shownRunStatus("success", v.paused)).toBe("interrupted");
  });

  it("at a breakpoint (interrupt_before): an empty __interrupt__ still pauses it", () => {
    const v = run([
      ["values", { messages: [{ type: "human", content: "hi" }] }],
      ["updates", { __interrupt__: [] }],
      ["values", { __interrupt__: [] }],
    ]);
    expect(v.interrupts).toEqual([]);
    expect(v.paused).toBe(true);
    expect(shownRunStatus("success", v.paused)).toBe("interrupted");
  });

  it("a run that finished, failed or was cancelled keeps the server's status", () => {
    const v = run([["updates", { agent: { messages: [] } }], ["values", { messages: [] }]]);
    expect(v.paused).toBe(false);
    expect(shownRunStatus("success", v.paused)).toBe("success");
    expect(shownRunStatus("error", true)).toBe("error");
    expect(shownRunStatus("interrupted", false)).toBe("interrupted");
    // a run the server no longer knows is settled by settledRunStatus (never a guessed success): studio-rules
  });
});

describe("the standalone Studio's way to its agent server", () => {
  it("is the page's own origin, under the server's mount prefix when there is one", () => {
    expect(studioLocation("http://127.0.0.1:8123", "/studio/")).toEqual({ apiUrl: "http://127.0.0.1:8123", basename: "/studio" });
    expect(studioLocation("http://127.0.0.1:8123", "/studio/run")).toEqual({ apiUrl: "http://127.0.0.1:8123", basename: "/studio" });
    expect(studioLocation("http://h", "/api/v1/studio/threads")).toEqual({ apiUrl: "http://h/api/v1", basename: "/api/v1/studio" });
    expect(studioLocation("http://h", "/a/studio/b/studio/")).toEqual({ apiUrl: "http://h/a/studio/b", basename: "/a/studio/b/studio" });
  });

  it("sends the credential as the person chose, and none when /info says the server has no auth", () => {
    expect(credentialHeaders(null)).toEqual({});
    expect(credentialHeaders({ header: "x-api-key", value: "k" })).toEqual({ "X-Api-Key": "k" });
    expect(credentialHeaders({ header: "authorization", value: "t" })).toEqual({ Authorization: "Bearer t" });
    expect(authModeOf({ auth: { mode: "none" } })).toBe("none");
    expect(authModeOf({ auth: { mode: "platform", keys: {} } })).toBe("platform");
    expect(authModeOf({ auth: { mode: "custom" } })).toBe("custom");
    expect(authModeOf(null)).toBe("none");
  });
});

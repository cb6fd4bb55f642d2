/** Which SSE events a client that asked for some stream modes receives. */
import { describe, expect, it } from "vitest";
import { eventMatchesModes } from "../../src/agent-server/runs/stream.js";

describe("eventMatchesModes", () => {
  it("with no modes given, every event passes", () => {
    for (const event of ["values", "updates", "messages/partial", "custom", "debug|sub:1"]) {
      expect(eventMatchesModes(event, undefined)).toBe(true);
      expect(eventMatchesModes(event, [])).toBe(true);
    }
  });

  it("metadata and error always pass", () => {
    expect(eventMatchesModes("metadata", ["values"])).toBe(true);
    expect(eventMatchesModes("error", ["updates"])).toBe(true);
  });

  it("plain modes match their own events only", () => {
    expect(eventMatchesModes("values", ["values"])).toBe(true);
    expect(eventMatchesModes("updates", ["values"])).toBe(false);
    expect(eventMatchesModes("custom", ["values", "custom"])).toBe(true);
    expect(eventMatchesModes("tasks", ["checkpoints"])).toBe(false);
    expect(eventMatchesModes("checkpoints", ["checkpoints"])).toBe(true);
    expect(eventMatchesModes("events", ["events"])).toBe(true);
    expect(eventMatchesModes("debug", ["values"])).toBe(false);
  });

  it("messages/* events belong to the messages mode; the bare messages event to messages-tuple", () => {
    for (const e of ["messages/partial", "messages/complete", "messages/metadata"]) {
      expect(eventMatchesModes(e, ["messages"])).toBe(true);
      expect(eventMatchesModes(e, ["messages-tuple"])).toBe(false);
    }
    expect(eventMatchesModes("messages", ["messages-tuple"])).toBe(true);
    expect(eventMatchesModes("messages", ["messages"])).toBe(false);
  });

  it("subgraph events (`mode|namespace`) match by their mode", () => {
    expect(eventMatchesModes("values|child:1234", ["values"])).toBe(true);
    expect(eventMatchesModes("updates|child:1234", ["values"])).toBe(false);
    expect(eventMatchesModes("messages/partial|child:1", ["messages"])).toBe(true);
    expect(eventMatchesModes("messages|child:1", ["messages-tuple"])).toBe(true);
  });
});
